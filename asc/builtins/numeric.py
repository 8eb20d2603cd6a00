"""The interpreter's numerics of elementwise math: which type a math function of a Python number, a NumPy scalar
or a tensor gives back, 16-bit floats computed in float32, and the functions NumPy lacks (erf, sigmoid, rsqrt)
computed in float64 and rounded once."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import mixed16, scalar16
from .array import SIXTEEN_BIT, KernelArray, to16

SCALAR_FLOATS = (np.float32, np.float64)


def is_py(x) -> bool:
    """A Python number (weak in the type rules), not a NumPy scalar."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def tensor_result(r, dt):
    """A math function of a whole 16-bit tensor (tensor-level code) comes back in its dtype, as in NumPy."""
    if dt in SIXTEEN_BIT and isinstance(r, np.ndarray) and r.ndim:
        return to16(r, dt).astype(dt).view(KernelArray)
    return r


def wide_any(x):
    """A tensor argument of an elementwise builtin computed in float32 when 16-bit (in 16 bits, each operation
    rounded, with precision="mixed"); scalars as they are."""
    if isinstance(x, np.ndarray) and x.ndim:
        if x.dtype in SIXTEEN_BIT and not mixed16.get():
            return x.view(np.ndarray).astype(np.float32), x.dtype
        return x, x.dtype
    return x, None


def _result(r, dt):
    """A math function's result on NumPy values: a 0-d one a scalar (of 16-bit operands as the interpreter carries
    16-bit scalars: asc.dtypes.scalar16), a tensor of 16-bit operands back in its dtype."""
    if r.ndim:
        return tensor_result(r, dt)
    return scalar16(r[()], dt) if dt in SIXTEEN_BIT else r[()]


def unary(npfn, x):
    """A math function on a Python number gives a Python number (weak, folded); on NumPy values it keeps the
    float dtype (ints become float64); 16-bit floats are computed in float32."""
    if is_py(x):
        return float(npfn(np.float64(x)))
    if type(x) in SCALAR_FLOATS:
        return npfn(x)
    a = np.asarray(x)
    dt = a.dtype
    if a.dtype in SIXTEEN_BIT:
        a = a.astype(np.float32)
    elif a.dtype.kind != "f":
        a = a.astype(np.float64)
    r = npfn(a)
    return _result(r, dt)


def via_f64(fn, x):
    """fn computed in float64 and rounded to x's float type (for functions NumPy lacks)."""
    if is_py(x):
        return float(fn(np.float64(x)))
    sfn = _SCALAR_FN.get(fn)
    if sfn is not None and type(x) in SCALAR_FLOATS:
        return type(x)(sfn(float(x)))
    a = np.asarray(x)
    out_dt = np.float32 if a.dtype in SIXTEEN_BIT else (a.dtype if a.dtype.kind == "f" else np.float64)
    r = fn(a.astype(np.float64)).astype(out_dt)
    return _result(r, a.dtype)


def absolute(x):
    """abs keeps the dtype (16-bit computed in float32)."""
    if is_py(x):
        return abs(x)
    a = np.asarray(x)
    r = np.abs(a.astype(np.float32) if a.dtype in SIXTEEN_BIT else a)
    return _result(r, a.dtype)


def binary(fn, a, b):
    """A two-operand math function: Python numbers give a Python number; 16-bit tensors come back in their
    dtype."""
    if is_py(a) and is_py(b):
        r = fn(np.asarray(a), np.asarray(b))
        return r.item()
    ta = np.asarray(a).astype(np.float32) if np.asarray(a).dtype in SIXTEEN_BIT else a
    tb = np.asarray(b).astype(np.float32) if np.asarray(b).dtype in SIXTEEN_BIT else b
    r = np.asarray(fn(ta, tb))
    if np.asarray(a).dtype in SIXTEEN_BIT or np.asarray(b).dtype in SIXTEEN_BIT:
        dt = np.result_type(a, b)
        if r.ndim:
            return tensor_result(r, dt)
        return scalar16(r[()], dt) if dt in SIXTEEN_BIT else r[()]
    return r[()] if r.ndim == 0 else r


# ------------------------------------------------------------------ functions NumPy lacks: float64 arrays, and
# their Python-float forms for NumPy scalars

_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def erf64(a):
    return _erf_vec(a)


def sigmoid64(a):
    """1 / (1 + exp(-a)), and exp(a) / (1 + exp(a)) below 0: the tail below -709 is exp(a) (subnormal), not 0."""
    a = np.asarray(a, dtype=np.float64)
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def rsqrt64(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(a)


def _erf_s(v):
    return math.erf(v)


def _sigmoid_s(v):
    if v != v:
        return v
    if v >= 0:
        return 1.0 / (1.0 + math.exp(-v))
    e = math.exp(v)         # below -745 it is 0.0: exp(v) is subnormal down to there, as compiled code gives
    return e / (1.0 + e)


def _rsqrt_s(v):
    if v != v or (v < 0):
        return math.nan
    if v == 0:
        return math.copysign(math.inf, v)
    return 0.0 if v == math.inf else 1.0 / math.sqrt(v)


_SCALAR_FN = {erf64: _erf_s, sigmoid64: _sigmoid_s, rsqrt64: _rsqrt_s}
