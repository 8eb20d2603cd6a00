"""Kernels with matrix products (`A @ B`, `lang.matmul`, tensor-level code such as the fused MLP): the kernel is a
sequence of *stages*: matrix products, and the element code between them (each a row program, see rows.py); a
product's fused epilogue is a stage of its own.

Every write of a tensor by a stage makes a new *version* of it (`h`, then `h__2` after an in-place epilogue), so
each stage reads exactly the values it read in the forward. The backward kernel

1. recomputes the forward stages whose results the backward reads (not the final outputs), keeping each version;
2. zeroes one gradient tensor per version that is read (`d_h`, `d_x`, ...);
3. runs the stages' backwards in reverse: for a product `C = A @ B`, `d_A += d_C @ B^T` and `d_B += A^T @ d_C` on
   the GEMM; for element code, the row-program backward (emit.stage_code), adding into the d_ tensors.

Refused: products inside loops or of slices (tiles), batched products, writes to an input.
"""
from __future__ import annotations

from .. import ir
from .emit import annotation, stage_code
from .refusals import refuse
from .expr import lang_dtype, py
from .rows import kernel_allocs, read_stage


def has_products(k: ir.Kernel) -> bool:
    return any(isinstance(s, ir.MatMul) for s in ir.walk_stmts(k.entry.body))


class _Rows:
    def __init__(self, stmts, writes, old, prog, loc):
        self.stmts, self.writes, self.old, self.prog, self.loc = stmts, writes, old, prog, loc


class _Product:
    def __init__(self, dst, a, b, old, loc):
        self.dst, self.a, self.b, self.old, self.loc = dst, a, b, old, loc     # a, b: (version, transposed)


def _rename_expr(e, m):
    """`e` reading tensor versions: every Load of a tensor in `m` reads m[tensor] instead."""
    def fn(x):
        if isinstance(x, ir.Load) and x.tensor.name in m:
            return ir.Load(ir.Var(m[x.tensor.name], x.tensor.type), tuple(_rename_expr(i, m) for i in x.indices),
                           x.type, x.loc)
        return None
    return ir.map_expr(e, fn)


def _rename(stmts, m):
    out = []
    for s in stmts:
        if isinstance(s, ir.Store):
            t = ir.Var(m.get(s.tensor.name, s.tensor.name), s.tensor.type)
            out.append(ir.Store(t, tuple(_rename_expr(i, m) for i in s.indices), _rename_expr(s.value, m), s.loc))
        elif isinstance(s, ir.Assign):
            out.append(ir.Assign(s.var, _rename_expr(s.value, m), s.loc))
        elif isinstance(s, ir.For):
            out.append(ir.For(s.var, _rename_expr(s.start, m), _rename_expr(s.stop, m), _rename_expr(s.step, m),
                              tuple(_rename(s.body, m)), s.kind, s.loc, s.reduce))
        elif isinstance(s, ir.If):
            out.append(ir.If(_rename_expr(s.cond, m), tuple(_rename(s.then, m)), tuple(_rename(s.orelse, m)), s.loc))
        elif isinstance(s, ir.While):
            out.append(ir.While(_rename_expr(s.cond, m), tuple(_rename(s.body, m)), s.loc))
        else:
            out.append(s)
    return out


def _py_stmts(stmts, pad):
    """IR statements as kernel-language Python (the forward's element code, recomputed)."""
    lines = []
    for s in stmts:
        if isinstance(s, ir.Store):
            lines.append(f"{pad}{s.tensor.name}[{', '.join(py(i) for i in s.indices)}] = {py(s.value)}")
        elif isinstance(s, ir.Assign):
            lines.append(f"{pad}{s.var.name} = {py(s.value)}")
        elif isinstance(s, ir.For):
            lines.append(f"{pad}for {s.var.name} in range({py(s.start)}, {py(s.stop)}, {py(s.step)}):")
            lines.extend(_py_stmts(s.body, pad + "    ") or [f"{pad}    pass"])
        elif isinstance(s, ir.If):
            lines.append(f"{pad}if {py(s.cond)}:")
            lines.extend(_py_stmts(s.then, pad + "    ") or [f"{pad}    pass"])
            if s.orelse:
                lines.append(f"{pad}else:")
                lines.extend(_py_stmts(s.orelse, pad + "    "))
        elif isinstance(s, ir.While):
            lines.append(f"{pad}while {py(s.cond)}:")
            lines.extend(_py_stmts(s.body, pad + "    ") or [f"{pad}    pass"])
        else:
            refuse(f"{type(s).__name__.lower()} statements are not differentiated", s.loc)
    return lines


def _dims(t: ir.TensorType) -> str:
    d = [str(x) if isinstance(x, int) else x.name for x in t.shape]
    return f"({', '.join(d)},)"


def _stop(d):
    return ir.Const(d, ir.INDEX) if isinstance(d, int) else ir.Var(d.name, ir.INDEX)


def _operand(view: ir.View, cur: dict, loc):
    """(version, transposed) of a product operand that is a whole tensor or its transpose."""
    t = view.tensor.type
    shape = t.shape
    whole = isinstance(view.offset, ir.Const) and view.offset.value == 0 and len(shape) == 2
    if whole:
        dims = [py(x) for x in view.shape]
        want = [str(x) if isinstance(x, int) else x.name for x in shape]
        strides = [py(x) for x in view.strides]
        if dims == want and strides == [want[1], "1"]:
            return cur.get(view.tensor.name, view.tensor.name), False
        if dims == want[::-1] and strides == ["1", want[1]]:
            return cur.get(view.tensor.name, view.tensor.name), True
    refuse("products of slices, tiles or batches are not differentiated yet (write the product of whole "
           "matrices)", loc)


def _new_version(name, counts):
    n = counts.get(name, 0) + 1
    counts[name] = n
    return name if n == 1 else f"{name}__{n}"


def backward_source(k: ir.Kernel, pyname: str) -> tuple:
    body = k.entry.body
    params = [p.var for p in k.entry.params]
    pnames = {v.name for v in params}
    allocs, outputs = kernel_allocs(k)
    types = {v.name: v.type for v in params if isinstance(v.type, ir.TensorType)}
    types.update({n: a.var.type for n, a in allocs.items()})
    cur = {n: n for n in types if n in pnames}
    counts = {n: 1 for n in cur}
    vtypes = dict(types)          # version -> TensorType
    first_alloc = {}              # version -> the Alloc it starts from (first versions of allocated tensors)
    stages = []
    run = []

    def flush():
        if not run:
            return
        stmts = list(run)
        run.clear()
        writes = {}
        for s in ir.walk_stmts(stmts):
            if isinstance(s, ir.Store) and s.tensor.name not in writes:
                if s.tensor.name in pnames:
                    refuse(f"the kernel overwrites its input {s.tensor.name!r}", s.loc)
                writes[s.tensor.name] = None
        old = {}
        for t in writes:
            new = _new_version(t, counts)
            if t in cur:
                old[new] = cur[t]
            else:
                first_alloc[new] = allocs[t]
            writes[t] = new
            vtypes[new] = types[t]
        m = {t: cur[t] for t in types if t in cur and t not in writes}
        m.update(writes)
        for s in ir.walk_stmts(stmts):
            for e in ir.stmt_exprs(s):
                if isinstance(e, ir.Load) and e.tensor.name not in m:
                    refuse(f"{e.tensor.name!r} is read before anything writes it", s.loc)
        renamed = _rename(stmts, m)
        leaves = {e.tensor.name for s in ir.walk_stmts(renamed) for e in ir.stmt_exprs(s)
                  if isinstance(e, ir.Load) and e.tensor.name not in writes.values()} | set(old.values())
        stage_params = [v for v in params if not isinstance(v.type, ir.TensorType)] + [
            ir.Var(n, vtypes[n]) for n in sorted(leaves)]
        st_allocs = {}
        for t, new in writes.items():
            a = allocs[t]
            st_allocs[new] = ir.Alloc(ir.Var(new, a.var.type), a.init if new in first_alloc else "empty", a.fill,
                                      None, a.loc)
        prog = read_stage(renamed, stage_params, st_allocs, list(writes.values()), k.entry.loc, k.symbols,
                          {new: o for new, o in old.items()})
        stages.append(_Rows(renamed, writes, old, prog, stmts[0].loc))
        cur.update(writes)

    for s in body:
        if isinstance(s, (ir.Alloc, ir.Return)):
            continue
        if isinstance(s, ir.MatMul):
            flush()
            a = _operand(s.a, cur, s.loc)
            b = _operand(s.b, cur, s.loc)
            d, dt = _operand(s.dst, cur, s.loc)
            t = s.dst.tensor.name
            if dt or t in pnames:
                refuse("a product must be written to a whole tensor the kernel allocates", s.loc)
            new = _new_version(t, counts)
            old = cur.get(t) if s.accumulate else None
            if s.accumulate and old is None:
                if allocs[t].init != "zeros":
                    refuse(f"{t!r} is accumulated into before it is written", s.loc)
            vtypes[new] = types[t]
            stages.append(_Product(new, a, b, old, s.loc))
            cur[t] = new
            if s.epilogue:
                i0, i1 = s.index
                shape = types[t].shape
                loops = (ir.For(i0, ir.Const(0, ir.INDEX), _stop(shape[0]), ir.Const(1, ir.INDEX),
                                (ir.For(i1, ir.Const(0, ir.INDEX), _stop(shape[1]), ir.Const(1, ir.INDEX),
                                        tuple(s.epilogue), "serial", s.loc),), "serial", s.loc),)
                run.extend(loops)
                flush()
            continue
        if any(isinstance(x, ir.MatMul) for x in ir.walk_stmts((s,))):
            refuse("a product inside a loop (a tiled matmul) is not differentiated yet", s.loc)
        run.append(s)
    flush()
    return _emit(k, pyname, params, stages, outputs, cur, vtypes, first_alloc)


def _emit(k, pyname, params, stages, outputs, cur, vtypes, first_alloc):
    finals = {cur[o]: f"grad_{o}" for o in outputs}
    pnames = [v.name for v in params]
    wrt = [v.name for v in params if isinstance(v.type, ir.TensorType) and v.type.dtype.kind == "f"]
    if not wrt:
        refuse("no float tensor input to differentiate", k.entry.loc)
    for g in finals.values():
        if g in pnames:
            refuse(f"a parameter is named {g!r}, the name the backward gives an output's gradient", k.entry.loc)
    # which versions each stage's backward reads, and which versions get a gradient
    reads = []
    for st in stages:
        if isinstance(st, _Product):
            r = {st.a[0], st.b[0]}
        else:
            r = {v.name for v in st.prog.params if isinstance(v.type, ir.TensorType)}
        reads.append(r)
    float_read = set().union(*reads) if reads else set()
    grad_of = {}
    for v in float_read:
        if vtypes[v].dtype.kind == "f":
            grad_of[v] = finals.get(v, f"d_{v}")
    copied = [v for v in finals if v in float_read]     # an output that later code also reads: its gradient is
    for v, g in finals.items():                          # the output's plus what the later code adds
        grad_of[v] = f"d_{v}" if v in copied else g
    # the kernel's own names must not be ones the backward generates (a tensor `d_x` beside an input `x`, a tensor
    # `h__2` beside a rewritten `h`): one would stand for the other
    own = set(pnames) | {n for st in stages if isinstance(st, _Rows) for n in st.writes} | {
        s.var.name for s in ir.walk_stmts(k.entry.body) if isinstance(s, (ir.Alloc, ir.Assign, ir.For))}
    made = set(grad_of.values()) | {f"d_{w}" for w in wrt} | {"i0__", "i1__"} | {
        v for v in vtypes if v not in own} | {f"{v}__p" for v in vtypes}
    clash = sorted(n for n in own if n in made or any(n.startswith(f"{g}__") for g in grad_of.values()))
    if clash:
        refuse(f"the kernel uses the name {clash[0]!r}, which its generated backward needs for another value; rename "
               f"it", k.entry.loc)
    # forward stages to recompute: those writing a version some backward stage (or a needed stage) reads
    needed = set(float_read) | set().union(*reads) if reads else set()
    emit_fwd = [False] * len(stages)
    for i in reversed(range(len(stages))):
        st = stages[i]
        made = {st.dst} if isinstance(st, _Product) else set(st.writes.values())
        if made & needed:
            emit_fwd[i] = True
            needed |= reads[i] | ({st.old} if isinstance(st, _Product) and st.old else set()) | set(
                st.old.values() if isinstance(st, _Rows) else ())
    ann = {v.name: annotation(v.type) for v in params}
    for o in outputs:
        ann[f"grad_{o}"] = annotation(vtypes[cur[o]])
    name = f"{pyname}__backward"
    sig = ", ".join(f"{n}: {ann[n]}" for n in pnames + [f"grad_{o}" for o in outputs])
    lines = ["from __future__ import annotations", "import math", "import asc.language as lang", "", "", "@lang.kernel",
             f"def {name}({sig}):", f'    """The backward of {pyname}, generated by asc.grad from its IR."""',
             "    # the forward's intermediate values"]

    def operand(v):
        ver, tr = v
        return f"lang.transpose({ver})" if tr else ver

    for i, st in enumerate(stages):
        if not emit_fwd[i]:
            continue
        if isinstance(st, _Product):
            prod = f"lang.matmul({operand(st.a)}, {operand(st.b)})"
            t = vtypes[st.dst]
            if st.old:
                lines.append(f"    {st.dst} = lang.empty({_dims(t)}, dtype={lang_dtype(ir.ScalarType(t.dtype))})")
                lines.append(f"    {st.dst}__p = {prod}")
                lines += _add_loops(st.dst, f"{st.old}[i0__, i1__] + {st.dst}__p[i0__, i1__]", t, "=")
            elif ir.promote(ir.ScalarType(vtypes[st.a[0]].dtype), ir.ScalarType(vtypes[st.b[0]].dtype)).dtype == t.dtype:
                lines.append(f"    {st.dst} = {prod}")
            else:
                lines.append(f"    {st.dst} = lang.cast({prod}, {lang_dtype(ir.ScalarType(t.dtype))})")
            continue
        for new in st.writes.values():
            t = vtypes[new]
            init = first_alloc[new].init if new in first_alloc else "empty"
            init = init if init in ("zeros", "empty") else "empty"
            lines.append(f"    {new} = lang.{init}({_dims(t)}, dtype={lang_dtype(ir.ScalarType(t.dtype))})")
        lines += _py_stmts(st.stmts, "    ")
    lines.append("    # the gradients")
    for v, g in sorted(grad_of.items()):
        if g.startswith("grad_"):
            continue
        if v in pnames:
            lines.append(f"    {g} = lang.zeros_like({v})")
        else:
            t = vtypes[v]
            lines.append(f"    {g} = lang.zeros({_dims(t)}, dtype={lang_dtype(ir.ScalarType(t.dtype))})")
    for w in wrt:
        if w not in grad_of:
            lines.append(f"    d_{w} = lang.zeros_like({w})")
    for v in copied:
        lines += _add_loops(f"d_{v}", f"{finals[v]}[i0__, i1__]", vtypes[v], "+=") if len(vtypes[v].shape) == 2 \
            else refuse("an output that the kernel also reads must be 2-D to be differentiated here", k.entry.loc)
    body_lines = []
    for i in reversed(range(len(stages))):
        st = stages[i]
        if isinstance(st, _Product):
            g = grad_of.get(st.dst)
            if g is None:
                continue
            body_lines.append(f"    # the product at line {st.loc.line if st.loc else '?'}")
            if st.old and st.old in grad_of:
                body_lines += _add_loops(grad_of[st.old], f"{g}[i0__, i1__]", vtypes[st.dst], "+=")
            for which, (ver, tr), other in (("a", st.a, st.b), ("b", st.b, st.a)):
                if ver not in grad_of:
                    continue
                # d(op) = G @ other^T (op = a) or other^T @ G (op = b); a transposed operand gets the transpose
                if which == "a":
                    prod = f"lang.matmul({g}, {_transposed(other)})"
                else:
                    prod = f"lang.matmul({_transposed(other)}, {g})"
                tmp = f"{grad_of[ver]}__{which}{i}"
                body_lines.append(f"    {tmp} = {prod}")
                src = f"{tmp}[i1__, i0__]" if tr else f"{tmp}[i0__, i1__]"
                body_lines += _add_loops(grad_of[ver], src, vtypes[ver], "+=")
            continue
        grads = {v: grad_of[v] for v in st.writes.values() if v in grad_of}
        if not grads:
            continue
        stage_wrt = [v.name for v in st.prog.params if isinstance(v.type, ir.TensorType) and v.name in grad_of]
        if not stage_wrt:
            continue
        allocs, code = stage_code(st.prog, stage_wrt, {v: g for v, g in grads.items()}, tag=str(i))
        body_lines.append(f"    # the element code at line {st.loc.line if st.loc else '?'}")
        lines += allocs
        body_lines += code
    lines += body_lines
    lines.append(f"    return {', '.join(grad_of.get(w, f'd_{w}') for w in wrt)}")
    return "\n".join(lines) + "\n", name, wrt


def _transposed(v):
    ver, tr = v
    return ver if tr else f"lang.transpose({ver})"


def _add_loops(dst, src, t, op):
    d = [str(x) if isinstance(x, int) else x.name for x in t.shape]
    return [f"    for i0__ in range({d[0]}):", f"        for i1__ in range({d[1]}):",
            f"            {dst}[i0__, i1__] {op} {src}"]
