"""pyasc's `asc.language.core.struct` import path: kernel structs (re-exported from asc.ascendc)."""
from ...ascendc.kernel_structs import Field, Struct, StructField  # noqa: F401
