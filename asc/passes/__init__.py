"""IR -> IR rewrites, each a named function `(k: ir.Kernel, options: dict) -> ir.Kernel`, and the pipelines:
tuples of (stage name, pass), run in order by `run`. `options` are the kernel's build options ("memory_check",
"finite_check", "fastmath", "num_threads"; asc/passes/rewrite.py reads them).

TENSOR_PASSES turn the frontend's tensor-level IR into the element-level IR every target takes (for
precision="mixed", each 16-bit operation rounded to its type; epilogue fusion; then tensor statements as loop nests
and matrix products); CPU_PASSES and ASCEND_PASSES are the targets' own.

The cpu target's decisions on how to run its loops (blocks, row prefetch, the split of parallel reductions, the
lanes of vectorized reductions, the loads asked for ahead) are
passes too: they set each loop's schedule (asc/ir/schedule.py), which the printed IR shows and the renderer only
renders."""
from __future__ import annotations

from .. import ir
from . import (cpu_blocks, cpu_prefetch, fusion, gelu_product, inline_calls, loops, mixed_precision, prefetch_ahead,
               promote, reduce_lanes, reduce_split, scaled_math, tensor_lower)


def fuse(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The pass `fusion`: elementwise expressions of a 2-D product become its epilogue (asc/passes/fusion.py)."""
    return fusion.fuse(k)


def lower_tensors(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The pass `tensor_lower`: tensor statements as loop nests and matrix products (asc/passes/tensor_lower.py)."""
    return tensor_lower.lower(k)


TENSOR_PASSES = (("mixed_precision", mixed_precision.mixed_precision), ("fusion", fuse),
                 ("tensor_lower", lower_tensors))

# (the modules stay the package's attributes: asc.passes.cpu_blocks is the module, its pass cpu_blocks.cpu_blocks)
CPU_PASSES = (("promote", promote.promote_kernel), ("classify", loops.classify_kernel),
              ("scaled_math", scaled_math.scaled_math_cpu), ("gelu_product", gelu_product.gelu_product),
              ("cpu_blocks", cpu_blocks.cpu_blocks),
              ("cpu_prefetch", cpu_prefetch.cpu_prefetch), ("reduce_split", reduce_split.reduce_split),
              ("reduce_lanes", reduce_lanes.reduce_lanes), ("prefetch_ahead", prefetch_ahead.prefetch_ahead))
# device functions of straight-line scalar code are inlined first: the AI core code has no calls of its own, and a
# @lang.vectorize kernel (one call per element) becomes an element loop the vector path takes
ASCEND_PASSES = (("inline_calls", inline_calls.inline_calls), ("classify", loops.classify_kernel),
                 ("scaled_math", scaled_math.scaled_math_ascend))


def run(passes: tuple, k: ir.Kernel, options: dict | None = None, until: str | None = None) -> ir.Kernel:
    """`k` through each (stage name, pass) of `passes`, in order (up to and including stage `until`)."""
    options = options or {}
    for name, p in passes:
        k = p(k, options)
        if name == until:
            break
    return k
