"""Products the cube path does not take (a transposed A, products next to element code that no phase plan takes)
run on ascend-sim as element loops in the scalar fallback, with a warning naming the line, and agree with NumPy and
the interpreter; sizes that are not multiples of 16 and float32 products take the cube path (test_ascend_cube_f32.py
has the rest)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend import AscendFallbackWarning
from asc.examples.seed_tensor import fused_mlp, matmul_any


def sim(kernel, decorator=lang.cube_kernel):
    return decorator(target="ascend-sim")(kernel.pyfunc)


@lang.kernel
def gram(x: lang.float32[R, C]) -> lang.float32[C, C]:
    return lang.matmul(lang.transpose(x), x)


@pytest.mark.parametrize("shape", [(17, 33, 9), (1, 1, 1), (16, 20, 32)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_odd_sizes_and_float32_products(shape, dtype):
    """Tails in M, N and K and float32 operands: the cube path (padded in L1), no fallback."""
    M, K, N = shape
    rng = np.random.default_rng(M * 100 + K)
    A, B = rng.standard_normal((M, K)).astype(dtype), rng.standard_normal((K, N)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)     # no fallback here
        got = sim(matmul_any)(A, B)
    assert "Mmad" in matmul_any.source("ascend", A, B)
    want = A.astype(np.float64) @ B.astype(np.float64)
    tol = 2e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)
    interp = lang.cube_kernel(target="interpret")(matmul_any.pyfunc)(A, B)
    np.testing.assert_allclose(got.astype(np.float64), interp.astype(np.float64), rtol=tol, atol=tol)


def test_transposed_operand_and_the_fused_mlp():
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", AscendFallbackWarning)
        np.testing.assert_allclose(sim(gram, lang.kernel)(x), x.T @ x, rtol=1e-5, atol=1e-5)
    assert any(issubclass(x.category, AscendFallbackWarning) and "no transposed A" in str(x.message) for x in w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AscendFallbackWarning)
        rng = np.random.default_rng(2)
        a, w1, w2 = (rng.standard_normal(s).astype(np.float32) * 0.5 for s in ((4, 6), (6, 8), (8, 3)))
        # its intermediate (a @ w1, activated) is a temporary: in the Unified Buffer of scalar code (it was refused)
        got = sim(fused_mlp, lang.fused_kernel)(a, w1, w2)
    want = lang.fused_kernel(target="interpret")(fused_mlp.pyfunc)(a, w1, w2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_the_cube_path_still_serves_multiples_of_16():
    A, B = (np.random.default_rng(3).standard_normal((32, 32)).astype(np.float16) for _ in range(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)     # no fallback here
        got = sim(matmul_any)(A, B)
    np.testing.assert_allclose(got.astype(np.float64), A.astype(np.float64) @ B.astype(np.float64), rtol=2e-2,
                               atol=2e-2)
    assert "Mmad" in matmul_any.source("ascend", A, B)
