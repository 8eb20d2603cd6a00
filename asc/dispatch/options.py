"""The options of `@lang.kernel(...)`, checked at the decorator's line, and what they make of a build."""
from __future__ import annotations

import functools

from .. import environment as _config
from ..errors import AscError
from .state import STATE

# precision="float32" (the default): 16-bit floats are stored as 16-bit and computed in float32, rounded where a value
# is stored or named. precision="mixed": arithmetic on 16-bit values is carried out in that 16-bit type, each
# operation rounded to it, as NumPy computes float16 * float16. In both, products and reductions accumulate in
# float32 (docs/tensors.md, "Precision").
PRECISIONS = ("float32", "mixed")


@functools.lru_cache(maxsize=None)
def targets() -> tuple:
    """(every target, those whose kernels run here): the compiled targets (asc.compiler.TARGETS) and the
    interpreter. asc.compiler is imported here, at the first decorator, not by `import asc.language`."""
    from .. import compiler
    names = ("cpu", "interpret") + tuple(t for t in compiler.TARGETS if t != "cpu")
    return names, tuple(t for t in names if t == "interpret" or compiler.TARGETS[t].runs_here)


class Options:
    __slots__ = ("target", "dynamic_shape", "precision", "fastmath", "num_threads", "memory_check", "numeric_check")

    def __init__(self, target="cpu", dynamic_shape=False, precision="float32", fastmath=False, num_threads=None,
                 memory_check=None, numeric_check=None):
        TARGETS, AVAILABLE_TARGETS = targets()
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if target not in AVAILABLE_TARGETS:
            hint = ("; kernels for an NPU are generated with kernel.source(\"ascend\", ...) or `asc compile --target "
                    "ascend`, and run on the CPU with target=\"ascend-sim\"") if target == "ascend" else ""
            raise ValueError(f"target {target!r} is not available in this version of asc yet; "
                             f"available: {', '.join(AVAILABLE_TARGETS)}{hint}")
        if not isinstance(precision, str) or precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose \"float32\" (the default: 16-bit floats "
                             f"computed in float32, rounded where stored) or \"mixed\" (16-bit arithmetic in 16 "
                             f"bits, each operation rounded; products and reductions accumulated in float32); see "
                             f"docs/tensors.md, \"Precision\"")
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
