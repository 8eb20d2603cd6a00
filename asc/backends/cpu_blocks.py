"""Which element loops of the cpu target run in float16 blocks (asc_half.h), and over which accesses.

A loop over float16 tensors converts each value with a handful of integer operations inside the vectorized body;
in blocks, the conversions are one F16C/AVX-512 instruction per 8 or 16 values, done before (loads) and after
(stores) the body, which then runs on float32 buffers. The results are the same bits: a block only changes when a
float16 value is converted, never what is computed from it. A loop qualifies when that is plainly true:

- an innermost element loop (parallel or simd, no reduction), step 1, no memory or numeric checks;
- its body is assignments, stores and expression statements only (no if / while / break / print), so every access
  runs for every iteration and a block reads or writes exactly the elements the loop would;
- every float16 access is contiguous in the loop variable (the last index is `i` or `i + c`, the other indices do
  not change in the loop) and is not under a ternary or `and` / `or` (which would not always evaluate it);
- no float16 tensor is both read and written in the loop (a read would have to see the rounded store), each written
  one is written at one index, and no device function called in the loop is handed a tensor.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ir

HALF_BLOCK = 512          # iterations per block: 2 KiB of float32 per buffer, in L1 beside the loop's other data
_PLAIN_STMTS = (ir.Assign, ir.Store, ir.ExprStmt)


@dataclass
class HalfAccess:
    tensor: ir.Var
    indices: tuple        # as written, in terms of the loop variable
    store: bool


def half_accesses(loop: ir.For, checks: bool) -> list | None:
    """The float16 accesses to convert in blocks, one per distinct (tensor, index); None when the loop does not
    qualify (the module docstring says when it does) or touches no float16 tensor."""
    if checks or loop.reduce or loop.kind not in ("parallel", "simd"):
        return None
    if not (isinstance(loop.step, ir.Const) and loop.step.value == 1):
        return None
    body = list(ir.walk_stmts(loop.body))
    if not all(isinstance(s, _PLAIN_STMTS) for s in body):
        return None
    varying = {loop.var.name} | {s.var.name for s in body if isinstance(s, ir.Assign)}
    found: dict = {}
    ok = [True]

    def visit(e, conditional: bool):
        if not ok[0] or e is None:
            return
        if isinstance(e, ir.FuncCall) and any(isinstance(a.type, ir.TensorType) for a in e.args):
            ok[0] = False
            return
        if isinstance(e, ir.Load) and _is_half(e.tensor):
            if conditional or not _contiguous(e.indices, loop.var.name, varying):
                ok[0] = False
                return
            found.setdefault((e.tensor.name, tuple(e.indices), False), HalfAccess(e.tensor, e.indices, False))
        if isinstance(e, ir.Select):
            visit(e.cond, conditional)
            visit(e.a, True)
            visit(e.b, True)
            return
        if isinstance(e, ir.Logical):
            visit(e.a, conditional)
            visit(e.b, True)
            return
        for name in ir.EXPR_CHILDREN[type(e)]:
            if name == "tensor":
                continue
            v = getattr(e, name)
            for x in (v if isinstance(v, tuple) else (v,)):
                visit(x, conditional)

    for s in body:
        if isinstance(s, ir.Store):
            for i in s.indices:
                visit(i, False)
            visit(s.value, False)
            if _is_half(s.tensor):
                if not _contiguous(s.indices, loop.var.name, varying):
                    return None
                found.setdefault((s.tensor.name, tuple(s.indices), True), HalfAccess(s.tensor, s.indices, True))
        else:
            visit(s.value if isinstance(s, ir.Assign) else s.expr, False)
        if not ok[0]:
            return None
    if not found:
        return None
    read = {name for name, _, store in found if not store}
    written = [name for name, _, store in found if store]
    if read & set(written) or len(written) != len(set(written)):
        return None
    return list(found.values())


def _is_half(t: ir.Var) -> bool:
    return isinstance(t.type, ir.TensorType) and t.type.dtype.name == "float16"


def _invariant(e, varying: set) -> bool:
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Var) and x.name in varying:
            return False
        if not isinstance(x, (ir.Const, ir.Var, ir.Binary, ir.Unary, ir.Cast)):
            return False
    return True


def _contiguous(indices, var: str, varying: set) -> bool:
    """The last index is the loop variable plus a loop-invariant offset; the others are loop-invariant."""
    if not indices or not all(_invariant(i, varying) for i in indices[:-1]):
        return False
    last = indices[-1]
    if isinstance(last, ir.Var) and last.name == var:
        return True
    if isinstance(last, ir.Binary) and last.op in ("add", "sub"):
        a, b = last.a, last.b
        if isinstance(a, ir.Var) and a.name == var and _invariant(b, varying):
            return True
        if last.op == "add" and isinstance(b, ir.Var) and b.name == var and _invariant(a, varying):
            return True
    return False
