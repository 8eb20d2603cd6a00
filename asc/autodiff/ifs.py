"""If statements as conditional expressions, so a row program (rows.py) can read them.

`if c: t = x[l - 3 + k]; acc += w[k] * t` becomes `acc = (acc + w[k] * x[l - 3 + k]) if c else acc`: each branch is
substituted forward (a variable assigned in a branch stands for its value at its later uses there), then every
variable the statement assigns and every element it stores gets one assignment choosing between the branches' final
values. The condition then guards the reads of the branch it selects (emit.py writes their gradients under it).
A variable first assigned inside the statement keeps zero where its branch is not taken (Python would have no value
for it there).

Refused, at the line: loops, `break`, `continue` and `return` inside an if statement; a condition that reads what
the branches assign (when there is more than one assignment); a branch that reads an element of a tensor at another
index than the one it stores, or an assignment that reads a tensor the statement stores.
"""
from __future__ import annotations

from .. import ir
from .refusals import refuse
from .expr import py


def convert(stmts, known) -> list:
    """`stmts` with every if statement (nested ones too) replaced by assignments and stores; `known`: the variable
    names that have a value before the statements."""
    known = set(known)
    out = []
    for s in stmts:
        made = _convert_if(s, known) if isinstance(s, ir.If) else [s]
        for m in made:
            if isinstance(m, ir.Assign):
                known.add(m.var.name)
        out.extend(made)
    return out


def _key(tensor, indices):
    return tensor.name, tuple(py(i) for i in indices)


def _branch(stmts, known):
    """(final value of each variable the branch assigns, final value and (tensor, indices) of each element it
    stores), in terms of the values before the statement."""
    env: dict = {}
    stored: dict = {}
    for s in convert(stmts, known):
        if isinstance(s, (ir.For, ir.While)):
            refuse("a loop inside an if statement is not differentiated (put the if statement inside the loop)",
                   s.loc)
        if not isinstance(s, (ir.Assign, ir.Store)):
            refuse(f"a {type(s).__name__.lower()} statement inside an if statement is not differentiated", s.loc)

        def sub(e):
            if isinstance(e, ir.Var) and e.name in env:
                return env[e.name]
            if isinstance(e, ir.Load):
                idx = tuple(ir.map_expr(i, sub) for i in e.indices)
                k = _key(e.tensor, idx)
                if k in stored:
                    return stored[k][0]
                if any(n == e.tensor.name for n, _ in stored):
                    refuse(f"{e.tensor.name!r} is read at [{', '.join(k[1])}] after this if statement stores "
                           f"another of its elements", s.loc)
                return ir.Load(e.tensor, idx, e.type, e.loc)
            return None
        value = ir.map_expr(s.value, sub)
        if isinstance(s, ir.Assign):
            env[s.var.name] = value
        else:
            idx = tuple(ir.map_expr(i, sub) for i in s.indices)
            stored[_key(s.tensor, idx)] = (value, s.tensor, idx, s.loc)
    return env, stored


def _convert_if(s: ir.If, known) -> list:
    then_vars, then_stores = _branch(s.then, known)
    else_vars, else_stores = _branch(s.orelse, known)
    c = s.cond
    names = list(dict.fromkeys([*then_vars, *else_vars]))
    keys = list(dict.fromkeys([*then_stores, *else_stores]))
    cond_reads = {x.name for x in ir.walk_expr(c) if isinstance(x, ir.Var)} | {
        x.tensor.name for x in ir.walk_expr(c) if isinstance(x, ir.Load)}
    written = set(names) | {t for t, _ in keys}
    if cond_reads & written and len(names) + len(keys) > 1:
        refuse(f"the condition reads {sorted(cond_reads & written)[0]!r}, which the if statement assigns (write "
               f"one assignment per if statement, or use a conditional expression)", s.loc)
    # every value below reads the values from before the statement: one that reads what an earlier one of these
    # assignments changed is refused (stores come first, as they read variables and variables read no stored tensor)
    out = []
    stored: set = set()
    for k in keys:
        _, tensor, idx, loc = then_stores.get(k) or else_stores[k]
        t = ir.ScalarType(tensor.type.dtype)
        old = ir.Load(tensor, idx, t, loc)
        a = then_stores[k][0] if k in then_stores else old
        b = else_stores[k][0] if k in else_stores else old
        _no_reads(a, b, set(), stored, f"{tensor.name}[{', '.join(k[1])}]", s.loc)
        stored.add(tensor.name)
        out.append(ir.Store(tensor, idx, ir.Select(c, a, b, t, s.loc), loc))
    done: set = set()
    for n in names:
        var = next(v for v in (_var_of(s.then, n), _var_of(s.orelse, n)) if v is not None)
        before = var if n in known else ir.Const(0.0 if var.type.dtype.kind == "f" else 0, var.type)
        a, b = then_vars.get(n, before), else_vars.get(n, before)
        _no_reads(a, b, done, {t for t, _ in keys}, repr(n), s.loc)
        done.add(n)
        out.append(ir.Assign(var, ir.Select(c, a, b, var.type, s.loc), s.loc))
    return out


def _no_reads(a, b, names, tensors, what, loc):
    for x in (*ir.walk_expr(a), *ir.walk_expr(b)):
        if isinstance(x, ir.Var) and x.name in names or isinstance(x, ir.Load) and x.tensor.name in tensors:
            name = x.name if isinstance(x, ir.Var) else x.tensor.name
            refuse(f"{what} reads {name!r} from before this if statement, which the statement also changes (assign "
                   f"it in another order, or to a new variable)", loc)


def _var_of(stmts, name):
    for s in ir.walk_stmts(stmts):
        if isinstance(s, ir.Assign) and s.var.name == name:
            return ir.Var(s.var.name, s.var.type)
    return None
