"""The dispatch layer: `Kernel`, `Func`, their specializations, the decorators, and the process-wide check switches."""
from .checks import disable_memory_check, disable_numeric_check, enable_memory_check, enable_numeric_check  # noqa: F401
from .decorators import cube_kernel, func, fused_kernel, kernel  # noqa: F401
from .kernels import Func, Kernel  # noqa: F401
