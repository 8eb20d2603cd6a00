"""The generated C++ is for people too, and the loop classification decides what runs in parallel."""
from __future__ import annotations

import numpy as np

import asc.language as lang
from asc.examples import seed


def test_source_quotes_python_lines_and_uses_float32_math():
    x = np.zeros(1 << 20, np.float32)
    src = seed.gelu_naive.source("cpu", x)
    assert "// seed.py:" in src and "out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt2))" in src
    assert "asc_erf_f32(" in src and "double" not in src     # weak literals stay float32 (NEP 50)
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
    inner = next(i for i, l in enumerate(lines) if "for (int64_t j" in l)
    assert "omp simd reduction(+:acc)" in lines[inner - 1]   # acc accumulates across j: a vector reduction
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
    assert "if(asc_max_i(R - 0LL, 0LL) * asc_max_i(C - 0LL, 0LL) >= 32768LL)" in src
    for n in (0, 1, 1000, 100_003):
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(double_any(x), 2 * x)
    for shape in ((0, 3), (3, 0), (7, 5), (300, 301)):
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        np.testing.assert_array_equal(double_rows(x), 2 * x)
