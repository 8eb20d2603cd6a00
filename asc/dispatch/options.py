"""The options of `@lang.kernel(...)`, checked at the decorator's line, and what they make of a build."""
from __future__ import annotations

import functools

from .. import config as _config
from ..errors import AscError
from .state import STATE

PRECISIONS = ("default",)
# precision="mixed" ("16-bit storage, float32 compute") was accepted and changed nothing: it is what every kernel
# does (docs/tensors.md, "Precision"). It is refused with the rule, so that no one relies on an option without effect.
_MIXED = ("precision='mixed' is not an option: every kernel stores 16-bit floats as 16-bit and computes them in "
          "float32, and accumulates products and reductions of them in float32, rounded once to the value's dtype "
          "(float16 @ float16 is float16). To keep the float32 accumulation, write the product into a float32 "
          "destination (a float32 output, out[...] = a @ b, lang.cast(a @ b, lang.float32)); see docs/tensors.md, "
          "\"Precision\". Remove the option")


@functools.lru_cache(maxsize=None)
def targets() -> tuple:
    """(every target, those whose kernels run here): the compiled targets (asc.compiler.TARGETS) and the
    interpreter. asc.compiler is imported here, at the first decorator, not by `import asc.language`."""
    from .. import compiler
    names = ("cpu", "interpret") + tuple(t for t in compiler.TARGETS if t != "cpu")
    return names, tuple(t for t in names if t == "interpret" or compiler.TARGETS[t].runs_here)


class Options:
    __slots__ = ("target", "dynamic_shape", "precision", "fastmath", "num_threads", "memory_check", "numeric_check")

    def __init__(self, target="cpu", dynamic_shape=False, precision="default", fastmath=False, num_threads=None,
                 memory_check=None, numeric_check=None):
        TARGETS, AVAILABLE_TARGETS = targets()
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if target not in AVAILABLE_TARGETS:
            hint = ("; kernels for an NPU are generated with kernel.source(\"ascend\", ...) or `asc compile --target "
                    "ascend`, and run on the CPU with target=\"ascend-sim\"") if target == "ascend" else ""
            raise ValueError(f"target {target!r} is not available in this version of asc yet; "
                             f"available: {', '.join(AVAILABLE_TARGETS)}{hint}")
        if precision == "mixed":
            raise ValueError(_MIXED)
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
        if num_threads is not None and (not isinstance(num_threads, int) or isinstance(num_threads, bool)
                                        or num_threads < 1):
            raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")
        self.target, self.dynamic_shape, self.precision = target, bool(dynamic_shape), precision
        self.fastmath, self.num_threads = bool(fastmath), num_threads
        self.memory_check = None if memory_check is None else bool(memory_check)
        if numeric_check not in (None, True, False, "outputs", "intermediates"):
            raise ValueError(f"numeric_check must be True, False, 'outputs' or 'intermediates', got {numeric_check!r}")
        self.numeric_check = "outputs" if numeric_check is True else numeric_check

    def numeric(self):
        if self.numeric_check is None:
            return STATE.numeric_mode()
        return self.numeric_check or None

    def checked(self):
        """What the compiled code checks: (memory check, finite intermediates) -- part of the specialization."""
        return (STATE.memory_checked() if self.memory_check is None else self.memory_check,
                self.numeric() == "intermediates")

    def build_options(self, checked=(False, False)):
        """The asc.compiler.BuildOptions of a specialization with these checks."""
        from ..compiler import BuildOptions
        return BuildOptions(fastmath=self.fastmath, num_threads=self.num_threads or _config.config.num_threads,
                            memory_check=bool(checked[0]), finite_check=bool(checked[1]))


def hide_internals(fn):
    """Errors that asc raises on purpose surface without asc's frames."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AscError as e:
            raise e.with_traceback(None) from None
    return wrapper
