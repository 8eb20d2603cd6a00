"""The cpu target on aarch64 (issue 19, item 2): the seed kernels and the float32 math sweep, built with a cross g++
for aarch64 (`toolchain.flags(options, machine="aarch64")`: the kernels' flags with aarch64's -march) and run under
qemu-user, against the interpreter (the specification) and against the same kernels built for this host.

The kernel libraries normally load into this process, which cannot run aarch64 code. So the test takes each
specialization's generated C++ (what `kernel.source("cpu", *args)` prints: one `asc_entry(void* const* args, const
int64_t* dims)` per kernel, arguments in the launcher's slot order: parameters, allocated outputs, returned
scalars; dims the size symbols in `spec.symbols_order`), puts every kernel into one translation unit (each in a
namespace of its own, its entry renamed), adds a driver that reads the argument slots from a file, calls each
entry and writes every slot back, cross-compiles it and runs it under qemu-aarch64.

Skipped where aarch64-linux-gnu-g++ or qemu-aarch64 is absent (Debian: `apt-get install g++-aarch64-linux-gnu
qemu-user`). docs/cpu.md, "aarch64", says what was checked and what it found."""
from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import subprocess

import numpy as np
import pytest

import asc.language as lang
from asc.dtypes import is_bfloat16, to_bfloat16
from asc.examples import seed, seed_tensor
from asc.math import cos, erf, exp, log, pow, rsqrt, sigmoid, sin, sqrt, tanh
from asc.runtime import toolchain
from helpers import BF16, close, erf64, interpreted, ulp_distance, ulps_from_exact

CROSS_CXX = "aarch64-linux-gnu-g++"
QEMU = "qemu-aarch64"
SYSROOT = "/usr/aarch64-linux-gnu"
_missing = [t for t in (CROSS_CXX, QEMU) if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(_missing), reason=(
    f"{' and '.join(_missing)} not installed: the aarch64 check needs a cross g++ and qemu-user "
    f"(Debian: apt-get install g++-aarch64-linux-gnu qemu-user)"))

SIZES = (1, 7, 33, 1000, 4099)
SHAPES = ((1, 1), (1, 7), (7, 33), (33, 7), (3, 1000), (2, 4099))
FLOATS = (np.dtype(np.float32), np.dtype(np.float16), BF16)


class Batch:
    """Kernel calls to run on aarch64: each is a specialization's C++ source and its argument slots."""

    def __init__(self):
        self.cases = []          # (spec, slot arrays, slot is an input, source)
        self.sources = {}        # source text -> entry index (one body per distinct specialization)

    def add(self, kernel, *args):
        spec, bound, symbols = kernel.specialization(args, {})
        slots, inputs = [], []
        for i, a in enumerate(bound):
            if a.kind == "scalar":
                v = to_bfloat16(a.value) if is_bfloat16(spec.param_np[i]) else a.value
                slots.append(np.array(v, dtype=spec.param_np[i]).reshape(1))
            else:
                slots.append(np.ascontiguousarray(a.value))
            inputs.append(True)
        for o in spec.allocs:
            shape = tuple(d if isinstance(d, int) else symbols[d.name] for d in o.type.shape)
            slots.append(np.empty(shape, spec_dtype(o.type.dtype)))
            inputs.append(False)
        for o in spec.scalars_out:
            slots.append(np.empty(1, spec_dtype(o.type.dtype)))
            inputs.append(False)
        dims = np.array([symbols[n] for n in spec.symbols_order], np.int64)
        src = spec.source("cpu")
        entry = self.sources.setdefault(src, len(self.sources))
        self.cases.append((spec, bound, slots, inputs, dims, entry))
        return len(self.cases) - 1

    def translation_unit(self) -> str:
        """Every kernel in one file: the headers first, then each source in a namespace, its entry renamed."""
        includes, bodies = [], []
        for src, k in self.sources.items():
            body = []
            for line in src.splitlines():
                if line.startswith("#include"):
                    if line not in includes:
                        includes.append(line)
                else:
                    body.append(line)
            text = "\n".join(body)
            assert text.count("int asc_entry(") == 1, "one entry per kernel source"
            text = text.replace("int asc_entry(", f"int asc_k{k}(")
            bodies.append(f"namespace asc_ns{k} {{\n{text}\n}}  // namespace asc_ns{k}\n")
        decls = "".join(f'extern "C" int asc_k{k}(void* const*, const int64_t*);\n' for k in range(len(bodies)))
        table = ", ".join(f"asc_k{k}" for k in range(len(bodies)))
        return "\n".join(includes) + "\n" + "\n".join(bodies) + DRIVER.replace("DECLS", decls).replace("TABLE", table)

    def run(self, tmp) -> list:
        """Cross-compiles and runs every case under qemu; each case's results as the kernel returns them."""
        tu = os.path.join(tmp, "kernels_aarch64.cpp")
        with open(tu, "w") as f:
            f.write(self.translation_unit())
        exe = os.path.join(tmp, "kernels_aarch64")
        fl = [x for x in toolchain.flags({}, user=False, machine="aarch64") if x not in ("-shared", "-fPIC")]
        cmd = [CROSS_CXX] + fl + ["-I", toolchain.INCLUDE_DIR, tu, "-o", exe]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{shlex.join(cmd)}\n{proc.stderr[-4000:]}"
        manifest, blobs = [str(len(self.cases))], []
        for spec, bound, slots, inputs, dims, entry in self.cases:
            manifest.append(f"{entry} {len(slots)} {len(dims)} " + " ".join(str(int(d)) for d in dims))
            manifest += [f"{int(inp)} {s.nbytes}" for s, inp in zip(slots, inputs)]
            blobs += [s.tobytes() for s, inp in zip(slots, inputs) if inp]
        paths = [os.path.join(tmp, n) for n in ("manifest.txt", "in.bin", "out.bin")]
        with open(paths[0], "w") as f:
            f.write("\n".join(manifest) + "\n")
        with open(paths[1], "wb") as f:
            f.write(b"".join(blobs))
        env = dict(os.environ, OMP_NUM_THREADS="2")
        proc = subprocess.run([QEMU, "-L", SYSROOT, exe] + paths, capture_output=True, text=True, timeout=600,
                              env=env)
        assert proc.returncode == 0, f"qemu run failed ({proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        raw = np.fromfile(paths[2], np.uint8)
        results, at = [], 0
        for spec, bound, slots, inputs, dims, entry in self.cases:
            got = []
            for s in slots:
                got.append(raw[at:at + s.nbytes].view(s.dtype).reshape(s.shape))
                at += s.nbytes
            res = []
            for o in spec.ir.outputs:
                if o.kind == "param":
                    res.append(got[o.index])
                elif o.kind == "alloc":
                    res.append(got[spec.nparams + o.index])
                else:
                    res.append(got[spec.nparams + len(spec.allocs) + o.index][0])
            results.append(tuple(res) if spec.ir.returns_tuple else (res[0] if res else None))
        assert at == raw.size
        return results


def spec_dtype(d):
    from asc.dtypes import HANDLES
    return HANDLES[d].np


# the driver: argv = manifest, inputs, outputs. Each case: "entry nslots ndims dims...", then per slot "is_input
# nbytes". Outputs are filled with 0xA5 bytes first (an element the kernel does not write shows).
DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
DECLS
typedef int (*asc_entry_t)(void* const*, const int64_t*);
static const asc_entry_t asc_entries[] = {TABLE};
int main(int argc, char** argv) {
  if (argc != 4) return 64;
  FILE* man = fopen(argv[1], "r"); FILE* in = fopen(argv[2], "rb"); FILE* out = fopen(argv[3], "wb");
  if (!man || !in || !out) return 65;
  int ncases = 0;
  if (fscanf(man, "%d", &ncases) != 1) return 66;
  for (int c = 0; c < ncases; ++c) {
    int entry = 0, nslots = 0, ndims = 0;
    if (fscanf(man, "%d %d %d", &entry, &nslots, &ndims) != 3) return 66;
    std::vector<int64_t> dims(ndims + 1);
    for (int d = 0; d < ndims; ++d) if (fscanf(man, "%lld", (long long*)&dims[d]) != 1) return 66;
    std::vector<void*> slots(nslots + 1);
    std::vector<long long> sizes(nslots);
    for (int s = 0; s < nslots; ++s) {
      int is_input = 0;
      if (fscanf(man, "%d %lld", &is_input, &sizes[s]) != 2) return 66;
      size_t n = ((size_t)sizes[s] + 127) / 64 * 64;
      slots[s] = aligned_alloc(64, n);
      memset(slots[s], 0xA5, n);
      if (is_input && fread(slots[s], 1, (size_t)sizes[s], in) != (size_t)sizes[s]) return 67;
    }
    int rc = asc_entries[entry](slots.data(), ndims ? dims.data() : nullptr);
    if (rc != 0) { fprintf(stderr, "case %d: kernel returned %d\n", c, rc); return 68; }
    for (int s = 0; s < nslots; ++s) {
      if (fwrite(slots[s], 1, (size_t)sizes[s], out) != (size_t)sizes[s]) return 69;
      free(slots[s]);
    }
  }
  return fclose(out) == 0 ? 0 : 69;
}
"""


def _same_bits(a, b) -> bool:
    """Bit-identical, a NaN matching any NaN (the sign and payload of a NaN the hardware makes differ: x86's
    default NaN is negative, aarch64's positive)."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f" and a.dtype != BF16:
        return bool(np.array_equal(a, b))
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    na, nb = np.isnan(fa), np.isnan(fb)
    ua = a.view(np.uint8).reshape(a.size, -1)
    ub = b.view(np.uint8).reshape(b.size, -1)
    return bool(np.array_equal(na, nb) and np.array_equal(ua[~na.reshape(-1)], ub[~nb.reshape(-1)]))


def _dynamic(k):
    return lang.kernel(dynamic_shape=True)(k.pyfunc)


def _rand(shape, dtype, seed_, scale=3.0):
    rng = np.random.default_rng(seed_)
    return (rng.standard_normal(shape) * scale).astype(dtype)


# Vectorized reductions (parallel_sum, softmax, layernorm, matmul_naive's promoted accumulator) sum in 32 lanes in
# a written order (asc/passes/reduce_lanes.py), the same on every ISA: bit-identical to the host's. The GEMM of the
# tensor-level kernels is not: fused multiply-adds in the host's micro-kernels, separate multiply and add in the
# portable one (no FMA contraction), so those results equal the host's up to rounding.
GEMM = {"matmul_any", "matmul_cube", "matmul_opt", "fused_mlp"}


def _seed_cases(batch: Batch):
    """(label, kernel, args) of every seed kernel the harness drives: over float32 / float16 / bfloat16 where the
    kernel takes them, at awkward sizes, both specialized (the sizes baked in) and dynamic_shape."""
    cases = []
    one_d = [("add", seed.add, 2, FLOATS), ("gelu_any", seed.gelu_any, 1, FLOATS),
             ("gelu_tanh_any", seed.gelu_tanh_any, 1, FLOATS), ("gelu_naive", seed.gelu_naive, 1, FLOATS[:1]),
             ("gelu_approx", seed.gelu_approx, 1, FLOATS[:1])]
    for name, k, nargs, dts in one_d:
        dyn = _dynamic(k)
        for dt in dts:
            for n in SIZES:
                args = tuple(_rand(n, dt, 10 * n + j) for j in range(nargs))
                cases.append((f"{name} {dt} [{n}] dynamic", dyn, args))
            args = tuple(_rand(33, dt, 7 + j) for j in range(nargs))
            cases.append((f"{name} {dt} [33]", k, args))
    dyn = _dynamic(seed.saxpy)
    for n in SIZES:
        cases.append((f"saxpy float32 [{n}] dynamic", dyn, (np.float32(-1.75), _rand(n, np.float32, n),
                                                              _rand(n, np.float32, n + 1))))
    cases.append(("vector_add float32 [1024]", seed.vector_add,
                  (_rand(1024, np.float32, 1), _rand(1024, np.float32, 2))))
    cases.append(("parallel_sum float32 [1024]", seed.parallel_sum, (_rand(1024, np.float32, 3),)))
    for name, k, dts in (("swiglu_any", seed.swiglu_any, FLOATS), ("swish_glu", seed.swish_glu, FLOATS[1:2]),
                         ("softmax", seed.softmax, FLOATS[:1])):
        dyn = _dynamic(k)
        for dt in dts:
            nargs = 1 if name == "softmax" else 2
            for shape in SHAPES:
                args = tuple(_rand(shape, dt, shape[0] * 7 + shape[1] + j, 2.0) for j in range(nargs))
                if name == "swish_glu":
                    args += (np.float16(0.75),)
                cases.append((f"{name} {dt} {list(shape)} dynamic", dyn, args))
            args = tuple(_rand((7, 33), dt, 5 + j, 2.0) for j in range(nargs))
            cases.append((f"{name} {dt} [7, 33]", k, args))
    dyn = _dynamic(seed.layernorm)
    for shape in SHAPES:
        r, c = shape
        cases.append((f"layernorm float32 {list(shape)} dynamic", dyn,
                      (_rand(shape, np.float32, r + c), _rand(c, np.float32, c, 1.0), _rand(c, np.float32, c + 1, 1.0),
                       1e-5)))
    for name, k, dts in (("matmul_naive", seed.matmul_naive, FLOATS), ("matmul", seed.matmul, FLOATS[1:2])):
        dyn = _dynamic(k)
        for dt in dts:
            for m, kk, n in ((1, 1, 1), (7, 33, 5), (33, 7, 65), (4, 1000, 3)):
                cases.append((f"{name} {dt} [{m}x{kk}]@[{kk}x{n}] dynamic", dyn,
                              (_rand((m, kk), dt, m + kk, 1.0), _rand((kk, n), dt, kk + n, 1.0))))
    # the tensor-level seed kernels (asc/examples/seed_tensor.py): asc's GEMM (asc_gemm.h), whose portable C
    # micro-kernel is what aarch64 gets (the host: AVX-512 / AVX2 intrinsics with FMA)
    for dt in FLOATS:
        for m, kk, n in ((1, 1, 1), (7, 33, 5), (33, 70, 65)):
            cases.append((f"matmul_any {dt} [{m}x{kk}]@[{kk}x{n}]", seed_tensor.matmul_any,
                          (_rand((m, kk), dt, m * kk, 1.0), _rand((kk, n), dt, kk * n, 1.0))))
    cases.append(("matmul_cube float16 [256x256]@[256x256]", seed_tensor.matmul_cube,
                  (_rand((256, 256), np.float16, 1, 1.0), _rand((256, 256), np.float16, 2, 1.0))))
    cases.append(("matmul_opt float32 [64x32]@[32x64]", seed_tensor.matmul_opt,
                  (_rand((64, 32), np.float32, 3, 1.0), _rand((32, 64), np.float32, 4, 1.0))))
    cases.append(("fused_mlp float32 [33x40]@[40x24]@[24x7]", seed_tensor.fused_mlp,
                  (_rand((33, 40), np.float32, 5, 1.0), _rand((40, 24), np.float32, 6, 0.3),
                   _rand((24, 7), np.float32, 7, 0.3))))
    for label, k, args in cases:
        batch.add(k, *args)
    return cases


# the float32 math sweep: one kernel, a row per builtin
def math_rows(x: lang.float32[N], p: lang.float32[N], y: lang.float32[N]) -> lang.float32[17, N]:
    out = lang.empty((17, N), dtype=lang.float32)
    for i in range(N):
        out[0, i] = exp(x[i])
        out[1, i] = log(x[i])
        out[2, i] = tanh(x[i])
        out[3, i] = erf(x[i])
        out[4, i] = sigmoid(x[i])
        out[5, i] = sin(x[i])
        out[6, i] = cos(x[i])
        out[7, i] = sqrt(x[i])
        out[8, i] = rsqrt(x[i])
        out[9, i] = lang.floor(x[i])
        out[10, i] = lang.ceil(x[i])
        out[11, i] = abs(x[i])
        out[12, i] = pow(p[i], y[i])
        out[13, i] = lang.maximum(x[i], y[i])
        out[14, i] = lang.minimum(x[i], y[i])
        out[15, i] = erf(x[i] / sqrt(2.0))
        out[16, i] = x[i] * y[i] + p[i]
    return out


ROWS = ("exp", "log", "tanh", "erf", "sigmoid", "sin", "cos", "sqrt", "rsqrt", "floor", "ceil", "abs", "pow",
        "maximum", "minimum", "erf_scaled", "mul_add")
# tests/include/test_asc_math.py's bounds (docs/math.md's measured maxima rounded up), float32
BOUND = {"exp": 1.1, "log": 0.9, "tanh": 2.0, "erf": 2.0, "sigmoid": 1.8, "sin": 0.55, "cos": 0.55, "rsqrt": 0.55,
         "pow": 0.6, "erf_scaled": 2.5, "sqrt": 0.5}


def sweep_inputs():
    """2^20 float32 bit patterns spread over the whole range (every 4096th pattern: both signs, every binade,
    subnormals, NaNs), 2^18 uniform values in [-12, 12], and the specials."""
    bits = (np.arange(1 << 20, dtype=np.uint32) * np.uint32(4096) + np.uint32(0x5A5)).view(np.float32)
    dense = np.linspace(-12, 12, 1 << 18, dtype=np.float32)
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, tiny, -tiny, 1.1754942e-38, -1.1754942e-38,
                         np.finfo(np.float32).tiny, -np.finfo(np.float32).tiny, np.finfo(np.float32).max,
                         -np.finfo(np.float32).max, 1.0, -1.0, 0.5, -0.5, 88.72283, 88.72284, -87.33654,
                         -103.97208, -103.9721, 0.52, -0.52, 3.9, -3.9, 1.5707964, 3.1415927, 1e30, -1e30,
                         8.5, -8.5, 2.5, -2.5], np.float32)
    x = np.concatenate([bits, dense, specials])
    rng = np.random.default_rng(19)
    p = np.abs(x[rng.permutation(x.size)])                    # pow: x >= 0, y in [-4, 4] (and some specials)
    y = rng.uniform(-4, 4, x.size).astype(np.float32)
    y[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, 0.5]
    return x, p, y


def _exact(x, p, y):
    with np.errstate(all="ignore"):
        x, p, y = (v.astype(np.float64) for v in (x, p, y))
        return {"exp": np.exp(x), "log": np.log(x), "tanh": np.tanh(x), "erf": erf64(x),
                "sigmoid": 1.0 / (1.0 + np.exp(-x)), "sin": np.sin(x), "cos": np.cos(x), "sqrt": np.sqrt(x),
                "rsqrt": 1.0 / np.sqrt(x), "pow": p ** y, "erf_scaled": erf64(x / math.sqrt(2.0))}


def _max_ulps(a, b) -> int:
    """The largest distance in units of the last place of a's dtype between a and b (finite elements)."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.size == 0 or a.dtype.kind in "biu":
        return 0
    d = ulp_distance(a, b)
    return int(d.max()) if d.size else 0


@pytest.fixture(scope="module")
def aarch64(tmp_path_factory):
    """Everything run on aarch64 in one build and one qemu run: (seed cases, their aarch64 results, the math
    sweep's inputs and aarch64 rows)."""
    batch = Batch()
    cases = _seed_cases(batch)
    sweep = sweep_inputs()
    math_kernel = lang.kernel(dynamic_shape=True)(math_rows)
    batch.add(math_kernel, *sweep)
    results = batch.run(str(tmp_path_factory.mktemp("aarch64")))
    return cases, results[:-1], (math_kernel, sweep, results[-1])


def test_flags_for_aarch64():
    """The cross build's flags are the kernels' flags with aarch64's -march (no x86 flag, FMA contraction still
    off), and the compiler says it targets NEON with FMA and half-precision arithmetic."""
    fl = toolchain.flags({}, user=False, machine="aarch64")
    assert "-march=native" not in fl and toolchain.CROSS_MARCH["aarch64"][0] in fl
    assert "-ffp-contract=off" in fl and not any(f.startswith(("-mavx", "-msse", "-mf16c")) for f in fl)
    probe = toolchain._probe(CROSS_CXX, fl)
    assert {"neon", "fma", "fp16"} <= set(probe["features"]), probe
    assert not {"avx2", "sse4.2", "f16c"} & set(probe["features"])
    assert toolchain._isa_name(probe["features"], "aarch64") == "NEON"


def test_headers_have_no_x86_code_on_aarch64(tmp_path):
    """Every header compiles for aarch64 on its own (the GEMM, the blocks, the tensors), and the object has no x86
    intrinsic left: the SIMD paths are behind their #if, the portable fallbacks are what compiles."""
    src = tmp_path / "headers.cpp"
    names = sorted(n for n in os.listdir(toolchain.INCLUDE_DIR) if n.endswith(".h"))
    src.write_text("".join(f'#include "{n}"\n' for n in names) + "int asc_headers_ok = 1;\n")
    fl = [x for x in toolchain.flags({}, user=False, machine="aarch64") if x not in ("-shared", "-fPIC")]
    pre = subprocess.run([CROSS_CXX] + fl + ["-I", toolchain.INCLUDE_DIR, "-E", str(src)], capture_output=True,
                         text=True, timeout=300)
    assert pre.returncode == 0, pre.stderr[-3000:]
    assert not re.search(r"\b_mm\d*_\w+\s*\(|immintrin", pre.stdout), "x86 intrinsics reach the aarch64 build"
    obj = subprocess.run([CROSS_CXX] + fl + ["-I", toolchain.INCLUDE_DIR, "-c", str(src), "-o",
                                             str(tmp_path / "h.o")], capture_output=True, text=True, timeout=300)
    assert obj.returncode == 0, obj.stderr[-3000:]


def test_a_kernel_library_builds_for_aarch64(tmp_path):
    """One kernel's source, built exactly as the toolchain builds a kernel library (the flags of
    toolchain.flags with machine="aarch64"), is an aarch64 shared object exporting asc_entry."""
    src = tmp_path / "k.cpp"
    src.write_text(seed.gelu_any.source("cpu", np.ones(4099, np.float16)))
    so = tmp_path / "k.so"
    cmd = [CROSS_CXX] + list(toolchain.flags({}, user=False, machine="aarch64")) + [
        "-I", toolchain.INCLUDE_DIR, str(src), "-o", str(so)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    head = so.read_bytes()[:20]
    assert head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == 183     # EM_AARCH64
    nm = shutil.which("aarch64-linux-gnu-nm")
    if nm:
        syms = subprocess.run([nm, "-D", "--defined-only", str(so)], capture_output=True, text=True).stdout
        assert re.search(r"\bT asc_entry\b", syms), syms


def test_seed_kernels_match_interpreter_and_host(aarch64):
    """Every seed case on aarch64: within the dtype's rounding of the interpreter, and bit-identical to this host's
    build (a NaN matching any NaN), reductions included (their lanes are the same on every ISA), except the
    kernels on asc's GEMM (FMA micro-kernels on the host, the portable one here): those within the rounding of the
    host's result."""
    cases, results, _ = aarch64
    bad, report = [], []
    for (label, k, args), got in zip(cases, results):
        want_host = k(*args)
        want_interp = interpreted(k)(*args)
        gots, hosts, interps = ((v,) if not isinstance(v, tuple) else v for v in (got, want_host, want_interp))
        for g, h, i in zip(gots, hosts, interps):
            g, h, i = np.asarray(g), np.asarray(h), np.asarray(i)
            try:
                close(g, i, dtype=g.dtype, ulps=4.0 if k.__name__.startswith(("gelu", "swi", "fused")) else 2.0,
                      scale=max(1.0, math.sqrt(g.size)) if k.__name__.startswith(("matmul", "parallel", "fused")) else 1.0)
            except AssertionError as e:
                bad.append(f"{label}: aarch64 vs interpreter: {str(e)[:400]}")
            same = _same_bits(g, h)
            report.append(f"{label}: {'bit-identical to host' if same else 'differs from host'}, "
                          f"max {_max_ulps(g, h)} ulp from host, {_max_ulps(g, i)} ulp from interpreter")
            if k.__name__ in GEMM:
                try:
                    close(g, h, dtype=g.dtype, ulps=2.0,
                          scale=max(1.0, math.sqrt(g.size)) if k.__name__.startswith(("matmul", "parallel", "fused")) else 1.0)
                except AssertionError as e:
                    bad.append(f"{label}: aarch64 vs host: {str(e)[:400]}")
            elif not same:
                diff = np.flatnonzero(g.astype(np.float64).ravel() != h.astype(np.float64).ravel())
                bad.append(f"{label}: aarch64 and host bits differ at {diff.size} elements, first {diff[:4]}")
    print("\n".join(report))             # the table of docs/cpu.md, "aarch64" (pytest -s)
    assert not bad, "\n".join(bad[:20])


def test_math_sweep(aarch64):
    """Each math builtin over 1.3M float32 inputs on aarch64: bit-identical to this host's build where the host
    has FMA (the same C code, the same FMA paths of asc_math.h; NaN matching any NaN), within the bounds of
    docs/math.md of the exact value, and within 5 ulp of the interpreter (tests/language/test_math_agreement.py's
    guarantee) on every 16th input and the specials, NaN and inf where the interpreter has them."""
    math_kernel, sweep, got = aarch64[2]
    host = math_kernel(*sweep)
    # the interpreter runs the element loop in Python: every 16th input and the specials (82K)
    n = sweep[0].size
    pick = np.r_[0:n:16, n - 64:n]
    interp = interpreted(math_kernel)(*(v[pick] for v in sweep))
    exact = _exact(*sweep)
    host_fma = "fma" in toolchain.target_isa()["features"]
    bad, report = [], []
    for r, name in enumerate(ROWS):
        g, h, i = got[r], host[r], interp[r]
        gi = g[pick]
        if host_fma and not _same_bits(g, h):
            bad.append(f"{name}: aarch64 and host differ at {int(np.count_nonzero(g != h))} inputs")
        if name in BOUND:
            err = ulps_from_exact(g, exact[name])
            if err.size and err.max() > BOUND[name]:
                bad.append(f"{name}: {err.max():.4g} ulp from exact > {BOUND[name]}")
        if not np.array_equal(np.isnan(gi), np.isnan(i)) or not np.array_equal(np.isinf(gi), np.isinf(i)):
            bad.append(f"{name}: NaN/inf differ from the interpreter at "
                       f"{int(np.count_nonzero((np.isnan(gi) != np.isnan(i)) | (np.isinf(gi) != np.isinf(i))))}")
        d = ulp_distance(gi, i)
        e = ulps_from_exact(g, exact[name]) if name in exact else np.zeros(0)
        nan_bits = int(np.count_nonzero(np.isnan(g) & np.isnan(h) & (g.view(np.uint32) != h.view(np.uint32))))
        report.append(f"{name}: {int(np.count_nonzero(~_same_elements(g, h)))} of {g.size} differ from host "
                      f"({nan_bits} NaNs of another sign or payload), "
                      f"max {e.max() if e.size else 0:.4g} ulp from exact, max {int(d.max()) if d.size else 0} ulp "
                      f"from interpreter ({int(np.count_nonzero(d))} differ)")
        limit = 5 if name in BOUND and name != "sqrt" else 0
        if d.size and d.max() > limit:
            bad.append(f"{name}: {int(d.max())} ulp from the interpreter > {limit}")
    print("\n".join(report))             # the table of docs/cpu.md, "aarch64" (pytest -s)
    assert not bad, "\n".join(bad)


def _same_elements(a, b):
    """Per float32 element: the same bits, or both NaN."""
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
