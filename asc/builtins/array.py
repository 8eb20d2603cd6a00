"""The array type that interpreted kernels see: a NumPy array with the kernel language's indexing rules, and the
array-level interpreter numerics that it and the builtins share (16-bit floats computed wide, the matrix product,
the transpose). Of asc.builtins it imports only clipping (edge tiles)."""
from __future__ import annotations

import builtins
import contextvars
import sys

import numpy as np

from ..dtypes import as_dtype, carried16, is_bfloat16, narrow16, scalar16, widen16
from . import clipping

# numeric check of intermediates in the interpreter: every stored float value must be finite
finite_stores: contextvars.ContextVar = contextvars.ContextVar("asc_finite_stores", default=False)

_F16 = np.dtype(np.float16)


class _SixteenBit:
    """`dtype in SIXTEEN_BIT`: float16 or bfloat16, asked without importing ml_dtypes (asc.dtypes.is_bfloat16)."""

    __slots__ = ()

    def __contains__(self, dt) -> bool:
        return dt == _F16 or is_bfloat16(dt)


SIXTEEN_BIT = _SixteenBit()


class KernelArray(np.ndarray):
    """Element reads of 16-bit floats give float32 values (16-bit is a storage type; arithmetic is float32; with
    precision="mixed" the 16-bit scalar itself, whose arithmetic is 16-bit: asc.dtypes.mixed16),
    and negative or out-of-range indices raise IndexError instead of wrapping around."""

    def _name(self) -> str:
        """The kernel's name for this tensor: an argument's, else the caller's local variable holding it."""
        name = getattr(self, "_asc_name", None)
        if name is None:
            f = sys._getframe(1)
            while f is not None and f.f_code.co_filename == __file__:
                f = f.f_back
            name = next((k for k, v in (f.f_locals.items() if f else ()) if v is self), "a tensor")
        return name

    def _check(self, idx):
        if type(idx) is int:
            if idx < 0 or (self.ndim and idx >= self.shape[0]):
                self._check((idx,))
            return
        t = idx if isinstance(idx, tuple) else (idx,)
        for axis, i in enumerate(t):
            if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and axis < self.ndim:
                if i < 0 or i >= self.shape[axis]:
                    of = f" of {self._name()!r} with shape {self.shape}"
                    raise IndexError(f"index {int(i)} is out of bounds for axis {axis}{of}" +
                                     (" (kernels do not wrap negative indices)" if i < 0 else ""))

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))

    def __str__(self) -> str:
        return str(self.view(np.ndarray))

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def __iadd__(self, other):
        return np.ndarray.__iadd__(self, stored_value(other, self.dtype))

    @property
    def T(self):
        return transpose(self)

    def __getitem__(self, idx):
        self._check(idx)
        v = np.ndarray.__getitem__(self, idx)
        if isinstance(v, np.ndarray):
            if v.ndim and clipping.may_clip(self, idx):   # an edge tile keeps its compile-time shape
                return clipping.mark_view(self, idx, v)
            return v
        if self.dtype in SIXTEEN_BIT and not isinstance(v, np.ndarray):
            return carried16(v)         # float32 (a NaN's payload exactly: docs/tensors.md, "NaN"), or 16-bit
        return v

    def __setitem__(self, idx, value):
        self._check(idx)
        value = stored_value(value, self.dtype)
        target = self
        if (isinstance(value, np.ndarray) and value.ndim      # an edge tile: the part both sides cover
                and (type(value) is EdgeTile or clipping.may_clip(self, idx))):
            target, idx, value = self._clipped_store(idx, value)
        if self.dtype in SIXTEEN_BIT:
            value = to16(value, self.dtype)
        if finite_stores.get() and self.dtype.kind == "f" or (finite_stores.get() and self.dtype in SIXTEEN_BIT):
            if not np.all(np.isfinite(np.asarray(value, dtype=np.float64))):
                raise FloatingPointError(f"this line first produced {value} (stored to {self._name()!r} at index "
                                         f"{idx if isinstance(idx, tuple) else (idx,)})")
        if isinstance(value, np.generic) and self.dtype.kind in "iu" and value.dtype != self.dtype:
            # a NumPy value stored into an integer element converts as `out[:] = values` does (wrapping), not as
            # NumPy's scalar assignment, which goes through a Python int and raises OverflowError; a Python int
            # that does not fit still raises (NEP 50)
            with np.errstate(all="ignore"):
                value = np.asarray(value).astype(self.dtype)
        np.ndarray.__setitem__(target, idx, value)

    def _clipped_store(self, idx, value):
        """`self[idx] = value` where the destination view or the value is an edge tile: (the part of the view that
        is written, its index, the part of value written there); else (self, idx, value)."""
        if not clipping.is_clipped(value) and not clipping.may_clip(self, idx):
            return self, idx, value
        dest = np.ndarray.__getitem__(self.view(np.ndarray), idx)
        if not isinstance(dest, np.ndarray) or not dest.ndim:
            return self, idx, value
        full = clipping.view_full(self, idx, dest)
        if not clipping.is_clipped(value) and (full is None or full == dest.shape):
            return self, idx, value
        d, v = clipping.store(dest, full, value)
        return d, Ellipsis, v


class EdgeTile(KernelArray):
    """A KernelArray clipped at the end of its tensor (an edge tile: `x[i:i+8]` with 5 elements left). It carries
    its compile-time shape as `_asc_full`; NumPy's ufuncs with it among their operands or outputs work on the common
    part, the result marked with its compile-time shape, an output keeping what lies outside (asc/builtins/
    clipping.py). A KernelArray that is not clipped has no ufunc override: NumPy's own speed."""

    def __array_finalize__(self, obj):
        if "_asc_full" not in self.__dict__:       # a view or copy NumPy made of an edge tile: not marked (yet)
            self.__class__ = KernelArray

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        full = None
        if method == "__call__":
            inputs, out_part, full = clipping.align(inputs, out)
        else:
            out_part = out
        if out is not None:
            kwargs["out"] = tuple(_kernel_view(o) for o in out_part)
        r = getattr(ufunc, method)(*(_kernel_view(i) for i in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(r, tuple):
            return tuple(clipping.mark(x, full) for x in r)
        return clipping.mark(r, full)


def _kernel_view(v):
    """An operand of the ufunc an EdgeTile passes on: arrays as KernelArrays (not edge tiles: no recursion)."""
    return v.view(KernelArray) if isinstance(v, np.ndarray) else v


clipping.register(KernelArray, EdgeTile)


def to16(value, dt):
    """A value stored into (or converted to) a float16 / bfloat16 tensor: a NaN by asc's rule, its sign and the top
    of its payload (asc.dtypes.narrow16; ml_dtypes would make it 0x7fc0), anything else as NumPy converts it."""
    if isinstance(value, np.ndarray):
        if value.dtype != dt and (value.dtype.kind == "f" or value.dtype in SIXTEEN_BIT) and np.isnan(value).any():
            return narrow16(value, as_dtype(dt))
        return value
    if (isinstance(value, (float, np.floating)) or isinstance(value, np.generic) and value.dtype in SIXTEEN_BIT) \
            and value != value and np.asarray(value).dtype != dt:
        return narrow16(value, as_dtype(dt))[()]
    return value


# ------------------------------------------------------------------ array-level numerics
# Semantics follow NumPy: results have NumPy's dtypes (float16 op float16 is float16); matmul and reductions of
# 16-bit floats accumulate in float32 and are rounded once to their dtype (docs/tensors.md, "Precision"). Within
# an elementwise tensor expression the compiled code carries 16-bit values in float32 and rounds once where it
# stores them; the interpreter rounds after each operation (NumPy's way): those agree to the dtype's precision.

# A 16-bit product or reduction (a @ b, lang.sum(x, axis=...)) is accumulated in float32 and its value is rounded
# once to its dtype (float16 @ float16 is float16), except where it is written as a whole into a float32 (or
# float64) destination: `return a @ b` under `-> lang.float32[...]`, `out[...] = a @ b`, `out[...] += a @ b`,
# `lang.cast(a @ b, lang.float32)`; there the float32 accumulation is kept (docs/tensors.md, "Precision"). The
# rounded array carries that accumulation as `_asc_wide` until it is bound to a name (a named value is a tensor of
# its dtype: the interpreter drops it there) or used in an expression (a new array: NumPy does not copy it).

def with_wide(rounded, wide):
    """The rounded 16-bit result of a product or reduction, carrying its float32 accumulation."""
    if isinstance(rounded, KernelArray):
        rounded._asc_wide = wide
    return rounded


def stored_value(value, dtype):
    """value as written into (or cast to) `dtype`: a product's float32 accumulation when dtype is wide enough."""
    wide = getattr(value, "_asc_wide", None) if isinstance(value, KernelArray) else None
    if wide is not None and np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64)):
        return wide
    return value


def drop_wide(value):
    """A value bound to a name: a tensor of its own dtype (its float32 accumulation is no longer reachable)."""
    if isinstance(value, KernelArray) and "_asc_wide" in value.__dict__:
        del value.__dict__["_asc_wide"]
    return value


def kernel_array(r):
    """A NumPy result as the interpreter hands it back: a KernelArray, or a scalar for a 0-d result."""
    if isinstance(r, np.ndarray):
        return r[()] if r.ndim == 0 else r.view(KernelArray)
    return r


def wide(x):
    """x as a NumPy array computed in float32 when it is a 16-bit float (and its dtype to come back to)."""
    a = np.asarray(x).view(np.ndarray)
    if a.dtype in SIXTEEN_BIT:
        return a.astype(np.float32), a.dtype
    return a, a.dtype


def back(r, dt):
    """A reduction or product computed wide, back in the input's 16-bit dtype (a 0-d result is a scalar as the
    interpreter carries 16-bit scalars: asc.dtypes.mixed16)."""
    r = np.asarray(r)
    if dt in SIXTEEN_BIT:
        if r.ndim == 0:
            return scalar16(np.float32(np.float32(r).astype(dt)), dt)
        return with_wide(kernel_array(r.astype(dt)), r.astype(np.float32))
    return kernel_array(r)


def matmul(a, b):
    """The interpreter's matrix product (lang.matmul and the @ operator)."""
    if clipping.any_clipped((a, b)):            # an edge tile: the product of the common part
        x, y, full = clipping.matmul_operands(a, b)
        return clipping.mark(matmul(x, y), full)
    x, dx = wide(a)
    y, dy = wide(b)
    r = np.matmul(x, y)
    out = np.result_type(dx, dy) if (dx in SIXTEEN_BIT or dy in SIXTEEN_BIT) else r.dtype
    if out in SIXTEEN_BIT:
        return with_wide(kernel_array(r.astype(out)), r)
    return kernel_array(r.astype(out) if r.dtype != out else r)


def _is_float(v) -> bool:
    return isinstance(v, (float, np.floating))


def _py_minmax(op, bigger):
    def f(*args, **kwargs):
        """Python's max/min in a kernel: on floats numpy.maximum / minimum (a nan argument gives nan, wherever it
        is), as compiled code computes it; else Python's own."""
        if kwargs or len(args) < 2 or not any(_is_float(a) for a in args):
            return op(*args, **kwargs)
        out, last = args[0], len(args) - 1
        for n, v in enumerate(args[1:], 1):
            # numpy.maximum(out, v): out if out > v or out is nan, else v (v on a tie)
            pick = out if (bigger(out, v) or out != out) else v
            if n < last and (_is_float(out) or _is_float(v)):
                # a fold, as compiled code computes max(a, b, c): max(max(a, b), c), the inner one in its own type
                # (min(y_f32, 0.1, x_f64) is 0.1 rounded to float32 first); the last step's type is the frontend's
                pick = np.result_type(out, v).type(pick)
            out = pick
        return out
    return f


kernel_max = _py_minmax(builtins.max, lambda a, b: a > b)
kernel_min = _py_minmax(builtins.min, lambda a, b: a < b)

def transpose(x, axes=None):
    """The interpreter's transpose (lang.transpose and x.T): a view, no copy."""
    r = kernel_array(np.transpose(np.asarray(x).view(np.ndarray), axes))
    return clipping.mark(r, clipping.transposed_full(x, axes)) if clipping.is_clipped(x) else r
