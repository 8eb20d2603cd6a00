"""The expression half of the pyasc translator (translate.py's FuncTranslator): each Python expression node of an
@asc.jit function (its `expr_X` method, asc/frontend/visitor.py's convention) becomes a compile-time value (`Const`,
folded) or C++ text with its type (`Val`); calls go to api_calls.py. Also the C literal of a Python value."""
from __future__ import annotations

import ast
import builtins
import math
import operator

from ..errors import CompileError, KernelTypeError, UnsupportedError
from ..frontend.visitor import visit_method
from . import api_calls as calls, data_types as dtypes, enums, kernel_structs as struct
from .values import Bound, Const, Val

INT = dtypes.int64
FLOAT = dtypes.float32

BINOPS = {ast.Add: ("+", operator.add), ast.Sub: ("-", operator.sub), ast.Mult: ("*", operator.mul),
           ast.Div: ("/", operator.truediv), ast.FloorDiv: ("//", operator.floordiv), ast.Mod: ("%", operator.mod),
           ast.LShift: ("<<", operator.lshift), ast.RShift: (">>", operator.rshift),
           ast.BitAnd: ("&", operator.and_), ast.BitOr: ("|", operator.or_), ast.BitXor: ("^", operator.xor),
           ast.Pow: ("**", operator.pow)}
CMPOPS = {ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne), ast.Lt: ("<", operator.lt),
           ast.LtE: ("<=", operator.le), ast.Gt: (">", operator.gt), ast.GtE: (">=", operator.ge),
           ast.Is: ("==", operator.is_), ast.IsNot: ("!=", operator.is_not)}


def c_literal(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return str(v)
        if -2**63 <= v < 2**63:
            return f"{v}LL"
        if 0 <= v < 2**64:
            return f"{v}ULL"
        raise ValueError(f"the integer {v} does not fit 64 bits")
    if isinstance(v, float):
        if math.isnan(v):
            return "__builtin_nanf(\"\")"          # g++ and the NPU's clang both have these builtins
        if math.isinf(v):
            return "__builtin_inff()" if v > 0 else "(-__builtin_inff())"
        r = repr(float(v))
        if "e" not in r and "." not in r:
            r += ".0"
        return r + "f"
    if isinstance(v, enum_types()):
        return v.cname
    if isinstance(v, dtypes.DataType):
        return v.cname
    raise ValueError(f"{v!r} has no C literal")




def enum_types():
    return enums.ALL


def is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, enum_types())


class ExpressionsMixin:
    """FuncTranslator's expressions."""

    def scalar_val(self, c: Const) -> Val:
        v = c.value
        if isinstance(v, bool):
            return Val("scalar", c_literal(v), "bool", dtypes.bool_)
        if isinstance(v, int):
            return Val("scalar", c_literal(v), "int64_t", INT)
        if isinstance(v, float):
            return Val("scalar", c_literal(v), "float", FLOAT)
        raise ValueError(v)

    @staticmethod
    def is_num_const(c: Const) -> bool:
        return is_num(c.value)

    def int_text(self, v, node) -> str:
        if isinstance(v, Const):
            if not isinstance(v.value, int) or isinstance(v.value, enum_types()):
                raise self.err(node, f"expected an integer, got {v.value!r}", KernelTypeError)
            return c_literal(int(v.value))
        if v.kind != "scalar":
            raise self.err(node, f"expected an integer, got a {v.kind}", KernelTypeError)
        return v.text

    def bool_text(self, v, node) -> str:
        if isinstance(v, Const):
            return c_literal(bool(v.value))
        if v.kind != "scalar":
            raise self.err(node, "a condition must be a scalar", KernelTypeError)
        return v.text

    def value_text(self, v, node) -> str:
        if isinstance(v, Const):
            try:
                return c_literal(v.value)
            except ValueError as e:
                raise self.err(node, str(e), KernelTypeError) from None
        return v.text

    def lookup(self, name, node):
        if name in self.env:
            v = self.env[name]
            if isinstance(v, tuple):
                raise self.err(node, f"{name!r} was defined inside a loop or if-branch and is used after it "
                                     f"(define it before)")
            return v
        if name in self.globals:
            return Const(self.globals[name])
        if hasattr(builtins, name):
            return Const(getattr(builtins, name))
        raise self.err(node, f"name {name!r} is not defined", CompileError)

    def expr(self, node):
        m = visit_method(self, node)
        if m is None:
            raise self.err(node, f"unsupported Python expression in a kernel: {type(node).__name__}")
        return m(node)

    def expr_Constant(self, node):
        return Const(node.value)

    def expr_Name(self, node):
        return self.lookup(node.id, node)

    def expr_Tuple(self, node):
        vals = [self.expr(e) for e in node.elts]
        if all(isinstance(v, Const) for v in vals):
            return Const(tuple(v.value for v in vals))
        return Const(tuple(vals))

    expr_List = expr_Tuple

    def expr_JoinedStr(self, node):
        vals = [self.expr(v) for v in node.values]
        out = []
        for v, n in zip(vals, node.values):
            if not isinstance(v, Const):
                raise self.err(n, "f-strings of runtime values: use asc.printf")
            out.append(v.value if isinstance(n, ast.Constant) else format(v.value))
        return Const("".join(out))

    def expr_FormattedValue(self, node):
        v = self.expr(node.value)
        if not isinstance(v, Const):
            raise self.err(node, "f-strings of runtime values: use asc.printf")
        return Const(format(v.value))

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            try:
                return Const(getattr(base.value, attr))
            except AttributeError:
                raise self.err(node, f"{base.value!r} has no attribute {attr!r}", CompileError) from None
        if attr == "dtype" and base.dtype is not None and base.kind in ("gaddr", "gtensor", "ltensor"):
            return Const(base.dtype)
        if base.kind == "struct" and base.get("params") is not None:
            self.field_cname(base, attr, node)
            raise self.err(node, f"reading the field {attr!r} of asc.{base.get('params').cname} in a kernel is not "
                                 f"supported: keep the value in a variable of its own", UnsupportedError)
        if base.kind == "struct":
            cls = base.get("struct")
            f = cls._asc_fields.get(attr)
            if f is None:
                raise self.err(node, f"struct {cls.__name__} has no field {attr!r}", CompileError)
            text = f"{base.text}.{self.field_cname(base, attr)}"
            if isinstance(f, struct.StructField):
                self.prog.structs.setdefault(f.cls, None)
                return Val("struct", text, f.cls.__name__, None, None, (("struct", f.cls),))
            return Val("scalar", text, f.dtype.cname, f.dtype)
        return Bound(base, attr)

    def field_cname(self, base: Val, attr: str, node=None) -> str:
        """The C name of a struct field: the Python name, or for a struct the Ascend C headers declare
        (TCubeTiling) the header's name of the field (Field(name=...)); for a parameter struct of the API
        (asc.DataCopyParams, ...) its Ascend C name, pyasc's snake_case name in lowerCamelCase (block_len: blockLen,
        src0_blk_stride: src0BlkStride, dst_nz_c0_stride: dstNzC0Stride)."""
        params = base.get("params")
        if params is not None:
            if attr == "dtype" or attr not in dict(params.fields):
                raise self.err(node, f"asc.{params.cname} has no field {attr!r} (fields: "
                                     f"{', '.join(f for f, _ in params.fields if f != 'dtype')})", CompileError)
            head, *rest = attr.split("_")
            return head + "".join(w[:1].upper() + w[1:] for w in rest)
        cls = base.get("struct")
        if cls is not None and getattr(cls, "_asc_header", None):
            f = cls._asc_fields.get(attr)
            return getattr(f, "name", None) or attr
        return attr

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        sl = node.slice
        if isinstance(base, Const):
            idx = self.expr(sl) if not isinstance(sl, ast.Slice) else None
            if idx is None or not isinstance(idx, Const):
                raise self.err(node, "indexing of a compile-time value takes a compile-time index")
            try:
                return Const(base.value[idx.value])
            except Exception as e:   # noqa: BLE001 -- the user's indexing error, at the user's line
                raise self.err(node, f"{type(e).__name__}: {e}", CompileError) from None
        if base.kind not in ("gtensor", "ltensor"):
            raise self.err(node, f"a {base.kind} cannot be indexed")
        if isinstance(sl, ast.Slice):
            if sl.upper is not None or sl.step is not None:
                raise self.err(node, "tensor slices take a start only (t[offset:]), as operator[] of Ascend C")
            off = self.expr(sl.lower) if sl.lower is not None else Const(0)
        else:
            off = self.expr(sl)
        return base.with_text(f"{base.text}[{self.int_text(off, node)}]")

    def expr_BinOp(self, node):
        a, b = self.expr(node.left), self.expr(node.right)
        sym, fn = BINOPS[type(node.op)]
        if isinstance(a, Const) and isinstance(b, Const):
            try:
                return Const(fn(a.value, b.value))
            except Exception as e:   # noqa: BLE001
                raise self.err(node, f"{type(e).__name__}: {e}", CompileError) from None
        if isinstance(a, Val) and a.kind == "gaddr" and sym in "+-":
            return a.with_text(f"({a.text} {sym} {self.int_text(b, node.right)})")
        for x, n in ((a, node.left), (b, node.right)):
            if isinstance(x, Val) and x.kind != "scalar":
                raise self.err(n, f"arithmetic on a {x.kind}", KernelTypeError)
            if isinstance(x, Const) and not is_num(x.value):
                raise self.err(n, f"arithmetic on {x.value!r}", KernelTypeError)
        at, bt = self.value_text(a, node.left), self.value_text(b, node.right)
        fl = any((isinstance(x, Const) and isinstance(x.value, float)) or
                 (isinstance(x, Val) and x.dtype is not None and x.dtype.is_float) for x in (a, b))
        if sym == "/":
            return Val("scalar", f"(static_cast<float>({at}) / static_cast<float>({bt}))", "float", FLOAT)
        if sym == "**":
            raise self.err(node, "** of a runtime value is not supported in kernels")
        if fl:
            if sym in ("//", "%", "<<", ">>", "&", "|", "^"):
                raise self.err(node, f"{sym} on floats is not supported in kernels")
            return Val("scalar", f"({at} {sym} {bt})", "float", FLOAT)
        if sym == "//":
            self.prog.uses_prelude = True
            return Val("scalar", f"asc_floordiv({at}, {bt})", "int64_t", INT)
        if sym == "%":
            self.prog.uses_prelude = True
            return Val("scalar", f"asc_mod({at}, {bt})", "int64_t", INT)
        return Val("scalar", f"(static_cast<int64_t>({at}) {sym} {bt})" if sym in ("+", "-", "*", "<<") and
                   isinstance(a, Val) and a.ctype != "int64_t" else f"({at} {sym} {bt})", "int64_t", INT)

    def expr_UnaryOp(self, node):
        v = self.expr(node.operand)
        if isinstance(v, Const):
            return Const({ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                          ast.Invert: operator.invert}[type(node.op)](v.value))
        sym = {ast.USub: "-", ast.UAdd: "+", ast.Not: "!", ast.Invert: "~"}[type(node.op)]
        if v.kind != "scalar":
            raise self.err(node, f"{sym} of a {v.kind}", KernelTypeError)
        if sym == "!":
            return Val("scalar", f"(!{v.text})", "bool", dtypes.bool_)
        return Val("scalar", f"({sym}{v.text})", v.ctype, v.dtype)

    def expr_BoolOp(self, node):
        vals = [self.expr(v) for v in node.values]
        is_and = isinstance(node.op, ast.And)
        if all(isinstance(v, Const) for v in vals):
            r = vals[0].value
            for v in vals[1:]:
                r = (r and v.value) if is_and else (r or v.value)
            return Const(r)
        texts = [self.bool_text(v, n) for v, n in zip(vals, node.values)]
        return Val("scalar", "(" + (" && " if is_and else " || ").join(texts) + ")", "bool", dtypes.bool_)

    def expr_Compare(self, node):
        left = self.expr(node.left)
        out_c, out_t = True, []
        for op, rn in zip(node.ops, node.comparators):
            right = self.expr(rn)
            if type(op) not in CMPOPS:
                raise self.err(node, f"unsupported comparison {type(op).__name__}")
            sym, fn = CMPOPS[type(op)]
            if isinstance(left, Const) and isinstance(right, Const):
                out_c = out_c and fn(left.value, right.value)
            else:
                out_t.append(f"({self.cmp_text(left, rn)} {sym} {self.cmp_text(right, rn)})")
            left = right
        if not out_t:
            return Const(out_c)
        if out_c is False:
            return Const(False)
        return Val("scalar", "(" + " && ".join(out_t) + ")", "bool", dtypes.bool_)

    def cmp_text(self, v, node):
        if isinstance(v, Const) and isinstance(v.value, enum_types()):
            return f"static_cast<int32_t>({v.value.cname})"
        return self.value_text(v, node)

    def expr_IfExp(self, node):
        c = self.expr(node.test)
        if isinstance(c, Const):
            return self.expr(node.body if c.value else node.orelse)
        a, b = self.expr(node.body), self.expr(node.orelse)
        for x in (a, b):
            if isinstance(x, Val) and x.kind != "scalar":
                raise self.err(node, "a conditional expression of tensors is not supported")
        fl = any((isinstance(x, Const) and isinstance(x.value, float)) or
                 (isinstance(x, Val) and x.dtype is not None and x.dtype.is_float) for x in (a, b))
        return Val("scalar", f"({self.bool_text(c, node.test)} ? {self.value_text(a, node)} : "
                   f"{self.value_text(b, node)})", "float" if fl else "int64_t", FLOAT if fl else INT)

    def expr_Call(self, node):
        return calls.call(self, node)

    def expr_Lambda(self, node):
        raise self.err(node, "lambdas are not supported in kernels")
