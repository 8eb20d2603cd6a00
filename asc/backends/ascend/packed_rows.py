"""Packed rows: a row kernel over short rows (llama.cpp's q8_0 blocks of 32) with k rows per UB tile.

A row of 32 float32 elements is half a 256-byte repeat: one row per tile pays every instruction's issue cost per
row. Where the row's program is element-wise over the row and its per-row scalars are only read from per-row input
tensors (`di = float32(d[i])`), k rows (a multiple of 8, at most PACK_MAX) share one tile:

- the copies move k rows at once (the rows of a tile are contiguous in GM and in the UB);
- every element-wise instruction runs on the k * C elements of the tile;
- a per-row scalar operand of `Muls` / `Adds` becomes a vector with one 32-byte block per row: `Brcb` of the k
  values of the per-row tensor's float32 UB buffer (8 values per repeat, each spread over a block), then a
  repeat-form `Mul` / `Add` with one repeat per row (mask C), the second source's block stride 0 and repeat stride 1
  block: every block of row r reads block r of the broadcast.

The row must be whole 32-byte blocks of every 2-D tensor and fit one repeat of float32 (C a multiple of 8, at most
64); reductions, conditionals, scalar statements other than per-row reads, per-row outputs and [C] rows keep the
one-row tile. The per-row tensors must be 16-bit (their float32 copy is padded with zeros to whole blocks of 8, the
values a partial tile's Brcb reads past the core's last row)."""
from __future__ import annotations

import dataclasses
import re

from .per_row import per_row_ref, sixteen
from .plans import RowPlan
from .scalar_math import ub_bytes as scalar_math_bytes
from .soc import BUFFER_NUM, UB_BYTES, UB_RESERVED

PACK_MAX = 248                 # rows per tile: a multiple of 8, and one Mul repeat per row (repeatTime <= 255)
PACK_MIN = 8                   # one Brcb repeat
BCAST_API = {"Muls": "RowMul", "Adds": "RowAdd"}
ROW_ONLY = {"RowSet", "Patch", "ReduceSum", "ReduceMax", "ReduceMin", "ScalarMath", "Pick"}
_READ = re.compile(r"^(?:static_cast<float>\()?(\w+)\.GetValue\(r\)\)?$")


def _mentions(text, names) -> bool:
    return bool(text) and any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)


def packed_bytes(p: RowPlan, cols: int, k: int) -> int:
    """UB bytes of a packed plan with k rows of `cols` elements per tile (the per-row slices aside)."""
    b = 0
    for t in p.tensors:
        if len(t.shape) == 2:
            b += BUFFER_NUM * t.itemsize * cols * k * (int(t.reads) + int(t.writes))
    b += p.nslots * 4 * cols * k + len(p.bcast) * 32 * k
    return b + UB_RESERVED + scalar_math_bytes(p.pre_math)


def pack(p: RowPlan) -> RowPlan:
    """The packed form of row plan `p`, or `p` itself where its rows cannot share a tile."""
    cols = p.cols_dim
    if not isinstance(cols, int) or cols % 8 or cols * 4 > 256:
        return p
    if p.reduces or p.select or p.adv or p.nscalar or p.rows_1d:
        return p
    if any(len(t.shape) == 2 and (cols * t.itemsize) % 32 for t in p.tensors):
        return p
    refs = {}
    for name in p.per_row:
        gm = p.tensor(name)
        if gm.writes or not sixteen(gm):
            return p
        refs[per_row_ref(gm)] = name
    locals_ = set(p.row_locals)
    bcast, instrs = {}, []
    for ins in p.instrs:
        if ins.api == "Scalar":
            m = _READ.match(ins.scalar or "")
            if ins.mode is not None or ins.guard or m is None or m.group(1) not in refs or ins.rdst in bcast:
                return p
            bcast[ins.rdst] = (m.group(1), ins.loc)
            continue
        if ins.api in ROW_ONLY or _mentions(ins.guard, locals_):
            return p
        if ins.api in BCAST_API and ins.scalar in bcast:
            instrs.append(dataclasses.replace(ins, api=BCAST_API[ins.api], scalar=f"{ins.scalar}Brcb"))
            continue
        if _mentions(ins.scalar, locals_):
            return p
        instrs.append(ins)
    q = dataclasses.replace(p, packed=True, bcast=bcast, instrs=instrs, row_locals={})
    if packed_bytes(q, cols, PACK_MIN) > UB_BYTES:
        return p
    return q


def pack_rows(p: RowPlan, per_core: int, slices: int) -> int:
    """Rows per tile: as many as the UB holds beside the per-row slices, a multiple of 8, at most PACK_MAX and no
    more than the core's rows (rounded up to 8); 0 where not even 8 fit."""
    cols = p.cols_dim
    one = packed_bytes(p, cols, 1) - packed_bytes(p, cols, 0)
    fit = (UB_BYTES - slices - packed_bytes(p, cols, 0)) // one
    k = min(PACK_MAX, -(-per_core // 8) * 8, fit // 8 * 8)
    return k if k >= PACK_MIN else 0


# ---- the C++ of a packed plan (row_render calls these where p.packed)

def init(out, p: RowPlan):
    """Init(): the broadcast buffers, one 32-byte block per row of the tile for each per-row scalar (p.bcast's keys
    are the scalars' C++ names already)."""
    for local in p.bcast:
        out.emit(f"pipe->InitBuffer({local}BrcbBuf_, pack_ * 32);")


def loop(out):
    """Process(): the core's rows in tiles of pack_ rows, the last one of m = what is left."""
    out.emit("for (uint32_t r = 0; r < rows_; r += pack_) {")
    out.emit("  const uint32_t m = rows_ - r < pack_ ? rows_ - r : pack_;")
    out.emit("  CopyIn(r, m);")
    out.emit("  Compute(r, m);")
    out.emit("  CopyOut(r, m);")
    out.emit("}")


def broadcasts(out, p: RowPlan):
    """Compute(r, m): each per-row scalar's m values spread to one 32-byte block per row (Brcb, 8 rows a repeat;
    r is a multiple of pack_, so of 8: the source is 32-byte aligned)."""
    for local, (ref, loc) in p.bcast.items():
        b = f"{local}Brcb"
        out.comment(loc)
        out.emit(f"LocalTensor<float> {b} = {local}BrcbBuf_.Get<float>();")
        out.emit(f"Brcb({b}, {ref}[r], static_cast<uint8_t>((m + 7) / 8), BrcbRepeatParams(1, 8));")


def members(out, p: RowPlan):
    for local in p.bcast:
        out.emit(f"TBuf<TPosition::VECCALC> {local}BrcbBuf_;")
    out.emit("uint32_t pack_;")


def row_op(out, ins, f, cols: int):
    """RowMul / RowAdd: d = s0 (op) the row's broadcast value, one repeat per row (mask = the row's elements)."""
    api = {"RowMul": "Mul", "RowAdd": "Add"}[ins.api]
    blocks = cols // 8
    out.emit(f"{api}({f['d']}, {f['s0']}, {ins.scalar}, static_cast<uint64_t>({cols}), static_cast<uint8_t>(m), "
             f"BinaryRepeatParams(1, 1, 0, {blocks}, {blocks}, 1));")
