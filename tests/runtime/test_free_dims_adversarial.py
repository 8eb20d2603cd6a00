"""Adversarial cases for binding.free_dim: the axes an annotation leaves free (no annotation, or None) are named
`<param>_d<axis>` and, in a dynamic kernel, bound at call time. Checked against the interpreter, on the Python
path (the first call, `kernel._call`) and on the launcher, for sizes that change between calls."""
import numpy as np
import pytest

import asc
import asc.language as lang

N = lang.dim("N")


def run_all(k, *args):
    """The compiled result (Python path, then the launcher) and the interpreter's, checked equal."""
    slow = k._call(*args)
    fast = k(*args)
    ref = lang.kernel(target="interpret")(k.pyfunc)(*args)
    for a, b in ((slow, ref), (fast, ref)):
        a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
        for x, y in zip(a, b):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    return fast


@lang.kernel(dynamic_shape=True)
def outer_sum(a, b, c: lang.float32[None, N, None]):
    """Three unannotated / partly free tensors of ranks 1, 2, 3; sizes read with .shape and len()."""
    out = lang.zeros(b.shape, dtype=lang.float32)
    for r in range(b.shape[0]):
        for k in range(b.shape[1]):
            out[r, k] = b[r, k] * a[k % len(a)] + c[r % c.shape[0], k % N, c.shape[2] - 1]
    return out


@pytest.mark.parametrize("sizes", [(1, 1, 1, 1, 1, 1), (3, 4, 5, 2, 3, 2), (7, 0, 5, 1, 4, 3), (2, 600, 9, 3, 5, 1),
                                   (1, 3, 1, 4, 1, 7)])
def test_free_axes_bound_per_call(sizes):
    na, R, K, c0, n, c2 = sizes
    rng = np.random.default_rng(sum(sizes))
    a = rng.standard_normal(max(na, 1)).astype(np.float32)
    b = rng.standard_normal((R, K)).astype(np.float32)
    c = rng.standard_normal((c0, n, c2)).astype(np.float32)
    out = run_all(outer_sum, a, b, c)
    assert out.shape == (R, K)
    assert outer_sum.cache_info()["specializations"] == 1


def test_free_axes_with_torch_tensors():
    torch = pytest.importorskip("torch")
    for n in (3, 17, 0):
        a = torch.arange(2, dtype=torch.float32)
        b = torch.ones((n, 4), dtype=torch.float32)
        c = torch.zeros((1, 2, 3), dtype=torch.float32)
        for _ in range(2):
            out = outer_sum(a, b, c)
            assert isinstance(out, torch.Tensor) and tuple(out.shape) == (n, 4)
            np.testing.assert_array_equal(out.numpy(), (b * torch.cat([a, a])).numpy())


def test_rank_still_checked_for_partly_free_annotations():
    a, b = np.ones(2, np.float32), np.ones((2, 2), np.float32)
    outer_sum(a, b, np.ones((2, 3, 1), np.float32))
    # an unannotated b of another rank is another specialization (the rank is part of a dynamic key), and
    # out[r, k] = b[r, k] * ... then assigns rows, as NumPy would
    b3 = np.arange(4, dtype=np.float32).reshape(2, 2, 1)
    np.testing.assert_array_equal(run_all(outer_sum, a, b3, np.ones((2, 3, 1), np.float32)), b3 + 1)
    assert outer_sum.cache_info()["specializations"] == 2
    for _ in range(2):                                      # the Python path's error, also after a launcher row
        with pytest.raises(asc.errors.ShapeError, match="3 dimension"):
            outer_sum(a, b, np.ones((2, 2), np.float32))


# ---- the names `<param>_d<axis>` are not reserved: collisions

x_d0 = 7.0


@lang.kernel
def reads_global(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * x_d0
    return out


def test_a_global_named_like_a_free_axis():
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(reads_global(x), np.full(3, 7.0, np.float32))
    np.testing.assert_array_equal(lang.kernel(target="interpret")(reads_global.pyfunc)(x), reads_global(x))


@lang.kernel(dynamic_shape=True)
def param_named_like_axis(x, x_d0: int):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * x_d0
    return out


def test_a_parameter_named_like_a_free_axis():
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(param_named_like_axis(x, 2), x * 2)


M = lang.dim("x_d0")


@lang.kernel
def dim_named_like_axis(x, y: lang.float32[M]):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] + y[0]
    return out


@lang.kernel(dynamic_shape=True, memory_check=True)
def dim_named_like_axis_dyn(y: lang.float32[M], x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] + y[0]
    return out


def test_a_size_named_like_a_free_axis():
    x, y = np.arange(3, dtype=np.float32), np.ones(8, np.float32)
    np.testing.assert_array_equal(dim_named_like_axis(x, y), x + 1)
    np.testing.assert_array_equal(dim_named_like_axis_dyn(y, x), x + 1)
