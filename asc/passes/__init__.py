"""IR -> IR rewrites, each a named function. `for_cpu` is the cpu target's pipeline."""
from __future__ import annotations

from .. import ir
from . import loops


def for_cpu(k: ir.Kernel) -> ir.Kernel:
    impure = loops.impure_functions(k)
    funcs = tuple(loops.classify(f, impure) for f in k.funcs)
    entry = loops.classify(k.entry, impure)
    return ir.Kernel(entry, funcs, k.outputs, k.returns_tuple, k.symbols, k.file, k.conversions)
