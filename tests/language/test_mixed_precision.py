"""precision="mixed" (docs/tensors.md, "Precision"): arithmetic on float16 / bfloat16 values is carried out in that
type, each operation rounded, as NumPy computes float16 * float16; products and reductions accumulate in float32.

The interpreter is checked against NumPy's own 16-bit arithmetic, and every target against the interpreter: bit for
bit where a kernel is arithmetic, within one 16-bit ulp where it calls math functions (float32 functions rounded
once; NumPy's own float16 exp is float32 expf rounded). Sizes 0, 1, primes, not a multiple of the vector width;
values that overflow float16 to inf, and subnormals."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.dtypes import bfloat16_np

BF16 = bfloat16_np()
DTYPES = {"float16": np.dtype(np.float16), "bfloat16": BF16}
TARGETS = ["interpret", "cpu", "ascend-sim"]
SIZES = [0, 1, 7, 97, 1031]
COMPILED_SIZES = [0, 97, 1031]       # 97: a build for that size; 0 and 1031 share a shape-generic one (_dyn)


# ------------------------------------------------------------------ kernels (lang.Tensor[...]: any 16-bit dtype)

N, R, C, M, K, P = (lang.dim(n) for n in ("N", "R", "C", "M", "K", "P"))


def arith(x: lang.Tensor[N], y: lang.Tensor[N]):                     # + - * / with Python float constants (NumPy converts them to the 16-bit type)
    return x * y + 0.1 - x / (y + 3.0)


def elem_loop(x: lang.Tensor[N], y: lang.Tensor[N], out: lang.Tensor[N]):            # element code: scalars of 16-bit type, a loop index converted to it
    for i in range(x.shape[0]):
        t = x[i] * y[i] + 0.1
        out[i] = t * 0.3 + i - t / 7.0 + abs(x[i])


def math_fns(x: lang.Tensor[N], y: lang.Tensor[N]):                  # math functions and composites (rounded after each operation)
    return lang.gelu(x) * lang.exp(y * 0.25) + lang.silu(y)


def named_sum(x: lang.Tensor[N]):                    # a reduction: accumulated in float32, rounded once to the 16-bit type
    s = lang.sum(x)
    return x * 0.3 + s * 0.5


def rows(x: lang.Tensor[R, C]):                         # a row kernel: row sums and a softmax
    return lang.softmax(x * 2.0, axis=1) + lang.sum(x, axis=1, keepdims=True) * 0.125


def mm(a: lang.Tensor[M, K], b: lang.Tensor[K, P], c: lang.Tensor[M, P]):                     # a product accumulated in float32, rounded once, then 16-bit arithmetic
    return (a @ b) * 0.5 + c * c


def mixed_precision_op(x: lang.float32[N]) -> lang.float32[N]:   # the user's §8.3
    tmp = lang.cast(x, lang.float16)
    result = tmp * tmp + 1.0 - tmp / 3.0
    return lang.cast(result, lang.float32)


# ------------------------------------------------------------------ NumPy's 16-bit arithmetic: the specification

def np_arith(x, y):
    return x * y + 0.1 - x / (y + 3.0)


def np_elem_loop(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        t = x[i] * y[i] + 0.1
        out[i] = t * 0.3 + i - t / 7.0 + abs(x[i])
    return out


def np_named_sum(x):
    s = x.astype(np.float32).sum(dtype=np.float32).astype(x.dtype)
    return x * 0.3 + s * 0.5


def np_mm(a, b, c):
    p = (a.astype(np.float32) @ b.astype(np.float32)).astype(a.dtype)
    return p * 0.5 + c * c


def _values(rng, n, dt, scale=3.0):
    v = rng.standard_normal(n) * scale
    if n >= 7:       # a huge value (x * y overflows to inf), subnormals, a zero of each sign
        v[:6] = [300.0, -250.0, 3e-6, -6e-8, 0.0, -0.0] if dt == np.float16 else [3e38, -2e38, 1e-39, -9e-41, 0.0, -0.0]
    return v.astype(dt)


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint16) if a.dtype.itemsize == 2 else a.view(np.uint32)


def _same(r, ref, what):
    r, ref = np.asarray(r), np.asarray(ref)
    assert r.dtype == ref.dtype and r.shape == ref.shape, what
    # one NaN is as good as another from arithmetic (docs/tensors.md, "NaN"); every other value bit for bit
    nan = np.isnan(r.astype(np.float32)) & np.isnan(ref.astype(np.float32))
    bad = (_bits(r) != _bits(ref)) & ~nan
    assert not bad.any(), f"{what}: {np.count_nonzero(bad)} differ, first at {np.argwhere(bad)[:3].tolist()}: " \
                          f"{r[bad][:3]} vs {ref[bad][:3]}"


def _ulps(r, ref, dt):
    """|r - ref| in units of the 16-bit type's spacing at ref (inf / NaN: equal or it counts as huge)."""
    a, b = np.asarray(r).astype(np.float64), np.asarray(ref).astype(np.float64)
    both = (a == b) | (np.isnan(a) & np.isnan(b))
    spacing = np.abs(np.spacing(np.asarray(b).astype(dt)).astype(np.float64))
    with np.errstate(invalid="ignore"):
        d = np.where(both, 0.0, np.abs(a - b) / spacing)
    return np.nan_to_num(d, nan=1e9, posinf=1e9).reshape(-1)


def _kernel(fn, target, precision, dynamic=False):
    return lang.kernel(target=target, precision=precision, dynamic_shape=dynamic)(fn)


def _dyn(n) -> bool:
    """Compiled kernels are built for one size (97) and shape-generic for the others (one build serves them: the
    suite's time goes to g++)."""
    return n != 97


def _ascend_ok(dt, n):
    return n > 0


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtn", DTYPES)
def test_interpreter_is_numpy_16bit_arithmetic(dtn, n):
    dt = DTYPES[dtn]
    rng = np.random.default_rng(n)
    x, y = _values(rng, n, dt), _values(rng, n, dt)
    _same(_kernel(arith, "interpret", "mixed")(x, y), np_arith(x, y), "arith")
    out = np.zeros(n, dt)
    _kernel(elem_loop, "interpret", "mixed")(x, y, out)
    _same(out, np_elem_loop(x, y), "elem_loop")
    _same(_kernel(named_sum, "interpret", "mixed")(x), np_named_sum(x), "named_sum")


@pytest.mark.parametrize("target", TARGETS[1:])
@pytest.mark.parametrize("n", COMPILED_SIZES)
@pytest.mark.parametrize("dtn", DTYPES)
def test_arithmetic_bit_equal_to_the_interpreter(dtn, n, target):
    dt = DTYPES[dtn]
    rng = np.random.default_rng(100 + n)
    x, y = _values(rng, n, dt), _values(rng, n, dt)
    x0, y0 = x.copy(), y.copy()
    _same(_kernel(arith, target, "mixed", _dyn(n))(x, y), _kernel(arith, "interpret", "mixed")(x, y), "arith mixed")
    # float32: tensor code computes in float32 and rounds once where stored (the interpreter's NumPy rounds each
    # operation: the two agree to the dtype's precision, docs/tensors.md); bit for bit with that model
    wide = np_arith(x.astype(np.float32), y.astype(np.float32)).astype(dt)
    _same(_kernel(arith, target, "float32", _dyn(n))(x, y), wide, "arith float32")
    for prec in ("mixed", "float32"):
        ref_out, out = np.zeros(n, dt), np.zeros(n, dt)
        _kernel(elem_loop, "interpret", prec)(x, y, ref_out)
        _kernel(elem_loop, target, prec, _dyn(n))(x, y, out)
        _same(out, ref_out, f"elem_loop {prec}")      # float32: element code computes in float32 on both
    _same(_kernel(named_sum, target, "mixed", _dyn(n))(x), _kernel(named_sum, "interpret", "mixed")(x), "named_sum mixed")
    # float32: the named sum rounded to float16 (as the interpreter's), the expression in float32, rounded once
    s = x.astype(np.float32).sum(dtype=np.float32).astype(dt).astype(np.float32)
    wide = (x.astype(np.float32) * np.float32(0.3) + s * np.float32(0.5)).astype(dt)
    assert _ulps(_kernel(named_sum, target, "float32", _dyn(n))(x), wide, dt).max(initial=0) <= 1      # (the sum's order differs)
    np.testing.assert_array_equal(_bits(x), _bits(x0))      # inputs untouched
    np.testing.assert_array_equal(_bits(y), _bits(y0))


def test_the_modes_differ_where_numpy_rounds_each_operation():
    x = np.array([1.037109375, 2.46484375, 0.9912109375], np.float16)
    y = np.array([0.96240234375, -2.455078125, 2.1953125], np.float16)
    mixed = _kernel(arith, "cpu", "mixed")(x, y)
    f32 = _kernel(arith, "cpu", "float32")(x, y)
    _same(mixed, np_arith(x, y), "mixed is NumPy's float16 arithmetic")
    wide = x.astype(np.float32) * y.astype(np.float32) + np.float32(0.1) - x.astype(np.float32) / (
        y.astype(np.float32) + np.float32(3.0))
    _same(f32, wide.astype(np.float16), "float32 rounds once")
    assert (_bits(mixed) != _bits(f32)).all()          # 0.836 / 0.8364, -10.47 / -10.48, 2.084 / 2.086


@pytest.mark.parametrize("target", TARGETS[1:])
@pytest.mark.parametrize("n", [1, 97, 1031])
@pytest.mark.parametrize("dtn", DTYPES)
def test_math_within_one_ulp_of_the_interpreter(dtn, n, target):
    dt = DTYPES[dtn]
    rng = np.random.default_rng(200 + n)
    x, y = _values(rng, n, dt, 2.0), _values(rng, n, dt, 2.0)
    ref = _kernel(math_fns, "interpret", "mixed")(x, y)
    r = _kernel(math_fns, target, "mixed", _dyn(n))(x, y)
    assert r.dtype == dt
    # each operation's 16-bit rounding can differ by one ulp where a float32 function sits on a tie; the
    # operations after it carry that one ulp (at most three roundings follow a math call here)
    assert _ulps(r, ref, dt).max(initial=0) <= 4
    # float32: computed in float32, rounded once where stored (within one ulp of the float64 value rounded)
    import math
    erf = np.vectorize(math.erf)
    a, b = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        exact = 0.5 * a * (1 + erf(a / math.sqrt(2))) * np.exp(b * 0.25) + b / (1 + np.exp(-b))
    assert _ulps(_kernel(math_fns, target, "float32", _dyn(n))(x, y), exact.astype(dt), dt).max(initial=0) <= 1


@pytest.mark.parametrize("target", TARGETS[1:])
@pytest.mark.parametrize("shape", [(1, 1), (5, 33)])
@pytest.mark.parametrize("dtn", DTYPES)
def test_rows_and_products(dtn, shape, target):
    dt = DTYPES[dtn]
    rng = np.random.default_rng(shape[1])
    x = _values(rng, shape[0] * shape[1], dt, 1.0).reshape(shape)
    x[np.isinf(x.astype(np.float32)) | (np.abs(x.astype(np.float32)) > 100)] = 1
    for prec in ("mixed", "float32"):
        ref = _kernel(rows, "interpret", prec)(x)
        assert _ulps(_kernel(rows, target, prec)(x), ref, dt).max(initial=0) <= 2, f"rows {prec}"
    m, k, n = shape[0], shape[1], 5
    a = (rng.standard_normal((m, k))).astype(dt)
    b = (rng.standard_normal((k, n))).astype(dt)
    c = (rng.standard_normal((m, n))).astype(dt)
    ref = _kernel(mm, "interpret", "mixed")(a, b, c)
    # the product's float32 sum is in another order than NumPy's: its rounding may differ by one ulp
    assert _ulps(_kernel(mm, target, "mixed")(a, b, c), ref, dt).max(initial=0) <= 2
    assert _ulps(ref, np_mm(a, b, c), dt).max(initial=0) <= 2


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [0, 1, 1031])
def test_seed_example_runs_on_every_target(target, n):
    x = (np.random.default_rng(n).standard_normal(n) * 100).astype(np.float32)
    x[:min(n, 2)] = [70000.0, 1e-7][:min(n, 2)]            # overflows float16 to inf; a float16 subnormal
    r = _kernel(mixed_precision_op, target, "mixed")(x)
    t = x.astype(np.float16)
    _same(r, (t * t + 1.0 - t / 3.0).astype(np.float32), f"§8.3 on {target}")


def test_precision_on_every_decorator():
    x = np.array([1.0009765625, 3.0], np.float16)
    y = np.array([1.0009765625, 0.1], np.float16)
    want = np_arith(x, y)
    _same(lang.fused_kernel(precision="mixed")(arith)(x, y), want, "fused_kernel")
    _same(lang.cube_kernel(precision="mixed")(arith)(x, y), want, "cube_kernel")

    def one(a, b):
        return a * b + 0.1 - a / (b + 3.0)
    _same(lang.vectorize(precision="mixed")(one)(x, y), want, "vectorize")
    with pytest.raises(ValueError, match="unknown precision"):
        lang.vectorize(precision="half")


def plus_index(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + i            # NumPy: float16(i) first (2049 -> 2048), then the float16 sum


@pytest.mark.parametrize("target", TARGETS)
def test_an_int_meeting_a_16bit_value_becomes_16bit_first(target):
    n = 4099
    x = np.full(n, 0.5, np.float16)
    out = np.zeros(n, np.float16)
    _kernel(plus_index, target, "mixed")(x, out)
    want = np.array([np.float16(0.5) + np.float16(i) for i in range(n)], np.float16)
    _same(out, want, target)


def test_the_pass_is_a_printable_stage():
    import asc.compiler
    assert "mixed_precision" in asc.compiler.stages("cpu")
    x = np.ones(8, np.float16)
    text = _kernel(arith, "cpu", "mixed").source("cpu", x, x, stage="mixed_precision")
    assert "{float16(($0 * $1))}" in text and "# precision: mixed" in text, text       # the map's body rounded
    assert "float16(($0" not in _kernel(arith, "cpu", "float32").source("cpu", x, x, stage="mixed_precision")
