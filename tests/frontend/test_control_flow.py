"""Python constructs inside kernels: each compiled on the cpu target and checked against the interpreter and plain
Python/NumPy."""
from __future__ import annotations

import math

import numpy as np
import pytest

import asc
import asc.language as lang
from helpers import close, interpreted

BLOCK = 4                  # a module constant, folded


@lang.func
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@lang.func
def fact(n: int):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@lang.kernel
def fib_while(out: lang.int64[N]):
    i = 0
    while i < N:
        out[i] = fib(i)
        i += 1


def test_recursive_func_and_while():
    out = np.zeros(20, np.int64)
    fib_while(out)
    np.testing.assert_array_equal(out, [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597,
                                        2584, 4181])
    out2 = np.zeros(20, np.int64)
    interpreted(fib_while)(out2)
    np.testing.assert_array_equal(out, out2)
    assert "static int64_t fib(int64_t n);" in fib_while.source("cpu")


@lang.kernel
def factorials(out: lang.float64[N]):
    for i in range(N):
        out[i] = fact(i)


def test_recursive_func_with_if():
    out = np.zeros(10)
    factorials(out)
    np.testing.assert_array_equal(out, [math.factorial(i) for i in range(10)])


@lang.kernel
def control(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(0, N, 2):          # a step
        if x[i] > 1.0:
            out[i] = 1.0
        elif x[i] < -1.0:
            out[i] = -1.0
        else:
            out[i] = x[i] if x[i] >= 0 else -x[i] * 0.5
    for i in range(N - 1, 0, -2):     # a negative step
        v = x[i]
        if v == 0.0:
            continue
        out[i] = max(v, 0.0) + min(v, 0.0, -0.25)
    j = 0
    while True:
        j += 1
        if j >= 3:
            break
    out[0] = out[0] + j
    return out


def control_ref(x):
    out = np.zeros_like(x)
    for i in range(0, len(x), 2):
        out[i] = 1.0 if x[i] > 1 else (-1.0 if x[i] < -1 else (x[i] if x[i] >= 0 else -x[i] * np.float32(0.5)))
    for i in range(len(x) - 1, 0, -2):
        v = x[i]
        if v == 0:
            continue
        out[i] = max(v, np.float32(0)) + min(v, np.float32(0), np.float32(-0.25))
    out[0] += 3
    return out


@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_if_elif_else_ternary_steps_break_continue(n):
    x = (np.random.default_rng(n).standard_normal(n) * 2).astype(np.float32)
    x[n // 2] = 0.0
    np.testing.assert_array_equal(control(x), control_ref(x))
    np.testing.assert_array_equal(interpreted(control)(x), control_ref(x))


class Act:
    """A class used as a namespace: constants and static methods."""
    SCALE = 2.0

    @staticmethod
    def leaky(v):
        return v if v > 0 else v * 0.125


@lang.kernel
def use_namespace(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = Act.leaky(x[i]) * Act.SCALE + BLOCK + math.pi
    return out


def test_class_namespace_globals_math_pi():
    x = np.linspace(-2, 2, 33, dtype=np.float32)
    expected = np.where(x > 0, x, x * np.float32(0.125)) * np.float32(2.0) + np.float32(4 + math.pi)
    close(use_namespace(x), expected, np.float32)
    np.testing.assert_array_equal(use_namespace(x), interpreted(use_namespace)(x))


def make_scaled(factor):
    @lang.kernel
    def scaled(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * factor
        return out
    return scaled


def test_closure_constants_are_folded():
    k = make_scaled(3.0)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(k(x), x * 3)
    assert "3.0f" in k.source("cpu")


@lang.kernel
def int_semantics(a: lang.int32[N], b: lang.int32[N]):
    q = lang.empty_like(a)
    r = lang.empty_like(a)
    t = lang.empty(N, dtype=lang.float64)
    for i in range(N):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        t[i] = a[i] / b[i]
    return q, r, t


def test_python_integer_division_semantics():
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 1], np.int32)
    q, r, t = int_semantics(a, b)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    np.testing.assert_array_equal(t, a / b)
    assert t.dtype == np.float64
    for x, y in zip(interpreted(int_semantics)(a, b), (q, r, t)):
        np.testing.assert_array_equal(x, y)


@lang.kernel
def float_mod(a: lang.float32[N], b: lang.float32[N]):
    r = lang.empty_like(a)
    q = lang.empty_like(a)
    for i in range(N):
        r[i] = a[i] % b[i]
        q[i] = a[i] // b[i]
    return r, q


def test_python_float_mod_semantics():
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0], np.float32)
    r, q = float_mod(a, b)
    np.testing.assert_array_equal(r, np.mod(a, b))
    np.testing.assert_array_equal(q, np.floor_divide(a, b))


@lang.kernel
def reduce_sum(x: lang.float32[N]) -> lang.float32:
    acc = 0.0
    for i in range(N):
        acc += x[i]
    return acc


def test_scalar_accumulator_and_scalar_return():
    x = np.random.default_rng(1).random(100000).astype(np.float32)
    s = reduce_sum(x)
    assert isinstance(s, np.float32)
    exact = float(x.astype(np.float64).sum())
    # a float32 sum in fixed blocks of vector lanes: closer to the exact sum than the interpreter's serial loop
    assert abs(float(s) - exact) <= abs(float(interpreted(reduce_sum)(x)) - exact) + 1e-7 * exact
    assert abs(float(s) - exact) < 1e-6 * exact


@lang.kernel(num_threads=1)
def reduce_sum_1(x: lang.float32[N]) -> lang.float32:
    acc = 0.0
    for i in range(N):
        acc += x[i]
    return acc


@lang.kernel
def reduce_max_min(x: lang.float32[N]):
    hi = -1e30
    lo = 1e30
    for i in range(N):
        hi = max(hi, x[i])
        lo = min(x[i], lo)
    return hi, lo


@pytest.mark.parametrize("n", [0, 1, 4095, 4097, 100003, 1 << 20])
def test_reductions_are_deterministic_across_runs_and_thread_counts(n):
    x = (np.random.default_rng(n).standard_normal(n) * 100).astype(np.float32)
    s = reduce_sum(x)
    assert all(reduce_sum(x).tobytes() == s.tobytes() for _ in range(5))
    assert reduce_sum_1(x).tobytes() == s.tobytes()      # the same bits on one thread
    hi, lo = reduce_max_min(x)
    assert hi == (x.max() if n else -1e30) and lo == (x.min() if n else 1e30)


@lang.kernel
def shapes_and_tuples(A: lang.float32[M, K]):
    rows, cols = A.shape
    out = lang.zeros((cols, rows), dtype=A.dtype)
    for i in range(rows):
        for j in range(cols):
            out[j, i] = A[i, j]
    return out, rows * cols


def test_transpose_shape_unpack_and_tuple_return():
    A = np.arange(12, dtype=np.float32).reshape(3, 4)
    out, n = shapes_and_tuples(A)
    np.testing.assert_array_equal(out, A.T)
    assert n == 12 and isinstance(n, np.int64)


@lang.kernel
def inplace_scale(x: lang.float32[N], s: float):
    for i in range(N):
        x[i] *= s


def test_inplace_write_returns_none():
    x = np.ones(17, np.float32)
    assert inplace_scale(x, 2.5) is None
    np.testing.assert_array_equal(x, np.full(17, 2.5, np.float32))


@lang.kernel(dynamic_shape=True)
def dyn_add(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[N]:
    c = lang.empty_like(a)
    for i in range(N):
        c[i] = a[i] + b[i]
    return c


def test_dynamic_shape_builds_once():
    for n in (0, 1, 7, 1000, 4097):
        a = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(dyn_add(a, a), a + a)
    info = dyn_add.cache_info()
    assert info["specializations"] == 1
    assert info["compiles"] + info["disk_hits"] == 1


@lang.kernel
def cast_and_types(x: lang.float32[N]):
    i8 = lang.empty(N, dtype=lang.int8)
    h = lang.empty(N, dtype=lang.float16)
    b = lang.empty(N, dtype=lang.bool_)
    for i in range(N):
        i8[i] = lang.cast(x[i], lang.int8)
        h[i] = lang.float16(x[i]) * 2          # rounded to float16 once by the cast, once by the store
        b[i] = x[i] > 0.5
    return i8, h, b


def test_casts():
    x = np.array([0.25, 1.7, -3.9, 100.2, 0.6, 65504.0], np.float32)
    i8, h, b = cast_and_types(x)
    np.testing.assert_array_equal(i8, x.astype(np.int8))
    np.testing.assert_array_equal(h, (x.astype(np.float16).astype(np.float32) * 2).astype(np.float16))
    np.testing.assert_array_equal(b, x > 0.5)
    for u, v in zip(interpreted(cast_and_types)(x), (i8, h, b)):
        np.testing.assert_array_equal(u, v)


@lang.kernel
def printer(x: lang.float32[N]):
    for i in range(N):
        print("x", i, x[i], x[i] > 0)


def test_print_in_compiled_kernel_formats_like_python(capfd):
    x = np.array([0.1, -2.0], np.float32)
    printer(x)
    out = capfd.readouterr().out
    assert out == "x 0 0.1 True\nx 1 -2.0 False\n"


@lang.kernel
def uint8_overflow(x: lang.uint8[N]):
    for i in range(N):
        x[i] = x[i] + 300


def test_python_int_out_of_bounds_for_dtype_is_refused_like_numpy():
    import asc
    x = np.zeros(3, np.uint8)
    with pytest.raises(asc.ConstantOverflowError, match="Python integer 300 out of bounds for uint8"):
        uint8_overflow(x)
    with pytest.raises(OverflowError):
        x[0] + 300          # NumPy 2 agrees


@lang.kernel
def bound_reassigned(x: lang.float32[N], out: lang.float32[N]):
    n = len(x)
    for i in range(n):
        out[i] = x[i] * 2.0
        n = 2                     # range(n) was evaluated once: every element is written


def test_a_loop_bound_reassigned_in_the_body_is_read_once():
    x = np.arange(10, dtype=np.float32)
    for k in (bound_reassigned, interpreted(bound_reassigned)):
        out = np.zeros_like(x)
        k(x, out)
        np.testing.assert_array_equal(out, 2 * x)


@lang.kernel
def loop_var_bound_before(x: lang.float32[N], last: lang.int64[1]):
    i = 0
    for i in range(N):
        x[i] = 1.0
    last[0] = i


def test_a_loop_variable_read_after_its_loop_is_refused_even_if_bound_before():
    """Python reads the loop's last value after it; asc keeps loop variables to their loop, also when the name was
    bound before the loop (compiled code used to read that old, folded value)."""
    with pytest.raises(asc.CompileError, match="loop variable 'i' is used after its loop") as e:
        loop_var_bound_before(np.zeros(4, np.float32), np.zeros(1, np.int64))
    assert e.value.loc.line == loop_var_bound_before.pyfunc.__code__.co_firstlineno + 5


@lang.kernel
def ternary_constant_condition(k: lang.int32[N]):
    out = lang.empty_like(k, lang.float64)
    both = lang.empty_like(k, lang.float64)
    for i in range(N):
        out[i] = (min(k[i], 3) if 1 > 2 else (k[i] - 0.25))
        both[i] = (max(k[i], 3) if k[i] > 4 else (k[i] - 0.25)) + (min(k[i], 3) if 2 > 1 else k[i] - 0.25)
    return out, both


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_ternary_with_constant_condition_is_its_chosen_branch(target):
    """Python evaluates `a if 1 > 2 else b` as b, unchanged: k - 0.25 is float64 (5.75 for k = 6). The interpreter
    gave 5.0: the conversion of min(k[i], 3) to int32 was keyed by where the expression starts, which is where the
    ternary around it starts too, so the ternary's value was converted to int32."""
    k = np.array([6, 1, -3], np.int32)
    out, both = lang.kernel(target=target)(ternary_constant_condition.pyfunc)(k)
    np.testing.assert_array_equal(out, k - 0.25)
    np.testing.assert_array_equal(both, np.where(k > 4, np.maximum(k, 3), k - 0.25) + np.minimum(k, 3))
