"""IR -> IR rewrites, each a named function. `tensor_lowering` turns the frontend's tensor-level IR into
element-level IR (what every target takes); `for_cpu` is the cpu target's pipeline."""
from __future__ import annotations

from .. import ir
from . import fusion, loops, promote, tensor_lower


def tensor_lowering(k: ir.Kernel) -> ir.Kernel:
    """Epilogue fusion, then the lowering of tensor statements to loop nests and matrix products."""
    return tensor_lower.lower(fusion.fuse(k))


def for_cpu(k: ir.Kernel) -> ir.Kernel:
    impure = loops.impure_functions(k)
    funcs = tuple(loops.classify(f, impure) for f in k.funcs)
    entry = loops.classify(k.entry, impure)
    return ir.Kernel(entry, funcs, k.outputs, k.returns_tuple, k.symbols, k.file, k.conversions)


def for_native(k: ir.Kernel, checked: bool = False) -> ir.Kernel:
    """The cpu target's pipeline: scalar promotion of loop accumulators (not when bounds or values are checked at
    every store), then loop classification."""
    if not checked:
        k = ir.Kernel(promote.promote(k.entry), tuple(promote.promote(f) for f in k.funcs), k.outputs,
                      k.returns_tuple, k.symbols, k.file, k.conversions)
    return for_cpu(k)
