"""The cost model of the ascend target: its figures, `Estimate`, and what the kinds' costs share. Each plan kind
costs its own plan (its `cost` in kinds.py's table); `kinds.estimate(src, symbols, soc)` is what
`kernel.estimate("ascend", *args, soc="Ascend910B1")` shows.

An estimate from a documented cost model (docs/ascend.md), not a measurement: asc has never run these kernels on an
NPU. The model walks the instruction stream the renderer emits for one block (the busiest one) and assumes:
- blocks run in parallel on the SoC's vector cores (waves when blockDim exceeds them);
- GM traffic (DataCopy / DataCopyPad) moves at min(HBM bandwidth / active cores, 32 B per cycle per core);
- a count-form vector instruction takes one cycle per 256-byte repeat plus ISSUE cycles; a math API costs as many
  basic instructions as its op table entry says (ops.OPS "cost"); a reduction costs two passes over its input plus
  a tail;
- the windows of a stencil (window plans) are one copy each; a copy of a tensor overlapping an earlier copy of the
  same unit hits the L2 (L2_BYTES_PER_CYCLE) for the bytes the first of them brought in: HBM moves each byte once;
- double buffering overlaps copies and vector work: a tile costs max(copy, vector), plus one tile's copy to fill and
  drain the pipeline; a row kernel's scalar statements and syncs add SYNC cycles each;
- the cube unit does one 16x16x16 fractal product per cycle (Mmad; float32 one per two cycles, tails padded to whole
  fractals), overlapped with the copies of the next K step;
  every tile of C loads its A and B panels again: where A and B fit the L2 cache, those loads hit it (L2_BYTES_PER_CYCLE
  per core) and HBM sees each byte once (the product takes at least its unique bytes over the HBM bandwidth);
  otherwise every panel load comes from HBM;
- a sum of the loop split over the cores (window plans): each block's ReduceSum, SYNC_ALL_US for the SyncAll, then
  block 0's combine (its copy of the partials at 32 B per cycle, one Add per SUM_LANES of them, a ReduceSum);
- scalar fallback code costs SCALAR_GM cycles per GM GetValue/SetValue and one cycle per arithmetic operation;
- packed rows (several short rows per tile): the tile's instructions over its k rows, a Brcb per per-row scalar,
  one repeat per row for the Mul / Add by it;
- a launch costs LAUNCH_US.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ... import ir
from ...passes.cost import static_value
from .emitter import AscendSource
from .half_ops import HALF_OPS
from .ops import OPS
from .plans import Instr
from .window_budget import SUM_COMBINE, SUM_LANES, SUM_PARTS, loads_of
from .soc import DEFAULT_SOC, soc_info

ISSUE = 8                 # cycles to issue a vector instruction
OP_COST = {op["api"]: op["cost"] for op in OPS.values()}     # basic instructions per math API (ops.OPS)
SYNC = 30                 # cycles of a SetFlag/WaitFlag pair or a scalar statement in row code
SCALAR_GM = 40            # cycles of a scalar GM access through the data cache
GM_BYTES_PER_CYCLE = 32   # per core (platform ini ddr_rate)
L2_BYTES_PER_CYCLE = 110  # per core, on L2 hits (platform ini l2_rate, reads)
LAUNCH_US = 3.0
SYNC_ALL_US = 1.0         # the hard SyncAll of every vector core (an assumption of the model, not a measured figure)


@dataclass
class Estimate:
    seconds: float
    bound: str                       # "GM", "vector", "cube", "scalar"
    soc: str
    block_dim: int
    parts: dict = field(default_factory=dict)   # seconds spent by kind, for the busiest block
    kind: str = ""
    note: str = ("an estimate from asc's cost model (docs/ascend.md), not a measurement on an NPU")

    def __repr__(self) -> str:
        parts = ", ".join(f"{k} {v * 1e6:.2f} us" for k, v in self.parts.items())
        return (f"<asc estimate {self.seconds * 1e6:.2f} us on {self.soc} ({self.kind}, blockDim {self.block_dim}), "
                f"{self.bound}-bound; {parts}; {self.note}>")


def vec_cycles(ins: Instr, n: int) -> float:
    if ins.api == "Note":
        return 0
    repeats = math.ceil(n * (2 if ins.api in HALF_OPS else 4) / 256)     # float16 instructions: 128 a repeat
    if ins.api in OP_COST:
        return OP_COST[ins.api] * (repeats + ISSUE)
    if ins.api.startswith("Reduce"):
        return 2 * repeats + 4 * ISSUE + SYNC
    if ins.api == "ScalarMath":
        return 3 * ISSUE + SYNC
    if ins.api == "Scalar":
        return 2 * SYNC if ins.mode == "tile" else 2
    if ins.api == "RowSet":
        return SYNC * (3 if ins.mode == "tile" else 1)
    if ins.api == "Patch":
        return repeats + ISSUE + 3 * SYNC
    if ins.api == "SumLanes":       # one Add of SUM_LANES float32 lanes per SUM_LANES elements
        return math.ceil(n / SUM_LANES) * (SUM_LANES * 4 // 256 + ISSUE)
    return repeats + ISSUE


@dataclass
class Launch:
    """What every kind's cost starts from: the SoC (`info`: soc.soc_info), its clock in Hz, the launch's blockDim
    and tiling values (budget)."""
    soc: str
    info: dict
    clock: float
    block_dim: int
    t: dict

    def cores(self, unit: str = "aiv") -> tuple:
        """(waves, bytes/s of GM per active core) of this launch on the SoC's `unit` cores (aiv or aic)."""
        cores = self.info[unit]
        waves = math.ceil(self.block_dim / cores)
        active = min(self.block_dim, cores)
        return waves, min(self.info["hbm_gbs"] * 1e9 / active, GM_BYTES_PER_CYCLE * self.clock)


def pipelined(kind: str, launch: Launch, waves: int, copy: list, vec: list, extra: dict | None = None) -> Estimate:
    """The estimate of a vector kind from its tiles' copy and vector times (seconds; double buffering overlaps
    them: max of the two per tile, plus one copy to fill the pipeline), `extra` seconds after the loop by name
    (a window sum's combine)."""
    steady = sum(max(c, v) for c, v in zip(copy, vec))
    fill = copy[0] if copy else 0.0
    total = steady + fill
    if extra:
        total += SYNC_ALL_US * 1e-6 + sum(extra.values())
    parts = {"GM": sum(copy), "vector": sum(vec), **(extra or {})}
    bound = "GM" if parts["GM"] >= parts["vector"] else "vector"
    total = total * waves + LAUNCH_US * 1e-6
    return Estimate(total, bound, launch.soc, launch.block_dim, parts, kind)
