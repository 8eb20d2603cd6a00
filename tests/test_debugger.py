"""`python -m asc.debugger`: pdb opens at the failing kernel line (driven through stdin)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    from __future__ import annotations
    import numpy as np
    import asc.language as lang

    @lang.kernel
    def shift(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            j = i + 1
            out[i] = x[j] * 2.0
        return out

    print(shift(np.arange(4, dtype=np.float32)))
''')


def debug(tmp_path, stdin, *opts):
    p = tmp_path / "script.py"
    p.write_text(SCRIPT)
    return subprocess.run([sys.executable, "-m", "asc.debugger", *opts, str(p)], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)


def test_opens_pdb_at_the_kernel_line_with_locals(tmp_path):
    r = debug(tmp_path, "p i, j\nq\n")
    assert "IndexError in kernel 'shift' at" in r.stdout and "script.py:11" in r.stdout
    assert "  i = 3" in r.stdout and "  j = 4" in r.stdout and "x: tensor float32[4]" in r.stdout
    assert "script.py(11)shift()" in r.stdout and "-> out[i] = x[j] * 2.0" in r.stdout
    assert "(Pdb) (3, 4)" in r.stdout


def test_compiled_target_names_the_line(tmp_path):
    r = debug(tmp_path, "q\n", "--target", "cpu")
    assert "MemoryCheckError" in r.stderr and "script.py:11" in r.stderr and "index 4 is out of bounds" in r.stderr
