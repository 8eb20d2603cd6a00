"""@asc.jit: a pyasc kernel (or helper). `kernel[core_num, stream](*args)` binds the arguments, specializes the
kernel on its ConstExpr values and the arguments' dtypes, translates it to Ascend C (translate.py) and runs it on
the selected backend (launch.py)."""
from __future__ import annotations

import functools
import inspect

from ..errors import ArgumentError, UnsupportedError
from . import jit_options as options_mod
from . import kernel_source as source


class JITFunction:
    """An @asc.jit function: a kernel when launched with kernel[core_num](...), an `__aicore__ inline` helper when
    called from a kernel."""

    _asc_jit = True

    def __init__(self, fn, **options):
        if not callable(fn) or not inspect.isfunction(fn):
            raise ArgumentError(f"@asc.jit decorates a Python function, got {fn!r}")
        self.fn = fn
        self.options = options_mod.make(fn.__name__, options)
        self.signature = inspect.signature(fn)
        self.cache: dict = {}
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<asc.jit {self.fn.__module__}.{self.fn.__qualname__}>"

    def __getitem__(self, launch):
        if not isinstance(launch, tuple):
            launch = (launch,)
        if not 1 <= len(launch) <= 2:
            raise ArgumentError(f"{self.fn.__name__}[core_num] or {self.fn.__name__}[core_num, stream]")
        core_num = launch[0]
        if isinstance(core_num, bool) or not isinstance(core_num, int) or core_num < 1:
            raise ArgumentError(f"{self.fn.__name__}[core_num, ...]: core_num must be a positive int, "
                                f"got {core_num!r}")
        stream = launch[1] if len(launch) == 2 else None
        return functools.partial(self._launch, core_num, stream)

    def __call__(self, *args, **kwargs):
        raise UnsupportedError(f"launch the kernel with {self.fn.__name__}[core_num](...) or "
                               f"{self.fn.__name__}[core_num, stream](...); inside a kernel, @asc.jit helpers are "
                               f"called directly")

    def specialize(self, args, kwargs):
        """The translated kernel for these arguments (cached per specialization)."""
        return source.specialize(self, args, kwargs)

    def source(self, *args, **kwargs) -> str:
        """The Ascend C source for these arguments (what runs on the CPU twin, and what a CANN build compiles)."""
        return self.specialize(args, kwargs).text

    def _launch(self, core_num, stream, *args, **kwargs):
        from . import launch
        return launch.run(self, core_num, stream, args, kwargs)


def jit(fn=None, **options):
    """@asc.jit or @asc.jit(kernel_type=..., insert_sync=..., ...)."""
    if fn is not None:
        if options:
            raise ArgumentError("@asc.jit(...) takes keyword options only")
        return JITFunction(fn)

    def deco(f):
        return JITFunction(f, **options)
    options_mod.make("<decorated function>", options)
    return deco
