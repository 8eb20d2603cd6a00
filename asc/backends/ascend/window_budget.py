"""The UB budget and the tiling of a window plan (window_lowering): units of one row of the loop's index space and a
chunk of its columns, spread over the cores with the remainder on the first ones; the GM offset of every window."""
from __future__ import annotations

from ...errors import CompileError, MemoryCheckError
from ...passes.cost import static_value
from .soc import ADV_FIXED_BYTES, BUFFER_NUM, DEFAULT_SOC, UB_BYTES, UB_RESERVED, soc_info

SUM_LANES = 256       # a sum of the loop: element k is added into lane k % SUM_LANES, whatever the tiling
SUM_BLOCK = 4096      # ... and block k // SUM_BLOCK of the index space is summed into its own partial (the cpu
                      # target's fixed blocks): the partials do not depend on the core count or the tile size
SUM_PARTS = 64        # partials a core keeps in UB (one 32-byte slot each) before it copies them to the workspace
SUM_COMBINE = 2048    # partials the combine brings into UB at a time (a multiple of SUM_LANES)
QUANTUM = 16          # a chunk is a multiple of 16 elements: 32 B of 16-bit data, 64 B of float32

WINDOW_DOC = {"rows": "rows of the loop's index space (1 for a 1-D loop)", "cols": "columns of the index space",
              "chunk": "columns per unit (UB tile length, a multiple of 16)", "chunks": "units per row",
              "hrows": "rows per unit", "units": "units in all (row blocks x chunks)", "perCore": "units per block (the first `rem` take one more)",
              "rem": "blocks with one more unit",
              "sumBlock": "elements per partial of a sum of the loop (units are these blocks)"}


def sum_work_elems() -> int:
    """ReduceSum's work tensor for the SUM_LANES float32 lanes (as budget.work_elems: the documented size, x2)."""
    return 2 * (-(-max(1, SUM_LANES // 64) // 8) * 8)


def sum_fixed_bytes() -> int:
    """UB of a sum of the loop: the lanes, the total, ReduceSum's work tensor, the partials' slots, the combine's
    tile."""
    return 4 * SUM_LANES + 32 + 4 * sum_work_elems() + 32 * SUM_PARTS + 4 * SUM_COMBINE


def loads_of(p, ws: list) -> list:
    """The GM->UB copies of one tensor's input windows: [(first window k, span, [(k, access, row)])]. With row
    blocks, windows at one column offset and constant row offsets share one copy of the rows they cover (a
    stencil's u[i - 1, j], u[i, j], u[i + 1, j]: h + 2 rows for h output rows); each window is a view at its row."""
    if not p.row_blocks:
        return [(k, 1, [(k, a, 0)]) for k, a in ws]
    by_col: dict = {}
    for k, a in ws:
        by_col.setdefault(a.dcol.text(), []).append((k, a, a.drow.value({})))
    out = []
    for items in by_col.values():
        lo = min(d for _, _, d in items)
        k0 = next(k for k, _, d in items if d == lo)
        out.append((k0, max(d for _, _, d in items) - lo + 1, [(k, a, d - lo) for k, a, d in items]))
    return out


def window_fields(p) -> list:
    f = [(n, "uint32_t") for n in ("rows", "cols", "chunk", "chunks", "hrows", "units", "perCore", "rem")]
    for k in range(len(p.accesses)):
        f += [(f"p{k}", "uint32_t"), (f"b{k}", "uint32_t")]
    for m in range(sum(len(b.points) for b in p.boundary)):
        f.append((f"q{m}", "uint32_t"))
    if p.sum_of is not None:
        f += [("qsum", "uint32_t"), ("sumBlock", "uint32_t")]
    for k in range(len(p.fills)):
        f += [(f"ftop{k}", "uint32_t"), (f"fgap{k}", "uint32_t"), (f"fbot{k}", "uint32_t"), (f"fend{k}", "uint32_t")]
    return f


def _per_elem(p) -> int:
    b = sum(BUFFER_NUM * p.tensor(a.tensor).itemsize for a in p.accesses)
    b += sum(p.tensor(n).itemsize for n, _, _ in p.fills)
    return b + 4 * p.nslots + (8 if p.adv else 0)


def _fixed(p) -> int:
    lanes = sum_fixed_bytes() if p.sum_of is not None else 0
    return UB_RESERVED + (ADV_FIXED_BYTES if p.adv else 0) + 32 * sum(len(b.points) for b in p.boundary) + 512 + lanes


def max_chunk(p) -> int:
    return (UB_BYTES - _fixed(p)) // _per_elem(p) // QUANTUM * QUANTUM


def check_window(p, loc):
    if max_chunk(p) < QUANTUM:
        raise CompileError(f"ascend target: a window map needs {_per_elem(p)} B of Unified Buffer per element; "
                           f"{QUANTUM} elements do not fit the {UB_BYTES} B of the UB", loc)


def _val(e, symbols, what):
    v = static_value(e, symbols)
    if v is None:
        raise CompileError(f"ascend target: {what} is not a constant or a size")
    return int(v)


def window_tiling(p, symbols: dict, soc: str = DEFAULT_SOC, cores=None, tile_cap=None):
    """(blockDim, {field: value}) for a window plan; raises MemoryCheckError for a window outside its tensor."""
    dim = lambda d: d if isinstance(d, int) else symbols[d.name]  # noqa: E731
    c0, c1 = (_val(e, symbols, "a loop bound") for e in p.col_range)
    r0, r1 = (_val(e, symbols, "a loop bound") for e in p.row_range) if p.two_d else (0, 1)
    rows, cols = max(0, r1 - r0), max(0, c1 - c0)
    ncores = cores or soc_info(soc)["aiv"]
    # chunks per row that give every core a unit; a sum across the rows (a column reduction) keeps a chunk of
    # columns on one core over all the rows (the sums in the rows' order, as the loop adds them: no combine of
    # partial sums between the cores), so its units are the chunks
    want = ncores if p.acc_keys else max(1, -(-ncores // max(rows, 1)))
    chunk = max(QUANTUM, -(-(-(-max(cols, 1) // want)) // QUANTUM) * QUANTUM)
    chunk = min(chunk, max_chunk(p))
    if p.two_d and p.row_blocks and rows > 1:
        # units of several rows share the copies of their row offsets: leave the UB room for 8 rows of a chunk
        chunk = min(chunk, max(QUANTUM, max_chunk(p) // min(8, rows) // QUANTUM * QUANTUM))
    if tile_cap:
        chunk = max(QUANTUM, min(chunk, tile_cap // QUANTUM * QUANTUM))
    if p.sum_of is not None:
        # a sum of the whole loop: units are fixed blocks of SUM_BLOCK elements, each summed into its own partial
        # (element k into lane k % SUM_LANES, then ReduceSum); tiles of SUM_LANES x 2^k elements, which divide a
        # block; the partials go to a GM workspace, and block 0 adds them in order after SyncAll
        chunk = SUM_LANES
        while chunk * 2 <= min(SUM_BLOCK, max_chunk(p), tile_cap or SUM_BLOCK):
            chunk *= 2
        units = -(-cols // SUM_BLOCK)
        block_dim = max(1, min(ncores, units))
        values = {"rows": 1, "cols": cols, "chunk": chunk, "chunks": units, "hrows": 1, "units": units,
                  "perCore": units // block_dim, "rem": units % block_dim, "sumBlock": SUM_BLOCK,
                  "ws_sumParts": 4 * max(units, 8)}
        return block_dim, _window_fields(p, values, symbols, dim, rows, cols, r0, c0, r1, c1, units)
    chunks = -(-cols // chunk) if cols else 0
    hrows = 1
    if p.row_blocks and chunks:
        # as many rows per unit as the UB holds, while every core keeps a unit
        hrows = max(1, min(max_chunk(p) // chunk, (rows * chunks) // ncores, rows, 4095))
        if tile_cap:
            hrows = max(1, min(hrows, tile_cap // chunk))
    blocks = -(-rows // hrows)
    units = (chunks if p.acc_keys else blocks * chunks) if cols and rows else 0
    block_dim = max(1, min(ncores, units))
    values = {"rows": rows, "cols": cols, "chunk": chunk, "chunks": chunks, "hrows": hrows, "units": units,
              "perCore": units // block_dim, "rem": units % block_dim}
    return block_dim, _window_fields(p, values, symbols, dim, rows, cols, r0, c0, r1, c1, units)


def _window_fields(p, values, symbols, dim, rows, cols, r0, c0, r1, c1, units) -> dict:
    """`values` with the offsets and pitches of the windows, the boundary elements and the fills."""
    windows = {}
    for k, a in enumerate(p.accesses):
        t = p.tensor(a.tensor)
        shape = [dim(d) for d in t.shape]
        dc = a.dcol.value(symbols)
        dr = a.drow.value(symbols) if a.drow is not None else 0
        pitch = shape[1] if len(shape) == 2 else 0
        if units:
            if len(shape) == 2 and not (0 <= r0 + dr and r1 - 1 + dr < shape[0]):
                raise MemoryCheckError(f"kernel {p.kernel.entry.pyname!r}: the rows {r0 + dr}..{r1 - 1 + dr} of "
                                       f"{a.tensor!r} are out of bounds for its shape {tuple(shape)}")
            if not (0 <= c0 + dc and c1 - 1 + dc < shape[-1]):
                raise MemoryCheckError(f"kernel {p.kernel.entry.pyname!r}: the columns {c0 + dc}..{c1 - 1 + dc} of "
                                       f"{a.tensor!r} are out of bounds for its shape {tuple(shape)}")
        base = ((r0 + dr) * pitch if len(shape) == 2 else 0) + c0 + dc
        values[f"p{k}"], values[f"b{k}"] = pitch, max(base, 0)
        if a.role == "out":
            windows.setdefault(a.tensor, []).append((max(base, 0), pitch, shape))
    if p.sum_of is not None:
        values["qsum"] = _val(p.sum_of[1], symbols, "the index of a sum")
    m = 0
    for b in p.boundary:
        for pt in b.points:
            shape = [dim(d) for d in p.tensor(pt.tensor).shape]
            q = _val(pt.index, symbols, "a boundary index")
            total = 1
            for d in shape:
                total *= d
            if not 0 <= q < total:
                raise MemoryCheckError(f"kernel {p.kernel.entry.pyname!r}: flat element {q} is out of bounds for "
                                       f"{pt.tensor!r} with shape {tuple(shape)}")
            if pt.role == "out" and units:
                for base, pitch, _ in windows.get(pt.tensor, []):
                    rr, cc = (divmod(q - base, pitch) if pitch else (0, q - base))
                    if q >= base and 0 <= rr < rows and 0 <= cc < cols:
                        raise CompileError(f"ascend target: the statement at line {b.loc.line if b.loc else '?'} "
                                           f"writes element {q} of {pt.tensor!r}, which the loop also writes")
            values[f"q{m}"] = q
            m += 1
    for k, (name, key, _) in enumerate(p.fills):
        t = p.tensor(name)
        total = 1
        for d in t.shape:
            total *= dim(d)
        if key is None:             # the tensor of a sum: all of it, before the sum is stored
            values.update({f"ftop{k}": total, f"fgap{k}": 0, f"fbot{k}": total, f"fend{k}": total})
            continue
        idx = next(i for i, a in enumerate(p.accesses) if a.key == key)
        base, pitch = values[f"b{idx}"], values[f"p{idx}"]
        if units:
            values.update({f"ftop{k}": base, f"fgap{k}": (pitch - cols) if pitch else 0,
                           f"fbot{k}": base + (rows - 1) * pitch + cols, f"fend{k}": total})
        else:
            values.update({f"ftop{k}": total, f"fgap{k}": 0, f"fbot{k}": total, f"fend{k}": total})
    values.update({f"size_{s}": symbols[s] for s in p.kernel.symbols})
    return values


def window_transfer(p, values) -> tuple:
    """(bytes of GM traffic per element of a unit, instructions) for the cost model."""
    return sum(p.tensor(a.tensor).itemsize for a in p.accesses), p.instrs
