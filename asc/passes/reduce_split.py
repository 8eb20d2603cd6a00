"""The pass `reduce_split`: how a parallel reduction is split so that its result is the same bits for every thread
count. The loop's range is cut into fixed blocks of iterations, each reduced (vectorized, where the body is an
element loop) into its own partial, and the partials are combined in block order on one thread: only the block size
decides the order of the sums, never the number of threads. It sets the schedule's `split` (ir.Schedule) of every
parallel loop with reductions; asc/backends/cpu_loops.py renders it.

A block holds about REDUCE_BLOCK elements of work: a loop whose iterations each run an inner loop of n iterations
(n not known before run time counting as passes.loops.UNKNOWN_TRIP) takes max(1, REDUCE_BLOCK // n) iterations per
partial.
"""
from __future__ import annotations

from .. import ir
from .loops import UNKNOWN_TRIP, trip_count
from .rewrite import each_function, map_loops, with_body

REDUCE_BLOCK = 4096      # elements per partial of a parallel reduction (fixed: results do not depend on threads)


def reduce_split(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with every parallel reduction scheduled in blocks of partials (the same in every build)."""
    def annotate(loop: ir.For) -> ir.For:
        if loop.kind == "parallel" and loop.reduce:
            return ir.scheduled(loop, split=iterations_per_partial(loop))
        return loop
    return each_function(k, lambda f: with_body(f, map_loops(f.body, annotate)))


def iterations_per_partial(loop: ir.For) -> int:
    """About REDUCE_BLOCK elements of work per partial, at least one iteration."""
    return max(1, REDUCE_BLOCK // inner_work(loop))


def inner_work(loop: ir.For) -> int:
    """The iterations of the largest loop nest inside one iteration of `loop` (directly nested loops only; a while
    loop counts UNKNOWN_TRIP), 1 when there is none."""
    work = 1
    for s in loop.body:
        if isinstance(s, ir.For):
            n = trip_count(s)
            work = max(work, (n if n is not None else UNKNOWN_TRIP) * inner_work(s))
        elif isinstance(s, ir.While):
            work = max(work, UNKNOWN_TRIP)
    return work
