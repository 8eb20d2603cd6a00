"""The pass `reduce_lanes`: how a vectorized reduction keeps its partial results. `#pragma omp simd reduction` lets
the compiler keep one vector of partial sums, so every vector add waits for the one before it (4 cycles per 8
floats on AVX2, slower than the memory a core streams). This pass instead gives every innermost reduction loop of
constant step `lanes` partials per accumulator: iteration i (counted from the loop's start) adds into partial
i mod `lanes`, the last (n mod `lanes`) iterations add into the accumulator itself, in order, and the partials are
combined by a fixed pairwise tree before them. The compiler keeps the partials in several independent vector
registers (four on AVX2, two on AVX-512, eight on SSE for 4-byte accumulators), and since the order of the sums is
written out, a float reduction gives the same bits on every instruction set and compiler that keeps the written
order (-ffp-contract=off, no -ffast-math). It sets the schedule's `lanes` (ir.Schedule); asc/backends/cpu_loops.py
renders it, inside each block of a parallel reduction's split too.

LANE_BYTES of partials per accumulator: 32 lanes of a 4-byte accumulator, 16 of an 8-byte one, whatever the loop's
length, so that the order of the sums depends only on the number of iterations: a kernel specialized for a size
and a dynamic_shape one give the same bits. A loop known to run fewer iterations than that (no whole group) runs
its iterations in order, as a serial loop.
"""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from .loops import trip_count
from .rewrite import each_function, map_loops, with_body

LANE_BYTES = 128


def reduce_lanes(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with every innermost reduction loop of constant step scheduled with lanes of partials."""
    def annotate(loop: ir.For) -> ir.For:
        if (loop.reduce and loop.kind in ("simd", "parallel") and isinstance(loop.step, ir.Const) and loop.step.value
                and not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(loop.body))):
            lanes = lanes_of(loop)
            n = trip_count(loop)
            if n is not None and n < lanes:     # no whole group: the iterations in order, as in a dynamic build
                return replace(loop, kind="serial")
            return ir.scheduled(loop, lanes=lanes)
        return loop
    return each_function(k, lambda f: with_body(f, map_loops(f.body, annotate)))


def lanes_of(loop: ir.For) -> int:
    """The lanes of the loop's reductions: LANE_BYTES of its widest accumulator."""
    return max(1, LANE_BYTES // max(acc.type.dtype.itemsize for acc, _ in loop.reduce))
