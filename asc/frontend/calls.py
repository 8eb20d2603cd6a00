"""Calls in kernels: asc builtins (math, allocations, casts; the tensor-level ones in tensor_builtins.py), dtype
conversions, Python's math functions and builtins (len, abs, min, max, int, float, bool), and device functions
(`@lang.func`, specialized per argument types in context.py)."""
from __future__ import annotations

import ast
import builtins
import types as pytypes

from .. import ir
from ..ir.printer import format_expr
from ..builtins import BUILTINS, Builtin, IROps, python_aliases
from ..dtypes import DTypeHandle, as_dtype
from ..errors import CompileError, UnsupportedError
from ..marks import DeviceCallable
from .context import UNKNOWN, DeviceFunc, PendingAlloc, specialize
from .alloc_sizes import size_dim

PYMATH = python_aliases()       # math.exp -> "exp", ...: from the builtin declarations


class CallsMixin:
    """The call part of FunctionBuilder."""

    def expr_Call(self, node):
        fn = self.compile_time(node.func)
        if fn is builtins.print:
            raise self.error("print() returns nothing; call it as a statement", node)
        if isinstance(fn, Builtin):
            return self.call_builtin(fn, node)
        if isinstance(fn, DTypeHandle):
            if len(node.args) != 1 or node.keywords:
                raise self.error(f"{fn!r}(x) takes one argument", node)
            x = self.expr(node.args[0])
            if self.is_tensor(x):
                return self.tensor_cast(x, ir.ScalarType(fn.ir), node)
            return self.cast(self.scalar(self.expr(node.args[0]), node.args[0]), ir.ScalarType(fn.ir), node,
                             explicit=True)
        if fn in PYMATH:
            return self.call_builtin(BUILTINS[PYMATH[fn]], node)
        handler = _PY_BUILTINS.get(fn) if _hashable(fn) else None
        if handler is not None:
            return handler(self, node)
        if isinstance(fn, DeviceCallable):
            return self.call_device(fn.pyfunc, node)
        if isinstance(fn, DeviceFunc):
            return self.call_device(fn.pyfunc, node)
        if isinstance(fn, pytypes.FunctionType):
            raise self.error(f"{fn.__name__!r} is a plain Python function; decorate it with @lang.func to call it "
                             f"from a kernel", node.func)
        if isinstance(fn, type):
            raise self.error(f"creating a {fn.__name__} object is not supported in kernels", node, UnsupportedError)
        raise self.error(f"{getattr(fn, '__name__', fn)!r} cannot be called inside a kernel", node.func)

    def call_args(self, b: Builtin, node, names):
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error("unsupported Python feature: starred expression", node, UnsupportedError)
        vals = {}
        for name, a in zip(names, node.args):
            vals[name] = (self.expr(a), a)
        if len(node.args) > len(names):
            raise self.error(f"{b.name}() takes at most {len(names)} arguments", node)
        for k in node.keywords:
            if k.arg not in names:
                raise self.error(f"{b.name}() got an unexpected keyword argument {k.arg!r}", k.value)
            vals[k.arg] = (self.expr(k.value), k.value)
        return vals

    def tensor_cast(self, x, t: ir.ScalarType, node):
        """lang.cast(x, t) of a tensor. A product or reduction of 16-bit floats cast to float32 / float64 is computed
        straight into a tensor of that dtype: its float32 accumulation, unrounded (docs/tensors.md, "Precision")."""
        v = self.as_tvalue(x)
        if isinstance(v, (ir.TensorMatMul, ir.TensorReduce)) and v.dtype.is_16bit_float and \
                t.dtype.kind == "f" and t.dtype.bits >= 32:
            return self.materialize(v, node, t.dtype)
        return self.tmap("cast", lambda fb, a: fb.cast(a[0], t, node, explicit=True), [x], node)

    def call_builtin(self, b: Builtin, node):
        if b.kind == "math":
            names = ("x",) if b.arity == 1 else ("a", "b")
            vals = self.call_args(b, node, names)
            if len(vals) != b.arity:
                raise self.error(f"{b.name}() takes {b.arity} argument(s)", node)
            if any(self.is_tensor(vals[k][0]) for k in names):
                return self.tmap(b.name, lambda fb, a: fb.math_call(b, a, node), [vals[k][0] for k in names], node)
            args = [self.scalar(v, n) for v, n in (vals[k] for k in names)]
            return self.math_call(b, args, node)
        if b.kind == "predicate":          # isnan, isinf, isfinite: their comparisons (asc/builtins/predicates.py)
            vals = self.call_args(b, node, ("x",))
            if "x" not in vals:
                raise self.error(f"{b.name}(x) takes one argument", node)

            def pred(fb, a, decl=b):
                ops = IROps(lambda op, u, v: fb.binary(op, u, v, node), lambda c, args: fb.math_call(c, args, node),
                            compare=lambda op, u, v: fb.compare(op, u, v, node))
                return decl.expand(ops, a[0])
            x, xn = vals["x"]
            if self.is_tensor(x):
                return self.tmap(b.name, pred, [x], node)
            return pred(self, [self.scalar(x, xn)])
        if b.kind == "select":             # lang.where(cond, a, b)
            vals = self.call_args(b, node, ("condition", "x", "y"))
            if len(vals) != 3:
                raise self.error("lang.where(condition, x, y) takes three arguments", node)
            args = [vals[k][0] for k in ("condition", "x", "y")]

            def select(fb, a):
                c, u, v = (fb.scalar(e, n) for e, n in zip(a, (vals[k][1] for k in ("condition", "x", "y"))))
                c = fb.truth(c, node)
                if UNKNOWN in (u.type, v.type):
                    return ir.Select(c, u, v, UNKNOWN, fb.loc(node))
                t = ir.promote(u.type, v.type)
                if isinstance(c, ir.Const):
                    return fb.cast(u if c.value else v, t, node)
                return ir.Select(c, fb.cast(u, t, node), fb.cast(v, t, node), t, fb.loc(node))
            if any(self.is_tensor(a) for a in args):
                return self.tmap("where", select, args, node)
            return select(self, args)
        if b.kind in ("reduce", "matmul", "activation", "softmax", "transpose", "buffer", "tile"):
            return self.tensor_builtin(b, node)
        if b.kind == "alloc":
            return self.call_alloc(b, node)
        if b.kind == "cast":
            vals = self.call_args(b, node, ("x", "dtype"))
            if "dtype" not in vals or "x" not in vals:
                raise self.error("lang.cast(x, dtype) takes two arguments", node)
            h = as_dtype(vals["dtype"][0])
            if h is None:
                raise self.error(f"not a dtype: {self.describe(vals['dtype'][0])}", vals["dtype"][1])
            if self.is_tensor(vals["x"][0]):
                return self.tensor_cast(vals["x"][0], ir.ScalarType(h.ir), node)
            return self.cast(self.scalar(*vals["x"]), ir.ScalarType(h.ir), node, explicit=True)
        if b.kind == "range":
            raise self.error("lang.range() can only be used as the iterable of a for loop", node)
        raise self.error(f"lang.{b.name} is not supported in this kind of kernel", node, UnsupportedError)

    def shape_arg(self, v, node):
        vals = v if isinstance(v, tuple) else (v,)
        elts = node.elts if isinstance(node, ast.Tuple) and len(node.elts) == len(vals) else \
            [node] * (len(vals) == 1)
        dims = []
        for k, x in enumerate(vals):
            at = elts[k] if k < len(elts) else node
            x = self.scalar(x, at)
            text = ast.unparse(at) if k < len(elts) else format_expr(x)
            dims.append(size_dim(self, x, at, text))
        return tuple(dims)

    def call_alloc(self, b, node):
        loc = self.loc(node)
        if b.name in ("empty_like", "zeros_like"):
            vals = self.call_args(b, node, ("x", "dtype"))
            x, xn = vals.get("x", (None, node))
            if not self.is_tensor(x):
                raise self.error(f"lang.{b.name} needs a tensor", xn)
            dt = x.type.dtype
            if "dtype" in vals and vals["dtype"][0] is not None:
                h = as_dtype(vals["dtype"][0])
                if h is None:
                    raise self.error("not a dtype", vals["dtype"][1])
                dt = h.ir
            for d in x.type.shape:
                if not isinstance(d, (int, ir.Sym)):
                    raise self.error(f"lang.{b.name}: the shape must be known at compile time", xn)
            return PendingAlloc(ir.TensorType(dt, x.type.shape), "zeros" if b.name == "zeros_like" else "empty", None,
                                loc)
        names = ("shape", "fill_value", "dtype") if b.name == "full" else ("shape", "dtype")
        vals, shape, dt = self.shape_and_dtype(b, node, names)
        fill = None
        if b.name == "full":
            if "fill_value" not in vals:
                raise self.error("lang.full needs a fill_value", node)
            fill = self.cast(self.scalar(*vals["fill_value"]), ir.ScalarType(dt), node, explicit=True)
        return PendingAlloc(ir.TensorType(dt, shape), b.name, fill, loc)

    def shape_and_dtype(self, b: Builtin, node, names):
        """The arguments of an allocation-like builtin (`names`), its shape (checked) and its dtype (float32 when
        not given): (values, shape, dtype)."""
        vals = self.call_args(b, node, names)
        if "shape" not in vals:
            raise self.error(f"lang.{b.name} needs a shape", node)
        shape = self.shape_arg(vals["shape"][0], vals["shape"][1])
        dt = ir.float32
        if "dtype" in vals:
            h = as_dtype(vals["dtype"][0])
            if h is None:
                raise self.error(f"not a dtype: {self.describe(vals['dtype'][0])}", vals["dtype"][1])
            dt = h.ir
        return vals, shape, dt

    def call_device(self, pyfunc, node):
        if node.keywords:
            raise self.error("keyword arguments to device functions are not supported yet", node, UnsupportedError)
        args = []
        for a in node.args:
            v = self.expr(a)
            if isinstance(v, ir.TensorView) and v.is_whole():
                v = v.base
            if isinstance(v, ir.TensorValue):
                raise self.error("device functions take whole tensors (not views or tensor expressions)", a,
                                 UnsupportedError)
            if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
                args.append(v)
            else:
                args.append(self.scalar(v, a))
        try:
            fname, ret = specialize(self.ctx, type(self), pyfunc, [a.type for a in args], self.loc(node))
        except CompileError as e:
            if e.loc is not None and e.loc.file == self.src.file and e.loc.line == self.loc(node).line:
                raise
            raise type(e)(e.msg, e.loc, e.notes + (f"called from {self.loc(node)!r}",)) from None
        return ir.FuncCall(fname, tuple(args), ret, self.loc(node))


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False


# ------------------------------------------------------------------ Python builtins in kernels

def _py_len(fb, node):
    if len(node.args) != 1:
        raise fb.error("len() takes one argument", node)
    v = fb.expr(node.args[0])
    if isinstance(v, ir.TensorValue):
        return v.extents[0]
    if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
        if v.type.ndim == 0:
            raise fb.error("len() of a 0-d tensor", node)
        return fb.dim_value(v, 0, node)
    if isinstance(v, tuple):
        return ir.Const(len(v), ir.INDEX, fb.loc(node))
    raise fb.error(f"len() of {fb.describe(v)}", node)


def _py_abs(fb, node):
    return fb.call_builtin(BUILTINS["abs"], node)


def _py_minmax(op):
    def lower(fb, node):
        if node.keywords or len(node.args) < 2:
            raise fb.error(f"{op}() in kernels takes two or more numbers", node)
        vals = [fb.scalar(fb.expr(a), a) for a in node.args]
        if UNKNOWN not in [v.type for v in vals]:
            t_all = vals[0].type
            for v in vals[1:]:
                t_all = ir.promote(t_all, v.type)
            fb.note_conversion(node, t_all, *vals)
        out = vals[0]
        for v in vals[1:]:
            t = ir.promote(out.type, v.type) if UNKNOWN not in (out.type, v.type) else UNKNOWN
            if t is not UNKNOWN and t.dtype.kind == "f":
                # floats: numpy.maximum / minimum (a nan operand gives nan, whatever its position), so that a
                # running `m = max(m, x[i])` means the same serial and vectorized (docs/tensors.md, "NaN")
                a, b = fb.cast(out, t, node), fb.cast(v, t, node)
                if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                    pick = a.value > b.value if op == "max" else a.value < b.value
                    out = a if pick or a.value != a.value else b
                else:
                    out = ir.Call("maximum" if op == "max" else "minimum", (a, b), t, fb.loc(node))
                continue
            # integers and bools (and constants folded): Python's max(a, b), a unless b > a
            cond = fb.compare("gt" if op == "max" else "lt", v, out, node)
            if isinstance(cond, ir.Const):
                out = fb.cast(v if cond.value else out, t, node)
            else:
                out = ir.Select(cond, fb.cast(v, t, node), fb.cast(out, t, node), t, fb.loc(node))
        return out
    return lower


def _py_conv(dt):
    def lower(fb, node):
        if len(node.args) != 1:
            raise fb.error("conversion takes one argument", node)
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and dt.kind in "fi":
            # float("inf"), float("-inf"), float("nan"), int("8"): Python's own conversion, folded
            try:
                v = (float if dt.kind == "f" else int)(arg.value)
            except ValueError as e:
                raise fb.error(str(e), arg) from None
            return ir.Const(v, ir.ScalarType(dt, weak=True), fb.loc(node))
        v = fb.scalar(fb.expr(node.args[0]), node.args[0])
        return fb.cast(v, ir.ScalarType(dt, weak=True), node, explicit=True)
    return lower


def _py_range(fb, node):
    raise fb.error("range() can only be used as the iterable of a for loop", node)


_PY_BUILTINS = {len: _py_len, abs: _py_abs, max: _py_minmax("max"), min: _py_minmax("min"),
                int: _py_conv(ir.int64), float: _py_conv(ir.float64), bool: _py_conv(ir.bool_),
                range: _py_range}
