"""IR -> IR rewrites, each a named function `(k: ir.Kernel, options: dict) -> ir.Kernel`, and the targets'
pipelines: tuples of (stage name, pass), run in order by `run`. `options` are the kernel's build options
("memory_check", "finite_check", "fastmath", "num_threads"; asc/passes/rewrite.py reads them).

The cpu target's decisions on how to run its loops (blocks, row prefetch, the split of parallel reductions) are
passes too: they set each loop's schedule (asc/ir/schedule.py), which the printed IR shows and the renderer only
renders."""
from __future__ import annotations

from .. import ir
from . import cpu_blocks, cpu_prefetch, loops, promote, reduce_split, scaled_math

# (the modules stay the package's attributes: asc.passes.cpu_blocks is the module, its pass cpu_blocks.cpu_blocks)
CPU_PASSES = (("promote", promote.promote_kernel), ("classify", loops.classify_kernel),
              ("scaled_math", scaled_math.scaled_math_cpu), ("cpu_blocks", cpu_blocks.cpu_blocks),
              ("cpu_prefetch", cpu_prefetch.cpu_prefetch), ("reduce_split", reduce_split.reduce_split))
ASCEND_PASSES = (("classify", loops.classify_kernel), ("scaled_math", scaled_math.scaled_math_ascend))


def run(passes: tuple, k: ir.Kernel, options: dict | None = None) -> ir.Kernel:
    """`k` through each (stage name, pass) of `passes`, in order."""
    options = options or {}
    for _, p in passes:
        k = p(k, options)
    return k
