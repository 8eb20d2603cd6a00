"""asc: a Python kernel language and compiler for AI operators (native CPU code, Ascend C, an interpreter).

    import asc.language as lang
"""
__version__ = "0.1.0"

from .errors import (AscError, ArgumentError, CacheMissError, CompileError, KernelTypeError,  # noqa: E402,F401
                     MemoryCheckError, NumericCheckError, ShapeError, ToolchainError, UnsupportedError)
