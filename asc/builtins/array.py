"""The array type that interpreted kernels see: a NumPy array with the kernel language's indexing rules."""
from __future__ import annotations

import contextvars
import sys

import numpy as np

# numeric check of intermediates in the interpreter: every stored float value must be finite
finite_stores: contextvars.ContextVar = contextvars.ContextVar("asc_finite_stores", default=False)

_16BIT = (np.dtype(np.float16), np.dtype("bfloat16"))


class KernelArray(np.ndarray):
    """Element reads of 16-bit floats give float32 values (16-bit is a storage type; arithmetic is float32),
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
        from .core import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):
        from .core import matmul
        return matmul(other, self)

    @property
    def T(self):
        from .core import transpose
        return transpose(self)

    def __getitem__(self, idx):
        self._check(idx)
        v = np.ndarray.__getitem__(self, idx)
        if self.dtype in _16BIT and not isinstance(v, np.ndarray):
            return np.float32(v)
        return v

    def __setitem__(self, idx, value):
        self._check(idx)
        if finite_stores.get() and self.dtype.kind == "f" or (finite_stores.get() and self.dtype in _16BIT):
            if not np.all(np.isfinite(np.asarray(value, dtype=np.float64))):
                raise FloatingPointError(f"this line first produced {value} (stored to {self._name()!r} at index "
                                         f"{idx if isinstance(idx, tuple) else (idx,)})")
        np.ndarray.__setitem__(self, idx, value)
