"""Python expressions -> typed IR: names (and the globals and sizes they reach), constants, attributes,
subscripts, arithmetic, comparisons, boolean operators and conditional expressions. Tensor-valued operands go to the
tensor level (tensor_exprs.py); scalar ones are typed here (scalars.py)."""
from __future__ import annotations

import ast
import builtins
import types as pytypes

import numpy as np

from .. import ir
from ..dtypes import Dim, HANDLES
from ..errors import KernelTypeError, UnsupportedError
from ..marks import DeviceCallable
from .context import UNKNOWN, DeviceFunc, PendingAlloc
from .scalars import py_const
from .visitor import visit_method

UNSUPPORTED = {
    ast.Try: "try-except", ast.Lambda: "lambda", ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Dict: "dict literal", ast.List: "list literal",
    ast.Set: "set literal", ast.Yield: "yield (generators)", ast.YieldFrom: "yield from (generators)",
    ast.ClassDef: "class definition inside a kernel", ast.FunctionDef: "nested function definition",
    ast.AsyncFunctionDef: "nested function definition", ast.With: "with statement", ast.Raise: "raise",
    ast.Assert: "assert", ast.Import: "import", ast.ImportFrom: "import", ast.Delete: "del",
    ast.Await: "await", ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.Starred: "starred expression",
    ast.JoinedStr: "f-string", ast.NamedExpr: "assignment expression (:=)", ast.Match: "match statement",
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED[ast.TryStar] = "try-except"

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
          ast.LShift: "lshift", ast.RShift: "rshift"}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne", ast.Gt: "gt", ast.GtE: "ge"}

class ExpressionsMixin:
    """The expression part of FunctionBuilder."""

    def expr(self, node):
        if type(node) in UNSUPPORTED:
            raise self.error(f"unsupported Python feature: {UNSUPPORTED[type(node)]}", node, UnsupportedError)
        visit = visit_method(self, node)
        if visit is None:
            raise self.error(f"unsupported Python feature: {type(node).__name__} expression", node,
                             UnsupportedError)
        return visit(node)

    def compile_time(self, node):
        """Evaluates `node` where a compile-time object (a function, a dtype) is expected."""
        return self.expr(node)

    def expr_Constant(self, node):
        v = node.value
        if isinstance(v, str) or v is None:
            return v
        c = py_const(v, self.loc(node))
        if c is None:
            raise self.error(f"unsupported constant {v!r}", node, UnsupportedError)
        return c

    def name_value(self, node):
        name = node.id
        if name in self.env:
            return self.env[name]
        if name in self.loop_var_names:
            raise self.error(f"loop variable {name!r} is used after its loop (asc does not keep its last value)",
                             node)
        if name in self.out_of_block:
            raise self.error(f"tensor {name!r} is allocated inside a loop or branch (line "
                             f"{self.out_of_block[name].line}) and used after it; allocate it before the loop or "
                             f"branch", node)
        if name in self.closure:
            return self.wrap_global(self.closure[name], node)
        g = self.pyfunc.__globals__
        if name in g:
            return self.wrap_global(g[name], node)
        if name in self.ctx.symbols:
            return self.size_value(name, node)
        if hasattr(builtins, name):
            obj = getattr(builtins, name)
            if name in ("eval", "exec", "compile", "globals", "locals", "vars", "open", "input"):
                raise self.error(f"unsupported Python feature: {name}", node, UnsupportedError)
            return obj
        raise self.error(f"name {name!r} is not defined", node)

    expr_Name = name_value

    def size_value(self, name, node):
        v = self.ctx.symbols[name]
        if isinstance(v, ir.Sym):
            return ir.Var(name, ir.INDEX, self.loc(node))
        return ir.Const(v, ir.INDEX, self.loc(node))

    def wrap_global(self, obj, node):
        c = py_const(obj, self.loc(node))
        if c is not None:
            return c
        if isinstance(obj, Dim):
            if obj.name not in self.ctx.symbols:
                raise self.error(f"size {obj.name} is not bound by any argument of this kernel", node)
            return self.size_value(obj.name, node)
        if isinstance(obj, (np.ndarray,)):
            raise self.error("a kernel cannot use a global array; pass it as an argument", node)
        return obj

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, ir.TensorValue):
            if attr == "shape":
                return tuple(base.extents)
            if attr == "dtype":
                return HANDLES[base.dtype]
            if attr == "ndim":
                return ir.Const(base.ndim, ir.INDEX, self.loc(node))
            if attr == "T":
                return self.ttranspose(base, None, node)
            raise self.error(f"tensor has no attribute {attr!r} in kernels", node)
        if isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType):
            t = base.type
            if attr == "T":
                return self.ttranspose(base, None, node)
            if attr == "shape":
                return tuple(self.dim_value(base, k, node) for k in range(t.ndim))
            if attr == "dtype":
                return HANDLES[t.dtype]
            if attr == "ndim":
                return ir.Const(t.ndim, ir.INDEX, self.loc(node))
            if attr == "size":
                return self.product([self.dim_value(base, k, node) for k in range(t.ndim)], node)
            raise self.error(f"tensor has no attribute {attr!r} in kernels", node)
        if isinstance(base, ir.Expr) or isinstance(base, (str, tuple)) or base is None:
            raise self.error(f"attribute {attr!r} of a {self.describe(base)} is not supported in kernels", node)
        if not hasattr(base, attr):
            raise self.error(f"{getattr(base, '__name__', base)!r} has no attribute {attr!r}", node)
        if isinstance(base, type):
            raw = base.__dict__.get(attr) if attr in base.__dict__ else None
            obj = getattr(base, attr)
            if isinstance(raw, staticmethod) and not isinstance(obj, DeviceCallable) or \
                    isinstance(obj, pytypes.FunctionType):     # (@staticmethod over @lang.func: the func itself)
                return DeviceFunc(obj)
            return self.wrap_global(obj, node)
        return self.wrap_global(getattr(base, attr), node)

    def dim_value(self, tensor, k, node):
        ext = self.clipped_temps.get(tensor.name)
        if ext is not None:                 # a tensor holding a clipped value: its run-time size
            return ext[k]
        d = tensor.type.shape[k]
        if isinstance(d, ir.Sym):
            return ir.Var(d.name, ir.INDEX, self.loc(node))
        return ir.Const(d, ir.INDEX, self.loc(node))

    def product(self, dims, node):
        out = ir.Const(1, ir.INDEX, self.loc(node))
        for d in dims:
            out = self.binary("mul", out, d, node)
        return out

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, ir.TensorValue) and not isinstance(base, ir.TensorView):
            base = self.operand(base, node)
            if not isinstance(base, ir.TensorView):
                base = self.materialize(base, node)
        if isinstance(base, ir.TensorView):
            return self.subscript_view(base, node)
        if isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType):
            sl = node.slice
            if self.has_slices(node) or len(sl.elts if isinstance(sl, ast.Tuple) else [sl]) < base.type.ndim:
                return self.subscript_view(base, node)
            idx = self.indices(base, node)
            return ir.Load(base, idx, ir.ScalarType(base.type.dtype), self.loc(node))
        if isinstance(base, tuple):
            k = self.expr(node.slice)
            if not (isinstance(k, ir.Const) and isinstance(k.value, int)):
                raise self.error("a tuple (such as x.shape) can only be indexed by a constant", node.slice)
            if not -len(base) <= k.value < len(base):
                raise self.error(f"index {k.value} is out of range for a tuple of {len(base)}", node.slice)
            return base[k.value]
        raise self.error(f"{self.describe(base)} is not subscriptable in kernels", node.value)

    def indices(self, tensor, node):
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        for e in elts:
            if isinstance(e, ast.Slice):
                raise self.error("slicing a tensor (a view) is not supported in element-level code yet; index "
                                 "single elements", e, UnsupportedError)
        if len(elts) != tensor.type.ndim:
            raise self.error(f"tensor {tensor.name!r} has {tensor.type.ndim} dimension(s) but is indexed with "
                             f"{len(elts)}", node)
        out = []
        for k, e in enumerate(elts):
            v = self.int_scalar(self.expr(e), e)
            if isinstance(v, ir.Const):
                if v.value < 0:
                    raise self.error(f"negative index {v.value}: kernels do not wrap negative indices", e)
                d = tensor.type.shape[k]
                if isinstance(d, int) and v.value >= d:
                    raise self.error(f"index {v.value} is out of bounds for axis {k} of {tensor.name!r} with size "
                                     f"{d}", e)
            out.append(self.cast(v, ir.INDEX, e) if v.type.dtype != ir.int64 else v)
        return tuple(out)

    def scalar(self, v, node):
        if isinstance(v, ir.Expr) and isinstance(v.type, ir.ScalarType):
            return v
        if isinstance(v, PendingAlloc) or self.is_tensor(v):
            raise self.error(f"expected a number, got a tensor {self.describe(v)}", node, KernelTypeError)
        raise self.error(f"expected a number, got {self.describe(v)}", node)

    def int_scalar(self, v, node):
        v = self.scalar(v, node)
        if v.type.dtype.kind not in "iub" and v.type != UNKNOWN:
            raise self.error(f"expected an integer, got {v.type!r}", node, KernelTypeError)
        return v

    def condition(self, node):
        v = self.scalar(self.expr(node), node)
        return self.truth(v, node)

    def expr_BinOp(self, node):
        a, b = self.expr(node.left), self.expr(node.right)
        if isinstance(node.op, ast.MatMult):
            for v, n in ((a, node.left), (b, node.right)):
                if not self.is_tensor(v):
                    raise self.error(f"matmul (@) needs tensors, got {self.describe(v)}", n, KernelTypeError)
            return self.tmatmul(a, b, node)
        if self.is_tensor(a) or self.is_tensor(b):
            return self.tensor_binary(BINOPS[type(node.op)], a, b, node)
        a = self.scalar(a, node.left)
        b = self.scalar(b, node.right)
        return self.binary(BINOPS[type(node.op)], a, b, node)

    def expr_UnaryOp(self, node):
        v = self.expr(node.operand)
        if self.is_tensor(v):
            if isinstance(node.op, ast.UAdd):
                return v
            return self.tensor_unary({ast.USub: "neg", ast.Invert: "invert"}.get(type(node.op), "not"), v, node)
        v = self.scalar(v, node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            c = self.truth(v, node)
            if isinstance(c, ir.Const):
                return ir.Const(not c.value, ir.WEAK_BOOL, self.loc(node))
            return ir.Unary("not", c, ir.ScalarType(ir.bool_), self.loc(node))
        if isinstance(node.op, ast.USub):
            if isinstance(v, ir.Const) and v.type.weak:
                return ir.Const(-v.value, v.type, self.loc(node))
            return ir.Unary("neg", v, v.type, self.loc(node))
        if v.type.dtype.kind == "f":
            raise self.error("~ needs an integer operand", node, KernelTypeError)
        return ir.Unary("invert", v, v.type, self.loc(node))

    def expr_Compare(self, node):
        if len(node.ops) == 1 and type(node.ops[0]) in CMPOPS:
            a, b = self.expr(node.left), self.expr(node.comparators[0])
            if self.is_tensor(a) or self.is_tensor(b):
                return self.tensor_compare(CMPOPS[type(node.ops[0])], a, b, node)
        left = self.scalar(self.expr(node.left), node.left)
        out = None
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in CMPOPS:
                raise self.error(f"unsupported comparison {type(op).__name__}", node, UnsupportedError)
            right = self.scalar(self.expr(right_node), right_node)
            c = self.compare(CMPOPS[type(op)], left, right, node)
            out = c if out is None else self.logical("and", out, c, node)
            left = right
        return out

    def expr_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        vals = []
        for v in node.values:
            e = self.scalar(self.expr(v), v)
            if e.type.dtype != ir.bool_:
                raise self.error(f"operands of '{op}' must be booleans (comparisons), got {e.type!r}", v,
                                 KernelTypeError)
            vals.append(e)
        out = vals[0]
        for v in vals[1:]:
            out = self.logical(op, out, v, node)
        return out

    def expr_IfExp(self, node):
        cond = self.condition(node.test)
        a = self.scalar(self.expr(node.body), node.body)
        b = self.scalar(self.expr(node.orelse), node.orelse)
        if isinstance(cond, ir.Const):
            return a if cond.value else b
        if UNKNOWN in (a.type, b.type):
            t = b.type if a.type == UNKNOWN else a.type
        else:
            t = ir.promote(a.type, b.type)
        self.note_conversion(node, t, a, b)
        return ir.Select(cond, self.cast(a, t, node), self.cast(b, t, node), t, self.loc(node))

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def describe(self, v):
        """What v is, for messages: its type, or the kind of compile-time object."""
        if isinstance(v, ir.Expr):
            return repr(v.type)
        if isinstance(v, (PendingAlloc, ir.TensorValue)):
            return repr(v.type)
        return type(v).__name__
