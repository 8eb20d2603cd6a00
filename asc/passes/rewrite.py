"""What the kernel-level passes share: a kernel rebuilt function by function, statements rebuilt loop by loop, and
the reading of the build options that their decisions depend on.

A pass is a named function `(k: ir.Kernel, options: dict) -> ir.Kernel`; `options` are the build options of the
kernel (asc.compiler.BuildOptions.as_dict()): "memory_check", "finite_check", "fastmath", "num_threads".
"""
from __future__ import annotations

from dataclasses import replace

from .. import ir


def checked(options: dict) -> bool:
    """Are accesses or values checked at every store (memory_check, finite_check)?
    Checked builds keep every loop as written: nothing is promoted, blocked or prefetched."""
    return bool(options.get("memory_check") or options.get("finite_check"))


def each_function(k: ir.Kernel, fn) -> ir.Kernel:
    """`k` with `fn(function)` for each of its functions (the entry and the device functions); `k` itself when
    `fn` returned every function unchanged."""
    entry, funcs = fn(k.entry), tuple(fn(f) for f in k.funcs)
    if entry is k.entry and all(a is b for a, b in zip(funcs, k.funcs)):
        return k
    return replace(k, entry=entry, funcs=funcs)


def with_body(fn: ir.Function, body: tuple) -> ir.Function:
    return fn if body is fn.body else replace(fn, body=body)


def map_loops(stmts: tuple, fn) -> tuple:
    """`stmts` with every loop, innermost first, replaced by `fn(loop)` (the loop with its body already mapped):
    `fn` returns the loop itself to keep it. Unchanged statements stay the same objects (a tuple nothing changed
    in is returned as is)."""
    out = []
    for s in stmts:
        if isinstance(s, ir.For):
            body = map_loops(s.body, fn)
            s = fn(s if body is s.body else replace(s, body=body))
        elif isinstance(s, ir.While):
            body = map_loops(s.body, fn)
            s = s if body is s.body else replace(s, body=body)
        elif isinstance(s, ir.If):
            then, orelse = map_loops(s.then, fn), map_loops(s.orelse, fn)
            s = s if then is s.then and orelse is s.orelse else replace(s, then=then, orelse=orelse)
        elif isinstance(s, ir.MatMul) and s.epilogue:
            epilogue = map_loops(s.epilogue, fn)
            s = s if epilogue is s.epilogue else replace(s, epilogue=epilogue)
        out.append(s)
    return stmts if all(a is b for a, b in zip(out, stmts)) else tuple(out)


def map_stmt_exprs(s, fn):
    """Statement `s` (not its nested statements) with every expression it holds mapped by ir.map_expr(e, fn); the
    tensors and variables it assigns are kept."""
    fields = {}
    for name in ir.STMT_EXPRS[type(s)]:
        if name not in ("var", "tensor"):
            v = getattr(s, name)
            fields[name] = tuple(ir.map_expr(x, fn) for x in v) if isinstance(v, tuple) else ir.map_expr(v, fn)
    return replace(s, **fields) if fields else s


def map_exprs(stmts: tuple, fn) -> tuple:
    """`stmts`, recursively, with every expression mapped by ir.map_expr(e, fn); everything else (loop kinds,
    reductions, schedules) kept."""
    out = []
    for s in stmts:
        s = map_stmt_exprs(s, fn)
        if isinstance(s, (ir.For, ir.While)):
            s = replace(s, body=map_exprs(s.body, fn))
        elif isinstance(s, ir.If):
            s = replace(s, then=map_exprs(s.then, fn), orelse=map_exprs(s.orelse, fn))
        elif isinstance(s, ir.MatMul) and s.epilogue:
            s = replace(s, epilogue=map_exprs(s.epilogue, fn))
        out.append(s)
    return tuple(out)
