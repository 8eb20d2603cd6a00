"""The generated C++ is for people too, and the loop classification decides what runs in parallel."""
from __future__ import annotations

import numpy as np

import asc.language as lang
from asc.examples import seed
from helpers import erf64, interpreted


def test_source_quotes_python_lines_and_uses_float32_math():
    x = np.zeros(1 << 20, np.float32)
    src = seed.gelu_naive.source("cpu", x)
    assert "// seed.py:" in src and "out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt2))" in src
    assert "double" not in src                               # weak literals stay float32 (NEP 50)
    # erf(x / sqrt2) is one call with the scale folded into erf's coefficients: x / sqrt2 is never rounded; and
    # GELU's product around it one call of the same bits (asc/passes/gelu_product.py)
    assert "out[i] = asc_gelu_erf_scaled_f32(x[i], 0.7071067932881648);" in src and "/ 1.414" not in src
    assert "#pragma omp parallel for" in src                 # 1M independent elements: on all cores
    ir_text = seed.gelu_naive.source("ir", x)
    assert "[parallel]" not in ir_text and "erf(" in ir_text  # the IR before lowering
    assert "# line" in ir_text


def test_small_loops_stay_on_one_thread():
    src = seed.gelu_naive.source("cpu", np.zeros(16, np.float32))
    assert "omp parallel" not in src and "#pragma omp simd" in src


@lang.kernel
def rowsum(x: lang.float32[R, C]) -> lang.float32[R]:
    out = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        acc = 0.0
        for j in range(C):
            acc += x[i, j]
        out[i] = acc
    return out


def test_private_accumulator_parallel_rows_vectorized_reduction():
    x = np.random.default_rng(0).random((512, 300)).astype(np.float32)
    src = rowsum.source("cpu", x)
    lines = src.splitlines()
    par = next(i for i, l in enumerate(lines) if "omp parallel for" in l)
    assert "for (int64_t i" in lines[par + 1]
    inner = next(i for i, l in enumerate(lines) if "for (int64_t asc_j_lk" in l)
    assert "omp simd" in lines[inner - 1]                     # acc accumulates across j: a vector reduction,
    assert "float acc = asc_acc_ln[asc_j_lk];" in lines[inner + 2]   # into lanes of partials
    assert any("float acc;" in l for l in lines[par:inner])   # declared inside the row loop: private
    np.testing.assert_allclose(rowsum(x), x.sum(axis=1, dtype=np.float64), rtol=1e-5)


@lang.kernel
def prefix(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    out[0] = x[0]
    for i in range(1, N):
        out[i] = out[i - 1] + x[i]       # reads the previous iteration's write
    return out


def test_loop_carried_tensor_dependence_stays_serial():
    x = np.ones(1 << 16, np.float32)
    assert "omp parallel" not in prefix.source("cpu", x) and "omp simd" not in prefix.source("cpu", x)
    np.testing.assert_array_equal(prefix(x), np.cumsum(x))


@lang.kernel
def weak_and_strong(a: lang.int32[N], x: lang.float32[N]):
    f = lang.empty(N, dtype=lang.float64)
    g = lang.empty_like(x)
    for i in range(N):
        f[i] = a[i] * 0.5          # int32 * Python float -> float64 (NEP 50)
        g[i] = x[i] * i + 1        # float32 * Python int (the loop index) -> float32
    return f, g


def test_nep50_typing_in_kernels():
    a = np.arange(5, dtype=np.int32)
    x = np.full(5, 1.5, np.float32)
    f, g = weak_and_strong(a, x)
    np.testing.assert_array_equal(f, a * 0.5)
    np.testing.assert_array_equal(g, x * np.arange(5) .astype(np.float32) + 1)
    ir_text = weak_and_strong.source("ir", a, x)
    assert "float64(a[i])" in ir_text


def test_parallel_element_loops_split_on_cache_line_boundaries():
    import numpy as np

    import asc.language as lang

    @lang.kernel(num_threads=2)
    def scale(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * 3.0
        return out
    x = np.arange(1_000_003, dtype=np.float32)
    src = scale.source("cpu", x)
    assert "schedule(static, asc_chunk(" in src and ", 64))" in src
    np.testing.assert_array_equal(scale(x), x * np.float32(3.0))


@lang.kernel(dynamic_shape=True)
def double_any(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return out


@lang.kernel(dynamic_shape=True)
def double_rows(x):
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        for j in range(C):
            out[i, j] = x[i, j] * 2.0
    return out


def test_dynamic_sizes_decide_parallelism_at_run_time():
    """With sizes known only at run time, the loop is parallel under an if() on the actual work (a 1-D loop used to
    stay on one thread for any size; a 2-D one counted its inner loop as 256 iterations)."""
    src = double_any.source("cpu", np.ones(10, np.float32))
    assert "#pragma omp parallel" in src and "if(asc_max_i(asc_dim_x_0_ - 0LL, 0LL) >= 32768LL)" in src
    src = double_rows.source("cpu", np.ones((3, 4), np.float32))
    # `R, C = x.shape` names the run-time sizes themselves (docs/tensors.md, "Dynamic shapes")
    assert "if(asc_max_i(asc_dim_x_0_ - 0LL, 0LL) * asc_max_i(asc_dim_x_1_ - 0LL, 0LL) >= 32768LL)" in src
    for n in (0, 1, 1000, 100_003):
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(double_any(x), 2 * x)
    for shape in ((0, 3), (3, 0), (7, 5), (300, 301)):
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        np.testing.assert_array_equal(double_rows(x), 2 * x)


@lang.kernel
def erf_spellings(x):
    out = lang.empty((6, len(x)), dtype=x.dtype)
    for i in range(len(x)):
        out[0, i] = lang.erf(x[i] / lang.sqrt(2.0))
        out[1, i] = lang.erf(x[i] * 0.7071067811865476)
        out[2, i] = lang.erf((1 / lang.sqrt(2.0)) * x[i])
        out[3, i] = lang.erf(x[i] / 1.41421356)          # rounds to the same float32 as sqrt(2)
        out[4, i] = lang.erf(x[i] / 3.0)                 # no measured bound for 1/3: an ordinary division
        out[5, i] = lang.erf(x[i] * 2.0)
    return out


def test_erf_of_a_scaled_argument_is_one_call_only_for_measured_constants():
    src = erf_spellings.source("cpu", np.zeros(100, np.float32))
    assert src.count("asc_erf_scaled_f32(x[i], 0.7071067932881648)") == 2     # x / float32(sqrt 2)
    assert src.count("asc_erf_scaled_f32(x[i], 0.7071067690849304)") == 2     # x * float32(sqrt 0.5)
    assert "asc_erf_f32((x[i] / 3.0f))" in src and "asc_erf_f32((x[i] * 2.0f))" in src
    src64 = erf_spellings.source("cpu", np.zeros(100, np.float64))
    assert "scaled" not in src64                                             # float64 erf is not scaled


def _ulp32(y, ref):
    """|y - ref| in float32 ulps of ref (ref in float64)."""
    e = np.maximum(np.frexp(ref)[1], -125)
    return np.abs(y.astype(np.float64) - ref) / np.ldexp(1.0, e - 24)


def test_scaled_erf_accuracy_special_values_and_interpreter():
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(100_003), rng.uniform(-8, 8, 50_000), np.ldexp(rng.random(20_000), -rng.integers(0, 140, 20_000)),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45, -1e-45, 5.0, -5.0]]).astype(np.float32)
    got = erf_spellings(x)
    xd = x.astype(np.float64)
    for row, scale in ((0, 1 / float(np.float32(np.sqrt(2)))), (1, float(np.float32(np.sqrt(0.5))))):
        ref = erf64(xd * scale)
        fin = np.isfinite(x)
        assert _ulp32(got[row][fin], ref[fin]).max() <= 2.5
        assert np.array_equal(np.signbit(got[row][x == 0]), np.signbit(x[x == 0]))       # erf(-0) = -0
        assert got[row][x == np.inf][0] == 1.0 and got[row][x == -np.inf][0] == -1.0
        assert np.isnan(got[row][np.isnan(x)]).all()
    # the interpreter (the specification) rounds x / sqrt 2 to float32 first and then erf once: within erf's bound
    # plus that rounding
    sub = np.concatenate([x[:1500], x[-11:]])
    want = interpreted(erf_spellings)(sub)
    got = erf_spellings(sub)
    fin = np.isfinite(sub)
    assert _ulp32(got[:, fin], want[:, fin].astype(np.float64)).max() <= 3.0
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[:, ~fin], want[:, ~fin], equal_nan=True)


@lang.kernel
def two_loops_over_one_variable(x):
    """Two loops over `s` with a bound read before each (t + 1) in one body: llama2.c's attention (scores, then
    the weighted sum over the same positions). Each loop's asc_s_stop once collided in one C++ scope."""
    out = lang.zeros_like(x)
    for t in range(len(x)):
        for s in range(t + 1):
            out[s] = x[s] + 1.0
        for s in range(t + 1):
            out[s] = out[s] * 2.0
    return out


def test_two_loops_over_one_variable_with_run_time_bounds_compile():
    x = np.arange(5, dtype=np.float32)
    got = two_loops_over_one_variable(x)
    np.testing.assert_array_equal(got, interpreted(two_loops_over_one_variable)(x))
    np.testing.assert_array_equal(got, (x + 1.0) * 2.0)
