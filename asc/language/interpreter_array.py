"""The array type that interpreted kernels see: a NumPy array with the kernel language's indexing rules."""
from __future__ import annotations

import numpy as np

_16BIT = (np.dtype(np.float16), np.dtype("bfloat16"))


class KernelArray(np.ndarray):
    """Element reads of 16-bit floats give float32 values (16-bit is a storage type; arithmetic is float32),
    and negative or out-of-range indices raise IndexError instead of wrapping around."""

    def _check(self, idx):
        if type(idx) is int:
            if idx < 0 or (self.ndim and idx >= self.shape[0]):
                self._check((idx,))
            return
        t = idx if isinstance(idx, tuple) else (idx,)
        for axis, i in enumerate(t):
            if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and axis < self.ndim:
                if i < 0 or i >= self.shape[axis]:
                    name = getattr(self, "_asc_name", None)
                    of = f" of {name!r} with shape {self.shape}" if name else f" with size {self.shape[axis]}"
                    raise IndexError(f"index {int(i)} is out of bounds for axis {axis}{of}" +
                                     (" (kernels do not wrap negative indices)" if i < 0 else ""))

    def __getitem__(self, idx):
        self._check(idx)
        v = np.ndarray.__getitem__(self, idx)
        if self.dtype in _16BIT and not isinstance(v, np.ndarray):
            return np.float32(v)
        return v

    def __setitem__(self, idx, value):
        self._check(idx)
        np.ndarray.__setitem__(self, idx, value)
