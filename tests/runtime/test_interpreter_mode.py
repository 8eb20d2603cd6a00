"""ASC_DEBUG=1 runs every kernel in the interpreter: the user's own Python, so print() and pdb work at the kernel's
lines, with the compiled typing rules."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

import asc.language as lang
from asc.builtins import BUILTINS

SCRIPT = textwrap.dedent('''
    from __future__ import annotations
    import numpy as np
    import asc.language as lang

    @lang.kernel
    def scale(x: lang.float16[N], s: lang.float16 = 2.0) -> lang.float16[N]:
        out = lang.empty_like(x)
        for i in range(N):
            v = x[i] * s
            print("i", i, v)
            out[i] = v
        return out

    y = scale(np.array([1.5, 3.0], np.float16))
    print("result", y.dtype, y.tolist(), type(y).__name__)
''')


def run(tmp_path, code, stdin=None, **env):
    p = tmp_path / "k.py"
    p.write_text(code)
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, str(p)], capture_output=True, text=True, env=e, input=stdin,
                          cwd=tmp_path, timeout=120)


def test_asc_debug_prints_from_the_kernel_with_compiled_types(tmp_path):
    r = run(tmp_path, SCRIPT, ASC_DEBUG="1")
    assert r.returncode == 0, r.stderr
    # 16-bit floats are computed in float32, stored rounded: the interpreter shows the compiled rule
    assert r.stdout.splitlines() == ["i 0 3.0", "i 1 6.0",
                                     "result float16 [3.0, 6.0] ndarray"]


def test_breakpoint_stops_at_the_kernel_line(tmp_path):
    code = SCRIPT.replace('        v = x[i] * s\n', '        v = x[i] * s\n        breakpoint()\n')
    r = run(tmp_path, code, stdin="p i, v\nc\np i\nc\n", ASC_DEBUG="1", PYTHONBREAKPOINT="pdb.set_trace")
    assert r.returncode == 0, r.stderr
    assert "k.py(12)scale()" in r.stdout            # pdb shows the kernel's own file and line
    # the value is carried in float32 (the compiled rule for float16 arithmetic)
    assert "(0, np.float32(3.0))" in r.stdout and "\n(Pdb) 1\n" in r.stdout


@lang.kernel(target="interpret")
def interp_only(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + 1
    return out


def test_interpret_target_needs_no_compiler(monkeypatch):
    import asc.environment
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    asc.environment.reload()
    try:
        np.testing.assert_array_equal(interp_only(np.zeros(3, np.float32)), np.ones(3, np.float32))
    finally:
        monkeypatch.delenv("CXX")
        asc.environment.reload()


def test_every_builtin_is_documented():
    for name, b in BUILTINS.items():
        assert b.__doc__ and len(b.__doc__) > 10, name
        assert getattr(lang, name) is b
