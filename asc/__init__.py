"""asc: a Python kernel language and compiler for AI operators (native CPU code, Ascend C, an interpreter).

    import asc.language as lang
"""
import importlib

from .version import __version__  # noqa: F401

from .errors import (AscError, ArgumentError, CacheMissError, CacheWarning, CompileError,  # noqa: E402,F401
                     ConstantOverflowError, GradDetachedWarning, IntegerOverflowError, KernelTypeError,
                     MemoryCheckError, NumericCheckError, ShapeError, ToolchainError, UnsupportedError,
                     UntrustedCacheError)


from . import language  # noqa: E402,F401  (the top layer: docs/architecture.md)



def __getattr__(name):
    """pyasc's API at pyasc's own names (`import asc; @asc.jit; asc.GlobalTensor; asc.data_copy; asc.float16;
    asc.adv`: docs/pyasc.md), loaded on first use so that `import asc.language` does not pay for it (65 ms). None of
    these names is one asc exported before (tests/ascendc/test_surface.py checks)."""
    if not name.startswith("__") and name != "ascendc":
        ascendc = importlib.import_module(__name__ + ".ascendc")
        if name in ascendc.PUBLIC:
            value = globals()[name] = getattr(ascendc, name)
            return value
    raise AttributeError(f"module 'asc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(importlib.import_module(__name__ + ".ascendc").PUBLIC))


def grad(kernel):
    """The backward of a kernel, generated from its IR: `asc.grad(k)(*inputs, *grad_outputs)` returns the gradient
    of each float tensor input (see asc.autodiff and docs/autodiff.md)."""
    from .autodiff import grad as _grad
    return _grad(kernel)
