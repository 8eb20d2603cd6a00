"""Elementwise math, one declaration per function: the interpreter implementation (the function body), the type
rule, the cpu target's C templates, the Ascend C API, the cost class, the derivative and the Python functions it
stands for. See asc/builtins/table.py for what each field means."""
from __future__ import annotations

import builtins as pybuiltins
import math as pymath

import numpy as np

from .. import ir
from .numeric import absolute, binary, erf64, is_py, rsqrt64, sigmoid64, unary, via_f64
from .table import ADVANCED, BASIC, BINARY, Ascend, Cpu, builtin, float_rule, promote_rule, same_rule


def _x(e):
    return e.args[0]


@builtin("math", float_rule, 1, cpu=Cpu("asc_exp_{s}({})"), ascend=Ascend("Exp", BASIC),
         python=(pymath.exp,),
         derivative=lambda A, e, D: A.mul(e, D(_x(e))))
def exp(x):
    """e raised to x, elementwise. float32: within 2 ulp on the cpu target."""
    return unary(np.exp, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_log_{s}({})"), ascend=Ascend("Ln", BASIC),
         python=(pymath.log,),
         derivative=lambda A, e, D: A.div(D(_x(e)), _x(e)))
def log(x):
    """Natural logarithm, elementwise; log(0) = -inf, log(x < 0) = nan."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return unary(np.log, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_sqrt_{s}({})"), ascend=Ascend("Sqrt", BASIC),
         python=(pymath.sqrt,),
         derivative=lambda A, e, D: A.div(D(_x(e)), A.mul(A.const(2, _x(e)), e)))
def sqrt(x):
    """Square root, elementwise (correctly rounded)."""
    with np.errstate(invalid="ignore"):
        return unary(np.sqrt, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_rsqrt_{s}({})"), ascend=Ascend("Rsqrt", BASIC),
         derivative=lambda A, e, D: A.mul(A.mul(A.const(-0.5, _x(e)), A.mul(e, A.mul(e, e))), D(_x(e))))
def rsqrt(x):
    """1 / sqrt(x), elementwise."""
    return via_f64(rsqrt64, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_tanh_{s}({})"), ascend=Ascend("Tanh", ADVANCED, cost=10),
         python=(pymath.tanh,),
         derivative=lambda A, e, D: A.mul(A.sub(A.const(1, _x(e)), A.mul(e, e)), D(_x(e))))
def tanh(x):
    """Hyperbolic tangent, elementwise."""
    return unary(np.tanh, x)


# erf(x / c) and erf(x * c) for GELU's constants c = float32(sqrt 2), float32(sqrt 0.5): one call, x / c never
# rounded (the error bound was measured over every input: docs/math.md)
_ERF_SCALED = ("f32", "asc_erf_scaled_f32({}, {})", (1.4142135381698608,), (0.7071067690849304,))
# GELU's product (0.5 * x) * (1 + erf_scaled(x, s)) as one call that gives its bits for every float32 x (all 2^32
# checked: tests/include/test_gelu_product.py) without erf's NaN mask and the multiply by 0.5: the IR name and the
# C template (asc/passes/gelu_product.py writes it)
GELU_PRODUCT_CPU = ("gelu_erf_scaled", "asc_gelu_erf_scaled_f32({}, {})")


@builtin("math", float_rule, 1, cpu=Cpu("asc_erf_{s}({})", scaled=_ERF_SCALED),
         ascend=Ascend("Erf", ADVANCED, cost=12), python=(pymath.erf,),
         derivative=lambda A, e, D: A.mul(A.mul(A.const(1.1283791670955126, _x(e)),         # 2/sqrt(pi) exp(-x^2)
                                                A.call("exp", A.neg(A.mul(_x(e), _x(e))))), D(_x(e))))
def erf(x):
    """The error function, elementwise."""
    return via_f64(erf64, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_sigmoid_{s}({})"),
         ascend=Ascend("Sigmoid", ADVANCED, cost=4),
         derivative=lambda A, e, D: A.mul(A.mul(e, A.sub(A.const(1, _x(e)), e)), D(_x(e))))
def sigmoid(x):
    """The logistic function 1 / (1 + exp(-x)), elementwise."""
    return via_f64(sigmoid64, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_sin_{s}({})"), ascend=Ascend("Sin", ADVANCED, cost=12),
         python=(pymath.sin,),
         derivative=lambda A, e, D: A.mul(A.call("cos", _x(e)), D(_x(e))))
def sin(x):
    """Sine, elementwise (radians)."""
    return unary(np.sin, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_cos_{s}({})"), ascend=Ascend("Cos", ADVANCED, cost=12),
         python=(pymath.cos,),
         derivative=lambda A, e, D: A.neg(A.mul(A.call("sin", _x(e)), D(_x(e)))))
def cos(x):
    """Cosine, elementwise (radians)."""
    return unary(np.cos, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_floor_{s}({})"), ascend=Ascend("Floor", ADVANCED, cost=2),
         python=(pymath.floor,), exact=True)
def floor(x):
    """The largest integer value not greater than x, as a float (ints become float64, as in NumPy)."""
    return unary(np.floor, x)


@builtin("math", float_rule, 1, cpu=Cpu("asc_ceil_{s}({})"), ascend=Ascend("Ceil", ADVANCED, cost=2),
         python=(pymath.ceil,), exact=True)
def ceil(x):
    """The smallest integer value not less than x, as a float."""
    return unary(np.ceil, x)


def _d_abs(A, e, D):
    """sign(x) dx: 0 at x == 0, as torch and jax."""
    x, dx = _x(e), D(_x(e))
    b = ir.ScalarType(ir.bool_)
    return ir.Select(ir.Compare("lt", x, A.const(0, x), b), A.neg(dx),
                     ir.Select(ir.Compare("gt", x, A.const(0, x), b), dx, A.const(0, dx), e.type), e.type)


@builtin("math", same_rule, 1, name="abs", cpu=Cpu("asc_abs_{s}({})", int_template="asc_abs_i({})"),
         ascend=Ascend("Abs", BASIC), python=(pymath.fabs,), derivative=_d_abs, exact=True)
def abs_(x):
    """Absolute value, elementwise; keeps the dtype (also Python's abs)."""
    return absolute(x)


def _d_select(op):
    """maximum / minimum: the derivative of the operand chosen (the first on a tie)."""
    def d(A, e, D):
        a, b = e.args
        cond = ir.Compare(op, a, b, ir.ScalarType(ir.bool_))
        return ir.Select(cond, D(a), D(b), e.type)
    return d


@builtin("math", promote_rule, 2, cpu=Cpu("asc_maximum_{s}({}, {})", int_template="asc_max_i({}, {})"),
         ascend=Ascend("Max", BINARY, tensor_scalar="Maxs"), derivative=_d_select("ge"),
         exact=True)
def maximum(a, b):
    """The larger of a and b, elementwise; nan if either is nan (as numpy.maximum). Python's max(a, b) of floats
    in a kernel means the same."""
    return binary(np.maximum, a, b)


@builtin("math", promote_rule, 2, cpu=Cpu("asc_minimum_{s}({}, {})", int_template="asc_min_i({}, {})"),
         ascend=Ascend("Min", BINARY, tensor_scalar="Mins"), derivative=_d_select("le"),
         exact=True)
def minimum(a, b):
    """The smaller of a and b, elementwise; nan if either is nan (as numpy.minimum). Python's min(a, b) of floats
    in a kernel means the same."""
    return binary(np.minimum, a, b)


def _d_pow(A, e, D):
    """b a^(b-1) da, for an exponent that does not vary."""
    a, b = e.args
    if not A.is_zero(D(b)):
        A.refuse("a power with a varying exponent is not differentiated yet", e.loc)
    return A.mul(A.mul(b, A.call("pow", a, A.sub(b, A.const(1, b)))), D(a))


@builtin("math", promote_rule, 2, name="pow", cpu=Cpu("asc_pow_{s}({}, {})", int_template="asc_ipow({}, {})"),
         python=(pymath.pow,), derivative=_d_pow)
def pow_(a, b):
    """a raised to b, elementwise (integer power for integer operands)."""
    with np.errstate(all="ignore"):
        return binary(_power, a, b)


def _power(a, b):
    """np.power, with IEEE 754 / C pow's values for a base of -inf: NumPy's array loops give nan for (-inf) ** 0.5
    (its float64 scalars, C's pow and compiled code: inf)."""
    r = np.power(a, b)
    if r.dtype.kind != "f":
        return r
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    fix = np.isneginf(a) & ~np.isnan(b)
    if not fix.any():
        return r
    odd = (np.mod(b, 2) == 1) | (np.mod(b, 2) == -1)
    ieee = np.where(b > 0, np.where(odd, -np.inf, np.inf), np.where(odd, -0.0, 0.0))
    ieee = np.where(b == 0, 1.0, ieee).astype(r.dtype)
    return np.where(fix, ieee, r)


@builtin("math", same_rule, 1, name="round", cpu=Cpu("asc_round_{s}({})", int_template="asc_round_i({})"),
         python=(pybuiltins.round,), exact=True)
def round_(x):
    """The nearest integer value, ties to even (2.5 -> 2.0, -0.5 -> -0.0), as Python's round and numpy.round; also
    Python's round(x) in kernels. Keeps the type, as numpy.round: a float stays a float (round(2.5) is 2.0 in a
    kernel, where Python gives the int 2), an integer is unchanged; nan and infinities are unchanged. One argument
    (no ndigits)."""
    if is_py(x):
        return x if isinstance(x, int) else float(np.rint(x))
    a = np.asarray(x)
    if a.dtype.kind in "biu":
        return x
    return unary(np.rint, x)


pi = pymath.pi
