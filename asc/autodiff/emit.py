"""The backward kernel of a row program (see rows.py), as kernel-language Python source.

Per outer iteration (in parallel, as the forward): recompute the row scalars, seed the adjoints from the output
gradients, sweep the row's definitions in reverse accumulating each row scalar's adjoint (`v__bar`), then write the
gradient of every input element the row read (`d_x[i, j] = ...`, one fused loop per loop extent). Gradients of
inputs shared by all rows (a weight `w[j]`, the `A[i, k]` of a matmul seen from column j) are summed over the
rows in a second phase: loop nests whose parallel loops are the indices of the written element and whose other
loops run in order, so the result is deterministic; the row scalars they need are saved per row (`sv__v`).
A max/min reduction sends its adjoint to the first element equal to the result (the initial value on a tie), as
Python's max does. Dead statements are removed before printing.
"""
from __future__ import annotations

from .. import ir
from .refusals import refuse
from .expr import add, assume, derivative, guarded_leaves, is_zero, lang_dtype, literal, mul, neg, py
from .rows import RowProgram, covers, rename, same_extent

_BOOL = ir.ScalarType(ir.bool_)


def _typed_zero(t: ir.ScalarType) -> str:
    return f"{lang_dtype(t)}(0.0)" if t.dtype.kind == "f" else f"{lang_dtype(t)}(0)"


def _typed(e, t: ir.ScalarType):
    """`e` as a value of type `t` (a literal becomes a typed constant, so the variable keeps the forward's type)."""
    if isinstance(e, ir.Const):
        return f"{lang_dtype(t)}({literal(float(e.value)) if t.dtype.kind == 'f' else repr(int(e.value))})"
    if isinstance(e.type, ir.ScalarType) and e.type != t and not e.type.weak:
        return ir.Cast(e, t, explicit=True)
    return e


def _uses(rhs) -> set:
    if isinstance(rhs, str) or rhs is None:
        return set()
    return {x.name for x in ir.walk_expr(rhs) if isinstance(x, ir.Var)} | {
        x.tensor.name for x in ir.walk_expr(rhs) if isinstance(x, ir.Load)}


def _stmt_uses(s) -> set:
    kind = s[0]
    if kind in ("set", "add"):
        return _uses(s[2]) - ({s[1]} if kind == "add" or s[1] in _uses(s[2]) else set())
    if kind == "store":
        return set().union(*(_uses(i) for i in s[2])) | _uses(s[3])
    if kind == "if":
        return _uses(s[1]) | set().union(*(_stmt_uses(b) for b in s[2]))
    return _uses(s[2]) | set().union(*(_stmt_uses(b) for b in s[3])) if s[3] else _uses(s[2])


def _dce(stmts):
    """Removes assignments to names nothing else reads, and loops left empty, to a fixpoint."""
    changed = True
    while changed:
        used = set().union(*(_stmt_uses(s) for s in _flat(stmts))) if stmts else set()
        changed = False

        def keep(body):
            nonlocal changed
            out = []
            for s in body:
                if s[0] in ("set", "add") and s[1] not in used:
                    changed = True
                    continue
                if s[0] in ("for", "if"):
                    inner = keep(s[-1])
                    if not inner:
                        changed = True
                        continue
                    s = s[:-1] + (inner,)
                out.append(s)
            return out
        stmts = keep(stmts)
    return stmts


def _flat(stmts):
    for s in stmts:
        yield s
        if s[0] in ("for", "if"):
            yield from _flat(s[-1])


def _lines(stmts, pad):
    out = []
    for s in stmts:
        kind = s[0]
        rhs = lambda x: x if isinstance(x, str) else py(x)  # noqa: E731
        if kind == "set":
            out.append(f"{pad}{s[1]} = {rhs(s[2])}")
        elif kind == "add":
            out.append(f"{pad}{s[1]} += {rhs(s[2])}")
        elif kind == "store":
            out.append(f"{pad}{s[1]}[{', '.join(py(i) for i in s[2])}] {s[4]} {rhs(s[3])}")
        elif kind == "if":
            out.append(f"{pad}if {py(s[1])}:")
            out.extend(_lines(s[2], pad + "    "))
        else:
            out.append(f"{pad}for {s[1].name} in range({py(s[2])}):")
            out.extend(_lines(s[3], pad + "    "))
    return out


class Backward:
    def __init__(self, prog: RowProgram, wrt: list, grads: dict, force_add: bool = False, tag: str = ""):
        self.force_add, self.tag = force_add, tag
        self.p = prog
        self.wrt = set(wrt)
        self.grads = grads                       # output name -> gradient parameter name
        floats = [v.type.dtype for v in prog.params if isinstance(v.type, ir.TensorType)]
        self.bar_t = ir.ScalarType(ir.float64 if ir.float64 in floats else ir.float32)
        self.shapes = {v.name: v.type.shape for v in prog.params if isinstance(v.type, ir.TensorType)}
        self.rowvars = dict(prog.types)          # every per-row scalar the backward names: versions, adjoints
        self.has_bar: set = set()
        self.seed: dict = {}
        self.contribs: list = []                 # (loop or None, tensor, indices, term, guard or None)
        self.memo: dict = {}
        self.outer_names = [f.var.name for f in prog.outer]
        self.generated: set = set()              # the scalar names the backward adds (adjoints, argmax indices)

    # ------------------------------------------------------------------ adjoints
    def bar(self, ver):
        """The adjoint of version `ver`: its output gradient (when it is an output's final value) plus what its
        later uses accumulated (an output that another output is computed from gets both)."""
        seed = self.seed.get(ver)
        if ver in self.has_bar:
            acc = ir.Var(f"{ver}__bar", self.bar_t)
            return acc if seed is None else add(seed, acc)
        return seed

    def _accumulate(self, ver, term, stmts):
        name = f"{ver}__bar"
        self.has_bar.add(ver)
        self.generated.add(name)
        self.rowvars[name] = self.bar_t
        stmts.append(("add", name, term))

    def _is_row_leaf(self, x):
        if isinstance(x, ir.Var):
            return x.name in self.p.types and x.type.dtype.kind == "f"
        return x.tensor.name in self.wrt

    def differentiate(self, e, mult, loop, stmts, own=None):
        """Adds mult * de/dleaf for every leaf of `e`: row scalars into `stmts`, input elements as contributions.
        `own`: the variable that holds e's value (reused where the derivative recomputes e)."""
        for key, (leaf, guard) in guarded_leaves(e, self._is_row_leaf).items():
            d = derivative(e, key, self.memo)
            if is_zero(d):
                continue
            if own is not None and not isinstance(e, (ir.Var, ir.Load, ir.Const)):
                d = _replace_expr(d, e, own)
            term = mul(mult, d)
            if isinstance(leaf, ir.Var):
                self._accumulate(leaf.name, term, stmts)
                continue
            if guard is not None:
                # the forward reads the element only where `guard` holds: its gradient is that term there and
                # nothing elsewhere (not term * 0, which is NaN for an infinite adjoint); where the index may be
                # out of bounds outside the guard, the write itself is guarded
                term = assume(term, guard)
                if self._in_bounds(leaf.tensor.name, leaf.indices, loop):
                    term, guard = ir.Select(guard, term, ir.Const(0.0, ir.WEAK_FLOAT), self.bar_t), None
            self.contribs.append((loop, leaf.tensor.name, leaf.indices, term, guard))

    def _in_bounds(self, t, indices, loop) -> bool:
        """True when every index component is a constant inside the axis or the variable of a loop (outer, or the
        read's inner loop) running over exactly that axis: in bounds whatever condition guards the read."""
        loops = {f.var.name: f.stop for f in self.p.outer}
        if loop is not None:
            loops[loop.var.name] = loop.stop
        for e, d in zip(indices, self.shapes[t]):
            if isinstance(e, ir.Const) and isinstance(d, int) and 0 <= e.value < d:
                continue
            if isinstance(e, ir.Var) and e.name in loops and same_extent(loops[e.name], d):
                continue
            return False
        return True

    def sweep(self) -> list:
        """The adjoint part of the row: output seeds, then the definitions in reverse."""
        stmts: list = []
        for o in self.p.outputs:
            g = self.grads.get(o.name)
            if g is not None and o.ver is not None:
                self.seed[o.ver] = ir.Load(ir.Var(g, None), tuple(o.index), self.bar_t)
        groups: dict = {}
        for o in self.p.outputs:
            if o.loop is None or o.name not in self.grads:
                continue
            g = ir.Load(ir.Var(self.grads[o.name], None), tuple(o.index), self.bar_t)
            body = groups.setdefault(id(o.loop), (o.loop, []))[1]
            self.differentiate(o.expr, g, o.loop, body)
        for loop, body in groups.values():
            stmts.append(("for", loop.var, loop.stop, body))
        for d in reversed(self.p.defs):
            if not hasattr(d, "reductions"):
                b = self.bar(d.ver)
                if b is not None:
                    self.differentiate(d.expr, b, None, stmts, own=ir.Var(d.ver, self.p.types[d.ver]))
                continue
            body: list = []
            for red in d.reductions:
                b = self.bar(red.ver)
                if b is None:
                    continue
                acc = ir.Var(red.ver, self.p.types[red.ver])
                prev_wins = None
                if red.op in ("add", "sub"):
                    mult = b if red.op == "add" else neg(b)
                else:
                    arg = f"{red.ver}__arg"
                    it = d.var.type
                    self.rowvars[arg] = it
                    self.generated.add(arg)
                    argv = ir.Var(arg, it)
                    hit = ir.Select(ir.Compare("eq", red.elem, acc, _BOOL), d.var, d.stop, it)
                    stmts.append(("set", arg, d.stop))
                    # the first index hit: a min reduction, as a conditional expression (an integer minimum()
                    # has no scalar form on the Ascend AI core)
                    first = ir.Select(ir.Compare("lt", hit, argv, _BOOL), hit, argv, it)
                    stmts.append(("for", d.var, d.stop, [("set", arg, first)]))
                    prev_wins = ir.Compare("eq", red.prev, acc, _BOOL)      # the initial value wins a tie
                    stmts.append(("set", arg, ir.Select(prev_wins, d.stop, argv, it)))
                    mult = ir.Select(ir.Compare("eq", d.var, argv, _BOOL), b, ir.Const(0.0, ir.WEAK_FLOAT),
                                     self.bar_t)
                # the initial value: a row scalar, or an element of an input or of an earlier stage's tensor
                # (`h[i, j] += ...` after `h = x @ w`), whose gradient is a contribution like any read
                pb = b if prev_wins is None else ir.Select(prev_wins, b, ir.Const(0.0, ir.WEAK_FLOAT), self.bar_t)
                self.differentiate(red.prev, pb, None, stmts)
                self.differentiate(red.elem, mult, d, body)
            if body:
                stmts.append(("for", d.var, d.stop, body))
        return stmts

    # ------------------------------------------------------------------ gradient writes
    def _row_local(self, indices):
        names = {i.name for i in indices if isinstance(i, ir.Var)}
        return all(o in names for o in self.outer_names)

    def writes(self):
        """(phase-1 statements, phase-2 statements, saves, how each d_ tensor starts: "empty" or "zeros")."""
        first: dict = {}
        phase1: list = []
        groups: dict = {}
        row_terms: dict = {}
        broadcast = []
        for loop, t, idx, term, guard in self.contribs:
            if guard is not None:
                first[t] = False                 # written only where the guard holds: added into zeros
            if not self._row_local(idx):
                broadcast.append((loop, t, idx, term, guard))
            elif loop is None:
                e = row_terms.setdefault((t, tuple(py(i) for i in idx), _shown(guard)), [t, idx, None, guard])
                e[2] = term if e[2] is None else add(e[2], term)
            else:
                key = py(loop.stop)
                gl, per = groups.setdefault(key, (loop, {}))
                idx = tuple(rename(i, loop.var.name, gl.var) for i in idx)
                term = rename(term, loop.var.name, gl.var)
                guard = rename(guard, loop.var.name, gl.var) if guard is not None else None
                e = per.setdefault((t, tuple(py(i) for i in idx), _shown(guard)), [t, idx, None, guard])
                e[2] = term if e[2] is None else add(e[2], term)
        # a gradient may be assigned (not added) only where its tensor has one index pattern in the whole row:
        # with another (`x[i, j]` and `x[j, i]`, or `x[i]` and `x[N - 1 - i]`), an assignment would overwrite what
        # another iteration, or another loop of this one, added
        patterns: dict = {}
        for per in [p for _, p in groups.values()] + [row_terms]:
            for t, _, _, _ in per.values():
                patterns[t] = patterns.get(t, 0) + 1
        for t, n in patterns.items():
            if n > 1:
                first[t] = False
        for gl, per in groups.values():
            body = []
            for t, idx, term, guard in per.values():
                op = "+="
                if t not in first and not self.force_add:
                    first[t] = covers(idx, self.p.outer + [gl], self.shapes[t])
                    op = "=" if first[t] else "+="
                body.append(_guarded(guard, ("store", f"d_{t}", idx, term, op)))
            phase1.append(("for", gl.var, gl.stop, body))
        for t, idx, term, guard in row_terms.values():
            op = "+="
            if t not in first and not self.force_add:
                first[t] = covers(idx, self.p.outer, self.shapes[t])
                op = "=" if first[t] else "+="
            phase1.append(_guarded(guard, ("store", f"d_{t}", idx, term, op)))
        phase2, saves = self._phase2(broadcast)
        start = {t: ("empty" if first.get(t) else "zeros") for t in self.wrt}
        return phase1, phase2, saves, start

    def _phase2(self, broadcast):
        outer = self.p.outer
        nests: dict = {}
        saves: dict = {}
        outer_idx = tuple(f.var for f in outer)
        for loop, t, idx, term, guard in broadcast:
            for name in sorted((_uses(term) | _uses(guard)) & set(self.rowvars)):
                sv = f"sv{self.tag}__{name}"
                saves[name] = sv
                saved = ir.Load(ir.Var(sv, None), outer_idx, self.rowvars[name])
                term = _replace(term, name, saved)
                guard = _replace(guard, name, saved) if guard is not None else None
            used = {x.name for i in idx for x in ir.walk_expr(i) if isinstance(x, ir.Var)}
            order = [f for f in outer if f.var.name in used] + [f for f in outer if f.var.name not in used]
            if loop is not None:
                order.append(loop)
            key = tuple((f.var.name, py(f.stop)) for f in order)
            nests.setdefault(key, (order, []))[1].append(_guarded(guard, ("store", f"d_{t}", idx, term, "+=")))
        stmts = []
        for order, body in nests.values():
            nest = body
            for f in reversed(order):
                nest = [("for", f.var, f.stop, nest)]
            stmts.extend(nest)
        return stmts, saves


def _shown(guard):
    return None if guard is None else py(guard)


def _guarded(guard, stmt):
    """`stmt`, run only where `guard` holds (None: always)."""
    return stmt if guard is None else ("if", guard, [stmt])


def _replace_expr(e, old, by):
    """`e` with every subexpression equal to `old` replaced by `by`."""
    return ir.map_expr(e, lambda x: by if x == old else None)


def _replace(e, name, by):
    """`e` with variable `name` replaced by the expression `by`."""
    return ir.map_expr(e, lambda x: by if isinstance(x, ir.Var) and x.name == name else None)


def recompute(prog: RowProgram) -> list:
    """The forward's row scalars, recomputed (outputs are not written)."""
    stmts = []
    for d in prog.defs:
        if not hasattr(d, "reductions"):
            stmts.append(("set", d.ver, _typed(d.expr, prog.types[d.ver])))
            continue
        if not d.reductions:
            continue
        body = []
        for red in d.reductions:
            t = prog.types[red.ver]
            acc = ir.Var(red.ver, t)
            stmts.append(("set", red.ver, _typed(red.prev, t)))
            if red.update is not None:
                value = _typed(red.update, t)
            elif red.op in ("add", "sub"):
                value = ir.Binary(red.op, acc, red.elem, t)
            else:
                value = ir.Select(ir.Compare("gt" if red.op == "max" else "lt", red.elem, acc, _BOOL), red.elem,
                                  acc, t)
            body.append(("set", red.ver, value))
        stmts.append(("for", d.var, d.stop, body))
    return stmts


def check_names(prog: RowProgram, bw: Backward, generated, loc):
    """Refuses a kernel whose own names (parameters, variables, loop indices) are names the backward generates
    (`s__bar` for the adjoint of `s`, `d_x` for the gradient of `x`, `grad_out`, ...): one would silently stand for
    the other."""
    own = {v.name for v in prog.params} | set(prog.types) | {f.var.name for f in prog.outer} | {
        d.var.name for d in prog.defs if hasattr(d, "reductions")}
    clash = sorted(own & (set(generated) | bw.generated | {"lang"}))
    if clash:
        refuse(f"the kernel uses the name {clash[0]!r}, which its generated backward needs for another value; rename "
               f"it", loc)


def stage_code(prog: RowProgram, wrt: list, grads: dict, tag: str) -> tuple:
    """(allocation lines, code lines) of the backward of one row-program stage inside a larger backward: every
    gradient is added into its d_ tensor, which the caller allocated (zeroed)."""
    bw = Backward(prog, wrt, grads, force_add=True, tag=tag)
    adjoint = bw.sweep()
    phase1, phase2, saves, _ = bw.writes()
    check_names(prog, bw, saves.values(), prog.outer[0].loc if prog.outer else None)
    inits = [("set", f"{v}__bar", _typed_zero(bw.bar_t)) for v in sorted(bw.has_bar)]
    outer_idx = tuple(f.var for f in prog.outer)
    save_stmts = [("store", sv, outer_idx, ir.Var(name, bw.rowvars[name]), "=") for name, sv in saves.items()]
    row = _dce(recompute(prog) + inits + adjoint + phase1 + save_stmts)
    extents = ", ".join(py(f.stop) for f in prog.outer)
    allocs = [f"    {sv} = lang.empty(({extents},), dtype={lang_dtype(bw.rowvars[n])})" for n, sv in saves.items()]
    nest = row
    for f in reversed(prog.outer):
        nest = [("for", f.var, f.stop, nest)]
    return allocs, _lines(nest if row else [], "    ") + _lines(phase2, "    ")


def _param_dtype(params, name):
    return next(v.type.dtype.name for v in params if v.name == name)


def _rename_stores(stmts, ren):
    out = []
    for s in stmts:
        if s[0] == "store" and s[1] in ren:
            s = ("store", ren[s[1]]) + s[2:]
        elif s[0] in ("for", "if"):
            s = s[:-1] + (_rename_stores(s[-1], ren),)
        out.append(s)
    return out


def annotation(t) -> str:
    if isinstance(t, ir.TensorType):
        return f"lang.{t.dtype.name}[{', '.join(str(d) if isinstance(d, int) else d.name for d in t.shape)}]"
    return "float" if t.weak and t.dtype.kind == "f" else ("int" if t.weak else lang_dtype(t))


def backward_source(k: ir.Kernel, pyname: str, prog: RowProgram) -> tuple:
    """(source, kernel name, differentiated input names) of the backward of kernel `k`, read as `prog`."""
    params = prog.params
    wrt = [v.name for v in params if isinstance(v.type, ir.TensorType) and v.type.dtype.kind == "f"]
    if not wrt:
        refuse("no float tensor input to differentiate", k.entry.loc)
    grads = {o.name: f"grad_{o.name}" for o in prog.outputs}
    taken = {v.name for v in params}
    for g in grads.values():
        if g in taken:
            refuse(f"a parameter is named {g!r}, the name the backward gives an output's gradient", k.entry.loc)
    bw = Backward(prog, wrt, grads)
    adjoint = bw.sweep()
    phase1, phase2, saves, start = bw.writes()
    # 16-bit gradients summed over rows accumulate in float32, then are rounded once
    summed = {st[1][2:] for st in _flat(phase2) if st[0] == "store"}
    wide = sorted(t for t in summed if bw.shapes[t] is not None and _param_dtype(params, t) in ("float16", "bfloat16"))
    if wide:
        ren = {f"d_{t}": f"d_{t}__f32" for t in wide}
        phase1, phase2 = _rename_stores(phase1, ren), _rename_stores(phase2, ren)
    check_names(prog, bw, set(saves.values()) | set(grads.values()) | {f"d_{w}" for w in wrt} |
                {f"d_{w}__f32" for w in wide} | {f"i{n}__" for w in wide for n in range(len(bw.shapes[w]))},
                k.entry.loc)
    inits = [("set", f"{v}__bar", _typed_zero(bw.bar_t)) for v in sorted(bw.has_bar)]
    outer_idx = tuple(f.var for f in prog.outer)
    save_stmts = [("store", sv, outer_idx, ir.Var(name, bw.rowvars[name]), "=") for name, sv in saves.items()]
    row = _dce(recompute(prog) + inits + adjoint + phase1 + save_stmts)

    ann = {v.name: annotation(v.type) for v in params}
    shapes = {o: None for o in grads}
    for s in ir.walk_stmts(k.entry.body):
        if isinstance(s, ir.Alloc) and s.var.name in grads:
            shapes[s.var.name] = s.var.type
    for o, g in grads.items():
        ann[g] = annotation(shapes[o])
    name = f"{pyname}__backward"
    sig = ", ".join(f"{n}: {ann[n]}" for n in [v.name for v in params] + list(grads.values()))
    lines = ["from __future__ import annotations", "import math", "import asc.language as lang", "", "", "@lang.kernel",
             f"def {name}({sig}):", f'    """The backward of {pyname}, generated by asc.grad from its IR."""']
    for w in wrt:
        lines.append(f"    d_{w} = lang.{'empty' if w in wide else start[w]}_like({w})")
        if w in wide:
            dims = ", ".join(str(d) if isinstance(d, int) else d.name for d in bw.shapes[w])
            lines.append(f"    d_{w}__f32 = lang.{start[w]}(({dims},), dtype=lang.float32)")
    extents = ", ".join(py(f.stop) for f in prog.outer)
    for n, sv in saves.items():
        lines.append(f"    {sv} = lang.empty(({extents},), dtype={lang_dtype(bw.rowvars[n])})")
    nest = row
    for f in reversed(prog.outer):
        nest = [("for", f.var, f.stop, nest)]
    lines.extend(_lines(nest if row else [], "    "))
    lines.extend(_lines(phase2, "    "))
    for w in wide:
        shape = bw.shapes[w]
        ivars = [ir.Var(f"i{n}__", ir.ScalarType(ir.int64)) for n in range(len(shape))]
        copy = [("store", f"d_{w}", tuple(ivars), ir.Load(ir.Var(f"d_{w}__f32", None), tuple(ivars), bw.bar_t), "=")]
        for v, d in reversed(list(zip(ivars, shape))):
            stop = ir.Const(d, ir.ScalarType(ir.int64, weak=True)) if isinstance(d, int) else ir.Var(d.name, None)
            copy = [("for", v, stop, copy)]
        lines.extend(_lines(copy, "    "))
    lines.append(f"    return {', '.join(f'd_{w}' for w in wrt)}")
    return "\n".join(lines) + "\n", name, wrt
