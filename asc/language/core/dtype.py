"""pyasc's `asc.language.core.dtype` import path: DataType and KnownTypes (re-exported from asc.ascendc)."""
from ...ascendc.data_types import DataType, KnownTypes  # noqa: F401
