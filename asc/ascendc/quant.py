"""pyasc's `asc.adv.QuantConfig(calc_count, offset_count, scale_count, work_local_size)`: the compile-time
AscendC::AscendQuantConfig that `asc.adv.quant` (calls.sp_quant: Ascend C's per-tensor `AscendQuant<T,
isReuseSource[, config]>(dst, src[, sharedTmpBuffer], scale, offset[, calCount])`, int8_t output) takes, emitted as a
`static constexpr AscendQuantConfig` as pyasc's own code generator writes it. ascend-sim's AscendQuant is
asc/include/ascend_sim/lib/ascend_quant.h."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuantConfig:
    """QuantConfig(calc_count=0, offset_count=0, scale_count=0, work_local_size=0): AscendC::AscendQuantConfig, a
    compile-time value (pyasc emits it as a static constexpr). With calc_count and work_local_size both non-zero,
    AscendQuant computes calc_count elements in chunks of work_local_size bytes (its "constant parameters")."""
    calc_count: int = 0
    offset_count: int = 0
    scale_count: int = 0
    work_local_size: int = 0

    def __post_init__(self):
        for k in ("calc_count", "offset_count", "scale_count", "work_local_size"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 32:
                raise ValueError(f"asc.adv.QuantConfig: {k} must be a compile-time uint32 (0 <= {k} < 2**32), "
                                 f"got {v!r}")

    def ctext(self) -> str:
        return f"{{{self.calc_count}, {self.offset_count}, {self.scale_count}, {self.work_local_size}}}"
