"""Tensor-level builtins over whole axes: the reductions lang.sum / lang.max / lang.min, the matrix product and the
transpose. The frontend lowers them by kind (loops, or asc's GEMM for matmul); the declarations carry the
interpreter implementation and the docs.

Semantics follow NumPy: results have NumPy's dtypes; reductions and products of 16-bit floats accumulate in
float32 and are rounded once to their dtype, unless written whole into a float32 destination (docs/tensors.md,
"Precision"); max and min propagate NaN ("NaN in max and min")."""
from __future__ import annotations

import numpy as np

from . import array
from .array import back, kernel_array, wide
from .table import builtin


@builtin("reduce", name="sum")
def sum_(x, axis=None, keepdims=False):
    """The sum of the elements of a tensor, over `axis` (an int, a tuple of ints, or None: all). Floats keep
    their dtype (16-bit floats accumulate in float32); integers and bools sum in int64."""
    a, dt = wide(x)
    if a.dtype.kind in "biu":
        return kernel_array(np.sum(a, axis=axis, keepdims=keepdims, dtype=np.int64))
    return back(np.sum(a, axis=axis, keepdims=keepdims), dt)


@builtin("reduce", name="max")
def max_(x, axis=None, keepdims=False):
    """The largest element of a tensor, over `axis` (an int, a tuple of ints, or None: all). Keeps the dtype; NaN
    if any element is NaN (numpy.max), on every target. (A max of nothing: -inf for floats in compiled code; the
    interpreter raises, as NumPy.)"""
    a, dt = wide(x)
    return back(np.max(a, axis=axis, keepdims=keepdims), dt)


@builtin("reduce", name="min")
def min_(x, axis=None, keepdims=False):
    """The smallest element of a tensor, over `axis` (an int, a tuple of ints, or None: all). Keeps the dtype; NaN
    if any element is NaN (numpy.min), on every target."""
    a, dt = wide(x)
    return back(np.min(a, axis=axis, keepdims=keepdims), dt)


@builtin("matmul")
def matmul(a, b):
    """The matrix product a @ b: 2-D operands, or 3-D for a batch of products (a 2-D operand is shared by the
    batch). Float dtypes; 16-bit operands accumulate in float32 and the result is rounded once to their dtype.
    On the cpu target it runs on asc's GEMM (packed, register-blocked, multi-threaded)."""
    return array.matmul(a, b)


@builtin("transpose")
def transpose(x, axes=None):
    """A view of x with its axes reversed (or permuted by `axes`); no copy. Also `x.T`."""
    return array.transpose(x, axes)
