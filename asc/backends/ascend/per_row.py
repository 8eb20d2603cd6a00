"""Per-row 1-D tensors of a row kernel: `mean[i]`, `rstd[i]`, `target[i]`, `d[i]` -- a value per row, next to the
[R, C] rows (docs/ascend.md, "Per-row tensors").

Each core takes a slice of whole rows, so it takes the same slice of a per-row tensor: an input slice is copied into
the Unified Buffer once, before the first row (DataCopyPad: the slice starts anywhere in GM and is any number of
bytes), and read per row by the scalar unit (`GetValue(r)`); a 16-bit input is Cast to float32 once on the vector
unit first. A per-row output is written per row by the scalar unit into a float32 UB buffer (`SetValue(r, v)`, then an
S_V flag: the vector unit must not run ahead of the scalar write) and goes out once, after the last row: Cast to its
16-bit type on the vector unit (CAST_RINT, NumPy's rounding), then DataCopyPad, which writes only the slice's own
bytes -- two cores' slices may share a 32-byte block of GM, which DataCopy must never write twice.

The helpers here are read by row_lowering (the names and dtypes) and row_render (the C++)."""
from __future__ import annotations

from ... import ir
from .ctext import cname
from .instructions import sync
from .plans import Unsupported

PER_ROW_DTYPES = ("float32", "float16", "bfloat16", "int32")


def same_size(a, b) -> bool:
    """Are two tensor dimensions (ints or Syms) the same size?"""
    if isinstance(a, int) or isinstance(b, int):
        return a == b
    return isinstance(a, ir.Sym) and isinstance(b, ir.Sym) and a.name == b.name


def check_per_row_dtype(gm, loc):
    if gm.dtype.name not in PER_ROW_DTYPES:
        raise Unsupported(f"the per-row tensor {gm.name!r} is {gm.dtype.name} (per-row tensors are float32, float16, "
                          f"bfloat16 or int32)", loc)


def sixteen(gm) -> bool:
    return gm.dtype.name in ("float16", "bfloat16")


def per_row_ref(gm) -> str:
    """The UB tensor the scalar unit reads or writes a row's value in: the slice itself (float32, int32) or its
    float32 copy (16-bit)."""
    return f"{cname(gm.name)}RowsF" if sixteen(gm) else f"{cname(gm.name)}Rows"


ROWS_PAD = "rowsPad_"      # elements of each per-row UB buffer: perCore rounded up to 32 (32 B of any dtype)


def init(out, tensors: list, st: dict):
    """Init(): the GM slices and the UB buffers of the per-row tensors."""
    if not tensors:
        return
    out.emit("const uint64_t rowBase = static_cast<uint64_t>(GetBlockIdx()) * t.perCore;")
    out.emit(f"{ROWS_PAD} = (t.perCore + 31) / 32 * 32;")
    for gm in tensors:
        c, ty = cname(gm.name), st[gm.name]
        out.emit(f"{c}Gm_.SetGlobalBuffer(reinterpret_cast<__gm__ {ty}*>({c}) + rowBase, rows_);")
        out.emit(f"pipe->InitBuffer({c}RowsBuf_, {ROWS_PAD} * sizeof({ty}));")
        if sixteen(gm):
            out.emit(f"pipe->InitBuffer({c}RowsFBuf_, {ROWS_PAD} * sizeof(float));")


def _copy_params(out, ty: str):
    out.emit(f"DataCopyExtParams copyParams(1, rows_ * sizeof({ty}), 0, 0, 0);")


def prologue(out, tensors: list, st: dict, pad: bool = False):
    """Process(), before the first row: the UB buffers, and the input slices copied in (and Cast to float32).
    `pad` (packed rows): the float32 copies are zeros past the slice, up to rowsPad_ (a tile's Brcb reads whole
    groups of 8 rows)."""
    ins = [gm for gm in tensors if gm.reads]
    for gm in tensors:
        c, ty = cname(gm.name), st[gm.name]
        out.emit(f"{c}Rows_ = {c}RowsBuf_.Get<{ty}>();")
        if sixteen(gm):
            out.emit(f"{c}RowsF_ = {c}RowsFBuf_.Get<float>();")
    for gm in ins:
        c, ty = cname(gm.name), st[gm.name]
        out.emit("{")
        out.depth += 1
        _copy_params(out, ty)
        out.emit(f"DataCopyPadExtParams<{ty}> padParams(false, 0, 0, 0);")
        out.emit(f"DataCopyPad({c}Rows_, {c}Gm_, copyParams, padParams);")
        out.depth -= 1
        out.emit("}")
    if any(sixteen(gm) for gm in ins):
        sync(out, "MTE2_V")
        for gm in ins:
            if sixteen(gm):
                c = cname(gm.name)
                if pad:
                    out.emit(f"Duplicate({c}RowsF_, 0.0f, {ROWS_PAD});")
                out.emit(f"Cast({c}RowsF_, {c}Rows_, RoundMode::CAST_NONE, rows_);")
        sync(out, "V_S")
    if any(not sixteen(gm) for gm in ins):
        sync(out, "MTE2_S")


def epilogue(out, tensors: list, st: dict):
    """Process(), after the last row: the output slices (Cast to 16 bits on the vector unit) copied out."""
    outs = [gm for gm in tensors if gm.writes]
    if not outs:
        return
    if any(sixteen(gm) for gm in outs):
        sync(out, "S_V")
        for gm in outs:
            if sixteen(gm):
                c = cname(gm.name)
                out.emit(f"Cast({c}Rows_, {c}RowsF_, RoundMode::CAST_RINT, rows_);")
        sync(out, "V_MTE3")
    if any(not sixteen(gm) for gm in outs):
        sync(out, "S_MTE3")
    for gm in outs:
        c, ty = cname(gm.name), st[gm.name]
        out.emit("{")
        out.depth += 1
        _copy_params(out, ty)
        out.emit(f"DataCopyPad({c}Gm_, {c}Rows_, copyParams);")
        out.depth -= 1
        out.emit("}")


def locals_(out, tensors: list, st: dict):
    """Compute(r): the per-row buffers as locals."""
    for gm in tensors:
        c, ty = cname(gm.name), st[gm.name]
        out.emit(f"LocalTensor<{ty}> {c}Rows = {c}Rows_;")
        if sixteen(gm):
            out.emit(f"LocalTensor<float> {c}RowsF = {c}RowsF_;")


def members(out, tensors: list, st: dict):
    for gm in tensors:
        c, ty = cname(gm.name), st[gm.name]
        out.emit(f"GlobalTensor<{ty}> {c}Gm_;")
        out.emit(f"TBuf<TPosition::VECCALC> {c}RowsBuf_;")
        out.emit(f"LocalTensor<{ty}> {c}Rows_;")
        if sixteen(gm):
            out.emit(f"TBuf<TPosition::VECCALC> {c}RowsFBuf_;")
            out.emit(f"LocalTensor<float> {c}RowsF_;")
    if tensors:
        out.emit(f"uint32_t {ROWS_PAD};")


def bytes_per_row(tensors: list) -> int:
    """GM bytes the per-row tensors move per row (for the cost model)."""
    return sum(gm.itemsize * (int(gm.reads) + int(gm.writes)) for gm in tensors)
