"""What asc assumes of the Ascend 910B chips: the SoC table (cores, clock, HBM bandwidth) and the on-chip memory
sizes and granules that plans and tilings are budgeted against. Pure data; docs/ascend.md gives the sources."""
from __future__ import annotations

DEFAULT_SOC = "Ascend910B1"

# per SoC: vector cores (AIV), cube cores (AIC), clock (GHz), HBM bandwidth (GB/s) -- see docs/ascend.md
# l2_mb: the L2 cache (B1/B2 192 MB from the platform ini; B3 assumed as B2; B4 the 96 MB reported to software)
SOCS = {
    "Ascend910B1": {"aiv": 48, "aic": 24, "clock_ghz": 1.85, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B2": {"aiv": 48, "aic": 24, "clock_ghz": 1.80, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B3": {"aiv": 40, "aic": 20, "clock_ghz": 1.80, "hbm_gbs": 1600.0, "l2_mb": 192},
    "Ascend910B4": {"aiv": 40, "aic": 20, "clock_ghz": 1.80, "hbm_gbs": 1000.0, "l2_mb": 96},
}

# the Unified Buffer of one vector core and how asc splits it
UB_BYTES = 196608                 # Unified Buffer per vector core, Ascend910B1
UB_RESERVED = 256                 # runtime tiling sees 192 KB - 256 B
UB_BUDGET = UB_BYTES - UB_RESERVED
TILE_QUANTUM = 256                # tiles are multiples of 256 elements (1 KB of float32: whole 256-byte repeats)
BUFFER_NUM = 2                    # double buffering
SELECT_RESERVE = 8192             # Select modes 1/2 use the top 8 KB of the UB as scratch
COL_QUANTUM = 16                  # a row tile holds the row padded to 16 elements (32 B of 16-bit data)
ADV_FIXED_BYTES = 256             # the fixed part of an advanced math API's sharedTmpBuffer
# the least sharedTmpBuffer of any advanced math API asc calls, on float32: Huawei's implementation works in chunks of
# tmp / 4 / procedure floats rounded down to 32 and aborts when that is 0 (asc-devkit impl/adv_api/detail/math:
# Erf, Sin and Cos keep 3 float temporaries per element, Tanh, Floor and Ceil 1), so 3 * 32 floats
ADV_MIN_BYTES = 3 * 32 * 4

# the cube core's (AIC) memories, Ascend910B1-B4 alike: L1 (A1/B1), L0A (A2), L0B (B2), L0C (CO1) and the
# BiasTable (C2); ascend-sim's kernel_operator.h and asc.ascendc's TOTAL_L1_SIZE / TOTAL_L0C_SIZE hold the same
# values (tests/lib/test_host_tiling.py checks), and asc.lib.host budgets the Matmul tilings against them
L1_BYTES = 512 * 1024
L1_RESERVED = 128                 # the top 128 B of L1 are not the kernel's (TPipe sees 512 KB - 128 B)
L0A_BYTES = 64 * 1024
L0B_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
BT_BYTES = 1024
FRACTAL_BYTES = 512               # a 16 x 32-byte fractal: 16 x 16 of 16-bit data, 16 x 8 float32, 16 x 32 int8

# the cube path's base tile of C and step along K
BASE_M, BASE_N, BASE_K = 128, 128, 64


def soc_info(soc: str) -> dict:
    """The SOCS entry of `soc` (any letter case); ValueError naming the known SoCs for another name."""
    for k, v in SOCS.items():
        if k.lower() == soc.lower():
            return v
    raise ValueError(f"unknown SoC {soc!r}; known: {', '.join(SOCS)}")


def adv_tmp_bytes(count_elems: int) -> int:
    """The sharedTmpBuffer asc gives an advanced math API (Tanh, Erf, Sigmoid, ...) for `count` float32 elements:
    two float32 words per element plus 256 B. The CANN host helpers (GetTanhMaxMinTmpSize, ...) give the exact
    minimum; this bound is an assumption documented in docs/ascend.md and checked by ascend-sim. At least
    ADV_MIN_BYTES, the least any of those APIs runs with (a row of 8 elements: 320 B aborted Erf in Huawei's check)."""
    return max(count_elems * 4 * 2 + ADV_FIXED_BYTES, ADV_MIN_BYTES)
