"""asc: a Python kernel language and compiler for AI operators (native CPU code, Ascend C, an interpreter).

    import asc.language as lang
"""
__version__ = "0.1.0"

from .errors import (AscError, ArgumentError, CacheMissError, CompileError, KernelTypeError,  # noqa: E402,F401
                     MemoryCheckError, NumericCheckError, ShapeError, ToolchainError, UnsupportedError)


def grad(kernel):
    """The backward of an element-level map kernel, generated from its IR: `asc.grad(k)(*inputs, grad_out)`
    returns the gradient of each tensor input (see asc.autodiff)."""
    from .autodiff import grad as _grad
    return _grad(kernel)
