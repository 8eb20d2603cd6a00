"""Adversarial tests of scalar promotion: conditional stores (an index out of range that the original never
touches), break/continue, tensors allocated inside the loop, integer wrap-around, float-to-int stores, mixed
precision, views, nested accumulations, NaN, dynamic shapes and empty loops; results against the interpreter."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang


def interp(k):
    return lang.kernel(target="interpret")(k.pyfunc)


def same(k, *args):
    a, b = k(*args), interp(k)(*args)
    np.testing.assert_array_equal(a, b)
    assert a.dtype == b.dtype
    return a


@lang.kernel
def conditional_far_index(x: lang.float32[N], k: lang.int64) -> lang.float32[4]:
    t = lang.zeros(4, dtype=lang.float32)
    for i in range(N):
        if x[i] > 100.0:
            t[k] += x[i]          # never runs for these inputs: t[k] must not be read or written
    return t


@lang.kernel
def after_continue(x: lang.float32[N], k: lang.int64) -> lang.float32[4]:
    t = lang.zeros(4, dtype=lang.float32)
    for i in range(N):
        if x[i] < 100.0:
            continue
        t[k] += x[i]
    return t


@lang.kernel
def inner_maybe_empty(x: lang.float32[N], m: lang.int64, k: lang.int64) -> lang.float32[4]:
    t = lang.zeros(4, dtype=lang.float32)
    for i in range(N):
        for j in range(m):
            t[k] += x[i]
    return t


def test_an_element_only_touched_conditionally_is_not_promoted():
    x = np.arange(7, dtype=np.float32)
    far = 1 << 40                               # far outside t: reading or writing it would crash
    for k, args in ((conditional_far_index, (x, far)), (after_continue, (x, far))):
        assert "__acc" not in k.source("cpu", *args)
        np.testing.assert_array_equal(k(*args), np.zeros(4, np.float32))
    assert "t__acc" in inner_maybe_empty.source("cpu", x, 0, far)     # the inner loop (guarded by its own test)
    np.testing.assert_array_equal(inner_maybe_empty(x, 0, far), np.zeros(4, np.float32))
    np.testing.assert_array_equal(inner_maybe_empty(x, 2, 3), [0, 0, 0, 2 * x.sum()])


@lang.kernel
def stops_at_negative(x: lang.float64[N]) -> lang.float64[2]:
    t = lang.zeros(2, dtype=lang.float64)
    for i in range(N):
        t[0] += x[i]
        if x[i] < 0.0:
            break
        t[1] += 1.0
    return t


def test_break_after_the_store():
    x = np.array([1.0, 2.0, -1.0, 5.0])
    np.testing.assert_array_equal(same(stops_at_negative, x), [2.0, 2.0])
    np.testing.assert_array_equal(same(stops_at_negative, np.zeros(0)), [0.0, 0.0])


@lang.kernel
def per_row_buffer(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        t = lang.zeros(2, dtype=lang.float32)      # a new tensor each row
        t[0] = 1.0
        for j in range(C):
            t[0] += x[i, j]
        out[i] = t[0]
    return out


def test_a_tensor_allocated_in_the_loop():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(same(per_row_buffer, x), 1 + x.sum(1))


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_integer_wraparound_is_exact(dt):
    @lang.kernel
    def poly(x: lang.Tensor) -> lang.Tensor:
        t = lang.zeros(2, dtype=x.dtype)
        for i in range(x.shape[0]):
            t[0] = t[0] * 3 + x[i]
            t[1] += x[i]
        return t
    x = (np.arange(301) * 37 % 120).astype(dt)
    same(poly, x)


@lang.kernel
def int8_total(x: lang.int8[N]):
    t = lang.zeros(1, dtype=lang.int8)
    u = lang.zeros(1, dtype=lang.int8)
    for i in range(N):
        t[0] += x[i]
        u[0] = u[0] * 3 + x[i]
    return t, u


def test_int8_promoted_wraps_at_every_store():
    x = (np.arange(301) * 37 % 120).astype(np.int8)
    src = int8_total.source("cpu", x)
    assert "t__acc" in src and "u__acc" in src
    r = np.concatenate(int8_total(x))
    np.testing.assert_array_equal(r, np.concatenate(interp(int8_total)(x)))
    w = [0, 0]
    for v in x.astype(np.int64):
        w = [(w[0] + v + 128) % 256 - 128, (w[1] * 3 + v + 128) % 256 - 128]
    np.testing.assert_array_equal(r, w)


@lang.kernel
def float_into_int(x: lang.float64[N]) -> lang.int32[1]:
    t = lang.zeros(1, dtype=lang.int32)
    for i in range(N):
        t[0] += x[i]              # truncated at every store
    return t


@lang.kernel
def f64_into_f32(x: lang.float64[N]) -> lang.float32[1]:
    t = lang.zeros(1, dtype=lang.float32)
    for i in range(N):
        t[0] += x[i]              # rounded to float32 at every store
    return t


def test_conversions_at_every_store():
    assert same(float_into_int, np.full(4, 0.6))[0] == 0
    assert same(float_into_int, np.array([-0.6, 1.5, 1.5]))[0] == 2
    x = np.array([1e8] + [1.0] * 9)
    assert same(f64_into_f32, x)[0] == np.float32(1e8)


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16])
def test_16bit_bit_for_bit(dt):
    @lang.kernel
    def acc(x: lang.Tensor) -> lang.Tensor:
        t = lang.zeros(1, dtype=x.dtype)
        for i in range(x.shape[0]):
            t[0] += x[i]
        return t
    x = (np.random.default_rng(0).standard_normal(2001) * 10).astype(dt)
    assert "__acc" not in acc.source("cpu", x)
    np.testing.assert_array_equal(acc(x).view(np.uint16), interp(acc)(x).view(np.uint16))


@lang.kernel
def running_max(x: lang.float32[R, C]) -> lang.float32[2]:
    t = lang.zeros(2, dtype=lang.float32)
    for i in range(R):
        for j in range(C):
            t[0] += x[i, j]
        t[1] = max(t[1], t[0])
    return t


@lang.kernel
def max_with_nan(x: lang.float64[N]) -> lang.float64[2]:
    t = lang.full(2, -np.inf, dtype=lang.float64)
    for i in range(N):
        t[0] = max(t[0], x[i])
        t[1] = lang.maximum(t[1], x[i])
    return t


def test_nested_and_nan():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(running_max(x), interp(running_max)(x), rtol=1e-6)
    for v in ([1.0, np.nan, 3.0], [np.nan, 1.0, 2.0], [np.inf, np.nan], [-0.0, 0.0]):
        x = np.array(v)
        a, b = max_with_nan(x), interp(max_with_nan)(x)
        np.testing.assert_array_equal(a, b)
        assert np.signbit(a).tolist() == np.signbit(b).tolist()


@lang.kernel(dynamic_shape=True)
def last_and_first(x: lang.int32[N], like: lang.int32[M]):
    t = lang.zeros_like(like)
    for i in range(N):
        t[N - 1] += x[i]
        t[0] -= x[i]
    return t


@pytest.mark.parametrize("n", [0, 1, 2, 13])
def test_dynamic_shapes_and_empty_loops(n):
    x = np.arange(1, n + 1, dtype=np.int32)
    like = np.zeros(max(n, 1), np.int32)
    # (the interpreter refuses n == 0 at compile time: it folds N - 1 to the constant index -1 of a store that
    # never runs; reported, outside this pass)
    r = same(last_and_first, x, like) if n else last_and_first(x, like)
    want = np.zeros(max(n, 1), np.int32)
    if n:
        want[n - 1] += x.sum()
        want[0] -= x.sum()
    np.testing.assert_array_equal(r, want)


@lang.kernel
def view_reads(x: lang.float32[N]) -> lang.float32[4, 4]:
    t = lang.zeros((4, 4), dtype=lang.float32)
    v = t[1]
    for i in range(N):
        t[1, 2] += x[i]
        t[0, 0] += v[2]          # reads the promoted element through a view
    return t


def test_views_of_the_promoted_tensor():
    x = np.arange(5, dtype=np.float32)
    r = same(view_reads, x)
    assert r[1, 2] == 10 and r[0, 0] == 0 + 1 + 3 + 6 + 10


@lang.kernel
def nested_total(x: lang.float64[R, C]) -> lang.float64[1]:
    t = lang.zeros(1, dtype=lang.float64)
    for i in range(R):
        for j in range(C):
            t[0] += x[i, j]
    return t


@lang.kernel
def guarded_constant(x: lang.int64[N]) -> lang.int64[2]:
    t = lang.zeros(2, dtype=lang.int64)
    for i in range(N):
        if x[i] > 3:
            t[1] += x[i]        # conditional, but t[1] is inside t: promoted
    return t


def test_constant_in_bounds_elements_are_promoted_through_nests_and_branches():
    x = np.random.default_rng(0).standard_normal((200, 33))
    src = nested_total.source("cpu", x)
    assert "t__acc1" in src                     # the outer loop too, though its inner loop might not run
    np.testing.assert_allclose(nested_total(x), x.sum(), rtol=1e-12)
    np.testing.assert_allclose(nested_total(x), interp(nested_total)(x), rtol=1e-12)
    assert len({nested_total(x).tobytes() for _ in range(3)}) == 1
    np.testing.assert_array_equal(same(nested_total, np.zeros((3, 0))), [0.0])
    v = np.arange(10, dtype=np.int64)
    assert "t__acc" in guarded_constant.source("cpu", v)
    np.testing.assert_array_equal(same(guarded_constant, v), [0, v[v > 3].sum()])


def _random_kernel(r, k):
    dt = r.choice(["int32", "int64", "float64", "int8"])
    lines = ["@lang.kernel", f"def k{k}(x: lang.{dt}[N], y: lang.{dt}[M]) -> lang.{dt}[4]:",
             f"    t = lang.zeros(4, dtype=lang.{dt})"]
    idx = r.choice(["0", "3", "1"])
    other = r.choice(["2", "0"])
    kind = r.randrange(6)
    ind = "        "
    if kind == 0:
        body = [f"{ind}t[{idx}] += x[i] * 3"]
    elif kind == 1:
        body = [f"{ind}if x[i] > 2:", f"{ind}    t[{idx}] += x[i]"]
    elif kind == 2:
        body = [f"{ind}t[{idx}] = t[{idx}] * 2 + x[i]", f"{ind}if x[i] > 5:", f"{ind}    break"]
    elif kind == 3:
        body = [f"{ind}for j in range(M):", f"{ind}    t[{idx}] += x[i] * y[j]"]
    elif kind == 4:
        body = [f"{ind}if x[i] < 1:", f"{ind}    continue", f"{ind}t[{idx}] -= x[i]", f"{ind}t[{other}] += 1"]
    else:
        body = [f"{ind}t[{idx}] = max(t[{idx}], x[i] - y[i % M])"]
    lines += ["    for i in range(N):"] + body + ["    return t"]
    return "\n".join(lines) + "\n"



def test_random_accumulation_kernels_match_the_interpreter(tmp_path):
    """Differential: random loops accumulating into t[c] (plain, under an if, with break/continue, in a nest, max),
    over integer and float dtypes and sizes 0/1/primes, compiled (promoted where legal) against the interpreter."""
    import importlib.util
    import random
    import sys
    r = random.Random(0)
    n = 12
    src = "from __future__ import annotations\nimport asc.language as lang\n\n\n" + "\n\n".join(
        _random_kernel(r, k) for k in range(n))
    path = tmp_path / "promote_fuzz_kernels.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("promote_fuzz_kernels", path)
    m = importlib.util.module_from_spec(spec)
    sys.modules["promote_fuzz_kernels"] = m
    try:
        spec.loader.exec_module(m)
        rng = np.random.default_rng(0)
        promoted = 0
        for k in range(n):
            ker = getattr(m, f"k{k}")
            dt = np.dtype(src.split(f"def k{k}(x: lang.")[1].split("[")[0])
            for nn, mm in [(0, 1), (1, 1), (7, 3), (13, 2)]:
                x, y = rng.integers(-3, 9, nn).astype(dt), rng.integers(-3, 9, mm).astype(dt)
                a, b = ker(x, y), interp(ker)(x, y)
                np.testing.assert_array_equal(a, b, err_msg=f"k{k} n={nn} m={mm}\n{src}")
            promoted += "__acc" in ker.source("cpu", x, y)
        assert promoted >= 3
    finally:
        sys.modules.pop("promote_fuzz_kernels", None)
