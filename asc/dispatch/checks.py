"""The process-wide switches users flip from Python: memory check, numeric check, and the profiler's hook."""
from __future__ import annotations

from . import state as _state


def enable_memory_check():
    """Compiled kernels check every index from now on: an out-of-bounds access raises IndexError
    (asc.MemoryCheckError) naming the kernel, the line, the tensor, the index and the shape, and touches nothing.
    Also `@lang.kernel(memory_check=True)` and ASC_MEMORY_CHECK=1. The interpreter always checks."""
    _state.set_memory_check(True)


def disable_memory_check():
    """Back to unchecked compiled code (the checks cost nothing when off: the code has none)."""
    _state.set_memory_check(False)


def enable_numeric_check(intermediates: bool = False):
    """From now on nan or inf in a kernel's outputs raises asc.NumericCheckError naming the kernel, the output and
    the first bad index with its value. With intermediates=True every value a kernel stores is checked too, and
    the error names the line that first produced it. Also `@lang.kernel(numeric_check=...)`, ASC_NUMERIC_CHECK=1."""
    _state.set_numeric_check("intermediates" if intermediates else "outputs")


def disable_numeric_check():
    """Turns the numeric check off (checked kernels go back to the compiled launcher)."""
    _state.set_numeric_check(False)
