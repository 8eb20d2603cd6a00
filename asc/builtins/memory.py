"""Builtins that make and move values: tensor allocations, global and local buffers, tile copies (load_2d,
store_2d), the conversion lang.cast and the loop lang.range. Their lowering is the frontend's (by kind); the
declarations carry the interpreter implementation and the docs."""
from __future__ import annotations

import numpy as np

from ..dtypes import as_dtype, convert, float32
from .array import KernelArray, stored_value
from .clipping import full_shape
from .table import builtin


def _shape_tuple(shape) -> tuple:
    if isinstance(shape, tuple) or isinstance(shape, list):
        return tuple(int(s) for s in shape)
    return (int(shape),)


def _np_dtype(dtype):
    h = as_dtype(dtype)
    if h is None:
        raise TypeError(f"not a dtype: {dtype!r}")
    return h.np


# ------------------------------------------------------------------ allocation

@builtin("alloc")
def empty(shape, dtype=float32):
    """A new tensor of `shape` (an int or a tuple), contents undefined. dtype defaults to float32."""
    return np.empty(_shape_tuple(shape), _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def zeros(shape, dtype=float32):
    """A new tensor of `shape` filled with zeros. dtype defaults to float32."""
    return np.zeros(_shape_tuple(shape), _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def full(shape, fill_value, dtype=float32):
    """A new tensor of `shape` filled with `fill_value`. dtype defaults to float32."""
    return np.full(_shape_tuple(shape), fill_value, _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def empty_like(x, dtype=None):
    """A new tensor with the shape (and, unless given, the dtype) of `x`, contents undefined. The shape is the
    compile-time one (an edge tile's `x[i:i+B]` has B rows, clipped or not)."""
    return np.empty(full_shape(x), x.dtype if dtype is None else _np_dtype(dtype)).view(KernelArray)


@builtin("alloc")
def zeros_like(x, dtype=None):
    """A new tensor with the shape (and, unless given, the dtype) of `x`, filled with zeros."""
    return np.zeros(full_shape(x), x.dtype if dtype is None else _np_dtype(dtype)).view(KernelArray)


# ------------------------------------------------------------------ conversion and the loop

@builtin("cast")
def cast(x, dtype):
    """x converted to `dtype` (a scalar or, in tensor code, a tensor). Float to int truncates toward zero;
    to 16-bit floats rounds to nearest even."""
    h = as_dtype(dtype)
    if h is None:
        raise TypeError(f"lang.cast: not a dtype: {dtype!r}")
    return convert(stored_value(x, h.np), h)    # a 16-bit product cast to float32: its float32 accumulation


@builtin("range")
def range_(start, stop=None, step=1):
    """range(stop) or range(start, stop, step), as Python's range: the loop of a kernel."""
    if stop is None:
        return range(int(start))
    return range(int(start), int(stop), int(step))


# ------------------------------------------------------------------ buffers and tiles

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
