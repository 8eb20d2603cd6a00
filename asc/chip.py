"""The Ascend chips asc targets, declared once: per SoC its cores, clock, HBM bandwidth and L2; per core its on-chip
memories and the block sizes the hardware moves and aligns. Pure data (docs/ascend.md gives the sources).

Everything that needs a chip fact reads it from here: the seed backend's plans and budgets
(asc/backends/ascend/soc.py adds asc's own choices beside them), pyasc's platform constants (asc/ascendc/properties.py)
and host tiling (asc/lib/host.py), and ascend-sim, whose headers take them as the ASC_CHIP_* macros of
`sim_defines()` (asc/runtime/ascend_sim.py passes them to every build). tests/test_chip.py checks that no size is
written anywhere else."""
from __future__ import annotations

DEFAULT_SOC = "Ascend910B1"

# per SoC: vector cores (AIV), cube cores (AIC), clock (GHz), HBM bandwidth (GB/s)
# l2_mb: the L2 cache (B1/B2 192 MB from the platform ini; B3 assumed as B2; B4 the 96 MB reported to software)
SOCS = {
    "Ascend910B1": {"aiv": 48, "aic": 24, "clock_ghz": 1.85, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B2": {"aiv": 48, "aic": 24, "clock_ghz": 1.80, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B3": {"aiv": 40, "aic": 20, "clock_ghz": 1.80, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B4": {"aiv": 40, "aic": 20, "clock_ghz": 1.80, "hbm_gbs": 1000.0, "l2_mb": 96},
}
HBM_BYTES = 64 * 1024 ** 3        # the device memory PlatformAscendC reports (Ascend910B1's 64 GB), every SoC

# the vector core's (AIV) Unified Buffer, Ascend910B1-B4 alike
UB_BYTES = 192 * 1024
UB_BLOCK = 32                     # a DataBlock: UB operands are 32-byte aligned, DataCopy moves whole blocks
SELECT_SCRATCH = 8 * 1024         # Select modes 1/2 on A2 take the top 8 KB of the UB as their temporary space

# the cube core's (AIC) memories, Ascend910B1-B4 alike: L1 (A1/B1), L0A (A2), L0B (B2), L0C (CO1), BiasTable (C2)
L1_BYTES = 512 * 1024
L1_RESERVED = 128                 # the top 128 B of L1 are not the kernel's (TPipe sees 512 KB - 128 B)
L0A_BYTES = 64 * 1024
L0B_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
BT_BYTES = 1024
FRACTAL_BYTES = 512               # a 16 x 32-byte fractal: 16 x 16 of 16-bit data, 16 x 8 float32, 16 x 32 int8
C0_BYTES = 32                     # a fractal's inner side (AscendC::DEFAULT_C0_SIZE)


def soc_info(soc: str) -> dict:
    """The SOCS entry of `soc` (any letter case); ValueError naming the known SoCs for another name."""
    return SOCS[soc_name(soc)]


def soc_name(soc: str) -> str:
    """The SOCS key of `soc` (any letter case); ValueError naming the known SoCs for another name."""
    for k in SOCS:
        if k.lower() == soc.lower():
            return k
    raise ValueError(f"unknown SoC {soc!r}; known: {', '.join(SOCS)}")


def sim_defines() -> dict:
    """The chip facts ascend-sim's headers read, as {macro: value} (`-Dmacro=value`; the headers declare none)."""
    return {"ASC_CHIP_UB_BYTES": UB_BYTES, "ASC_CHIP_UB_BLOCK": UB_BLOCK, "ASC_CHIP_SELECT_SCRATCH": SELECT_SCRATCH,
            "ASC_CHIP_L1_BYTES": L1_BYTES, "ASC_CHIP_L1_RESERVED": L1_RESERVED, "ASC_CHIP_L0A_BYTES": L0A_BYTES,
            "ASC_CHIP_L0B_BYTES": L0B_BYTES, "ASC_CHIP_L0C_BYTES": L0C_BYTES, "ASC_CHIP_BT_BYTES": BT_BYTES}
