"""The pass `prefetch_ahead`: which loads the cpu target asks for before it reads them. A compute-heavy element loop
(GELU, SwiGLU) or a long reduction streams its inputs from memory while it computes, but on the machines measured
the hardware's prefetcher alone did not overlap the two: GELU erf float32 took the sum of its compute and memory
times (on one AVX-512 thread, 0.37 + 0.31 ns per element -> 0.69; asked for 1024 iterations ahead, 0.49). So every
blocked loop (asc/passes/cpu_blocks.py), each block, and every lanes reduction (asc/passes/reduce_lanes.py), each
group of lanes, first asks for the cache lines that its contiguous loads will read AHEAD iterations later.

It sets the schedule's `ahead` (ir.Ahead); asc/backends/cpu_loops.py renders it as asc_prefetch_l1 (asc_cpu.h), a
hint that reads and changes nothing, guarded so that no address past the loop's range is formed.
"""
from __future__ import annotations

from .. import ir
from .cpu_blocks import contiguous
from .rewrite import each_function, map_loops, with_body

AHEAD = 1024        # iterations between the loads a block or group asks for and the ones it reads


def prefetch_ahead(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with every blocked loop and lanes reduction of step 1 scheduled to prefetch its contiguous loads AHEAD
    iterations ahead."""
    def annotate(loop: ir.For) -> ir.For:
        sc = loop.schedule
        if sc is None or (sc.blocked is None and sc.lanes is None):
            return loop
        if not (isinstance(loop.step, ir.Const) and loop.step.value == 1):
            return loop
        loads = contiguous_loads(loop)
        return ir.scheduled(loop, ahead=ir.Ahead(loads, AHEAD)) if loads else loop
    return each_function(k, lambda f: with_body(f, map_loops(f.body, annotate)))


def contiguous_loads(loop: ir.For) -> tuple:
    """((tensor, indices), ...) of the loads in `loop`'s body whose last index is the loop variable plus a
    loop-invariant offset (the other indices loop-invariant), once each, in the order found."""
    body = list(ir.walk_stmts(loop.body))
    varying = {loop.var.name} | {s.var.name for s in body if isinstance(s, ir.Assign)}
    found = {}
    for s in body:
        for e in ir.stmt_exprs(s):
            if isinstance(e, ir.Load) and contiguous(e.indices, loop.var.name, varying):
                found.setdefault((e.tensor.name, tuple(e.indices)), (e.tensor, tuple(e.indices)))
    return tuple(found.values())
