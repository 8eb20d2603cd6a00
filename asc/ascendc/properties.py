"""Platform constants a kernel reads with asc.property(asc.ONE_BLK_SIZE) (Ascend910B values from asc/chip.py; folded at
compile time)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import chip
from . import data_types as dtypes


@dataclass(frozen=True)
class Property:
    name: str
    dtype: object
    value: int


DEFAULT_C0_SIZE = Property("AscendC::DEFAULT_C0_SIZE", dtypes.int32, chip.C0_BYTES)
ONE_BLK_SIZE = Property("AscendC::ONE_BLK_SIZE", dtypes.int16, chip.UB_BLOCK)
TOTAL_L1_SIZE = Property("AscendC::TOTAL_L1_SIZE", dtypes.int32, chip.L1_BYTES)
TOTAL_L0C_SIZE = Property("AscendC::TOTAL_L0C_SIZE", dtypes.int32, chip.L0C_BYTES)


def property(prop: Property) -> int:  # noqa: A001 -- pyasc's asc.property
    """The value of a platform constant."""
    return prop.value
