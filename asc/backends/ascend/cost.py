"""Estimated NPU time of a rendered ascend kernel: `estimate(src, symbols, soc)` (what
`kernel.estimate("ascend", *args, soc="Ascend910B1")` shows).

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
from .budget import tiling
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


def _vec_cycles(ins: Instr, n: int) -> float:
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


def _packed_cycles(p, m: int, cols: int) -> float:
    """Vector cycles of one tile of m packed rows (packed_rows.py): a Brcb per per-row scalar (one repeat per 8
    rows), a RowMul / RowAdd of one (partial) repeat per row, every other instruction over the m * cols elements."""
    cyc = len(p.bcast) * (math.ceil(m / 8) + ISSUE)
    for ins in p.instrs:
        cyc += m + ISSUE if ins.api in ("RowMul", "RowAdd") else _vec_cycles(ins, m * cols)
    return cyc


def estimate(src: AscendSource, symbols: dict, soc: str = DEFAULT_SOC) -> Estimate:
    """The estimated time of one launch of `src` for these sizes on `soc`."""
    info = soc_info(soc)
    clock = info["clock_ghz"] * 1e9
    p = src.plan
    block_dim, t = tiling(src, symbols, soc)
    if p.kind == "phased":           # phases one after the other (SyncAll between them), in one launch
        subs = [estimate(s, symbols, soc) for s in src.phase_sources]
        total = sum(e.seconds for e in subs) - (len(subs) - 1) * LAUNCH_US * 1e-6
        parts = {f"phase {i} ({e.kind}, {e.bound})": e.seconds for i, e in enumerate(subs)}
        return Estimate(total, max(subs, key=lambda e: e.seconds).bound, soc, block_dim, parts, p.kind)
    cores = info["aiv"]
    waves = math.ceil(block_dim / cores)
    active = min(block_dim, cores)
    bw = min(info["hbm_gbs"] * 1e9 / active, GM_BYTES_PER_CYCLE * clock)     # bytes/s per core
    if p.kind == "cube":
        cores = info["aic"]
        waves = math.ceil(block_dim / cores)
        active = min(block_dim, cores)
        bw = min(info["hbm_gbs"] * 1e9 / active, GM_BYTES_PER_CYCLE * clock)
        M, N, K = p.dims
        isz = p.mm.a.tensor.type.dtype.itemsize
        osz = p.mm.dst.tensor.type.dtype.itemsize
        per_block = math.ceil(t["tiles"] / block_dim)
        m, n = min(M, t["baseM"]), min(N, t["baseN"])
        operands = (M * K + K * N) * isz
        unique = operands + M * N * osz                   # what HBM must move at least
        panel_bw = L2_BYTES_PER_CYCLE * clock if operands <= info["l2_mb"] * 2 ** 20 else bw
        copy = cube = 0.0
        steady = 0.0
        for k0 in range(0, K, t["baseK"]):
            k = min(t["baseK"], K - k0)
            c = (m * k + k * n) * isz / panel_bw
            # whole 16 x 16 x 16 fractal products (tails padded); float32 at half the rate (16 x 8 fractals)
            q = -(-m // 16) * -(-n // 16) * -(-k // 16) * (2 if isz == 4 else 1) / clock + ISSUE / clock
            copy, cube, steady = copy + c, cube + q, steady + max(c, q)
        out = m * n * osz / bw
        parts = {"GM": (copy + out) * per_block, "cube": cube * per_block}
        total = max((steady + out) * per_block * waves, unique / (info["hbm_gbs"] * 1e9)) + LAUNCH_US * 1e-6
        return Estimate(total, "GM" if parts["GM"] >= parts["cube"] else "cube", soc, block_dim, parts, p.kind)
    if p.kind == "scalar":
        loads, ops = _scalar_work(p.kernel, symbols)
        cyc = loads * SCALAR_GM + ops
        parts = {"scalar": cyc / clock}
        total = parts["scalar"]
        bound = "scalar"
    else:
        if p.kind == "window":
            busiest = t["perCore"] + (1 if t["rem"] else 0)
            w = -(-t["cols"] // max(t["chunks"], 1)) if t["units"] else 0
            # a column reduction walks every row per unit and writes its sums once per unit
            hbm, l2 = _window_bytes(p, t, w)
            if getattr(p, "row_blocks", False):
                w = w * t["hrows"]
            once = sum(p.tensor(a.tensor).itemsize for a in p.accesses if a.key in p.acc_keys) * w / bw
            steps = busiest * (t["rows"] if p.acc_keys else 1)
            copy = [w * (hbm / bw + l2 / (L2_BYTES_PER_CYCLE * clock))] * steps
            if once:
                copy = [c + once * busiest / max(steps, 1) for c in copy]
            vec = [sum(_vec_cycles(i, w) for i in p.instrs) / clock] * steps
            if p.sum_of is not None:      # each block's ReduceSum, the partials' copies out
                red = 2 * (SUM_LANES * 4 // 256) + 4 * ISSUE + SYNC
                vec = [v + (red + 2 * SYNC / SUM_PARTS) / clock for v in vec]
        elif p.kind == "map":
            per, tile = t["perCore"], t["tile"]
            chunks = [tile] * (per // tile) + ([per % tile] if per % tile else [])
            bytes_per_elem = sum(x.itemsize * (int(x.reads) + int(x.writes)) for x in p.tensors)
            copy = [n * bytes_per_elem / bw for n in chunks]
            vec = [sum(_vec_cycles(i, n) for i in p.instrs) / clock for n in chunks]
        else:
            rows, cols = t["perCore"], t["cols"]
            bytes_row = sum(x.itemsize * cols * (int(x.reads) + int(x.writes)) for x in p.tensors
                            if len(x.shape) == 2)
            bytes_row += sum(x.itemsize * (int(x.reads) + int(x.writes)) for x in p.tensors
                             if x.name in p.per_row)        # per-row tensors: one slice in and out per core
            if p.packed:           # tiles of `pack` rows: the instructions over the tile, one Brcb per per-row scalar
                k = t["pack"]
                tiles = [k] * (rows // k) + ([rows % k] if rows % k else [])
                copy = [bytes_row * m / bw for m in tiles]
                vec = [_packed_cycles(p, m, cols) / clock for m in tiles]
            else:
                copy = [bytes_row / bw] * rows
                vec = [sum(_vec_cycles(i, cols) for i in p.instrs) / clock] * rows
        steady = sum(max(c, v) for c, v in zip(copy, vec))
        fill = copy[0] if copy else 0.0
        total = steady + fill
        if p.kind == "window" and p.sum_of is not None:
            # SyncAll, then block 0 alone reads the partials and adds them: one Add per SUM_LANES of them, a
            # ReduceSum, the store of the total and the epilogue (a few syncs)
            units = t["units"]
            tiles = max(1, math.ceil(units / SUM_COMBINE))
            combine = (units * 4 / (GM_BYTES_PER_CYCLE * clock) + tiles * 2 * SYNC / clock +
                       math.ceil(units / SUM_LANES) * (SUM_LANES * 4 // 256 + ISSUE) / clock +
                       (2 * (SUM_LANES * 4 // 256) + 4 * ISSUE + 4 * SYNC) / clock)
            total += SYNC_ALL_US * 1e-6 + combine
        parts = {"GM": sum(copy), "vector": sum(vec)}
        if p.kind == "window" and p.sum_of is not None:
            parts["combine"] = combine
        bound = "GM" if parts["GM"] >= parts["vector"] else "vector"
    total = total * waves + LAUNCH_US * 1e-6
    return Estimate(total, bound, soc, block_dim, parts, p.kind)


def _window_bytes(p, t: dict, w: int) -> tuple:
    """(bytes from HBM, bytes from L2) per element of a window plan's unit. Each window is its own copy; a copy of a
    tensor whose rows and columns overlap an earlier copy's in the same unit (a stencil's u[i - 1], u[i], u[i + 1],
    or u[i, j - 1] next to the rows of u[i - 1..i + 1, j]) reads the bytes that copy just brought in, an element or a
    few apart: an L2 hit; HBM moves the bytes once. Stores and the windows of a column reduction's accumulator are
    HBM traffic."""
    h = t["hrows"] if getattr(p, "row_blocks", False) else 1
    hbm = l2 = 0.0
    by_tensor: dict = {}
    for k, a in enumerate(p.accesses):
        if a.key in p.acc_keys:
            continue
        if a.role == "out":
            hbm += p.tensor(a.tensor).itemsize
        else:
            by_tensor.setdefault(a.tensor, []).append((k, a))
    for name, ws in by_tensor.items():
        size = p.tensor(name).itemsize
        loads = loads_of(p, ws)        # (first window k, rows spanned, views): one copy each
        seen = []                      # (first row, rows, first column) of the copies so far
        for k0, span, _ in loads:
            nbytes = size * (h + span - 1) / h
            pitch, base = t[f"p{k0}"], t[f"b{k0}"]
            row, col = divmod(base, pitch) if pitch else (0, base)
            box = (row, h + span - 1, col)
            if any(abs(col - c) < w and row < r + n and r < row + h + span - 1 for r, n, c in seen):
                l2 += nbytes
            else:
                hbm += nbytes
            seen.append(box)
    return hbm, l2


def _scalar_work(k: ir.Kernel, symbols: dict):
    """(GM accesses, arithmetic operations) of the scalar fallback, from loop trip counts."""
    def walk(stmts, env):
        loads = ops = 0
        for s in stmts:
            if isinstance(s, ir.For):
                a, b, c = (static_value(x, env) for x in (s.start, s.stop, s.step))
                trips = len(range(int(a), int(b), int(c))) if None not in (a, b, c) and c else 1
                l2, o2 = walk(s.body, env)
                loads += trips * l2
                ops += trips * o2
            elif isinstance(s, (ir.While,)):
                l2, o2 = walk(s.body, env)
                loads, ops = loads + l2, ops + o2
            elif isinstance(s, ir.If):
                l1, o1 = walk(s.then, env)
                l2, o2 = walk(s.orelse, env)
                loads, ops = loads + max(l1, l2), ops + max(o1, o2)
            else:
                for e in ir.stmt_exprs(s):
                    if isinstance(e, ir.Load):
                        loads += 1
                    elif isinstance(e, (ir.Binary, ir.Unary, ir.Compare)):
                        ops += 1
                if isinstance(s, ir.Store):
                    loads += 1
        return loads, ops
    return walk(k.entry.body, dict(symbols))
