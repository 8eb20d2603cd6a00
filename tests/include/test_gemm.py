"""asc_gemm.h (the cpu matrix unit) against NumPy in float64: every dtype, sizes that are and are not multiples of the
micro-tile and of the cache blocks, alpha/beta, leading dimensions, transposes, the epilogue hook, determinism over
thread counts, and the AVX2 and portable micro-kernels (forced by flags and by macros), compiled the way kernels are."""
import ctypes
import os
import shlex
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

from asc.runtime import toolchain

SHIM = r"""
#include "asc_gemm.h"
#define EXPORT extern "C" __attribute__((visibility("default")))

struct epi_ctx { const double* bias; int* counts; int64_t ldn; int64_t max_rows, max_cols; };

static void epi32(void* ctx_, int64_t i0, int64_t j0, int64_t rows, int64_t cols, float* tile, int64_t ldc) {
  epi_ctx* ctx = (epi_ctx*)ctx_;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float t = tile[r * ldc + c] + (float)ctx->bias[j0 + c];
      tile[r * ldc + c] = t > 0 ? t : 0.125f * t;            /* bias + leaky relu */
      ctx->counts[(i0 + r) * ctx->ldn + j0 + c] += 1;       /* tiles never overlap: no race */
    }
  if (rows > ctx->max_rows) ctx->max_rows = rows;         /* benign race: only ever grows to <= the true max */
  if (cols > ctx->max_cols) ctx->max_cols = cols;
}
static void epi64(void* ctx_, int64_t i0, int64_t j0, int64_t rows, int64_t cols, double* tile, int64_t ldc) {
  epi_ctx* ctx = (epi_ctx*)ctx_;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double t = tile[r * ldc + c] + ctx->bias[j0 + c];
      tile[r * ldc + c] = t > 0 ? t : 0.125 * t;
      ctx->counts[(i0 + r) * ctx->ldn + j0 + c] += 1;
    }
  if (rows > ctx->max_rows) ctx->max_rows = rows;
  if (cols > ctx->max_cols) ctx->max_cols = cols;
}

/* dtype: 0 f32, 1 f16, 2 bf16, 3 f64. api: 0 plain, 1 _t, 2 _ex with the epilogue, 3 _ex without one. */
EXPORT void t_gemm(int dtype, int api, int ta, int tb, int64_t M, int64_t N, int64_t K, double alpha, const void* A,
                   int64_t lda, const void* B, int64_t ldb, double beta, void* C, int64_t ldc, const double* bias,
                   int* counts, int64_t* max_tile) {
  epi_ctx ctx = {bias, counts, N, 0, 0};
  if (dtype == 0) {
    if (api == 0) asc_gemm_f32(M, N, K, (float)alpha, (const float*)A, lda, (const float*)B, ldb, (float)beta, (float*)C, ldc);
    else if (api == 1) asc_gemm_f32_t(ta, tb, M, N, K, (float)alpha, (const float*)A, lda, (const float*)B, ldb, (float)beta, (float*)C, ldc);
    else asc_gemm_f32_ex(ta, tb, M, N, K, (float)alpha, (const float*)A, lda, (const float*)B, ldb, (float)beta, (float*)C, ldc, api == 2 ? epi32 : 0, &ctx);
  } else if (dtype == 1) {
    if (api == 0) asc_gemm_f16(M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc);
    else if (api == 1) asc_gemm_f16_t(ta, tb, M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc);
    else asc_gemm_f16_ex(ta, tb, M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc, api == 2 ? epi32 : 0, &ctx);
  } else if (dtype == 2) {
    if (api == 0) asc_gemm_bf16(M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc);
    else if (api == 1) asc_gemm_bf16_t(ta, tb, M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc);
    else asc_gemm_bf16_ex(ta, tb, M, N, K, (float)alpha, (const uint16_t*)A, lda, (const uint16_t*)B, ldb, (float)beta, (float*)C, ldc, api == 2 ? epi32 : 0, &ctx);
  } else {
    if (api == 0) asc_gemm_f64(M, N, K, alpha, (const double*)A, lda, (const double*)B, ldb, beta, (double*)C, ldc);
    else if (api == 1) asc_gemm_f64_t(ta, tb, M, N, K, alpha, (const double*)A, lda, (const double*)B, ldb, beta, (double*)C, ldc);
    else asc_gemm_f64_ex(ta, tb, M, N, K, alpha, (const double*)A, lda, (const double*)B, ldb, beta, (double*)C, ldc, api == 2 ? epi64 : 0, &ctx);
  }
  if (max_tile) { max_tile[0] = ctx.max_rows; max_tile[1] = ctx.max_cols; }
}
EXPORT void t_batched(int dtype, int ta, int tb, int64_t batch, int64_t M, int64_t N, int64_t K, double alpha,
                      const void* A, int64_t sA, int64_t lda, const void* B, int64_t sB, int64_t ldb, double beta,
                      void* C, int64_t sC, int64_t ldc) {
  if (dtype == 0) asc_gemm_f32_batched(ta, tb, batch, M, N, K, (float)alpha, (const float*)A, sA, lda, (const float*)B, sB, ldb, (float)beta, (float*)C, sC, ldc);
  else if (dtype == 1) asc_gemm_f16_batched(ta, tb, batch, M, N, K, (float)alpha, (const uint16_t*)A, sA, lda, (const uint16_t*)B, sB, ldb, (float)beta, (float*)C, sC, ldc);
  else if (dtype == 2) asc_gemm_bf16_batched(ta, tb, batch, M, N, K, (float)alpha, (const uint16_t*)A, sA, lda, (const uint16_t*)B, sB, ldb, (float)beta, (float*)C, sC, ldc);
  else asc_gemm_f64_batched(ta, tb, batch, M, N, K, alpha, (const double*)A, sA, lda, (const double*)B, sB, ldb, beta, (double*)C, sC, ldc);
}
EXPORT const char* t_isa(void) { return asc_gemm_isa(); }
EXPORT int t_max_mr(void) { return ASC_GEMM_MAX_MR; }
EXPORT int t_max_nr(void) { return ASC_GEMM_MAX_NR; }
EXPORT void t_threads(int n) {
#if defined(_OPENMP)
  omp_set_num_threads(n);
#endif
}
"""

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"f32": (0, np.dtype(np.float32)), "f16": (1, np.dtype(np.float16)), "bf16": (2, BF16),
          "f64": (3, np.dtype(np.float64))}

# (name, compiler, extra flags, expected isa prefix)
VARIANTS = {
    "native": ("g++", [], None),
    "clang": ("clang++", [], None),
    "avx2-flags": ("g++", ["-mno-avx512f"], "avx2"),
    "avx512f-only": ("g++", ["-mno-avx512bw", "-mno-avx512vl", "-mno-avx512bf16"], None),   # scalar packing
    "avx2-macro": ("g++", ["-DASC_GEMM_FORCE_AVX2"], "avx2"),
    "portable-flags": ("g++", ["-mno-avx512f", "-mno-avx2"], "portable"),
    "portable-macro": ("g++", ["-DASC_GEMM_FORCE_PORTABLE"], "portable"),
    # tiny cache blocks: many K/M/N blocks per call, so block edges, A double-buffering and barriers get exercised
    "tiny-blocks": ("g++", ["-DASC_GEMM_KC=24", "-DASC_GEMM_NC=70",
                            "-DASC_GEMM_MIN_PARALLEL_FLOPS=0"], None),
}


class Lib:
    def __init__(self, path):
        self.dll = ctypes.CDLL(path)
        f = self.dll.t_gemm
        i64, vp = ctypes.c_int64, ctypes.c_void_p
        f.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, i64, i64, i64, ctypes.c_double, vp, i64,
                      vp, i64, ctypes.c_double, vp, i64, vp, vp, vp)
        f.restype = None
        self.dll.t_batched.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, i64, i64, i64, i64, ctypes.c_double,
                                       vp, i64, i64, vp, i64, i64, ctypes.c_double, vp, i64, i64)
        self.dll.t_batched.restype = None
        self.dll.t_isa.restype = ctypes.c_char_p
        self.isa = self.dll.t_isa().decode()
        self.max_mr, self.max_nr = self.dll.t_max_mr(), self.dll.t_max_nr()

    def threads(self, n):
        self.dll.t_threads(n)


def _build(tmp, variant):
    cxx, extra, _ = VARIANTS[variant]
    if variant != "clang":
        cxx = toolchain.compiler()
    if not shutil.which(shlex.split(cxx)[0]):
        pytest.skip(f"{cxx} not installed")
    src = os.path.join(tmp, f"gemm_{variant}.cpp")
    so = os.path.join(tmp, f"gemm_{variant}.so")
    with open(src, "w") as f:
        f.write(SHIM)
    cmd = shlex.split(cxx) + list(toolchain.flags({})) + extra + ["-I", toolchain.INCLUDE_DIR, src, "-o", so]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return Lib(so)


_libs = {}


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("gemm"))

    def get(variant):
        if variant not in _libs:
            _libs[variant] = _build(d, variant)
        return _libs[variant]
    yield get
    _libs.clear()


def _stored(rng, rows, cols, ld, dt, trans):
    """op(X) is rows x cols; storage is (cols x ld) when trans else (rows x ld), extra columns filled with junk.
    Returns (storage, op(X) in float64 exactly as stored)."""
    width = rows if trans else cols
    s = rng.standard_normal((cols if trans else rows, ld)).astype(dt)
    s[:, width:] = np.nan   # the padding past each stored row: never read
    x = s[:, :width].astype(np.float64)
    return s, (x.T if trans else x)


def run(lib, dtype, M, N, K, alpha=1.0, beta=0.0, ta=0, tb=0, pad=(0, 0, 0), api=None, seed=0, c0=None,
        epilogue=False, check=True):
    code, dt = DTYPES[dtype]
    out_dt = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(seed)
    lda = (M if ta else K) + pad[0]
    ldb = (K if tb else N) + pad[1]
    ldc = N + pad[2]
    As, a = _stored(rng, M, K, max(lda, 1), dt, ta)
    Bs, b = _stored(rng, K, N, max(ldb, 1), dt, tb)
    Cs = np.full((M, max(ldc, 1)), 7.0, out_dt) if c0 is None else c0.copy()
    if c0 is None and N:
        Cs[:, :N] = rng.standard_normal((M, N))
    before = Cs.copy()
    bias = rng.standard_normal(max(N, 1))
    counts = np.zeros((M, N), np.int32)
    max_tile = np.zeros(2, np.int64)
    if api is None:
        api = 2 if epilogue else (1 if (ta or tb) else 0)
    lib.dll.t_gemm(code, api, ta, tb, M, N, K, alpha, As.ctypes.data, max(lda, 1), Bs.ctypes.data, max(ldb, 1), beta,
                   Cs.ctypes.data, max(ldc, 1), bias.ctypes.data, counts.ctypes.data, max_tile.ctypes.data)
    c_in = before[:, :N].astype(np.float64)
    with np.errstate(invalid="ignore"):
        ref = alpha * (a @ b) + (beta * c_in if beta != 0 else 0.0)
        bound_mag = abs(alpha) * (np.abs(a) @ np.abs(b)) + (abs(beta) * np.abs(c_in) if beta != 0 else 0.0)
    if epilogue:
        t = ref + bias[:N]
        ref = np.where(t > 0, t, 0.125 * t)
    if check:
        eps = np.finfo(out_dt).eps
        got = Cs[:, :N].astype(np.float64)
        # worst-case bound of a length-K dot product accumulated in the output precision (+ alpha, beta, epilogue)
        tol = (K + 6) * eps * (bound_mag + (np.abs(bias[:N]) if epilogue else 0.0)) + 1e-30
        err = np.abs(got - ref)
        assert np.all(np.isfinite(got)), "non-finite result"
        assert np.all(err <= tol), f"max err {err.max()} (tol there {tol.flat[np.argmax(err - tol)]})"
        # the columns past N in each row of C are never written
        np.testing.assert_array_equal(Cs[:, N:], before[:, N:])
        if epilogue:
            assert np.all(counts == 1), "the epilogue must see every element exactly once"
            assert max_tile[0] <= lib.max_mr and max_tile[1] <= lib.max_nr
    return Cs, counts


SHAPES = [(1, 1, 1), (7, 13, 5), (17, 31, 29), (14, 32, 64), (15, 33, 65), (65, 97, 130), (300, 257, 513),
          (2, 3, 1000), (401, 50, 37), (1, 200, 3), (200, 1, 3)]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_shapes_native(build, dtype, shape):
    run(build("native"), dtype, *shape)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_large_blocks(build, dtype):
    """More than one K block (bf16: odd K past the pair-packed block), more than one M block, N past the N block."""
    lib = build("native")
    run(lib, dtype, 9, 3100, 40, beta=0.5)
    run(lib, dtype, 203, 45, 1601, alpha=0.75, beta=-1.5)
    run(lib, dtype, 700, 70, 33)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_transposes_alpha_beta_leading_dims(build, dtype, ta, tb):
    lib = build("native")
    for (M, N, K), pad in [((65, 97, 130), (3, 5, 7)), ((7, 13, 5), (0, 1, 2)), ((129, 66, 401), (16, 0, 1))]:
        run(lib, dtype, M, N, K, alpha=-1.25, beta=0.5, ta=ta, tb=tb, pad=pad)
        run(lib, dtype, M, N, K, alpha=2.0, beta=1.0, ta=ta, tb=tb, pad=pad, api=3 if (ta or tb) else 1)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_empty_and_degenerate(build, dtype):
    lib = build("native")
    run(lib, dtype, 0, 5, 3)
    run(lib, dtype, 5, 0, 3)
    # K == 0: C = beta * C, and A/B are not read
    out_dt = np.float64 if dtype == "f64" else np.float32
    c0 = np.arange(12, dtype=out_dt).reshape(3, 4)
    C, _ = run(lib, dtype, 3, 4, 0, beta=0.5, c0=c0, check=False)
    np.testing.assert_array_equal(C, 0.5 * c0)
    C, _ = run(lib, dtype, 3, 4, 0, beta=0.0, c0=c0, check=False)
    np.testing.assert_array_equal(C, np.zeros_like(c0))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_beta_zero_does_not_read_c(build, dtype):
    lib = build("native")
    out_dt = np.float64 if dtype == "f64" else np.float32
    for M, N, K in [(65, 97, 130), (3, 5, 7)]:
        c0 = np.full((M, N), np.nan, out_dt)
        C, _ = run(lib, dtype, M, N, K, alpha=1.5, beta=0.0, c0=c0, check=False)
        assert np.isfinite(C).all()
        C, _ = run(lib, dtype, M, N, K, alpha=0.0, beta=0.0, c0=c0, check=False)   # alpha == 0: not read either
        np.testing.assert_array_equal(C, 0.0)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 1)])
def test_epilogue(build, dtype, ta, tb):
    """The fusion hook sees each element once, after its final K block, in tiles no bigger than the micro-tile."""
    lib = build("native")
    for M, N, K in [(1, 1, 1), (65, 97, 130), (300, 257, 1000), (31, 3100, 17)]:
        run(lib, dtype, M, N, K, alpha=0.5, beta=0.25, ta=ta, tb=tb, pad=(1, 2, 3), epilogue=True)
    run(lib, dtype, 9, 10, 0, beta=0.5, epilogue=True)   # K == 0: the epilogue still runs over every tile


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("variant", ["native", "tiny-blocks"])
def test_same_bits_for_any_thread_count(build, dtype, variant):
    lib = build(variant)
    try:
        # many row panels (claimed dynamically), few (static row split), one (static column split)
        for shape in [(300, 257, 513), (40, 300, 200), (5, 700, 300)]:
            outs = []
            for n in (1, 2, 3, 2):
                lib.threads(n)
                C, _ = run(lib, dtype, *shape, alpha=0.7, beta=0.3, seed=5, epilogue=True)
                outs.append(C)
            for C in outs[1:]:
                assert np.array_equal(C.view(np.uint8), outs[0].view(np.uint8)), shape
    finally:
        lib.threads(int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or os.cpu_count())


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shared_b", [False, True])
def test_batched_same_bits_as_a_loop(build, dtype, shared_b):
    lib = build("native")
    code, dt = DTYPES[dtype]
    out_dt = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(3)
    for batch, M, N, K, ta, tb in [(6, 33, 40, 50, 0, 0), (3, 120, 130, 140, 1, 0), (5, 7, 9, 11, 0, 1), (0, 3, 3, 3, 0, 0),
                                        (2, 520, 515, 512, 0, 0)]:
        A = rng.standard_normal((batch, K, M) if ta else (batch, M, K)).astype(dt)
        B = rng.standard_normal((1 if shared_b else batch,) + ((N, K) if tb else (K, N))).astype(dt)
        C0 = rng.standard_normal((batch, M, N)).astype(out_dt)
        C = C0.copy()
        lda, ldb = A.shape[2], B.shape[2]
        lib.dll.t_batched(code, ta, tb, batch, M, N, K, 1.5, A.ctypes.data, M * K, lda, B.ctypes.data,
                          0 if shared_b else K * N, ldb, 0.5, C.ctypes.data, M * N, N)
        for b in range(batch):
            Cb = C0[b].copy()
            Bb = B[0 if shared_b else b]
            lib.dll.t_gemm(code, 1, ta, tb, M, N, K, 1.5, A[b].ctypes.data, lda, Bb.ctypes.data, ldb, 0.5,
                           Cb.ctypes.data, N, None, None, None)
            assert np.array_equal(Cb.view(np.uint8), C[b].view(np.uint8))
            a = A[b].astype(np.float64)
            bm = Bb.astype(np.float64)
            ref = 1.5 * ((a.T if ta else a) @ (bm.T if tb else bm)) + 0.5 * C0[b]
            np.testing.assert_allclose(C[b], ref, rtol=1e-4, atol=1e-4 * K)


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "native"])
def test_other_micro_kernels(build, variant):
    lib = build(variant)
    expect = VARIANTS[variant][2]
    if expect:
        assert lib.isa.startswith(expect), lib.isa
    for dtype in DTYPES:
        for shape in [(1, 1, 1), (7, 13, 5), (65, 97, 130), (300, 257, 513)]:
            run(lib, dtype, *shape, alpha=1.5, beta=-0.5)
        run(lib, dtype, 33, 47, 129, ta=1, tb=1, pad=(2, 3, 4), beta=1.0)
        run(lib, dtype, 33, 47, 129, ta=1, tb=0, epilogue=True)
        run(lib, dtype, 40, 3, 700, ta=0, tb=1, beta=0.5)


def test_native_isa(build):
    """On a machine with AVX-512 the AVX-512 micro-kernels are the ones compiled in (and vdpbf16ps with avx512_bf16)."""
    lib = build("native")
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        pytest.skip("no /proc/cpuinfo")
    if " avx512f" in flags:
        assert lib.isa.startswith("avx512")
        if " avx512_bf16" in flags:
            assert lib.isa == "avx512+bf16"
    elif " avx2" in flags:
        assert lib.isa == "avx2"


C_USE = r"""
#include "asc_gemm.h"
void use(float* a, double* d, uint16_t* h, float* c, long n);
void use(float* a, double* d, uint16_t* h, float* c, long n) {
  asc_gemm_f32(n, n, n, 1.f, a, n, a, n, 0.f, c, n);
  asc_gemm_f16_t(1, 0, n, n, n, 1.f, h, n, h, n, 0.f, c, n);
  asc_gemm_bf16_ex(0, 1, n, n, n, 1.f, h, n, h, n, 0.f, c, n, 0, 0);
  asc_gemm_f64_batched(0, 0, 2, n, n, n, 1., d, 0, n, d, 0, n, 0., d, 0, n);
}
"""


@pytest.mark.parametrize("lang,std", [("c", "-std=c99"), ("c", "-std=c11"), ("c++", "-std=c++17")])
def test_header_compiles_cleanly(tmp_path, lang, std):
    """Header-only C: compiles as C99, C11 and C++17 with -Wall -Wextra -Werror (with and without OpenMP)."""
    cc = shutil.which("cc" if lang == "c" else shlex.split(toolchain.compiler())[0])
    if not cc:
        pytest.skip("no compiler")
    src = tmp_path / "use.src"
    src.write_text(C_USE)
    for omp in (["-fopenmp"], []):
        cmd = [cc, "-x", lang, std, "-O2", "-march=native", "-Wall", "-Wextra", "-Werror", *omp,
               "-I", toolchain.INCLUDE_DIR, "-c", str(src), "-o", str(tmp_path / "use.o")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
