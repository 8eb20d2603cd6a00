"""The Unified Buffer budget and the tiling of each plan kind.

The budget is checked when a kernel is compiled: a map kernel whose smallest tile, or a row kernel whose row, does
not fit the UB is refused with the line and the largest size that would fit. The tiling is computed on the host
from the sizes: each kind's `*_tiling(plan, symbols, soc, cores, tile_cap)` -> (blockDim, {field: value}), the
values of the tiling struct whose layout (`*_FIELDS`) the renderers declare; kinds.tiling(src, ...) picks it."""
from __future__ import annotations

from ...errors import CompileError
from .plans import MapPlan, RowPlan
from .scalar_math import ub_bytes as scalar_math_bytes
from .window_budget import window_tiling
from .soc import (ADV_FIXED_BYTES, BASE_K, BASE_M, BASE_N, BUFFER_NUM, COL_QUANTUM, DEFAULT_SOC, SELECT_RESERVE,
                  TILE_QUANTUM, UB_BYTES, UB_RESERVED, adv_tmp_bytes, soc_info)

# the tiling struct of each kind: (field, C type), and the comment of each field
MAP_FIELDS = [("total", "uint32_t"), ("perCore", "uint32_t"), ("lastCore", "uint32_t"), ("tile", "uint32_t")]
MAP_DOC = {"total": "elements in all", "perCore": "elements per block (a multiple of 32 B of every tensor)",
           "lastCore": "elements of the last block", "tile": "elements per UB tile (a multiple of 256)"}
ROW_FIELDS = [("rows", "uint32_t"), ("cols", "uint32_t"), ("colsPad", "uint32_t"), ("perCore", "uint32_t"),
              ("lastCore", "uint32_t"), ("workElems", "uint32_t")]
ROW_DOC = {"rows": "rows in all", "cols": "elements per row", "colsPad": "row tile length (multiple of 16)",
           "perCore": "rows per block", "lastCore": "rows of the last block",
           "workElems": "float32 elements of the reduction work tensor"}
PACKED_FIELDS = [("pack", "uint32_t")]
ROW_DOC["pack"] = "rows per UB tile (packed rows: a multiple of 8)"


def row_fields(p: RowPlan) -> list:
    """The tiling fields of a row plan: a packed one also carries its rows per tile."""
    return ROW_FIELDS + (PACKED_FIELDS if p.packed else [])
CUBE_FIELDS = [("M", "uint32_t"), ("N", "uint32_t"), ("K", "uint32_t"), ("baseM", "uint32_t"),
               ("baseN", "uint32_t"), ("baseK", "uint32_t"), ("tilesN", "uint32_t"), ("tiles", "uint32_t")]
CUBE_DOC = {"tilesN": "tiles of C along N", "tiles": "tiles of C in all (block-cyclic over the blocks)",
            "batchTiles": "tiles of one product of the batch"}
BATCH_FIELDS = [("batch", "uint32_t"), ("batchTiles", "uint32_t")]


def cube_fields(p) -> list:
    """The tiling fields of a cube plan: a batch of products also carries its count and the tiles of one product."""
    return CUBE_FIELDS + (BATCH_FIELDS if p.batch else [])


def sym_fields(k) -> list:
    """Tiling fields that carry a dynamic-shape kernel's sizes."""
    return [(f"size_{s}", "uint32_t") for s in k.symbols]


def scalar_fields(k) -> list:
    """The scalar fallback's tiling: the sizes only (one unused word for a static kernel)."""
    return [(s, "uint32_t") for s in k.symbols] or [("unused", "uint32_t")]


# ------------------------------------------------------------------ map kernels

def per_elem_bytes(p: MapPlan) -> int:
    """UB bytes per tile element: double-buffered queues of every GM tensor it touches, the float32 temporaries,
    the advanced APIs' scratch and the Compare mask (1 bit per element, rounded up)."""
    b = 0
    for t in p.tensors:
        b += BUFFER_NUM * t.itemsize * (int(t.reads) + int(t.writes))
    return b + 4 * p.nslots + (8 if p.adv else 0) + (1 if p.select else 0)


def _fixed_bytes(p: MapPlan) -> int:
    return UB_RESERVED + (ADV_FIXED_BYTES if p.adv else 0) + (SELECT_RESERVE if p.select else 0) + \
        scalar_math_bytes(p.pre_math)


def check_budget(p: MapPlan, loc):
    """Refuses, at compile time, a map program whose smallest tile does not fit the Unified Buffer."""
    per, fixed = per_elem_bytes(p), _fixed_bytes(p)
    need = per * TILE_QUANTUM + fixed
    if need > UB_BYTES:
        best = max(0, (UB_BYTES - fixed) // per)
        raise CompileError(
            f"ascend target: the loop body needs {per} B of Unified Buffer per element ({p.nslots} float32 "
            f"temporaries, double-buffered tiles of {len(p.tensors)} tensor(s)); the smallest tile of "
            f"{TILE_QUANTUM} elements needs {need} B, over the {UB_BYTES} B of the UB",
            loc, (f"suggested tile size: {best} elements (below the {TILE_QUANTUM}-element minimum): split the "
                  f"computation into two kernels",))


def max_tile(p: MapPlan) -> int:
    """The largest tile (a multiple of TILE_QUANTUM) of a map program that fits the UB."""
    return max(TILE_QUANTUM, (UB_BYTES - _fixed_bytes(p)) // per_elem_bytes(p) // TILE_QUANTUM * TILE_QUANTUM)


def map_tiling(p: MapPlan, symbols: dict, soc: str = DEFAULT_SOC, cores=None, tile_cap=None):
    """(blockDim, {field: value}) for a map kernel: the elements split across vector cores in whole 32-byte blocks
    of every tensor (so that no two cores write the same 32-byte block), tiles as large as the UB allows."""
    total = 1
    for d in p.numel:
        total *= d if isinstance(d, int) else symbols[d.name]
    unit = max(32 // t.itemsize for t in p.tensors)
    ncores = cores or soc_info(soc)["aiv"]
    per = max(unit, -(-max(total, 1) // ncores))
    per = -(-per // unit) * unit
    block_dim = max(1, -(-total // per))
    last = total - (block_dim - 1) * per
    tile = max_tile(p)
    if tile_cap:
        tile = max(TILE_QUANTUM, min(tile, tile_cap // TILE_QUANTUM * TILE_QUANTUM))
    tile = min(tile, -(-per // TILE_QUANTUM) * TILE_QUANTUM)
    values = {"total": total, "perCore": per, "lastCore": last, "tile": tile}
    values.update({f"size_{s}": symbols[s] for s in p.kernel.symbols})
    return block_dim, values


# ------------------------------------------------------------------ row kernels

def cols_pad(cols: int, select: bool = False) -> int:
    """The row tile's length: the row padded to 16 elements, or to whole 256-byte repeats of float32 (64) where
    Compare / Select run on the row (their counts are whole repeats)."""
    q = SELECT_QUANTUM if select else COL_QUANTUM
    return max(q, -(-cols // q) * q)


SELECT_QUANTUM = 64


def work_elems(cols: int) -> int:
    """Work tensor of ReduceSum/ReduceMax/ReduceMin for `cols` float32 elements (the documented size, x2)."""
    first = max(1, cols // 64)
    return 2 * (-(-first // 8) * 8)


def row_bytes(p: RowPlan, cols: int) -> int:
    """UB bytes a row program needs for rows of `cols` elements."""
    cp = cols_pad(cols, p.select)
    b = 0
    for t in p.tensors:
        if len(t.shape) == 2:
            b += BUFFER_NUM * t.itemsize * cp * (int(t.reads) + int(t.writes))
        elif t.name in p.rows_1d:
            b += t.itemsize * cp
    b += p.nslots * 4 * cp
    if p.reduces:
        b += work_elems(cols) * 4
    b += 64 if (p.reduces or p.nscalar) else 0
    if p.adv:
        b += adv_tmp_bytes(cp)
    if p.select:
        b += cp // 8 + SELECT_RESERVE          # the bit mask, and Select's scratch at the top of the UB
    return b + UB_RESERVED + scalar_math_bytes(p.pre_math)


def check_row_budget(p: RowPlan, loc):
    """Refuses, at compile time, a row program whose row (of a size known when compiling) does not fit the UB."""
    if isinstance(p.cols_dim, int) and row_bytes(p, p.cols_dim) > UB_BYTES:
        raise CompileError(f"ascend target: a row of {p.cols_dim} elements needs {row_bytes(p, p.cols_dim)} B of "
                           f"Unified Buffer, over the {UB_BYTES} B of the UB", loc,
                           (f"suggested tile size: rows of at most {max_cols(p)} elements fit",))


def per_row_bytes(p: RowPlan, per_core: int) -> int:
    """UB bytes of the per-row tensors' slices (per_row.py): perCore rounded up to 32 elements of each, and a float32
    copy of each 16-bit one."""
    pad = -(-per_core // 32) * 32
    b = 0
    for name in p.per_row:
        t = p.tensor(name)
        b += pad * t.itemsize + (pad * 4 if t.dtype.name in ("float16", "bfloat16") else 0)
    return b


def max_cols(p: RowPlan) -> int:
    """The longest row (a multiple of COL_QUANTUM) that fits the UB."""
    lo, hi = 0, 1 << 20
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if row_bytes(p, mid) <= UB_BYTES:
            lo = mid
        else:
            hi = mid - 1
    return lo // COL_QUANTUM * COL_QUANTUM


def row_tiling(p: RowPlan, symbols: dict, soc: str, cores=None, tile_cap=None):
    """(blockDim, {field: value}) for a row kernel: whole rows per block. A row whose bytes are a multiple of 32
    goes out with DataCopy (whole blocks, never shared by two cores); a ragged row with DataCopyPad, which writes only
    its own bytes, so neighbouring cores may share a 32-byte block of GM."""
    dim = lambda d: d if isinstance(d, int) else symbols[d.name]  # noqa: E731
    rows, cols = dim(p.rows_dim), dim(p.cols_dim)
    if p.packed:
        return _packed_tiling(p, rows, cols, symbols, soc, cores)
    need = row_bytes(p, cols)
    if need > UB_BYTES:
        raise CompileError(f"ascend target: a row of {cols} elements needs {need} B of Unified Buffer, over the "
                           f"{UB_BYTES} B of the UB", p.loop_loc,
                           (f"suggested tile size: rows of at most {max_cols(p)} elements fit",))
    ncores = cores or soc_info(soc)["aiv"]
    per = max(1, -(-rows // ncores))
    block_dim = max(1, -(-rows // per))
    last = rows - (block_dim - 1) * per
    slices = per_row_bytes(p, per)
    if need + slices > UB_BYTES:
        raise CompileError(f"ascend target: {per} rows per core of the per-row tensors "
                           f"({', '.join(p.per_row)}) need {slices} B of Unified Buffer beside the row's {need} B, over "
                           f"the {UB_BYTES} B of the UB", p.loop_loc,
                           ("split the rows over several launches",))
    values = {"rows": rows, "cols": cols, "colsPad": cols_pad(cols, p.select), "perCore": per, "lastCore": last,
              "workElems": work_elems(cols)}
    values.update({f"size_{s}": symbols[s] for s in p.kernel.symbols})
    return block_dim, values


def _packed_tiling(p: RowPlan, rows: int, cols: int, symbols: dict, soc: str, cores=None):
    """A packed row plan's tiling (packed_rows.py): whole rows per block as row_tiling, and `pack` rows per tile,
    as many as the UB holds beside the per-row slices. Every row is whole 32-byte blocks of every tensor, so no two
    cores write one block of GM."""
    from .packed_rows import PACK_MIN, pack_rows, packed_bytes
    ncores = cores or soc_info(soc)["aiv"]
    per = max(1, -(-rows // ncores))
    block_dim = max(1, -(-rows // per))
    last = rows - (block_dim - 1) * per
    slices = per_row_bytes(p, per)
    k = pack_rows(p, per, slices)
    if not k:
        need = packed_bytes(p, cols, PACK_MIN)
        raise CompileError(f"ascend target: {per} rows per core of the per-row tensors ({', '.join(p.per_row)}) need "
                           f"{slices} B of Unified Buffer beside the {need} B of a tile of {PACK_MIN} rows, over the "
                           f"{UB_BYTES} B of the UB", p.loop_loc, ("split the rows over several launches",))
    values = {"rows": rows, "cols": cols, "colsPad": cols, "perCore": per, "lastCore": last, "workElems": 0,
              "pack": k}
    values.update({f"size_{s}": symbols[s] for s in p.kernel.symbols})
    return block_dim, values


# ------------------------------------------------------------------ cube and scalar kernels, and the dispatch

def cube_tiling(p, symbols: dict, soc: str, cores=None, tile_cap=None):
    """(blockDim, {field: value}) for a product: base tiles of C, block-cyclic over the cube cores."""
    M, N, K = p.dims
    tiles_n = -(-N // BASE_N)
    one = -(-M // BASE_M) * tiles_n
    tiles = one * max(1, p.batch)
    ncores = cores or soc_info(soc)["aic"]
    block_dim = max(1, min(ncores, tiles))
    values = {"M": M, "N": N, "K": K, "baseM": BASE_M, "baseN": BASE_N, "baseK": BASE_K, "tilesN": tiles_n,
              "tiles": tiles}
    if p.batch:
        values.update({"batch": p.batch, "batchTiles": one})
    return block_dim, values


def scalar_tiling(p, symbols: dict, soc: str, cores=None, tile_cap=None):
    """The scalar fallback runs on one block; its tiling carries the sizes."""
    return 1, {s: symbols[s] for s in p.kernel.symbols} or {"unused": 0}
