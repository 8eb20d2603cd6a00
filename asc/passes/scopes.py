"""Where each scalar local is declared: the innermost block that holds all its uses, when every execution of that
block assigns it before reading it; otherwise the function's top (so its value persists)."""
from __future__ import annotations

from .. import ir


def _refs(stmt) -> set:
    return {e.name for e in ir.stmt_exprs(stmt) if isinstance(e, ir.Var) and isinstance(e.type, ir.ScalarType)}


def _all_refs(stmt) -> set:
    out = set()
    for s in ir.walk_stmts((stmt,)):
        out |= _refs(s)
    return out


def declaration_blocks(fn: ir.Function) -> dict:
    """name -> id() of the body tuple where the local is declared (id(fn.body) for the top)."""
    local_names = {v.name for v in fn.locals}
    paths: dict = {}

    def visit(block, path):
        for s in block:
            for name in _refs(s) & local_names:
                paths.setdefault(name, []).append(path)
            if isinstance(s, (ir.For, ir.While)):
                visit(s.body, path + (s.body,))
            elif isinstance(s, ir.If):
                visit(s.then, path + (s.then,))
                visit(s.orelse, path + (s.orelse,))

    visit(fn.body, ())
    out = {p.var.name: id(fn.body) for p in fn.params}   # parameters live for the whole function
    for name in [v.name for v in fn.locals if v.name not in out]:     # in declaration order: stable C++ text
        ps = paths.get(name)
        if not ps:
            out[name] = id(fn.body)
            continue
        common = ps[0]
        for p in ps[1:]:
            n = 0
            while n < min(len(common), len(p)) and common[n] is p[n]:
                n += 1
            common = common[:n]
        block = common[-1] if common else fn.body
        out[name] = id(block) if _assigned_first(block, name) else id(fn.body)
    return out


def _assigned_first(block, name) -> bool:
    for s in block:
        refs = _all_refs(s)
        if name not in refs:
            continue
        if isinstance(s, ir.Assign) and s.var.name == name:
            return name not in {e.name for e in ir.walk_expr(s.value) if isinstance(e, ir.Var)}
        return False
    return False
