"""The sizes of an allocation's shape (`lang.empty((bins + 1,))`, `lang.zeros((B, C // G))`): each is a constant, an
int argument, a size of an argument's shape (a `lang.dim`, `x.shape[k]`), a variable assigned once from those, or
+ - * // % of them. When shapes are specialized a size is computed here, a constant; under dynamic_shape=True an
expression becomes a size symbol of its own (ir.SizeDef) that the runtime computes at each call. Anything else (a
tensor's data, a loop variable, a float) is refused with what it is and the line."""
from __future__ import annotations

import ast

from .. import ir
from ..errors import ShapeError
from ..ir.printer import format_expr
from ..ir.sizes import SIZE_OPS, SIZE_PREFIX, SizeValueError, checked
from .context import SizeParamNeeded, size_param_symbol

RULE = ("a size is a constant, an int argument, a size of an argument's shape (a lang.dim, x.shape[k]), a variable "
        "assigned once from those, or + - * // % of them")


def _refuse(fb, what: str, text: str, node):
    return fb.error(f"the size {text} of an allocation uses {what}: {RULE}", node)


def size_param(fb, name: str) -> bool:
    """Is `name` an int argument of the kernel that it never assigns (one that can be a size)?"""
    t = fb.var_types.get(name)
    return fb.is_kernel and name in fb.params_by_name and fb.assign_count[name] == 0 and t is not None and \
        isinstance(t, ir.ScalarType) and t.dtype.kind in "iu"


def size_term(fb, x, text: str, node, seen=()):
    """`x` as a size expression: int Consts and Vars of size symbols (ir.INDEX) combined by + - * // %. Raises a
    CompileError at `node` naming what is not a size, or SizeParamNeeded for an int argument not yet bound as one."""
    if isinstance(x, ir.Const):
        if isinstance(x.value, bool) or not isinstance(x.value, int):
            raise _refuse(fb, f"the {type(x.value).__name__} {x.value!r}", text, node)
        return ir.Const(int(x.value), ir.INDEX)
    if isinstance(x, ir.Cast) and not x.explicit and x.type.dtype.kind in "iu":
        return size_term(fb, x.x, text, node, seen)
    if isinstance(x, ir.Binary) and x.op in SIZE_OPS:
        return ir.Binary(x.op, size_term(fb, x.a, text, node, seen), size_term(fb, x.b, text, node, seen), ir.INDEX)
    if isinstance(x, ir.Var) and not isinstance(x.type, ir.TensorType):
        name = x.name
        if fb.is_size(x):                               # a dynamic size (lang.dim, x.shape[k])
            return ir.Var(name, ir.INDEX)
        if size_param(fb, name):
            v = fb.ctx.symbols.get(size_param_symbol(name))
            if v is None:       # asc/dispatch binds it as a size and builds again
                raise SizeParamNeeded(f"the int argument {name!r} is a size of an allocation; asc binds it as a size "
                                      f"(this message means it was not bound)", fb.loc(node), param=name)
            return ir.Const(v, ir.INDEX) if isinstance(v, int) else ir.Var(size_param_symbol(name), ir.INDEX)
        if name in fb.size_defs and name not in seen:
            return size_term(fb, fb.size_defs[name], text, node, seen + (name,))
        if name in fb.loop_var_names:
            raise _refuse(fb, f"the loop variable {name!r}", text, node)
        if name in fb.params_by_name:
            kind = "reassigned " if fb.assign_count[name] else ""
            raise _refuse(fb, f"the {kind}{x.type!r} argument {name!r}", text, node)
        raise _refuse(fb, f"the variable {name!r}, which is assigned more than once or from values that are not "
                          f"sizes", text, node)
    if isinstance(x, ir.Load):
        raise fb.error(f"the size {text} of an allocation is read from the data of tensor {x.tensor.name!r}: a "
                       f"shape must be known before the kernel runs ({RULE})", node)
    if isinstance(x, ir.Binary):
        sym = {"truediv": "/ (a float: use //)", "pow": "**"}.get(x.op, x.op)
        raise _refuse(fb, f"the operator {sym}", text, node)
    raise _refuse(fb, f"a {type(x).__name__.lower()} ({format_expr(x)})", text, node)


def is_size_expr(fb, x) -> bool:
    """Is scalar `x` an int expression of sizes that a name assigned once may stand for in a shape?"""
    if isinstance(x, ir.Const):
        return isinstance(x.value, int) and not isinstance(x.value, bool)
    if isinstance(x, ir.Cast):
        return not x.explicit and x.type.dtype.kind in "iu" and is_size_expr(fb, x.x)
    if isinstance(x, ir.Binary):
        return x.op in SIZE_OPS and is_size_expr(fb, x.a) and is_size_expr(fb, x.b)
    if isinstance(x, ir.Var) and not isinstance(x.type, ir.TensorType):
        return fb.is_size(x) or size_param(fb, x.name) or x.name in fb.size_defs
    return False


def note_assignment(fb, name: str, value, node):
    """Remembers a name assigned once from an expression of sizes (it may be a size of an allocation), and the
    source of its value (a message about a size made from it names the arguments it came from)."""
    if name in fb.params_by_name or fb.assign_count[name] > 1:
        return
    if is_size_expr(fb, value):
        fb.size_defs[name] = value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        fb.size_src[name] = node.value


def _shown(fb, node, out=None, seen=()) -> dict:
    """The user's names of the sizes the source `node` reads, with their values (for messages): through the
    variables assigned once, the arguments and shapes they came from."""
    out = {} if out is None else out
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in fb.size_src and n.id not in seen:
            _shown(fb, fb.size_src[n.id], out, seen + (n.id,))
        elif isinstance(n, ast.Name) or (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute)
                                         and n.value.attr == "shape"):
            text = ast.unparse(n)
            if text in out:
                continue
            try:
                v = fb.expr(n)
            except Exception:       # a name that is not a value (a module): nothing to show
                continue
            if isinstance(v, ir.Var) and size_param(fb, v.name):
                v = fb.ctx.symbols.get(size_param_symbol(v.name))
            elif isinstance(v, ir.Var) and v.name in fb.size_defs:
                try:
                    v = size_term(fb, v, text, n)
                except Exception:
                    continue
            if isinstance(v, ir.Const) and isinstance(v.value, int):
                v = v.value
            if isinstance(v, int) and not isinstance(v, bool):
                out[text] = v
    return out


def size_dim(fb, x, node, text: str):
    """The dim (int, or ir.Sym under dynamic_shape=True) of the size `x` of an allocation, written `text` at `node`."""
    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) for n in ast.walk(node)):
        raise _refuse(fb, "the operator / (a float: use //)", text, node)
    e = size_term(fb, x, text, node)
    if not any(isinstance(v, ir.Var) for v in ir.walk_expr(e)):
        try:
            return checked(e, {}, text, _shown(fb, node))
        except SizeValueError as err:       # what the arguments gave: as the runtime says it (runtime/size_defs.py)
            raise ShapeError(f"{fb.loc(node)!r}: {fb.name}(): {err}") from None
    if isinstance(e, ir.Var):
        return fb.ctx.symbols.get(e.name) if isinstance(fb.ctx.symbols.get(e.name), ir.Sym) else ir.Sym(e.name)
    key = format_expr(e)
    d = fb.ctx.sizes.get(key)
    if d is None:
        d = ir.SizeDef(f"{SIZE_PREFIX}expr{len(fb.ctx.sizes) + 1}", e, text, fb.loc(node))
        fb.ctx.sizes[key] = d
        fb.ctx.symbols[d.name] = ir.Sym(d.name)
    return fb.ctx.symbols[d.name]
