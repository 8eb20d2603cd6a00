"""The pass reduce_lanes (asc/passes/reduce_lanes.py): a vectorized reduction keeps lanes of partial results, so the
compiler has independent vector chains, and the order of its sums is written out: the compiled result equals a NumPy
model of that order bit for bit, on every instruction set, in checked builds too, and within float rounding of the
interpreter's serial sum (exactly equal for integers and for max / min)."""
from __future__ import annotations

import platform

import numpy as np
import pytest

import asc.language as lang
from asc.passes.reduce_lanes import LANE_BYTES
from asc.passes.loops import PARALLEL_MIN_WORK
from asc.passes.reduce_split import REDUCE_BLOCK

N = lang.dim("N")


def total(x):
    """The sum of x in its own dtype, accumulated in an output element (kept in a register: passes/promote.py)."""
    out = lang.zeros(1, dtype=x.dtype)
    for i in range(len(x)):
        out[0] += x[i]
    return out


def dot_and_max(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[2]:
    """Two accumulators of two kinds in one loop."""
    out = lang.empty(2, dtype=lang.float32)
    s = -0.0
    m = -1e30
    for i in range(N):
        s += x[i] * y[i]
        m = max(m, x[i])
    out[0] = s
    out[1] = m
    return out


def every_third(x: lang.float32[N]) -> lang.float32[1]:
    """A constant step other than 1: every third element, from the second."""
    out = lang.empty(1, dtype=lang.float32)
    acc = 0.0
    for i in range(1, N, 3):
        acc += x[i]
    out[0] = acc
    return out


def row_sums(x: lang.float32[4, N]) -> lang.float32[4]:
    """An inner reduction per row, the rows in parallel."""
    out = lang.empty(4, dtype=lang.float32)
    for r in range(4):
        acc = 0.0
        for j in range(N):
            acc += x[r, j]
        out[r] = acc
    return out


def _serial(values, start, lanes_n):
    """float32 sums in the written order of a lanes reduction over `values` starting from `start`."""
    n = len(values)
    ge = n // lanes_n * lanes_n
    acc = np.float32(start)
    if ge:
        lanes = np.full(lanes_n, -0.0, np.float32)
        for g in range(0, ge, lanes_n):
            lanes = lanes + values[g:g + lanes_n]                 # float32 + float32: one rounding each
        w = lanes_n // 2
        while w:
            lanes[:w] = lanes[:w] + lanes[w:2 * w]
            w //= 2
        acc = np.float32(acc + lanes[0])
    for v in values[ge:]:
        acc = np.float32(acc + v)
    return acc


def model_total(x):
    """The bits the cpu target promises for total below the parallel threshold: 32 lanes whatever the size."""
    return _serial(x, 0.0, LANE_BYTES // 4)


SIZES = [0, 1, 2, 3, 7, 31, 32, 33, 97, 1000, 4099]    # below PARALLEL_MIN_WORK: one vectorized loop


def _rand(n, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def test_the_ir_shows_the_lanes_of_each_reduction():
    x = np.zeros(1000, np.float32)
    assert "[simd add:out__acc; 32 lanes]" in lang.kernel(total).source("cpu", x, stage="reduce_lanes")
    assert "[simd add:out__acc; 16 lanes]" in lang.kernel(total).source("cpu", x.astype(np.float64),
                                                                       stage="reduce_lanes")
    # a loop known to run fewer than 32 times has no whole group: its iterations in order, as a dynamic build's
    assert "[serial add:out__acc]" in lang.kernel(total).source("cpu", x[:31], stage="reduce_lanes")
    assert "[serial add:out__acc]" in lang.kernel(total).source("cpu", x[:1], stage="reduce_lanes")
    ir = lang.kernel(dot_and_max).source("cpu", x, x, stage="reduce_lanes")
    assert "[simd max:m add:s; 32 lanes]" in ir
    assert "3:int) [simd add:acc; 32 lanes]" in lang.kernel(every_third).source("cpu", x, stage="reduce_lanes")


@pytest.mark.parametrize("n", SIZES)
def test_a_float32_sum_has_the_bits_of_its_written_order(n):
    x = _rand(n, np.float32, n)
    got = lang.kernel(total)(x)[0]
    assert got.tobytes() == model_total(x).tobytes(), (got, model_total(x))
    want = lang.kernel(target="interpret")(total)(x)[0]
    scale = np.abs(x).astype(np.float64).sum()
    assert abs(float(got) - float(want)) <= 4 * np.finfo(np.float32).eps * max(scale, 1e-30)


@pytest.mark.parametrize("n", SIZES + [100_003])
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["i32", "i64"])
def test_integer_sums_equal_the_interpreter(dtype, n):
    x = _rand(n, dtype, n + 1)
    got = lang.kernel(total)(x)
    np.testing.assert_array_equal(got, lang.kernel(target="interpret")(total)(x))
    np.testing.assert_array_equal(got, np.array([x.sum(dtype=dtype)], dtype))


@pytest.mark.parametrize("n", [33, 100_003])
def test_a_float64_sum_is_within_rounding_of_the_exact_sum(n):
    x = _rand(n, np.float64, 5)
    got = lang.kernel(total)(x)[0]
    exact = float(np.sum(x.astype(np.longdouble)))
    assert abs(got - exact) <= 4 * np.finfo(np.float64).eps * np.abs(x).sum()


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000])
def test_two_accumulators_nan_and_negative_zero(n):
    x, y = _rand(n, np.float32, 2 * n), _rand(n, np.float32, 2 * n + 1)
    k, ref = lang.kernel(dot_and_max), lang.kernel(target="interpret")(dot_and_max)
    got, want = k(x, y), ref(x, y)
    assert got[1] == want[1] == x.max()
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5 * np.abs(x * y).sum())
    x[n // 2] = np.nan                      # a NaN anywhere: the max is NaN (numpy.maximum), the sum NaN
    got = k(x, y)
    assert np.isnan(got).all()
    z, one = np.full(n, -0.0, np.float32), np.ones(n, np.float32)   # every product and the start -0.0:
    got = k(z, one)                                                  # the sum stays -0.0
    assert got[0] == 0 and np.signbit(got[0]) and np.signbit(ref(z, one)[0])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 95, 96, 97, 1000])
def test_a_strided_sum(n):
    x = _rand(n, np.float32, 3 * n)
    got = lang.kernel(every_third)(x)[0]
    assert got.tobytes() == _serial(x[1::3], 0.0, 32).tobytes()


def test_rows_in_parallel_each_have_the_bits_of_their_written_order():
    x = np.stack([_rand(1000, np.float32, r) for r in range(4)])
    got = lang.kernel(row_sums)(x)
    for r in range(4):
        assert got[r].tobytes() == _serial(x[r], 0.0, 32).tobytes()


def test_a_parallel_sum_is_blocks_of_lanes():
    n = PARALLEL_MIN_WORK + 3 * REDUCE_BLOCK + 77
    x = _rand(n, np.float32, 9)
    k = lang.kernel(total)
    assert (f"[parallel add:out__acc; partials of {REDUCE_BLOCK}; 32 lanes; ahead 1024: x[i]]"
            in k.source("cpu", x, stage="prefetch_ahead"))
    acc = np.float32(0.0)
    for b in range(0, n, REDUCE_BLOCK):
        acc = np.float32(acc + _serial(x[b:b + REDUCE_BLOCK], 0.0, 32))
    assert k(x)[0].tobytes() == acc.tobytes()


@pytest.mark.parametrize("n", [5, 31, 32, 33, 100])
def test_a_specialized_and_a_dynamic_build_have_the_same_bits(n):
    x = _rand(n, np.float32, 17)
    y = _rand(n, np.float32, 18)
    assert (lang.kernel(dot_and_max)(x, y).tobytes() == lang.kernel(dynamic_shape=True)(dot_and_max)(x, y).tobytes())
    assert lang.kernel(total)(x).tobytes() == lang.kernel(dynamic_shape=True)(total)(x).tobytes()


def test_a_checked_build_has_the_same_bits():
    """A scalar accumulator's lanes stay in a memory-checked build (its loop only loses `omp simd`); an accumulator
    in a tensor element is not promoted there, so that loop stays the serial one of the checked stores."""
    x, y = _rand(4099, np.float32, 11), _rand(4099, np.float32, 12)
    checked = lang.kernel(memory_check=True)(dot_and_max)
    assert "max:m add:s; 32 lanes" in checked.source("cpu", x, y, stage="reduce_lanes")
    assert checked(x, y).tobytes() == lang.kernel(dot_and_max)(x, y).tobytes()
    assert "[serial]" in lang.kernel(memory_check=True)(total).source("cpu", x, stage="reduce_lanes")


def _host_has(flag: str) -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return flag in next(line for line in f if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return False


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 levels")
def test_the_same_bits_on_every_x86_level(cflags):
    levels = ["x86-64-v2", "x86-64-v3"] + (["x86-64-v4"] if _host_has("avx512f") else [])
    x, y = _rand(4099, np.float32, 13), _rand(4099, np.float32, 14)
    results = set()
    for level in levels:
        cflags(f"-march={level}")
        results.add((lang.kernel(total)(x).tobytes(), lang.kernel(dot_and_max)(x, y).tobytes(),
                     lang.kernel(row_sums)(np.stack([x] * 4)).tobytes()))
    assert len(results) == 1, levels
    assert next(iter(results))[0] == model_total(x).tobytes()
