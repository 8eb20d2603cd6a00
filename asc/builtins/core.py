"""The builtin functions of the kernel language, each declared once.

A declaration gives the name, the kind (which tells the frontend how to lower a call), the type rule, the
interpreter implementation (the function body itself: calling a builtin outside the compiler runs it on NumPy
values), and the docstring. The C renderers map the same names to code in their own tables.
"""
from __future__ import annotations

import math as _math

import numpy as np

from .. import ir
from ..dtypes import as_dtype, convert, float32

BUILTINS: dict = {}


class Builtin:
    """A kernel-language builtin. Calling it from Python runs the interpreter implementation."""

    def __init__(self, name: str, kind: str, impl, type_rule=None, arity: int | None = None):
        self.name, self.kind, self.impl, self.type_rule, self.arity = name, kind, impl, type_rule, arity
        self.__doc__ = impl.__doc__
        self.__name__ = name
        self.__wrapped__ = impl

    def __call__(self, *args, **kwargs):
        return self.impl(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<asc builtin {self.name}>"


def builtin(kind: str, type_rule=None, arity=None, name=None):
    def deco(fn):
        b = Builtin(name or fn.__name__.rstrip("_"), kind, fn, type_rule, arity)
        BUILTINS[b.name] = b
        return b
    return deco


# ------------------------------------------------------------------ interpreter helpers

_16BIT = (np.dtype(np.float16), np.dtype("bfloat16"))


def _is_py(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


_SCALAR_F = (np.float32, np.float64)


def _math1(npfn, x):
    """A math function on a Python number gives a Python number (weak, folded); on NumPy values it keeps the
    float dtype (ints become float64); 16-bit floats are computed in float32."""
    if _is_py(x):
        return float(npfn(np.float64(x)))
    if type(x) in _SCALAR_F:
        return npfn(x)
    a = np.asarray(x)
    dt = a.dtype
    if a.dtype in _16BIT:
        a = a.astype(np.float32)
    elif a.dtype.kind != "f":
        a = a.astype(np.float64)
    r = npfn(a)
    return r[()] if r.ndim == 0 else _tensor_result(r, dt)


def _tensor_result(r, dt):
    """A math function of a whole 16-bit tensor (tensor-level code) comes back in its dtype, as in NumPy."""
    if dt in _16BIT and isinstance(r, np.ndarray) and r.ndim:
        from .array import KernelArray
        return r.astype(dt).view(KernelArray)
    return r


def _via_f64(fn, x):
    """fn computed in float64 and rounded to x's float type (for functions NumPy lacks)."""
    if _is_py(x):
        return float(fn(np.float64(x)))
    sfn = _SCALAR_FN.get(fn)
    if sfn is not None and type(x) in _SCALAR_F:
        return type(x)(sfn(float(x)))
    a = np.asarray(x)
    out_dt = np.float32 if a.dtype in _16BIT else (a.dtype if a.dtype.kind == "f" else np.float64)
    r = fn(a.astype(np.float64)).astype(out_dt)
    return r[()] if r.ndim == 0 else _tensor_result(r, a.dtype)


_erf_vec = np.vectorize(_math.erf, otypes=[np.float64])


def _erf64(a):
    return _erf_vec(a)


def _sigmoid64(a):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-a))


def _rsqrt64(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(a)


def _erf_s(v):
    return _math.erf(v)


def _sigmoid_s(v):
    if v != v:
        return v
    return 1.0 / (1.0 + _math.exp(-v)) if v > -700 else 0.0


def _rsqrt_s(v):
    if v != v or (v < 0):
        return _math.nan
    if v == 0:
        return _math.copysign(_math.inf, v)
    return 0.0 if v == _math.inf else 1.0 / _math.sqrt(v)


_SCALAR_FN = {_erf64: _erf_s, _sigmoid64: _sigmoid_s, _rsqrt64: _rsqrt_s}


def _float_rule(t: ir.ScalarType) -> ir.ScalarType:
    return ir.to_float(t)


def _same_rule(t: ir.ScalarType) -> ir.ScalarType:
    return t


def _promote_rule(a: ir.ScalarType, b: ir.ScalarType) -> ir.ScalarType:
    return ir.promote(a, b)


# ------------------------------------------------------------------ math (elementwise)

@builtin("math", _float_rule, 1)
def exp(x):
    """e raised to x, elementwise. float32: within 2 ulp on the cpu target."""
    return _math1(np.exp, x)


@builtin("math", _float_rule, 1)
def log(x):
    """Natural logarithm, elementwise; log(0) = -inf, log(x < 0) = nan."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _math1(np.log, x)


@builtin("math", _float_rule, 1)
def sqrt(x):
    """Square root, elementwise (correctly rounded)."""
    with np.errstate(invalid="ignore"):
        return _math1(np.sqrt, x)


@builtin("math", _float_rule, 1)
def rsqrt(x):
    """1 / sqrt(x), elementwise."""
    return _via_f64(_rsqrt64, x)


@builtin("math", _float_rule, 1)
def tanh(x):
    """Hyperbolic tangent, elementwise."""
    return _math1(np.tanh, x)


@builtin("math", _float_rule, 1)
def erf(x):
    """The error function, elementwise."""
    return _via_f64(_erf64, x)


@builtin("math", _float_rule, 1)
def sigmoid(x):
    """The logistic function 1 / (1 + exp(-x)), elementwise."""
    return _via_f64(_sigmoid64, x)


@builtin("math", _float_rule, 1)
def sin(x):
    """Sine, elementwise (radians)."""
    return _math1(np.sin, x)


@builtin("math", _float_rule, 1)
def cos(x):
    """Cosine, elementwise (radians)."""
    return _math1(np.cos, x)


@builtin("math", _float_rule, 1)
def floor(x):
    """The largest integer value not greater than x, as a float (ints become float64, as in NumPy)."""
    return _math1(np.floor, x)


@builtin("math", _float_rule, 1)
def ceil(x):
    """The smallest integer value not less than x, as a float."""
    return _math1(np.ceil, x)


@builtin("math", _same_rule, 1, name="abs")
def abs_(x):
    """Absolute value, elementwise; keeps the dtype (also Python's abs)."""
    if _is_py(x):
        return abs(x)
    a = np.asarray(x)
    r = np.abs(a.astype(np.float32) if a.dtype in _16BIT else a)
    return r[()] if r.ndim == 0 else _tensor_result(r, a.dtype)


def _np2(fn, a, b):
    if _is_py(a) and _is_py(b):
        r = fn(np.asarray(a), np.asarray(b))
        return r.item()
    ta = np.asarray(a).astype(np.float32) if np.asarray(a).dtype in _16BIT else a
    tb = np.asarray(b).astype(np.float32) if np.asarray(b).dtype in _16BIT else b
    r = np.asarray(fn(ta, tb))
    if r.ndim and (np.asarray(a).dtype in _16BIT or np.asarray(b).dtype in _16BIT):
        return _tensor_result(r, np.result_type(a, b))
    return r[()] if r.ndim == 0 else r


@builtin("math", _promote_rule, 2)
def maximum(a, b):
    """The larger of a and b, elementwise; nan if either is nan (as numpy.maximum)."""
    return _np2(np.maximum, a, b)


@builtin("math", _promote_rule, 2)
def minimum(a, b):
    """The smaller of a and b, elementwise; nan if either is nan (as numpy.minimum)."""
    return _np2(np.minimum, a, b)


@builtin("math", _promote_rule, 2, name="pow")
def pow_(a, b):
    """a raised to b, elementwise (integer power for integer operands)."""
    with np.errstate(all="ignore"):
        return _np2(np.power, a, b)


pi = _math.pi
MATH_NAMES = ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "sin", "cos", "floor", "ceil", "abs",
              "maximum", "minimum", "pow")


# ------------------------------------------------------------------ allocation and conversion

def _shape_tuple(shape) -> tuple:
    if isinstance(shape, tuple) or isinstance(shape, list):
        return tuple(int(s) for s in shape)
    return (int(shape),)


def _np_dtype(dtype):
    h = as_dtype(dtype)
    if h is None:
        raise TypeError(f"not a dtype: {dtype!r}")
    return h.np


@builtin("alloc")
def empty(shape, dtype=float32):
    """A new tensor of `shape` (an int or a tuple), contents undefined. dtype defaults to float32."""
    from .array import KernelArray
    return np.empty(_shape_tuple(shape), _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def zeros(shape, dtype=float32):
    """A new tensor of `shape` filled with zeros. dtype defaults to float32."""
    from .array import KernelArray
    return np.zeros(_shape_tuple(shape), _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def full(shape, fill_value, dtype=float32):
    """A new tensor of `shape` filled with `fill_value`. dtype defaults to float32."""
    from .array import KernelArray
    return np.full(_shape_tuple(shape), fill_value, _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def empty_like(x, dtype=None):
    """A new tensor with the shape (and, unless given, the dtype) of `x`, contents undefined."""
    from .array import KernelArray
    return np.empty(x.shape, x.dtype if dtype is None else _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def zeros_like(x, dtype=None):
    """A new tensor with the shape (and, unless given, the dtype) of `x`, filled with zeros."""
    from .array import KernelArray
    return np.zeros(x.shape, x.dtype if dtype is None else _np_dtype(dtype)).view(KernelArray)


@builtin("cast")
def cast(x, dtype):
    """x converted to `dtype` (a scalar or, in tensor code, a tensor). Float to int truncates toward zero;
    to 16-bit floats rounds to nearest even."""
    h = as_dtype(dtype)
    if h is None:
        raise TypeError(f"lang.cast: not a dtype: {dtype!r}")
    return convert(x, h)


@builtin("range")
def range_(start, stop=None, step=1):
    """range(stop) or range(start, stop, step), as Python's range: the loop of a kernel."""
    if stop is None:
        return range(int(start))
    return range(int(start), int(stop), int(step))



# ------------------------------------------------------------------ tensor level (also elementwise on scalars)
# Semantics follow NumPy: results have NumPy's dtypes (float16 op float16 is float16); matmul and reductions of
# 16-bit floats accumulate in float32. The compiled code computes 16-bit values in float32 and rounds once when
# it stores them; the interpreter may round after each operation (NumPy's way): results agree to the dtype's
# precision, not bit for bit.

def _kernel_array(r):
    from .array import KernelArray
    if isinstance(r, np.ndarray):
        return r[()] if r.ndim == 0 else r.view(KernelArray)
    return r


def _wide(x):
    """x as a NumPy array computed in float32 when it is a 16-bit float (and its dtype to come back to)."""
    a = np.asarray(x).view(np.ndarray)
    if a.dtype in _16BIT:
        return a.astype(np.float32), a.dtype
    return a, a.dtype


def _wide_any(x):
    """A tensor argument of an elementwise builtin computed in float32 when 16-bit; scalars as they are."""
    if isinstance(x, np.ndarray) and x.ndim:
        if x.dtype in _16BIT:
            return x.view(np.ndarray).astype(np.float32), x.dtype
        return x, x.dtype
    return x, None


def _back(r, dt):
    """A reduction or product computed wide, back in the input's 16-bit dtype (a 0-d result stays a float32
    value: 16-bit scalars are carried in float32)."""
    r = np.asarray(r)
    if dt in _16BIT:
        if r.ndim == 0:
            return np.float32(np.float32(r).astype(dt))
        r = r.astype(dt)
    return _kernel_array(r)


@builtin("reduce", name="sum")
def sum_(x, axis=None, keepdims=False):
    """The sum of the elements of a tensor, over `axis` (an int, a tuple of ints, or None: all). Floats keep
    their dtype (16-bit floats accumulate in float32); integers and bools sum in int64."""
    a, dt = _wide(x)
    if a.dtype.kind in "biu":
        return _kernel_array(np.sum(a, axis=axis, keepdims=keepdims, dtype=np.int64))
    return _back(np.sum(a, axis=axis, keepdims=keepdims), dt)


@builtin("reduce", name="max")
def max_(x, axis=None, keepdims=False):
    """The largest element of a tensor, over `axis` (an int, a tuple of ints, or None: all). Keeps the dtype.
    (A max of nothing: -inf for floats in compiled code; the interpreter raises, as NumPy.)"""
    a, dt = _wide(x)
    return _back(np.max(a, axis=axis, keepdims=keepdims), dt)


@builtin("reduce", name="min")
def min_(x, axis=None, keepdims=False):
    """The smallest element of a tensor, over `axis` (an int, a tuple of ints, or None: all). Keeps the dtype."""
    a, dt = _wide(x)
    return _back(np.min(a, axis=axis, keepdims=keepdims), dt)


@builtin("matmul")
def matmul(a, b):
    """The matrix product a @ b: 2-D operands, or 3-D for a batch of products (a 2-D operand is shared by the
    batch). Float dtypes; 16-bit operands accumulate in float32 and the result is rounded once to their dtype.
    On the cpu target it runs on asc's GEMM (packed, register-blocked, multi-threaded)."""
    x, dx = _wide(a)
    y, dy = _wide(b)
    r = np.matmul(x, y)
    out = np.result_type(dx, dy) if (dx in _16BIT or dy in _16BIT) else r.dtype
    return _kernel_array(r.astype(out) if r.dtype != out else r)


@builtin("activation")
def gelu(x):
    """GELU, elementwise: 0.5 * x * (1 + erf(x / sqrt(2))) (the exact form, not the tanh approximation)."""
    w, dt = _wide_any(x)
    return _tensor_result(0.5 * w * (1.0 + erf(w * 0.7071067811865476)), dt)


@builtin("activation")
def silu(x):
    """SiLU (swish), elementwise: x * sigmoid(x)."""
    w, dt = _wide_any(x)
    return _tensor_result(w * sigmoid(w), dt)


@builtin("activation")
def relu(x):
    """ReLU, elementwise: maximum(x, 0) (nan stays nan)."""
    return maximum(x, 0)


@builtin("softmax")
def softmax(x, axis=-1):
    """Softmax along `axis` (default the last): exp(x - max) / sum(exp(x - max)). Float tensors."""
    a = np.asarray(x).view(np.ndarray)
    m = max_(a, axis=axis, keepdims=True)
    e = exp(a - np.asarray(m).astype(a.dtype))
    e = np.asarray(e).astype(a.dtype)
    s = np.asarray(sum_(e, axis=axis, keepdims=True)).astype(a.dtype)
    return _kernel_array((e / s).astype(a.dtype))


@builtin("transpose")
def transpose(x, axes=None):
    """A view of x with its axes reversed (or permuted by `axes`); no copy. Also `x.T`."""
    return _kernel_array(np.transpose(np.asarray(x).view(np.ndarray), axes))


@builtin("buffer")
def global_buffer(shape, dtype=float32):
    """A tensor in global memory (the device's main memory): as lang.empty. Contents undefined."""
    return empty(shape, dtype)


@builtin("buffer")
def local_buffer(shape, dtype=float32):
    """A tile in local memory (on-chip on Ascend; cache-resident, on the stack, on cpu). Its shape must be made of
    constants, and a kernel's local buffers together must fit the target's budget (cpu: 256 KiB). Contents
    undefined until written (lang.load_2d)."""
    return empty(shape, dtype)


@builtin("tile")
def load_2d(src, dst):
    """Copies the 2-D view `src` (such as A[i:i+B, 0:K]) into the local buffer `dst`. The shapes must agree at
    compile time. A view past the end of its tensor is clipped (as NumPy slicing): the part of `dst` it does not
    cover is set to zero, so an edge tile computes as if the tensor were padded with zeros."""
    s = np.asarray(src)
    d = np.asarray(dst).view(np.ndarray)
    d[...] = 0
    d[:s.shape[0], :s.shape[1]] = s


@builtin("tile")
def store_2d(src, dst):
    """Copies the local buffer `src` into the 2-D view `dst` (such as C[i:i+B, j:j+B]). The shapes must agree at
    compile time. A view past the end of its tensor is clipped: only the part inside the tensor is written."""
    d = np.asarray(dst).view(np.ndarray)
    d[...] = np.asarray(src)[:d.shape[0], :d.shape[1]]
