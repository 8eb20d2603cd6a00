"""What `import asc.language` (and `import asc`) loads: not torch, not ml_dtypes (its 0.7 extension takes up to 1.3 s
to import), not the renderers, not the compiler pipeline. Those load when a program uses them: a bfloat16 value, a
kernel's first call. Each check runs in a fresh interpreter (this test session has imported them all); bfloat16
kernels must work in every way a program can first use bfloat16 (docs/architecture.md, "Import time"). The import
time itself is a benchmark figure (`asc bench`: import asc), never a timed test."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# modules `import asc.language` / `import asc` must not load
HEAVY = ("torch", "ml_dtypes", "asc.backends", "asc.compiler", "asc.frontend", "asc.passes", "asc.runtime.launcher",
         "asc.ascendc")


def run_fresh(code: str, tmp_path) -> str:
    """`code` run as a script (kernels need a file) in a fresh interpreter; its output."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=str(tmp_path),
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


def test_import_loads_none_of_the_heavy_modules(tmp_path):
    out = run_fresh(f"""
        import sys
        import asc.language as lang
        import asc
        heavy = {HEAVY!r}
        loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
        assert not loaded, loaded
        # the names a program reaches first are there, and asking about bfloat16 does not import ml_dtypes
        assert lang.bfloat16 == "bfloat16" and lang.bfloat16 != lang.float16 and repr(lang.bfloat16) == "lang.bfloat16"
        assert lang.float32 == __import__("numpy").float32
        assert "ml_dtypes" not in sys.modules
        print("ok")
        """, tmp_path)
    assert out.strip() == "ok"


def test_decorating_a_kernel_loads_no_renderer(tmp_path):
    run_fresh("""
        import sys
        import asc.language as lang
        @lang.kernel
        def k(x: lang.float32[4]) -> lang.float32[4]:
            return x * 2.0
        assert not [m for m in sys.modules if m.startswith(("asc.backends", "ml_dtypes", "torch"))]
        """, tmp_path)


def test_bfloat16_kernels_after_the_lazy_import(tmp_path):
    """bfloat16 first reached through lang.bfloat16.np: compiled and interpreted kernels, a bfloat16 scalar
    parameter (rounded once from the double), the numeric check on a bfloat16 output."""
    run_fresh("""
        import sys
        import numpy as np
        import asc, asc.language as lang
        assert "ml_dtypes" not in sys.modules
        N = lang.dim("N")

        @lang.kernel
        def scale(x: lang.bfloat16[N], s: lang.bfloat16) -> lang.bfloat16[N]:
            out = lang.empty_like(x)
            for i in range(N):
                out[i] = lang.maximum(x[i] * s, -lang.exp(x[i] * 0.0) * 1e30)
            return out

        bf16 = lang.bfloat16.np                # the first use: imports ml_dtypes
        assert "ml_dtypes" in sys.modules and bf16.name == "bfloat16"
        x = np.array([1.0, 2.0, -4.0, 0.5, 64.0], dtype=bf16)
        s = 1.0 + 2.0 ** -8 + 2.0 ** -30        # as a bfloat16 scalar: 1 + 2**-7 (rounded once, up), not 1.0
        want = (x.astype(np.float64) * (1 + 2 ** -7)).astype(bf16)        # (exact)
        for f in (scale, scale, lang.kernel(target="interpret")(scale.pyfunc)):   # (the second: the launcher)
            got = f(x, s)
            assert got.dtype == bf16, got.dtype
            assert np.array_equal(got.view(np.int16), want.view(np.int16)), (got, want)

        @lang.kernel(numeric_check=True)
        def grow(x: lang.bfloat16[N]) -> lang.bfloat16[N]:
            return x * 1e38
        try:
            grow(x)
        except asc.NumericCheckError as e:
            assert "index (2,)" in str(e), e
        else:
            raise AssertionError("no NumericCheckError for a bfloat16 inf")
        """, tmp_path)


def test_bfloat16_arrays_from_ml_dtypes_imported_by_the_program(tmp_path):
    """The program imports ml_dtypes itself (after asc): its bfloat16 arrays bind, as arguments and as dtypes."""
    run_fresh("""
        import numpy as np
        import asc.language as lang
        import ml_dtypes
        from asc.dtypes import as_dtype
        assert as_dtype(ml_dtypes.bfloat16) is lang.bfloat16 and as_dtype(np.dtype("bfloat16")) is lang.bfloat16

        @lang.kernel
        def add1(x):
            return x + 1.0
        x = np.array([0.5, 1.5, 255.0], dtype=ml_dtypes.bfloat16)
        for f in (add1, lang.kernel(target="interpret")(add1.pyfunc)):
            y = f(x)
            assert y.dtype == ml_dtypes.bfloat16, y.dtype
            assert y.astype(np.float32).tolist() == [1.5, 2.5, 256.0], y
        """, tmp_path)


def test_torch_bfloat16_tensors_after_a_float32_torch_call(tmp_path):
    """torch imported, a float32 kernel called with torch tensors (the launcher learns torch's dtypes before any
    bfloat16 was used), then a bfloat16 kernel with torch bfloat16 tensors: correct, and its second call is served
    by the launcher (bfloat16 joined the launcher's torch table when ml_dtypes was imported)."""
    run_fresh("""
        import sys
        import torch
        import asc.language as lang
        assert "ml_dtypes" not in sys.modules
        N = lang.dim("N")

        @lang.kernel
        def twice32(x: lang.float32[N]) -> lang.float32[N]:
            return x * 2.0
        assert twice32(torch.ones(4)).tolist() == [2.0] * 4

        @lang.kernel
        def twice(x: lang.bfloat16[N], out: lang.bfloat16[N]):
            for i in range(N):
                out[i] = x[i] * 2.0
        x = torch.tensor([1.0, 1.5, -3.0, 128.0], dtype=torch.bfloat16)
        for _ in range(2):
            out = torch.zeros(4, dtype=torch.bfloat16)
            twice(x, out)
            assert out.float().tolist() == [2.0, 3.0, -6.0, 256.0], out
        assert twice.stats["calls"] == 1 and twice.cache_info()["calls"] == 2, twice.cache_info()

        @lang.kernel(target="interpret")
        def twice_i(x: lang.bfloat16[N]) -> lang.bfloat16[N]:
            return x * 2.0
        y = twice_i(x)
        assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16 and y.float().tolist() == [2.0, 3.0, -6.0, 256.0]
        """, tmp_path)


def test_the_default_stage_is_the_compilers():
    import asc.compiler
    import asc.dispatch.kernels
    assert asc.dispatch.kernels.SOURCE == asc.compiler.SOURCE
