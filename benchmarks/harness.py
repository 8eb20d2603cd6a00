"""Benchmark harness: peers timed in interleaved blocks beside an in-process C STREAM triad of the same size.

Method (after the project's baselines): every case gets a first call and a warm-up call; then `blocks` rounds in
which each case, in rotating order, sleeps a settle pause (so spinning OpenMP/BLAS threads of the previous peer
stop), makes one untimed call, then its share of the timed calls. The median of all timed calls is reported.
Bytes are counted read + written once. "% ref" is relative to the triad timed in the same rounds.
"""
from __future__ import annotations

import ctypes
import os
import statistics
import tempfile
import time

import numpy as np

TRIAD_C = r"""
#include <stdint.h>
extern "C" void triad_f32(float* __restrict a, const float* __restrict b, const float* __restrict c, float s, int64_t n) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
"""


def machine():
    """(the ISA the kernels are compiled for, as a dict for the JSON; the header's lines): asc.runtime.toolchain's
    target_isa, so that figures from different ISAs are never compared blindly (docs/cpu.md, "Per ISA")."""
    from asc.runtime import toolchain
    info = toolchain.target_isa()
    held = peers_held()
    return dict(info, peers=held or "native"), toolchain.describe_isa(info) + (f"\n{held}" if held else "")


# An ISA below the host's (ASC_CFLAGS=-march=x86-64-v3 on an AVX-512 machine) stands for a machine that has no more:
# the peers are held to it too, as they would be there. Without this, torch's GELU (oneDNN's JIT) and NumPy's loops
# keep using AVX-512 while asc's kernels may not, a state no user's machine is in. PEERS_NATIVE=1 leaves them native.
PEER_ISA_ENV = {
    "AVX2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "NUMBA_CPU_NAME": "haswell",
             "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR", "OPENBLAS_CORETYPE": "Haswell"},
    "SSE4.2": {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41", "NUMBA_CPU_NAME": "nehalem",
               "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "OPENBLAS_CORETYPE": "Nehalem"},
}


def peers_at_target_isa() -> str:
    """Holds torch, oneDNN, Numba, NumPy and OpenBLAS to the ISA asc's kernels are built for, when that is AVX2 or
    SSE4.2: they read these variables when they load, so the script starts once more with them set (a benchmark
    calls this first thing, before it imports a peer). Returns the header's line for what was held ("" when nothing)."""
    from asc.runtime import toolchain
    if os.environ.get("PEERS_NATIVE") == "1":
        return ""
    env = PEER_ISA_ENV.get(toolchain.target_isa()["isa"])
    if not env:
        return ""
    if any(os.environ.get(k) != v for k, v in env.items()):
        import sys
        os.environ.update(env)
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, *sys.argv])
    return peers_held()


def peers_held() -> str:
    """The header's line for what peers_at_target_isa set in this process ("" when the peers run native)."""
    for env in PEER_ISA_ENV.values():
        if all(os.environ.get(k) == v for k, v in env.items()):
            return "peers held to the same ISA (PEERS_NATIVE=1: native): " + " ".join(f"{k}={v}" for k, v in env.items())
    return ""


class Triad:
    """a = b + s*c in C (gcc -O3 -march=native -fopenmp, then ASC_CFLAGS), the bandwidth yardstick, called
    in-process."""

    def __init__(self):
        from asc.runtime import toolchain
        d = tempfile.mkdtemp(prefix="asc-bench-")
        src = os.path.join(d, "triad.c")
        with open(src, "w") as f:
            f.write(TRIAD_C)
        so = os.path.join(d, "triad.so")
        import subprocess
        import asc.environment
        cc = toolchain.compiler()
        # the kernels' ISA (ASC_CFLAGS=-march=x86-64-v3 builds both for AVX2)
        subprocess.run([*cc.split(), "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
                        *asc.environment.config.cflags, "-x", "c++", src, "-o", so], check=True)
        self.lib = ctypes.CDLL(so)
        self.lib.triad_f32.argtypes = (ctypes.c_void_p,) * 3 + (ctypes.c_float, ctypes.c_int64)

    def case(self, n: int):
        """A callable timing the triad over float32 arrays of n elements; bytes = 12 n."""
        a, b, c = (np.ones(n, np.float32) for _ in range(3))
        pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data
        fn = self.lib.triad_f32

        def triad(keep=(a, b, c)):  # keep: the arrays live as long as the callable
            fn(pa, pb, pc, 2.0, n)
        return triad, 12 * n


class Case:
    def __init__(self, peer, variant, fn, nbytes, note=""):
        self.peer, self.variant, self.fn, self.nbytes, self.note = peer, variant, fn, nbytes, note
        self.first = None
        self.times = []
        self.error = None


def run_group(cases, runs=7, blocks=5, pause=0.05):
    """Times `cases` interleaved; returns them with .first (s), .times (s) filled."""
    live = []
    for c in cases:
        try:
            t0 = time.perf_counter()
            c.fn()
            c.first = time.perf_counter() - t0
            c.fn()
            live.append(c)
        except Exception as e:  # a peer that cannot run this case is reported, not fatal
            c.error = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    per_block = max(1, -(-runs // blocks))
    for r in range(blocks):
        order = live[r % len(live):] + live[:r % len(live)] if live else []
        for c in order:
            time.sleep(pause)
            c.fn()
            for _ in range(per_block):
                t0 = time.perf_counter()
                c.fn()
                c.times.append(time.perf_counter() - t0)
    return cases


def median(c: Case):
    return statistics.median(c.times) if c.times else None


def gbs(c: Case):
    m = median(c)
    return c.nbytes / m / 1e9 if m else None
