"""A load-robust variant of benchmarks/run.py for a shared machine: run.py's groups (the same workloads and arrays),
each case timed on one thread by process CPU time, the cases of a group interleaved in rotating order, the median of
ROUNDS rounds (default 7), against the in-process C triad timed the same way. Peers' `alloc` forms are left out where
they have an `out=` form, numpy's composites everywhere but parallel_sum (docs/cpu.md, "Per ISA").

    PYTHONPATH=. python benchmarks/cputime.py        (OUTJ=FILE.json for the JSON, bench-results/cputime.json
                                                      by default, beside asc bench's; ASC_CFLAGS as for asc bench;
    ONLY="gelu erf float32" for the groups whose name and dtype start so)
"""
import os, sys, time, statistics, json
os.environ["OMP_NUM_THREADS"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import harness
harness.peers_at_target_isa()  # before a peer loads: an AVX2 build holds them to AVX2 too
import run
from harness import Case
import torch
torch.set_num_threads(1)
try:
    import numba_kernels as nm
    import numba; numba.set_num_threads(1); nm.warm()
except ImportError:
    nm = None
R = int(os.environ.get("ROUNDS", 7))
ONLY = os.environ.get("ONLY")  # e.g. ONLY="gelu erf float32": only the groups whose "name dtype" starts so
isa, lines = harness.machine()
print(lines + "\ntorch capability", torch.backends.cpu.get_cpu_capability(), flush=True)
triad = harness.Triad()
res = []
for name, dt, elems, nbytes, cases in run.groups(1 << 24, 2048, 4096, torch, False, nm):
    if ONLY and not f"{name} {dt}".startswith(ONLY):
        continue
    per_array = elems * np.dtype(dt).itemsize
    tfn, tbytes = triad.case(per_array // 4)
    allc = [Case("C triad", "ref", tfn, tbytes)] + [c for c in cases if c.variant != "alloc" or c.peer == "asc"
                                                  or name in ("softmax", "layernorm")]
    allc = [c for c in allc if c.peer != "numpy" or name in ("parallel_sum",)]
    times = {id(c): [] for c in allc}
    for c in allc:
        c.fn(); c.fn()
    for r in range(R):
        order = allc[r % len(allc):] + allc[:r % len(allc)]
        for c in order:
            t = time.process_time(); c.fn(); times[id(c)].append(time.process_time() - t)
    ref = statistics.median(times[id(allc[0])]); ref_gbs = allc[0].nbytes / ref / 1e9
    print(f"\n{name} {dt}: triad (1 thread, CPU time) {ref_gbs:.1f} GB/s", flush=True)
    for c in allc[1:]:
        m = statistics.median(times[id(c)]); g = c.nbytes / m / 1e9
        print(f"  {c.peer:12s} {c.variant:20s} {m*1e3:8.2f} ms CPU {m/elems*1e9:6.3f} ns/elem {100*g/ref_gbs:5.0f}% triad")
        res.append(dict(workload=name, dtype=dt, peer=c.peer, variant=c.variant, cpu_s=m, ns_per_elem=m / elems * 1e9,
                        pct_triad=100 * g / ref_gbs, triad_gbs=ref_gbs))
out = os.environ.get("OUTJ") or os.path.join("bench-results", "cputime.json")
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump(dict(isa=isa, results=res), f, indent=1)
print(f"wrote {out}")
