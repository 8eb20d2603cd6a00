"""Typing of scalar expressions, as NumPy 2 types them (NEP 50: a Python number is weak, it takes the type of the
array value it meets), with constant folding and constant conversion.

The functions take the source location of the expression they build (an ir.Loc or None) and raise their errors
there; they are pure, so the passes that build scalar code (the lowering of tensor statements) type it exactly as
the frontend does. `ScalarMixin` gives FunctionBuilder the same operations keyed by AST node.
"""
from __future__ import annotations

import numpy as np

from .. import ir
from ..dtypes import HANDLES, as_dtype
from ..errors import ConstantOverflowError, KernelTypeError, overflow_message
from .context import UNKNOWN

FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
        "pow": lambda a, b: a ** b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
        "xor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
        "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "eq": lambda a, b: a == b,
        "ne": lambda a, b: a != b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}

# the operators whose Python meaning on two Python numbers differs from NumPy's (ZeroDivisionError, a complex
# result, an int ** negative int that is a float)
WEAK_OPS = ("truediv", "floordiv", "mod", "pow")


# ------------------------------------------------------------------ constants

def node_span(node) -> tuple:
    """Where an expression is in its source: (line, col, end line, end col), the key of its conversion."""
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def py_const(v, loc):
    """A Python or NumPy number as an IR constant (Python numbers are weak), or None."""
    if isinstance(v, bool):
        return ir.Const(v, ir.WEAK_BOOL, loc)
    if isinstance(v, int):
        return ir.Const(v, ir.WEAK_INT, loc)
    if isinstance(v, float):
        return ir.Const(v, ir.WEAK_FLOAT, loc)
    if isinstance(v, np.generic):
        h = as_dtype(v.dtype)
        if h is not None:
            return ir.Const(v.item(), ir.ScalarType(h.ir), loc)
    return None


def fits(value: int, dt: ir.DType) -> bool:
    info = np.iinfo(dt.np_name)
    return info.min <= value <= info.max


def convert(value, dt: ir.DType):
    """A Python value converted to dtype dt (integers wrap around)."""
    if dt.kind == "f":
        return float(value)
    if dt.kind == "b":
        return bool(value)
    v = int(value)
    if dt.bits < 64 or dt.kind == "u":
        m = 1 << dt.bits
        v %= m
        if dt.kind == "i" and v >= m // 2:
            v -= m
    return v


def convert_const(value, t: ir.ScalarType, explicit: bool):
    """A constant converted as NumPy converts it; a 16-bit float implicitly converted is carried in float32."""
    if t.weak:
        return convert(value, t.dtype)
    name = t.dtype.np_name
    if t.dtype.is_16bit_float and not explicit:
        name = "float32"
    npdt = HANDLES[t.dtype].np if name != "float32" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        r = np.array(value, dtype=np.float64 if isinstance(value, float) else None).astype(npdt)
    return r.item() if t.dtype.kind != "f" else float(r.astype(np.float64))


# ------------------------------------------------------------------ operations

def cast(v, t, loc, explicit=False):
    """v converted to t. Implicit conversions (promotion, stores) keep 16-bit floats in float32, as the compiled
    code carries them; explicit ones (lang.cast, lang.float16(x), annotations) round to t."""
    if t == UNKNOWN or v.type == UNKNOWN:
        return v
    if v.type == t and not (explicit and t.dtype.is_16bit_float):
        return v
    if isinstance(v, ir.Const):
        if not explicit:
            check_fits(v, t, loc)
        return ir.Const(convert_const(v.value, t, explicit), t, v.loc)
    return ir.Cast(v, t, v.loc or loc, explicit)


def check_fits(c, t, loc):
    """A Python int constant implicitly converted to the integer dtype of t must fit it (NumPy 2 / NEP 50)."""
    if c.type.weak and c.type.dtype.kind == "i" and not t.weak and t.dtype.kind in "iu" \
            and not fits(c.value, t.dtype):
        raise ConstantOverflowError(overflow_message(c.value, t.dtype.name), c.loc or loc)


def check_weak_int(a, b, loc):
    """NumPy 2 refuses a Python int that does not fit the integer dtype it meets (`uint8_value + 300`), also as
    a shift count (which is not converted)."""
    for c, other in ((a, b), (b, a)):
        if isinstance(c, ir.Const) and not other.type.weak:
            check_fits(c, other.type, loc)


def binary(op, a, b, loc):
    """a op b for an arithmetic or bitwise op of BINOPS' names, promoted; folded when both are weak constants."""
    check_weak_int(a, b, loc)
    if UNKNOWN in (a.type, b.type):
        t = b.type if a.type == UNKNOWN else a.type
    else:
        t = ir.promote(a.type, b.type)
    if op == "truediv" and t.dtype.kind in "biu":
        t = ir.ScalarType(ir.float64, weak=t.weak)
    if op in ("and", "or", "xor", "lshift", "rshift") and t.dtype.kind == "f":
        raise KernelTypeError(f"bitwise operator needs integer operands, got {a.type!r} and {b.type!r}", loc)
    if op in ("add", "sub", "mul", "pow") and t.dtype == ir.bool_ and not t.weak:
        t = ir.ScalarType(ir.int64) if op != "mul" else t
    if isinstance(a, ir.Const) and isinstance(b, ir.Const) and t.weak:
        if op == "pow" and t.dtype.kind in "biu" and b.value < 0:
            raise KernelTypeError(f"an integer to a negative integer power ({a.value!r} ** {b.value!r}) is not "
                                  f"allowed (NumPy's rule); write {float(a.value)!r} ** {b.value!r} for a float", loc)
        try:
            r = FOLD[op](a.value, b.value)
            if not isinstance(r, complex):      # Python's (-2.0) ** 0.5; NumPy's float64 gives nan: not folded
                return ir.Const(convert(r, t.dtype), t, loc)
        except (ZeroDivisionError, OverflowError, ValueError):
            pass
    return ir.Binary(op, cast(a, t, loc), cast(b, t, loc) if op not in ("lshift", "rshift") else b, t, loc)


def compare(op, a, b, loc):
    t = ir.promote(a.type, b.type) if UNKNOWN not in (a.type, b.type) else UNKNOWN
    for c in (a, b):   # NumPy compares a Python int exactly, even one out of the other dtype's range
        if c.type.weak and c.type.dtype.kind == "i" and t.dtype.kind in "iu" and not t.weak:
            if not isinstance(c, ir.Const):
                t = ir.ScalarType(ir.int64)     # a Python int's runtime value: compared in int64, never wrapped
            elif not fits(c.value, t.dtype):
                t = ir.ScalarType(ir.int64) if fits(c.value, ir.int64) else ir.ScalarType(ir.float64)
    rt = ir.ScalarType(ir.bool_, weak=a.type.weak and b.type.weak)
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return ir.Const(bool(FOLD[op](a.value, b.value)), rt, loc)
    return ir.Compare(op, cast(a, t, loc), cast(b, t, loc), rt, loc)


def logical(op, a, b, loc):
    if isinstance(a, ir.Const):
        if op == "and":
            return b if a.value else a
        return a if a.value else b
    return ir.Logical(op, a, b, ir.ScalarType(ir.bool_), loc)


def truth(v, loc):
    """v as a bool (`v != 0` unless it is one)."""
    if v.type.dtype == ir.bool_:
        return v
    if isinstance(v, ir.Const):
        return ir.Const(bool(v.value), ir.WEAK_BOOL, v.loc)
    return ir.Compare("ne", v, ir.Const(0, ir.WEAK_INT), ir.ScalarType(ir.bool_), loc)


def math_call(b, args, loc):
    """A call of math builtin b (asc.builtins) on scalar IR arguments, typed by its rule; folded when weak."""
    if any(a.type == UNKNOWN for a in args):
        return ir.Call(b.name, tuple(args), UNKNOWN, loc)
    t = b.type_rule(*[a.type for a in args])
    if all(isinstance(a, ir.Const) for a in args) and t.weak:
        r = b.impl(*[a.value for a in args])
        return ir.Const(convert(r, t.dtype), t, loc)
    args = [cast(a, t, loc) for a in args]
    return ir.Call(b.name, tuple(args), t, loc)


class ScalarMixin:
    """The operations above for FunctionBuilder: located at an AST node."""

    def cast(self, v, t, node, explicit=False):
        return cast(v, t, self.loc(node), explicit)

    def binary(self, op, a, b, node):
        r = binary(op, a, b, self.loc(node))
        if op in WEAK_OPS and a.type != UNKNOWN and b.type != UNKNOWN and a.type.weak and b.type.weak \
                and not isinstance(r, ir.Const):
            # two Python numbers: the interpreter must compute as NumPy does (7 // 0 is 0, 0.0 ** -1.0 is inf,
            # (-2.0) ** 0.5 is nan), not as Python (an exception, a complex number)
            # keyed by the span and the operator: a statement the frontend builds itself (the spmd split) may
            # carry the location of another node, whose operator then does not match
            self.conversions[node_span(node) + (op,)] = ir.WeakOp(op)
        return r

    def compare(self, op, a, b, node):
        return compare(op, a, b, self.loc(node))

    def logical(self, op, a, b, node):
        return logical(op, a, b, self.loc(node))

    def truth(self, v, node):
        return truth(v, self.loc(node))

    def math_call(self, b, args, node):
        return math_call(b, args, self.loc(node))

    def note_conversion(self, node, t, *operands):
        """Records that the interpreter must convert the value chosen at `node` to t (see ir.Kernel). The key is the
        node's whole span: `min(a, b) if c else d` starts where its `min(a, b)` does."""
        if any(o.type != t for o in operands) and t != UNKNOWN:
            self.conversions[node_span(node)] = t
