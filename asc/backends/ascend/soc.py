"""What the seed backend's plans and tilings assume of the Ascend 910B chips: the chip facts (asc/chip.py, declared
there once: the SoC table, the on-chip memory sizes and granules) and asc's own choices of how to split the Unified
Buffer and the cube's memories. Pure data; docs/ascend.md gives the sources."""
from __future__ import annotations

from ...chip import (BT_BYTES, DEFAULT_SOC, FRACTAL_BYTES, L0A_BYTES, L0B_BYTES, L0C_BYTES, L1_BYTES,  # noqa: F401
                     L1_RESERVED, SELECT_SCRATCH, SOCS, UB_BYTES, soc_info)

# how asc splits the Unified Buffer of one vector core (UB_BYTES)
UB_RESERVED = 256                 # runtime tiling sees 192 KB - 256 B
UB_BUDGET = UB_BYTES - UB_RESERVED
TILE_QUANTUM = 256                # tiles are multiples of 256 elements (1 KB of float32: whole 256-byte repeats)
BUFFER_NUM = 2                    # double buffering
SELECT_RESERVE = SELECT_SCRATCH   # Select modes 1/2 use the top 8 KB of the UB as scratch: kept free
COL_QUANTUM = 16                  # a row tile holds the row padded to 16 elements (32 B of 16-bit data)
ADV_FIXED_BYTES = 256             # the fixed part of an advanced math API's sharedTmpBuffer
# the least sharedTmpBuffer of any advanced math API asc calls, on float32: Huawei's implementation works in chunks of
# tmp / 4 / procedure floats rounded down to 32 and aborts when that is 0 (asc-devkit impl/adv_api/detail/math:
# Erf, Sin and Cos keep 3 float temporaries per element, Tanh, Floor and Ceil 1), so 3 * 32 floats
ADV_MIN_BYTES = 3 * 32 * 4

# the cube path's base tile of C and step along K
BASE_M, BASE_N, BASE_K = 128, 128, 64


def adv_tmp_bytes(count_elems: int) -> int:
    """The sharedTmpBuffer asc gives an advanced math API (Tanh, Erf, Sigmoid, ...) for `count` float32 elements:
    two float32 words per element plus 256 B. The CANN host helpers (GetTanhMaxMinTmpSize, ...) give the exact
    minimum; this bound is an assumption documented in docs/ascend.md and checked by ascend-sim. At least
    ADV_MIN_BYTES, the least any of those APIs runs with (a row of 8 elements: 320 B aborted Erf in Huawei's check)."""
    return max(count_elems * 4 * 2 + ADV_FIXED_BYTES, ADV_MIN_BYTES)
