"""Platform constants a kernel reads with asc.property(asc.ONE_BLK_SIZE) (Ascend910B values; folded at compile
time)."""
from __future__ import annotations

from dataclasses import dataclass

from . import dtypes


@dataclass(frozen=True)
class Property:
    name: str
    dtype: object
    value: int


DEFAULT_C0_SIZE = Property("AscendC::DEFAULT_C0_SIZE", dtypes.int32, 32)
ONE_BLK_SIZE = Property("AscendC::ONE_BLK_SIZE", dtypes.int16, 32)
TOTAL_L1_SIZE = Property("AscendC::TOTAL_L1_SIZE", dtypes.int32, 512 * 1024)
TOTAL_L0C_SIZE = Property("AscendC::TOTAL_L0C_SIZE", dtypes.int32, 128 * 1024)


def property(prop: Property) -> int:  # noqa: A001 -- pyasc's asc.property
    """The value of a platform constant."""
    return prop.value
