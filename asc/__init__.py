"""asc: a Python kernel language and compiler for AI operators (native CPU code, Ascend C, an interpreter).

    import asc.language as lang
"""
from .version import __version__  # noqa: F401

from .errors import (AscError, ArgumentError, CacheMissError, CompileError, KernelTypeError,  # noqa: E402,F401
                     MemoryCheckError, NumericCheckError, ShapeError, ToolchainError, UnsupportedError)


from . import language  # noqa: E402,F401  (the top layer: docs/architecture.md)

# pyasc's API at pyasc's own names (`import asc; @asc.jit; asc.GlobalTensor; asc.data_copy; asc.float16; asc.adv`):
# docs/pyasc.md. None of these names is one asc exported before (tests/ascendc/test_surface.py checks).
from . import ascendc as _ascendc  # noqa: E402

for _name in _ascendc.PUBLIC:
    globals()[_name] = getattr(_ascendc, _name)
del _name


def grad(kernel):
    """The backward of a kernel, generated from its IR: `asc.grad(k)(*inputs, *grad_outputs)` returns the gradient
    of each float tensor input (see asc.autodiff and docs/autodiff.md)."""
    from .autodiff import grad as _grad
    return _grad(kernel)
