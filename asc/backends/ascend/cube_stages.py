"""The stages of one K step of a cube tile (cube_render.py): CopyIn (GM -> L1, ND -> NZ), SplitA / SplitB (L1 ->
L0A / L0B), Compute (Mmad) and CopyOut (Fixpipe), for 16-bit and float32 operands and a B stored as it is or
transposed (x @ w^T: w is [N, K]).

Fractals are 512 B: 16 x C0 elements, C0 = 16 for 16-bit data, 8 for float32 (A2). Tails (M, N, K not multiples of
the fractal) are padded in L1 and only the valid part is written back, as CANN does:
- rows of A past m, columns of B past n: whatever the buffer holds; their products land in rows and columns of C that
  Fixpipe (mSize = m, nSize = n) never moves;
- K: the cube reads K rounded up to C0 (16-bit: 16, float: 8), so the padding must be zeros. A's K is its columns and
  w's (transposed B) its columns too: the ND -> NZ copy zero-pads a strip's columns. A plain B's K is its rows: the
  tile is zeroed with Fill first when k is not a multiple of 16.
- m == 1 would switch Mmad to GEMV: Mmad always gets m rounded up to 16.

L0B wants B in "Zn" (C0 x 16 fractals of K x N, each column-major): that is the NZ layout of B^T, so a transposed B
(w, [N, K] in GM) is one ND -> NZ copy of w and one LoadData. A plain 16-bit B is transposed per fractal by LoadData
(ifTranspose); a plain float32 B by LoadDataWithTranspose, which transposes a 16 x 16 square made of two consecutive
16 x 8 fractals side by side: B is copied one 16-row block at a time with a strip stride of 16, so the strips of a
block are consecutive fractals."""
from __future__ import annotations

from .ctext import STORAGE
from .cube_lowering import QUANT

PAD16 = "(%s + 15) / 16 * 16"


def cube_stages(out, p, ab: str, A: str, B: str, C: str, cur: str):
    """Emit the CopyIn, SplitA, SplitB, Compute and CopyOut members of a cube kernel class."""
    mm = p.mm
    tc = mm.dst.tensor
    ct = STORAGE[tc.type.dtype.name]
    f32 = ab == "float"
    c0 = 8 if f32 else 16                    # elements of a fractal's row (32 B)
    fe = 128 if f32 else 256                 # elements of a fractal (512 B)
    bt = p.b_trans
    e = out.emit

    def member(sig, body):
        e(f"__aicore__ inline void {sig}")
        e("{")
        out.depth += 1
        out.comment(mm.loc)
        for ln in body:
            e(ln)
        out.depth -= 1
        e("}")
        e()

    zero = f"static_cast<{ab}>(0.0f)"
    copy_b = []
    if bt:
        copy_b = [f"Nd2NzParams bParams(1, n, k, 0, t_.K, {PAD16 % 'n'}, 1, 0);   // w's n rows of k: the NZ of B^T",
                  f"DataCopy(b1, {B}{cur}[static_cast<uint64_t>(n0) * t_.K + k0], bParams);"]
    else:
        copy_b = ["if (k % 16) {                   // B's K padding rows are read by the cube: zeros",
                  f"  Fill(b1, InitConstValueParams<{ab}>(1, t_.baseK * t_.baseN * sizeof({ab}) / 32, 0, {zero}));",
                  "}"]
        if f32:
            copy_b += [f"const uint32_t np = {PAD16 % 'n'};",
                       "for (uint32_t kb = 0; kb * 16 < k; ++kb) {   // 16 rows at a time: the strips side by side",
                       "  const uint32_t rows = (k - kb * 16 < 16) ? k - kb * 16 : 16;",
                       "  Nd2NzParams bParams(1, rows, n, 0, t_.N, 16, 1, 0);",
                       f"  DataCopy(b1[kb * 16 * np], {B}{cur}[static_cast<uint64_t>(k0 + kb * 16) * t_.N + n0], "
                       "bParams);",
                       "}"]
        else:
            copy_b += [f"Nd2NzParams bParams(1, k, n, 0, t_.N, {PAD16 % 'k'}, 1, 0);",
                       f"DataCopy(b1, {B}{cur}[static_cast<uint64_t>(k0) * t_.N + n0], bParams);"]
    member("CopyIn(uint32_t m0, uint32_t n0, uint32_t k0, uint32_t m, uint32_t n, uint32_t k)", [
        f"LocalTensor<{ab}> a1 = a1Que_.AllocTensor<{ab}>();",
        f"Nd2NzParams aParams(1, m, k, 0, t_.K, {PAD16 % 'm'}, 1, 0);   // m rows of k, strips of m rows padded",
        f"DataCopy(a1, {A}{cur}[static_cast<uint64_t>(m0) * t_.K + k0], aParams);",
        "a1Que_.EnQue(a1);",
        f"LocalTensor<{ab}> b1 = b1Que_.AllocTensor<{ab}>();",
        *copy_b,
        "b1Que_.EnQue(b1);"])
    member("SplitA(uint32_t m, uint32_t k)", [
        f"LocalTensor<{ab}> a1 = a1Que_.DeQue<{ab}>();",
        f"LocalTensor<{ab}> a2 = a2Que_.AllocTensor<{ab}>();",
        f"const uint32_t mp = {PAD16 % 'm'}, kf = (k + {c0 - 1}) / {c0};",
        f"for (uint32_t mb = 0; mb < mp / 16; ++mb) {{     // one 16-row strip of A: kf fractals, Zz order",
        "  LoadData2DParams params(0, kf, mp / 16, 0, 0, false, 0);",
        f"  LoadData(a2[mb * kf * {fe}], a1[mb * {fe}], params);",
        "}",
        "a2Que_.EnQue(a2);",
        "a1Que_.FreeTensor(a1);"])
    if bt:
        split_b = [f"const uint32_t np = {PAD16 % 'n'}, kf = (k + {c0 - 1}) / {c0};",
                   "LoadData2DParams params(0, kf * (np / 16), 1, 0, 0, false, 0);   // already Zn",
                   "LoadData(b2, b1, params);"]
    elif f32:
        split_b = [f"const uint32_t np = {PAD16 % 'n'};",
                   "for (uint32_t kb = 0; kb * 16 < k; ++kb) {   // a 16 x 16 square -> K fractals 2 kb and 2 kb + 1",
                   "  LoadData2dTransposeParams params(0, np / 16, 1, 0, np / 16 - 1, 0);",
                   "  LoadDataWithTranspose(b2[kb * np * 16], b1[kb * 16 * np], params);",
                   "}"]
    else:
        split_b = [f"const uint32_t np = {PAD16 % 'n'}, kp = {PAD16 % 'k'};",
                   "for (uint32_t kb = 0; kb < kp / 16; ++kb) {     // one 16-row strip of B: np/16 fractals, "
                   "transposed (Zn)",
                   "  LoadData2DParams params(0, np / 16, kp / 16, 0, 0, true, 0);",
                   "  LoadData(b2[kb * np * 16], b1[kb * 256], params);",
                   "}"]
    member("SplitB(uint32_t k, uint32_t n)", [
        f"LocalTensor<{ab}> b1 = b1Que_.DeQue<{ab}>();",
        f"LocalTensor<{ab}> b2 = b2Que_.AllocTensor<{ab}>();",
        *split_b,
        "b2Que_.EnQue(b2);",
        "b1Que_.FreeTensor(b1);"])
    member("Compute(const LocalTensor<float>& c1, uint32_t m, uint32_t n, uint32_t k, bool first)", [
        f"LocalTensor<{ab}> a2 = a2Que_.DeQue<{ab}>();",
        f"LocalTensor<{ab}> b2 = b2Que_.DeQue<{ab}>();",
        f"MmadParams params({PAD16 % 'm'}, n, k, 0, false, first);   // C = A*B first, C += A*B after; m "
        "whole fractals",
        "Mmad(c1, a2, b2, params);",
        "a2Que_.FreeTensor(a2);",
        "b2Que_.FreeTensor(b2);"])
    e("__aicore__ inline void CopyOut(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)")
    e("{")
    out.depth += 1
    if p.return_loc is not None:
        out.comment(p.return_loc)
    e("LocalTensor<float> c1 = c1Que_.DeQue<float>();")
    e(f"FixpipeParamsV220 params(n, m, {PAD16 % 'm'}, t_.N, false);   // NZ -> ND: the valid m x n only")
    e(f"params.quantPre = QuantMode_t::{QUANT[tc.type.dtype.name]};")
    e(f"Fixpipe<{ct}, float, CFG_ROW_MAJOR>({C}{cur}[static_cast<uint64_t>(m0) * t_.N + n0], c1, params);")
    e("c1Que_.FreeTensor(c1);")
    out.depth -= 1
    e("}")
    e()
