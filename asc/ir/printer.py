"""Text form of the IR (what `kernel.source("ir")` shows)."""
from __future__ import annotations

from . import nodes as n
from . import tensor as t

_BIN = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
        "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
        "lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}
_UN = {"neg": "-", "not": "not ", "invert": "~"}


def format_expr(e) -> str:
    f = format_expr
    if isinstance(e, n.Const):
        return f"{e.value!r}:{e.type!r}"
    if isinstance(e, n.Var):
        return e.name
    if isinstance(e, n.Load):
        return f"{e.tensor.name}[{', '.join(map(f, e.indices))}]"
    if isinstance(e, n.Unary):
        return f"({_UN[e.op]}{f(e.x)})"
    if isinstance(e, (n.Binary, n.Compare)):
        return f"({f(e.a)} {_BIN[e.op]} {f(e.b)})"
    if isinstance(e, n.Logical):
        return f"({f(e.a)} {e.op} {f(e.b)})"
    if isinstance(e, n.Select):
        return f"({f(e.a)} if {f(e.cond)} else {f(e.b)})"
    if isinstance(e, n.Cast):
        return f"{e.type!r}({f(e.x)})"
    if isinstance(e, n.Call):
        return f"{e.fn}({', '.join(map(f, e.args))}):{e.type!r}"
    if isinstance(e, n.FuncCall):
        return f"@{e.func}({', '.join(map(f, e.args))})"
    if isinstance(e, n.TupleExpr):
        return f"({', '.join(map(f, e.elems))})"
    if isinstance(e, n.View):
        dims = ", ".join(f"{f(d)}:{f(st)}" for d, st in zip(e.shape, e.strides))
        return f"{e.tensor.name}@{f(e.offset)}[{dims}]"
    if isinstance(e, str):
        return repr(e)
    if isinstance(e, (t.TensorValue, t.MapArg)):
        return format_tensor(e)
    raise TypeError(f"not an IR expression: {e!r}")


def format_tensor(e) -> str:
    """A tensor value (tensor-level IR, before the tensor passes (passes.TENSOR_PASSES)): views, maps, products, reductions."""
    f = format_expr
    if isinstance(e, t.MapArg):
        return f"${e.index}"
    if isinstance(e, t.TensorView):
        if e.is_whole():
            return e.base.name
        axes = "" if e.axes == tuple(range(len(e.axes))) else f" axes {e.axes}"
        return (f"{e.base.name}[{', '.join(map(f, e.starts))}{axes} +({', '.join(map(f, e.extents))})]")
    if isinstance(e, t.TensorMap):
        return f"{e.name}({', '.join(map(f, e.args))}){{{f(e.body)}}}:{e.type!r}"
    if isinstance(e, t.TensorMatMul):
        return f"({f(e.a)} @ {f(e.b)}):{e.type!r}"
    if isinstance(e, t.TensorReduce):
        keep = ", keepdims" if e.keepdims else ""
        return f"{e.op}({f(e.x)}, axes={e.axes}{keep}):{e.type!r}"
    if isinstance(e, t.TensorSoftmax):
        return f"softmax({f(e.x)}, axis={e.axis})"
    if isinstance(e, t.TensorEpilogue):
        return f"epilogue[{f(e.value)}]"
    raise TypeError(f"not a tensor value: {e!r}")


def format_stmts(stmts, indent: int = 1, locs: bool = True) -> list:
    pad = "  " * indent
    out = []
    for s in stmts:
        where = f"  # line {s.loc.line}" if (s.loc and locs) else ""
        if isinstance(s, n.Assign):
            out.append(f"{pad}{s.var.name}: {s.var.type!r} = {format_expr(s.value)}{where}")
        elif isinstance(s, n.Alloc):
            what = s.init + (f"({format_expr(s.fill)})" if s.fill is not None else "")
            role = f" -> output {s.output}" if s.output is not None else ""
            space = " local" if s.space != "global" else ""
            out.append(f"{pad}{s.var.name}: {s.var.type!r} = alloc{space} {what}{role}{where}")
        elif isinstance(s, n.Store):
            idx = ", ".join(map(format_expr, s.indices))
            out.append(f"{pad}{s.tensor.name}[{idx}] = {format_expr(s.value)}{where}")
        elif isinstance(s, n.For):
            red = "".join(f" {op}:{v.name}" for v, op in s.reduce)
            out.append(f"{pad}for {s.var.name} in range({format_expr(s.start)}, {format_expr(s.stop)}, "
                       f"{format_expr(s.step)}) [{s.kind}{red}{format_schedule(s.schedule)}]:{where}")
            out += format_stmts(s.body, indent + 1, locs)
        elif isinstance(s, n.While):
            out.append(f"{pad}while {format_expr(s.cond)}:{where}")
            out += format_stmts(s.body, indent + 1, locs)
        elif isinstance(s, n.If):
            out.append(f"{pad}if {format_expr(s.cond)}:{where}")
            out += format_stmts(s.then, indent + 1, locs)
            if s.orelse:
                out.append(f"{pad}else:")
                out += format_stmts(s.orelse, indent + 1, locs)
        elif isinstance(s, n.Break):
            out.append(f"{pad}break")
        elif isinstance(s, n.Continue):
            out.append(f"{pad}continue")
        elif isinstance(s, n.Return):
            out.append(f"{pad}return {format_expr(s.value) if s.value is not None else ''}{where}")
        elif isinstance(s, n.ExprStmt):
            out.append(f"{pad}{format_expr(s.expr)}{where}")
        elif isinstance(s, n.MatMul):
            op = "+=" if s.accumulate else "="
            note = f"  # {s.note}" if s.note else ""
            out.append(f"{pad}matmul {format_expr(s.dst)} {op} {format_expr(s.a)} @ {format_expr(s.b)}{where}{note}")
            if s.epilogue:
                idx = ", ".join(v.name for v in s.index)
                out.append(f"{pad}  epilogue on each tile of the result, in cache, for ({idx}):")
                out += format_stmts(s.epilogue, indent + 2, locs)
        elif isinstance(s, n.Print):
            out.append(f"{pad}print({', '.join(map(format_expr, s.args))}){where}")
        elif isinstance(s, t.TensorStore):
            op = "+=" if s.accumulate else "="
            out.append(f"{pad}tensor {format_expr(s.dst)} {op} {format_expr(s.value)}{where}")
        elif isinstance(s, t.ScalarReduce):
            out.append(f"{pad}{s.acc.name}: {s.acc.type!r} = {format_expr(s.value)}{where}")
        elif isinstance(s, t.TileCopy):
            out.append(f"{pad}{s.name}({format_expr(s.src)}, {format_expr(s.dst)}){where}")
        else:
            raise TypeError(f"not an IR statement: {s!r}")
    return out


def format_schedule(sc) -> str:
    """A loop's schedule (asc/ir/schedule.py) as it follows the loop's kind: "" when it has none."""
    if sc is None:
        return ""
    parts = []
    if sc.blocked is not None:
        accesses = ", ".join(f"{'store' if a.store else 'load'} {a.tensor.name}[{', '.join(map(format_expr, a.indices))}]"
                             f"{' f16' if a.half else ' bf16' if a.bf16 else ''}{' may stream' if a.stream else ''}" for a in sc.blocked.accesses)
        parts.append(f"blocked {sc.blocked.size} ({accesses})")
    if sc.prefetch is not None:
        pf = sc.prefetch
        rows = ", ".join(f"{t.name}[{pf.row.name} + 1, {c.name}]" for t, (_, c) in pf.loads)
        parts.append(f"chunked {pf.chunk}, prefetch {rows} while {pf.row.name} + 1 < {format_expr(pf.stop)}")
    if sc.split is not None:
        parts.append(f"partials of {sc.split}")
    if sc.lanes is not None:
        parts.append(f"{sc.lanes} lanes")
    if sc.ahead is not None:
        loads = ", ".join(f"{t.name}[{', '.join(map(format_expr, idx))}]" for t, idx in sc.ahead.loads)
        parts.append(f"ahead {sc.ahead.iterations}: {loads}")
    return "".join("; " + p for p in parts)


def format_function(fn: n.Function, locs: bool = True) -> str:
    params = ", ".join(f"{p.var.name}: {p.var.type!r}" for p in fn.params)
    lines = [f"def {fn.name}({params}) -> {fn.ret!r}:"]
    lines += [f"  local {v.name}: {v.type!r}" if not v.name.startswith("#") else
              f"  local {v.name}: the scalars the lowering declares for the statements of seq {v.name[1:]}"
              for v in fn.locals]
    lines += format_stmts(fn.body, 1, locs) or ["  pass"]
    return "\n".join(lines)


def format_kernel(k: n.Kernel, locs: bool = True) -> str:
    """The IR as text; with locs=False it is the normalized form that cache keys hash (no lines, no paths)."""
    parts = [format_function(f, locs) for f in k.funcs] + [format_function(k.entry, locs)]
    outs = ", ".join(f"{o.kind}{o.index}:{o.type!r}" for o in k.outputs)
    mixed = "# precision: mixed\n" if k.precision == "mixed" else ""
    return "\n\n".join(parts) + f"\n# outputs: {outs or 'none'}\n" + mixed
