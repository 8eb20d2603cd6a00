"""The decorators: `@lang.kernel`, `@lang.func`, `@lang.cube_kernel`, `@lang.fused_kernel`."""
from __future__ import annotations

from .kernels import Func, Kernel
from .options import Options


def _function(fn, name):
    """The Python function a decorator compiles: a @staticmethod's own function (`@lang.func` above `@staticmethod`
    in a class: the result is called as Class.name(...), as the static method is); a classmethod is refused."""
    if isinstance(fn, staticmethod):
        return fn.__func__
    if isinstance(fn, classmethod):
        raise TypeError(f"@lang.{name} on the classmethod {fn.__func__.__qualname__!r}: a device function or kernel "
                        f"takes no class argument; make it a @staticmethod")
    return fn


def _kernel_of_mode(mode, fn, options, name):
    if isinstance(fn, (staticmethod, classmethod)) or fn is not None and callable(fn):
        return Kernel(_function(fn, name), mode, **options)
    if fn is not None:
        raise TypeError(f"use the decorator bare or with options: @lang.{name} or @lang.{name}(option=...)")
    Options(**options)  # validate now, at the decorator's line
    return lambda f: Kernel(_function(f, name), mode, **options)


def kernel(fn=None, **options):
    """Decorator: `@lang.kernel` or `@lang.kernel(target="cpu", dynamic_shape=False, precision="float32",
    fastmath=False, num_threads=None)`; precision="mixed" computes 16-bit floats in 16 bits (docs/tensors.md)."""
    if fn is not None and not callable(fn):
        raise TypeError("use @lang.kernel or @lang.kernel(option=...)")
    return _kernel_of_mode("kernel", fn, options, "kernel")


def func(fn):
    """Decorator: a device function callable from kernels (also above @staticmethod, in a class)."""
    return Func(_function(fn, "func"))


def cube_kernel(fn=None, **options):
    """Decorator for tensor-level matrix kernels (`return A @ B`, tile loops around `@`): the products run on the
    matrix unit (on the cpu target, asc's packed, register-blocked, multi-threaded GEMM; float32 accumulation for
    16-bit inputs), and an elementwise expression of a product (`lang.relu(A @ B + bias)`) runs as its epilogue,
    on each tile in cache. The output dtype follows the return annotation. Options as @lang.kernel."""
    return _kernel_of_mode("cube", fn, options, "cube_kernel")


def fused_kernel(fn=None, **options):
    """Decorator for tensor-level kernels whose operations fuse (`h = lang.matmul(x, w1); h = lang.gelu(h);
    return lang.matmul(h, w2)`): tensor expressions are inlined where they are used, and a 2-D expression around
    matrix products is computed by blocks of rows, each product followed at once by its elementwise epilogue
    (bias, activation, residual, scaling) and by the product that consumes it, so intermediates never make a pass
    over memory. `kernel.source("ir")` shows what was fused. Options as @lang.kernel."""
    return _kernel_of_mode("fused", fn, options, "fused_kernel")
