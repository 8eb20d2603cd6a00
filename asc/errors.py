"""Errors that asc raises. Compile errors point at the user's line: file:line:col, the source line and a caret."""
from __future__ import annotations

import linecache


class AscError(Exception):
    """Base class of every error asc raises on purpose."""


class CompileError(AscError):
    """The kernel's source cannot be compiled: an unsupported construct, a type error, a shape error."""

    def __init__(self, msg: str, loc=None, notes: tuple = ()):
        self.msg, self.loc, self.notes = msg, loc, tuple(notes)
        super().__init__(self._format())

    def reworded(self, fn) -> "CompileError":
        """This error (the same type, line and notes), its message passed through `fn`."""
        msg = fn(self.msg)
        if msg != self.msg:
            self.msg = msg
            self.args = (self._format(),)
        return self

    def _format(self) -> str:
        if self.loc is None:
            return self.msg
        lines = [f"{self.loc!r}: {self.msg}"]
        src = linecache.getline(self.loc.file, self.loc.line).rstrip("\n")
        if src:
            stripped = src.lstrip()
            lead = len(src) - len(stripped)
            lines.append("    " + stripped)
            col = max(self.loc.col - lead, 0)
            width = 1
            if self.loc.end_col is not None and self.loc.end_col > self.loc.col:
                width = min(self.loc.end_col - self.loc.col, len(stripped) - col)
            lines.append("    " + " " * col + "^" + "~" * max(width - 1, 0))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


class UnsupportedError(CompileError):
    """A Python feature that kernels do not support."""


class KernelTypeError(CompileError, TypeError):
    """A type error in a kernel's source (a variable that changes type, a bad operand)."""


class IntegerOverflowError(AscError, OverflowError):
    """A Python int met an integer dtype it does not fit, in arithmetic, lang.maximum/minimum, a ternary, min/max
    or a store (NumPy 2 / NEP 50 raise OverflowError there): `int8_value + 300`. Raised by the call (compiled and
    interpreted) when the value is known only then: a scalar argument, a loop index, an expression of them."""


class ConstantOverflowError(CompileError, IntegerOverflowError):
    """IntegerOverflowError for a Python int known at compile time (a literal or a folded constant expression)."""


OVERFLOW_HINT = ("NumPy 2 raises OverflowError: a Python int must fit the integer dtype it meets in arithmetic, "
                 "lang.maximum/minimum, a ternary, min/max or a store; comparisons are exact. Keep it in range, or "
                 "convert the other operand first, e.g. lang.cast(v, lang.int64)")


def overflow_message(value, dtype_name: str) -> str:
    """The text of an IntegerOverflowError: NumPy's, and what to do."""
    return f"Python integer {value} out of bounds for {dtype_name} ({OVERFLOW_HINT})"


class ArgumentError(AscError, TypeError):
    """A kernel was called with an argument of the wrong kind or dtype."""


class ShapeError(AscError, ValueError):
    """A kernel was called with an argument of the wrong rank or shape, or symbolic sizes disagree."""


class ToolchainError(AscError, RuntimeError):
    """The C/C++ compiler is missing or failed."""


class MemoryCheckError(AscError, IndexError):
    """A memory-checked kernel indexed a tensor out of its bounds."""


class NumericCheckError(AscError, FloatingPointError):
    """A numeric-checked kernel produced nan or inf."""


class CacheMissError(AscError, RuntimeError):
    """ASC_CACHE=must-hit and a kernel (or the compiled launcher) needed compiling."""


class UntrustedCacheError(AscError, PermissionError):
    """A cache directory or entry is not owned by the current user, or others can write it: asc loads nothing
    from it (a planted library would run in this process)."""


class CacheWarning(UserWarning):
    """The kernel cache cannot be used as configured (not writable): asc uses a temporary one for this process."""


class AscendRuleWarning(UserWarning):
    """A construct the NPU build of Ascend C accepts and Huawei's CPU-debug build (the CANN twin) refuses: asc runs
    it as the NPU would and says so at the line."""


class GradDetachedWarning(UserWarning):
    """A torch tensor that requires grad was passed to a plain kernel call: the result is not connected to the
    autograd graph (make the kernel an operator with asc.torch.op and a backward to differentiate through it)."""
