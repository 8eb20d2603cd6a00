"""asc.DataCopyPadParams (issue 38, item 7): DataCopyPad's DataCopyParams form, as Ascend C samples write it
(`DataCopyPad(local, gm, DataCopyParams{1, bytes, 0, 0}, DataCopyPadParams{false, 0, 0, 0})` in, `DataCopyPad(gm,
local, DataCopyParams{...})` out), at pyasc's path `asc.DataCopyPadParams(is_pad, left_padding, right_padding,
padding_value)`; emitted as AscendC::DataCopyPadParams and run by ascend-sim.

Ascend C's semantics (DataCopyPad docs, tables 5 and 7): blockLen in bytes, the GM-side stride in bytes, the UB-side
stride in 32-byte blocks; in UB a block is [left padding][data][right padding][dummy up to 32 bytes], the paddings
counted in elements, each at most 32 bytes; with is_pad the padding is the pad value, without it the padding is
undefined (ascend-sim: unwritten, so a read of it fails); padding_value is a uint64 documented as 0 only. The left
and right padding of DataCopyPadExtParams follow the same layout (ascend-sim ignored them before)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.runtime.ascend_sim import AscendSimError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def ragged_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
               cap: asc.ConstExpr[int]):
    """z = x + y, n elements per block (n need not fill 32 bytes), with the DataCopyParams form both ways."""
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, n)
    yg.set_global_buffer(y + off, n)
    zg.set_global_buffer(z + off, n)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qy, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, cap * x.dtype.sizeof())
    copy = asc.DataCopyParams(1, n * x.dtype.sizeof(), 0, 0)
    pad = asc.DataCopyPadParams(False, 0, 0, 0)
    a = qx.alloc_tensor(x.dtype)
    b = qy.alloc_tensor(x.dtype)
    asc.data_copy_pad(a, xg, copy, pad)
    asc.data_copy_pad(b, yg, copy, asc.DataCopyPadParams())
    qx.enque(a)
    qy.enque(b)
    a = qx.deque(x.dtype)
    b = qy.deque(x.dtype)
    c = qz.alloc_tensor(x.dtype)
    asc.add(c, a, b, n)
    qz.enque(c)
    qx.free_tensor(a)
    qy.free_tensor(b)
    c = qz.deque(x.dtype)
    asc.data_copy_pad(zg, c, copy)
    qz.free_tensor(c)


@asc.jit
def padded_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: asc.ConstExpr[int], cols: asc.ConstExpr[int],
                w: asc.ConstExpr[int], left: asc.ConstExpr[int], right: asc.ConstExpr[int], is_pad: asc.ConstExpr[int],
                ext: asc.ConstExpr[int], value: asc.ConstExpr[float]):
    """x is rows x cols; the first w columns of each row come in as one block each (GM stride (cols - w) elements),
    padded with `left` / `right` elements, and every row's 32-byte UB block goes out whole: z is rows x (32 B)."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, rows * 32)
    t = q.alloc_tensor(x.dtype)
    sz = x.dtype.sizeof()
    if ext:
        asc.data_copy_pad(t, xg, asc.DataCopyExtParams(rows, w * sz, (cols - w) * sz, 0, 0),
                          asc.DataCopyPadExtParams(x.dtype, is_pad == 1, left, right, value))
    else:
        asc.data_copy_pad(t, xg, asc.DataCopyParams(rows, w * sz, (cols - w) * sz, 0),
                          asc.DataCopyPadParams(is_pad == 1, left, right, 0))
    q.enque(t)
    t = q.deque(x.dtype)
    asc.data_copy_pad(zg, t, asc.DataCopyParams(rows, 32, 0, 0))
    q.free_tensor(t)


@asc.jit
def nonzero_pad_value(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 32)
    t = q.alloc_tensor(x.dtype)
    asc.data_copy_pad(t, xg, asc.DataCopyParams(1, 3 * 4, 0, 0), asc.DataCopyPadParams(True, 0, 5, 1))
    q.enque(t)
    t = q.deque(x.dtype)
    asc.data_copy_pad(zg, t, asc.DataCopyParams(1, 32, 0, 0))
    q.free_tensor(t)


def test_the_name_is_pyasc_s():
    assert asc.DataCopyPadParams.cname == "DataCopyPadParams"
    assert [f for f, _ in asc.DataCopyPadParams.fields] == ["is_pad", "left_padding", "right_padding",
                                                             "padding_value"]
    with pytest.raises(asc.UnsupportedError, match="inside an @asc.jit function"):
        asc.DataCopyPadParams(False, 0, 0, 0)


@pytest.mark.parametrize("dt,n", [(np.float32, 37), (np.float16, 13), (np.int32, 8), (np.float16, 64)])
def test_ragged_copy_with_the_data_copy_params_form(dt, n):
    cores = 4
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(cores * n) * 8).astype(dt)
    y = (rng.standard_normal(cores * n) * 8).astype(dt)
    z = np.zeros_like(x)
    ragged_add[cores](x, y, z, n, 64)
    np.testing.assert_array_equal(z, x + y)
    src = ragged_add.source(x, y, z, n, 64)
    assert src.count("AscendC::DataCopyPadParams(false, 0, 0, 0)") == 2      # the defaults written out
    assert "AscendC::DataCopyParams(1, " in src


def _expected(x, w, left, right, fill, width):
    rows = x.shape[0]
    out = np.full((rows, width), fill, x.dtype)
    out[:, left:left + w] = x[:, :w]
    return out


@pytest.mark.parametrize("ext", [0, 1])
@pytest.mark.parametrize("dt,w,left,right", [(np.float32, 5, 1, 2), (np.float32, 3, 0, 5), (np.float16, 9, 4, 3),
                                             (np.int32, 6, 2, 0)])
def test_left_and_right_padding_with_is_pad(ext, dt, w, left, right):
    rows, cols = 3, 11
    x = np.arange(rows * cols, dtype=dt).reshape(rows, cols) + 1
    width = 32 // x.itemsize
    z = np.zeros((rows, width), dt)
    value = -2.5 if ext and dt != np.int32 else (-3 if ext else 0)
    padded_rows[1](x, z, rows, cols, w, left, right, 1, ext, value)
    np.testing.assert_array_equal(z, _expected(x, w, left, right, value, width))


@pytest.mark.parametrize("ext", [0, 1])
def test_padding_without_is_pad_is_undefined_and_a_read_of_it_fails(ext):
    x = np.arange(33, dtype=np.float32).reshape(3, 11)
    z = np.zeros((3, 8), np.float32)
    with pytest.raises(AscendSimError, match="DataCopyPad.*never written"):
        padded_rows[1](x, z, 3, 11, 5, 1, 2, 0, ext, 0.0)
    np.testing.assert_array_equal(z, 0)


def test_no_padding_keeps_the_dummy_rule():
    """No left or right padding: the dummy after a ragged block repeats its first element (is_pad False)."""
    x = np.arange(33, dtype=np.float32).reshape(3, 11) + 1
    z = np.zeros((3, 8), np.float32)
    padded_rows[1](x, z, 3, 11, 5, 0, 0, 0, 0, 0.0)
    want = np.repeat(x[:, :1], 8, axis=1)
    want[:, :5] = x[:, :5]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("ext", [1, 0], ids=["ext-params", "pad-params"])
def test_is_pad_without_left_or_right_padding_keeps_the_first_element_dummy(ext):
    """is_pad with no left or right padding: the dummy still repeats the block's first element, not the pad value
    (the DataCopyPad docs' examples 2 and 3; Huawei's DataCopyPadGm2UBImpl gives the intrinsic only the paddings,
    is_pad just loads the pad register). ascend-sim filled it with the pad value."""
    x = np.arange(33, dtype=np.float32).reshape(3, 11) + 1
    z = np.zeros((3, 8), np.float32)
    padded_rows[1](x, z, 3, 11, 5, 0, 0, 1, ext, -2.5 if ext else 0.0)
    want = np.repeat(x[:, :1], 8, axis=1)
    want[:, :5] = x[:, :5]
    np.testing.assert_array_equal(z, want)


def test_a_nonzero_padding_value_is_refused_at_the_line():
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(8, np.float32)
    with pytest.raises(AscendSimError, match=r"paddingValue 1.*only value") as e:
        nonzero_pad_value[1](x, z)
    assert "test_pyasc_datacopy_pad_params.py" in str(e.value)
    np.testing.assert_array_equal(z, 0)
