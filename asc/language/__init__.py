"""The asc kernel language: `import asc.language as lang`."""
from ..runtime.kernel import kernel, func, set_memory_check as _set_memory_check  # noqa: F401
from ..runtime.kernel import cube_kernel, fused_kernel  # noqa: F401
from ..runtime.kernel import set_numeric_check as _set_numeric_check


def profiler():
    """A context manager recording every kernel call (see asc.runtime.profiler.Profiler): `with lang.profiler() as
    prof: ...`, then `prof.report()` and `prof.export_chrome_trace(path)`."""
    from ..runtime.profiler import profiler as _p
    return _p()


def enable_memory_check():
    """Compiled kernels check every index from now on: an out-of-bounds access raises IndexError
    (asc.MemoryCheckError) naming the kernel, the line, the tensor, the index and the shape, and touches nothing.
    Also `@lang.kernel(memory_check=True)` and ASC_MEMORY_CHECK=1. The interpreter always checks."""
    _set_memory_check(True)


def disable_memory_check():
    """Back to unchecked compiled code (the checks cost nothing when off: the code has none)."""
    _set_memory_check(False)
from .builtins import (BUILTINS, cast, ceil, cos, empty, empty_like, erf, exp, floor, full, log, maximum,  # noqa: F401
                       minimum, pi, rsqrt, sigmoid, sin, sqrt, tanh, zeros, zeros_like)
from .builtins import abs_ as abs, pow_ as pow, range_ as range  # noqa: F401
from .builtins import (gelu, global_buffer, load_2d, local_buffer, matmul, relu, silu, softmax,  # noqa: F401
                       store_2d, transpose)
from .builtins import max_ as max, min_ as min, sum_ as sum  # noqa: F401
from .dtypes import (Dim, Tensor, bfloat16, bool_, dim, float16, float32, float64, int8, int16, int32,  # noqa: F401
                     int64, uint8)


def enable_numeric_check(intermediates: bool = False):
    """From now on nan or inf in a kernel's outputs raises asc.NumericCheckError naming the kernel, the output and
    the first bad index with its value. With intermediates=True every value a kernel stores is checked too, and
    the error names the line that first produced it. Also `@lang.kernel(numeric_check=...)`, ASC_NUMERIC_CHECK=1."""
    _set_numeric_check("intermediates" if intermediates else "outputs")


def disable_numeric_check():
    """Turns the numeric check off (checked kernels go back to the compiled launcher)."""
    _set_numeric_check(False)


def vectorize(fn=None, **options):
    """A function of elements becomes an elementwise kernel over arrays (NumPy broadcasting, scalar arguments),
    compiled per signature: `@lang.vectorize def saxpy(a, x, y): return a * x + y`. Options as @lang.kernel."""
    from ..vectorize import vectorize as _v
    return _v(fn, **options)


from .parallel import allreduce, distributed_range, num_workers, parallel, worker_id  # noqa: E402,F401
