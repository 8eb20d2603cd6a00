"""The APIs added to ascend-sim for pyasc programs, against NumPy on the CPU twin, over float16/float32/int16/int32,
per-block lengths that are and are not a multiple of 32 bytes, on 1 and many blocks; and their rules, each naming
the API call and the Python line (tests/ascendc/pyasc_api_kernels.py)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.runtime.ascend_sim import AscendSimError

import pyasc_api_kernels as K

DTYPES = [np.float16, np.float32, np.int16, np.int32]


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def _line(text):
    return next(i for i, s in enumerate(open(K.__file__), 1) if text in s)


def _rand(d, n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-100, 100, n).astype(d)


@pytest.mark.parametrize("n,blocks", [(64, 1), (37, 4), (128, 8)])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_local_tensor_at_address(d, n, blocks):
    x, y = _rand(d, n * blocks, 1), _rand(d, n * blocks, 2)
    z = np.zeros_like(x)
    K.at_address[blocks](x, y, z, n, 128, 64)
    np.testing.assert_array_equal(z, (x.astype(np.float64) + y).astype(d))


@pytest.mark.parametrize("pos,addr,tile,rule", [
    (asc.TPosition.VECCALC, 16, 64, "addr 16 is not 32-byte aligned"),
    (asc.TPosition.VECCALC, 0, 0, r"tileSize 0 must be in \(0, 49152\] elements"),
    (asc.TPosition.VECCALC, 0, 49153, r"tileSize 49153 must be in \(0, 49152\]"),
    (asc.TPosition.VECIN, 0, 7, "tileSize 7 x 4 B = 28 B is not a multiple of 32 B"),
    (asc.TPosition.VECOUT, 196608 - 32, 16, "addr 196576 \\+ 64 B = 196640 B exceeds the 196608 B of the Unified"),
    (asc.TPosition.A1, 524288 - 128, 64, "exceeds the 524160 B of the L1 buffer"),
])
def test_local_tensor_at_address_rules(pos, addr, tile, rule):
    with pytest.raises(AscendSimError, match=rule) as e:
        K.bad_address[1](np.zeros(8, np.float32), pos, addr, tile)
    msg = str(e.value)
    assert f"pyasc_api_kernels.py:{_line('t = asc.LocalTensor(x.dtype, pos')}" in msg, msg
    assert "LocalTensor(pos, addr, tileSize)" in msg, msg


# ------------------------------------------------------------------ the repeat / mask forms

def _model(op, d, x, y, z, mask, repeat, db, sb, dr, sr, s):
    """The repeat form's addressing, written from the Ascend C docs: element e of repeat r of an operand with
    (block stride, repeat stride) in 32-byte blocks is element (r * rep + (e // epb) * blk) * epb + e % epb."""
    size = np.dtype(d).itemsize
    epb, per = 32 // size, 256 // size
    z = z.copy()
    if isinstance(mask, list):
        lo, hi = mask[0], (mask[1] if size == 2 else 0)
        on = [bool((lo >> e) & 1) if e < 64 else bool((hi >> (e - 64)) & 1) for e in range(per)]
    else:
        on = [e < mask for e in range(per)]
    f32 = np.float64 if np.dtype(d).kind == "f" else np.int64
    for r in range(repeat):
        for e in range(per):
            if not on[e]:
                continue
            di = (r * dr + (e // epb) * db) * epb + e % epb
            si = (r * sr + (e // epb) * sb) * epb + e % epb
            a, b = f32(x[si]), f32(y[si])
            v = [a + b, a - b, max(a, b), a + s, a * s, np.exp(a), abs(a), s, a, s * a + f32(z[di])][op]
            z[di] = v
    return z


REPEAT_CASES = [  # (mask, repeat, db, sb, dr, sr)
    ("full", 2, 1, 1, 8, 8),
    ([0x5555555555555555, 0xF0F0F0F0F0F0F0F0], 2, 1, 1, 8, 8),
    (37, 3, 1, 1, 8, 8),
    ("full", 2, 2, 1, 16, 8),          # dst: a gap block after each block, repeats 16 blocks apart
    (40, 2, 1, 2, 8, 16),              # src strided
]


@pytest.mark.parametrize("case", range(len(REPEAT_CASES)))
@pytest.mark.parametrize("op", range(10), ids=["add", "sub", "max", "adds", "muls", "exp", "abs", "duplicate",
                                               "copy", "axpy"])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_repeat_forms(d, op, case):
    floats_only = op in (5, 6, 9)
    if floats_only and np.dtype(d).kind != "f":
        pytest.skip("exp, abs, axpy take half and float only (their A2 type lists)")
    mask, repeat, db, sb, dr, sr = REPEAT_CASES[case]
    size = np.dtype(d).itemsize
    if mask == "full":
        mask = 256 // size
    cap = 4 * 256 // size                                 # 4 repeats of room
    blocks = 1 if case % 2 else 3
    rng = np.random.default_rng(op * 10 + case)
    x = (rng.uniform(-3, 3, cap * blocks) if floats_only else rng.integers(-50, 50, cap * blocks)).astype(d)
    y = rng.integers(-50, 50, cap * blocks).astype(d)
    z = np.zeros_like(x)
    s = 2.0 if np.dtype(d).kind == "f" else 3.0
    fill = 7.0
    bits, mcont = (mask, 0) if isinstance(mask, list) else (None, mask)
    K.repeat_forms[blocks](x, y, z, cap, int(floats_only), op, bits, mcont, repeat, db, sb, dr, sr, fill, s)
    for b in range(blocks):
        sl = slice(b * cap, (b + 1) * cap)
        ref = _model(op, d, x[sl], y[sl], np.full(cap, fill, d), mask, repeat, db, sb, dr, sr, s).astype(d)
        if np.dtype(d).kind == "f":
            tol = 2e-3 if d == np.float16 else 1e-6
            np.testing.assert_allclose(z[sl].astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
        else:
            np.testing.assert_array_equal(z[sl], ref)


@pytest.mark.parametrize("n,blocks", [(64, 1), (37, 4), (200, 3)])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_axpy_count(d, n, blocks):
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, n * blocks).astype(d)
    z0 = rng.uniform(-4, 4, n * blocks).astype(d)
    z = z0.copy()
    K.axpy_count[blocks](x, z, n, 256, 1.5)
    ref = (1.5 * x.astype(np.float32) + z0.astype(np.float32)).astype(d)
    tol = 2e-3 if d == np.float16 else 1e-6
    np.testing.assert_allclose(z.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)


def _rep_line():
    return _line("asc.add(zl, xl, yl, mask, repeat, bp)")


def test_repeat_form_rules():
    x = np.ones(256, np.float32)
    args = lambda mask, repeat, db=1, dr=8: (x, x, np.zeros(256, np.float32), 256, 0, 0, None, mask, repeat, db, 1,
                                            dr, 8, 0.0, 1.0)
    # 5 repeats of 64 floats reach element 256 of a 256-element tensor
    with pytest.raises(AscendSimError, match=r"Add: repeat 4, element 0 reads element 256 of a source "
                                             r"LocalTensor<float> of 256 elements") as e:
        K.repeat_forms[1](*args(64, 5))
    assert f"pyasc_api_kernels.py:{_rep_line()}" in str(e.value)
    # a continuous mask above one repeat's 64 floats
    with pytest.raises(AscendSimError, match=r"Add: mask 65 is outside \[0, 64\]"):
        K.repeat_forms[1](*args(65, 1))
    # dst block stride 0
    with pytest.raises(AscendSimError, match="dst block stride is 0"):
        K.repeat_forms[1](*args(64, 1, db=0))


def test_repeat_form_strided_read_past_the_tensor():
    """Copy with src block stride 2: the 8 blocks of one repeat span 15 blocks, past a 64-float tensor."""
    x = np.ones(64, np.float32)
    with pytest.raises(AscendSimError, match="reads element 64 of a source LocalTensor<float> of 64 elements"):
        K.repeat_forms[1](x, x, np.zeros(64, np.float32), 64, 0, 8, None, 64, 1, 1, 2, 8, 8, 0.0, 1.0)


# ------------------------------------------------------------------ TPipe destroy/init/reset, EnQue of a dequeued tensor, tensor methods

@pytest.mark.parametrize("blocks", [1, 3])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pipe_reuse_and_tensor_methods(d, blocks):
    n, rounds = 64, 3
    x = _rand(d, n * rounds * blocks, 3)
    z = np.zeros_like(x)
    K.pipe_reuse[blocks](x, z, n, rounds)
    ref = ((x.astype(np.float64) + 1) * 7).reshape(-1, n)
    ref[:, 16:32] = n
    ref[:, 32:48] = 64 // np.dtype(d).itemsize
    np.testing.assert_array_equal(z.reshape(-1, n), ref.astype(d))


# ------------------------------------------------------------------ Transpose

@pytest.mark.parametrize("d", [np.float16, np.int16], ids=lambda d: np.dtype(d).name)
def test_transpose_16x16(d):
    x = _rand(d, 256, 4)
    z = np.zeros_like(x)
    K.transposes[1](x, z, 256, 0, 0, 0, 0, 0)
    np.testing.assert_array_equal(z.reshape(16, 16), x.reshape(16, 16).T)


@pytest.mark.parametrize("shape", [(1, 16, 4, 4), (2, 3, 4, 8), (3, 5, 2, 16)])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_transpose_nchw_nhwc(d, shape):
    n, c, h, w = shape
    if (h * w * np.dtype(d).itemsize) % 32:
        pytest.skip("h * w * sizeof(T) must be a multiple of 32 B")
    x = _rand(d, n * c * h * w, 5)
    z = np.zeros_like(x)
    K.transposes[1](x, z, x.size, 1, n, c, h, w)
    np.testing.assert_array_equal(z, x.reshape(n, c, h, w).transpose(0, 2, 3, 1).reshape(-1))
    z2 = np.zeros_like(x)
    K.transposes[1](z, z2, x.size, 2, n, c, h, w)
    np.testing.assert_array_equal(z2, x)


def test_transpose_rules():
    x = np.ones(64, np.float32)
    with pytest.raises(AscendSimError, match=r"Transpose: hSize \* wSize \* sizeof\(T\) = 12 B is not 32-byte") as e:
        K.transposes[1](x, np.zeros_like(x), 64, 1, 1, 16, 1, 3)   # 1 x 16 x 1 x 3 floats: 12-byte rows
    assert f"pyasc_api_kernels.py:{_line('asc.transpose(zl, xl, tmp')}" in str(e.value)


# ------------------------------------------------------------------ TransDataTo5HD (lists of 16 tensors)

@pytest.mark.parametrize("hw", [16, 64])
@pytest.mark.parametrize("d", [np.float16, np.int16], ids=lambda d: np.dtype(d).name)
def test_trans_data_to_5hd(d, hw):
    """NCHW (16 channels) -> (HW, C0 = 16): repeat r reads block r of each channel, writes 16 rows of 16."""
    x = _rand(d, 16 * hw, 6)
    z = np.zeros_like(x)
    if hw == 16:
        # repeatTimes == 1: the one repeat starts one stride on, here one block past the start of each channel:
        # the last channel's tensor (x[240:], 16 elements) has no second block
        # (and Huawei's check asks 1 * 16 + 1 = 17 blocks of dstList[0], z's 16, before it gets there)
        with pytest.raises(AscendSimError, match=r"TransDataTo5HD: dstList\[0\] is a LocalTensor<\w+> of 256 "
                                                 r"elements \(512 B\), but each listed tensor must hold repeatTimes "
                                                 r"\* dstRepStride \+ 1 = 1 \* 16 \+ 1 = 17 DataBlocks") as e:
            K.to_5hd[1](x, z, hw, 1, 16, 1, 0)
        assert f"pyasc_api_kernels.py:{_line('asc.trans_data_to_5hd(dst, src')}" in str(e.value)
        K.to_5hd[1](x, z, hw, 1, 0, 0, 0)        # strides 0: the repeat starts at the lists
    else:
        K.to_5hd[1](x, z, hw, hw // 16, 16, 1, 256)
    np.testing.assert_array_equal(z, x.reshape(16, hw).T.reshape(-1))


@pytest.mark.parametrize("dst_stride, src_stride, room, which, have, rule", [
    # 4 repeats over 16 channels of 64 halves, srcList[i] = x[64 i:], dstList[j] = z[16 j:]: with dst stride 16 the
    # last repeat reaches 49 blocks of dstList[j] (z[16 j + 768:] + 16), within the buffer; Huawei asks 65 of each
    (16, 1, 0, "dstList[0]", "1024 elements (2048 B)", "repeatTimes * dstRepStride + 1 = 4 * 16 + 1 = 65 DataBlocks "
     "(2080 B)"),
    # 16 elements of room: dstList[0] has its 65th block, dstList[1] not (srcList[0] and [1] are checked first)
    (16, 1, 16, "dstList[1]", "1024 elements (2048 B)", "repeatTimes * dstRepStride + 1 = 4 * 16 + 1 = 65 "
     "DataBlocks (2080 B)"),
    (0, 16, 0, "srcList[0]", "1024 elements (2048 B)", "repeatTimes * srcRepStride + 1 = 4 * 16 + 1 = 65 DataBlocks "
     "(2080 B)"),
])
def test_trans_data_to_5hd_asks_one_stride_more_than_the_repeats_reach(dst_stride, src_stride, room, which, have,
                                                                        rule):
    x = _rand(np.float16, 16 * 64, 6)
    with pytest.raises(AscendSimError) as e:
        K.to_5hd[1](x, np.zeros_like(x), 64, 4, dst_stride, src_stride, room)
    assert f"TransDataTo5HD: {which} is a LocalTensor<half> of {have}, but each listed tensor must hold {rule}" \
        in str(e.value)
    assert f"pyasc_api_kernels.py:{_line('asc.trans_data_to_5hd(dst, src')}" in str(e.value)


# ------------------------------------------------------------------ SoftMax (adv)

@pytest.mark.parametrize("m,k,blocks", [(4, 64, 1), (3, 16, 4)])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_softmax_rows(d, m, k, blocks):
    rng = np.random.default_rng(12)
    x = rng.uniform(-4, 4, m * k * blocks).astype(d)
    epb = 32 // np.dtype(d).itemsize
    z = np.zeros_like(x)
    sums = np.zeros(m * epb * blocks, d)
    maxes = np.zeros_like(sums)
    K.softmax_rows[blocks](x, z, sums, maxes, m, k, 1)
    r = x.astype(np.float64).reshape(-1, k)
    mx = r.max(axis=1, keepdims=True)
    e = np.exp(r - mx)
    tol = 2e-3 if d == np.float16 else 1e-6
    np.testing.assert_allclose(z.reshape(-1, k).astype(np.float64), e / e.sum(axis=1, keepdims=True), rtol=tol,
                               atol=tol)
    np.testing.assert_allclose(sums.reshape(-1, epb).astype(np.float64), np.repeat(e.sum(axis=1, keepdims=True),
                               epb, axis=1), rtol=tol)
    np.testing.assert_array_equal(maxes.reshape(-1, epb), np.repeat(mx, epb, axis=1).astype(d))


def test_softmax_needs_a_shape():
    x = np.ones(64, np.float32)
    with pytest.raises(AscendSimError, match="SoftMax: the src tensor has no ShapeInfo") as e:
        K.softmax_rows[1](x, np.zeros_like(x), np.zeros(8, np.float32), np.zeros(8, np.float32), 1, 64, 0)
    assert f"pyasc_api_kernels.py:{_line('asc.adv.softmax(dst, sl, ml, src')}" in str(e.value)
