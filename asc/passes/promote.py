"""Scalar promotion: a tensor element that a loop accumulates into at a fixed index (`C[i, j] += A[i, k] * B[k, j]`
over k, `local_sum[0] += x[i]` over i) is kept in a scalar for the loop's duration:

    if start < stop:               # the element is touched only if the loop runs
        acc = C[i, j]
        for k in ...: acc = acc + A[i, k] * B[k, j]
        C[i, j] = acc

The loop then holds a scalar accumulator, which the loop classification turns into a vectorized (and, for an
outer loop, a deterministic parallel) reduction, instead of a load and a store per iteration. Applied only to
tensors the kernel allocates (a parameter may alias another), when every access to the tensor in the loop uses the
same index and that index does not change inside the loop, and the loop's body stores to the element on every
iteration (not under an `if`, after a `break`, or in an inner loop only) or the index is a constant inside the
tensor's static shape. Not applied to 16-bit float tensors, whose scalars are
carried in float32 (each store rounds; a promoted accumulator would not). The values are those of the element-wise
updates; only a reduction's order can change, as for any scalar accumulator.
"""
from __future__ import annotations

from .. import ir
from ..ir.printer import format_expr
from .rewrite import checked, each_function


def promote_kernel(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The pass `promote`: every function of `k` promoted, except in checked builds (whose checks are per store)."""
    return k if checked(options) else each_function(k, promote)


def promote(fn: ir.Function) -> ir.Function:
    allocs = {s.var.name for s in ir.walk_stmts(fn.body) if isinstance(s, ir.Alloc)}
    taken = {v.name for v in fn.locals} | {p.var.name for p in fn.params} | allocs | {
        s.var.name for s in ir.walk_stmts(fn.body) if isinstance(s, (ir.For, ir.Assign))}
    new_locals: list = []
    body = _block(fn.body, allocs, taken, new_locals)
    if not new_locals:
        return fn
    return ir.Function(fn.name, fn.pyname, fn.params, body, fn.ret, fn.locals + tuple(new_locals), fn.loc)


def _block(stmts, allocs, taken, new_locals):
    out = []
    for s in stmts:
        if isinstance(s, ir.For):
            s = ir.For(s.var, s.start, s.stop, s.step, _block(s.body, allocs, taken, new_locals), s.kind, s.loc,
                       s.reduce)
            out.extend(_promote_loop(s, allocs, taken, new_locals))
        elif isinstance(s, ir.While):
            out.append(ir.While(s.cond, _block(s.body, allocs, taken, new_locals), s.loc))
        elif isinstance(s, ir.If):
            out.append(ir.If(s.cond, _block(s.then, allocs, taken, new_locals),
                             _block(s.orelse, allocs, taken, new_locals), s.loc))
        else:
            out.append(s)
    return tuple(out)


def _candidates(loop: ir.For, allocs):
    """tensor name -> the one index it is accessed at in `loop`, for allocated tensors stored to in the loop at an
    index the loop does not change, and used in the loop by nothing but those loads and stores."""
    changing = {loop.var.name}
    index: dict = {}
    bad, stored = set(), set()
    uses: dict = {}
    accounted: dict = {}
    for s in ir.walk_stmts(loop.body):
        if isinstance(s, (ir.Assign, ir.For)):
            changing.add(s.var.name)
        if isinstance(s, ir.Alloc):
            bad.add(s.var.name)     # allocated in the loop: a new tensor each iteration
        if isinstance(s, ir.Store):
            stored.add(s.tensor.name)
            accounted[s.tensor.name] = accounted.get(s.tensor.name, 0) + 1
            _note(index, bad, s.tensor.name, s.indices)
        for e in ir.stmt_exprs(s):
            if isinstance(e, ir.Load):
                accounted[e.tensor.name] = accounted.get(e.tensor.name, 0) + 1
                _note(index, bad, e.tensor.name, e.indices)
            elif isinstance(e, ir.Var) and isinstance(e.type, ir.TensorType):
                uses[e.name] = uses.get(e.name, 0) + 1
    # the element must be touched by every run of the loop: promotion reads it before the loop and writes it after,
    # which must not touch memory (an index out of range, an element another thread owns) that a store under an
    # `if`, after a `break`/`continue`, or in an inner loop that may not run would not have touched
    sure = set()
    for s in loop.body:
        if isinstance(s, ir.Store):
            sure.add(s.tensor.name)
        if any(isinstance(x, (ir.Break, ir.Continue, ir.Return)) for x in ir.walk_stmts((s,))):
            break
    out = {}
    dtypes = {s.tensor.name: s.tensor.type.dtype for s in ir.walk_stmts(loop.body) if isinstance(s, ir.Store)}
    shapes = {s.tensor.name: s.tensor.type.shape for s in ir.walk_stmts(loop.body) if isinstance(s, ir.Store)}
    for name in stored:
        if name in bad or name not in allocs or not (name in sure or _in_bounds(index[name], shapes[name])) or uses.get(name, 0) > accounted.get(name, 0):
            continue
        if dtypes[name].kind == "f" and dtypes[name].bits < 32:
            continue        # a 16-bit scalar is carried in float32: promoting would skip the rounding of each store
        idx = index[name]
        if any(isinstance(x, ir.Var) and x.name in changing or isinstance(x, (ir.Load, ir.FuncCall))
               for i in idx for x in ir.walk_expr(i)):
            continue
        out[name] = idx
    return out


def _in_bounds(indices, shape) -> bool:
    """True when `indices` are constants inside the static `shape` (reading and writing back the element is then
    harmless even where the loop would not have touched it, as in a nest `for i: for j: t[0] += ...` whose inner
    loop may not run)."""
    return shape is not None and len(indices) == len(shape) and all(
        isinstance(i, ir.Const) and isinstance(d, int) and 0 <= i.value < d for i, d in zip(indices, shape))


def _note(index, bad, name, indices):
    key = tuple(format_expr(i) for i in indices)
    known = index.setdefault(name, indices)
    if tuple(format_expr(i) for i in known) != key:
        bad.add(name)


def _promote_loop(loop: ir.For, allocs, taken, new_locals):
    cands = _candidates(loop, allocs)
    if not cands or not (isinstance(loop.step, ir.Const) and loop.step.value > 0):
        return [loop]
    accs = {}
    for name, idx in sorted(cands.items()):
        n = 0
        var_name = f"{name}__acc"
        while var_name in taken:
            n += 1
            var_name = f"{name}__acc{n}"
        taken.add(var_name)
        accs[name] = (var_name, idx)
    # the scalar type of each tensor's elements, from its accesses
    types = {}
    for s in ir.walk_stmts(loop.body):
        if isinstance(s, ir.Store) and s.tensor.name in accs:
            types[s.tensor.name] = ir.ScalarType(s.tensor.type.dtype)
    vars_ = {n: ir.Var(v, types[n]) for n, (v, _) in accs.items()}
    new_locals.extend(vars_.values())
    body = tuple(_rewrite_stmt(s, accs, vars_) for s in loop.body)
    inner = ir.For(loop.var, loop.start, loop.stop, loop.step, body, loop.kind, loop.loc, loop.reduce)
    before = [ir.Assign(vars_[n], ir.Load(_tensor_var(loop, n), idx, types[n], loop.loc), loop.loc)
              for n, (_, idx) in accs.items()]
    after = [ir.Store(_tensor_var(loop, n), idx, vars_[n], loop.loc) for n, (_, idx) in accs.items()]
    runs = ir.Compare("lt", loop.start, loop.stop, ir.ScalarType(ir.bool_), loop.loc)
    return [ir.If(runs, tuple(before) + (inner,) + tuple(after), (), loop.loc)]


def _tensor_var(loop, name):
    for s in ir.walk_stmts(loop.body):
        if isinstance(s, ir.Store) and s.tensor.name == name:
            return s.tensor
    raise AssertionError(name)


def _rewrite_expr(e, accs, vars_):
    return ir.map_expr(e, lambda x: vars_[x.tensor.name] if isinstance(x, ir.Load) and x.tensor.name in accs
                       else None)


def _rewrite_stmt(s, accs, vars_):
    if isinstance(s, ir.Store) and s.tensor.name in accs:
        value = _rewrite_expr(s.value, accs, vars_)
        t = vars_[s.tensor.name].type
        if isinstance(value.type, ir.ScalarType) and value.type != t:
            value = ir.Cast(value, t, s.loc)
        return ir.Assign(vars_[s.tensor.name], value, s.loc)
    if isinstance(s, ir.For):
        return ir.For(s.var, _rewrite_expr(s.start, accs, vars_), _rewrite_expr(s.stop, accs, vars_),
                      _rewrite_expr(s.step, accs, vars_), tuple(_rewrite_stmt(x, accs, vars_) for x in s.body),
                      s.kind, s.loc, s.reduce)
    if isinstance(s, ir.While):
        return ir.While(_rewrite_expr(s.cond, accs, vars_), tuple(_rewrite_stmt(x, accs, vars_) for x in s.body),
                        s.loc)
    if isinstance(s, ir.If):
        return ir.If(_rewrite_expr(s.cond, accs, vars_), tuple(_rewrite_stmt(x, accs, vars_) for x in s.then),
                     tuple(_rewrite_stmt(x, accs, vars_) for x in s.orelse), s.loc)
    fields = {}
    for n in ir.STMT_EXPRS[type(s)]:
        v = getattr(s, n)
        if n in ("var", "tensor"):
            fields[n] = v
        elif isinstance(v, tuple):
            fields[n] = tuple(_rewrite_expr(x, accs, vars_) for x in v)
        else:
            fields[n] = _rewrite_expr(v, accs, vars_)
    return type(s)(**{**{f: getattr(s, f) for f in s.__dataclass_fields__}, **fields})
