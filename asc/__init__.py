"""asc: a Python kernel language and compiler for AI operators (native CPU code, Ascend C, an interpreter).

    import asc.language as lang
"""
from .version import __version__  # noqa: F401

from .errors import (AscError, ArgumentError, CacheMissError, CompileError, KernelTypeError,  # noqa: E402,F401
                     MemoryCheckError, NumericCheckError, ShapeError, ToolchainError, UnsupportedError)


from . import language  # noqa: E402,F401  (the top layer: docs/architecture.md)


def grad(kernel):
    """The backward of a kernel, generated from its IR: `asc.grad(k)(*inputs, *grad_outputs)` returns the gradient
    of each float tensor input (see asc.autodiff and docs/autodiff.md)."""
    from .autodiff import grad as _grad
    return _grad(kernel)
