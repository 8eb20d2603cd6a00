"""TransDataTo5HD in its address-tensor form (two LocalTensor<uint64_t> of 16 UB addresses, stored with
set_value(i, tensor[offset].get_phy_addr())): NCHW -> NC1HWC0 against NumPy on the CPU twin, on 1 and many blocks,
and its rules (misaligned or unwritten addresses, unwritten source blocks, element types it does not take), each
naming the call and the Python line."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import KernelTypeError, UnsupportedError
from asc.runtime.ascend_sim import AscendSimError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def nchw_to_nc1hwc0(x: asc.GlobalAddress, z: asc.GlobalAddress, c: asc.ConstExpr[int], hw: asc.ConstExpr[int],
                    src_shift: asc.ConstExpr[int], bad_addr: asc.ConstExpr[int], n_addr: asc.ConstExpr[int]):
    """One image (c channels of hw elements) per block: z[c1, hw, 16] = x[c1 * 16 + c0, hw]."""
    per = c * hw
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * per, per)
    zg.set_global_buffer(z + asc.get_block_idx() * per, per)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    qa = asc.TQue(asc.TPosition.VECCALC, 1)
    qb = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(que=qx, num=1, len=per * x.dtype.sizeof())
    pipe.init_buffer(que=qz, num=1, len=per * z.dtype.sizeof())
    pipe.init_buffer(que=qa, num=1, len=16 * asc.uint64.sizeof())
    pipe.init_buffer(que=qb, num=1, len=16 * asc.uint64.sizeof())
    xl = qx.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, count=per)
    qx.enque(xl)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(z.dtype)
    params = asc.TransDataTo5HDParams(dst_high_half=False, src_high_half=False, repeat_times=hw // 16,
                                      dst_rep_stride=16, src_rep_stride=1)
    for j in range(c // 16):
        dst_addr = qa.alloc_tensor(asc.uint64)
        src_addr = qb.alloc_tensor(asc.uint64)
        for i in range(n_addr):
            dst_addr.set_value(i, zl[j * 16 * hw + 16 * i].get_phy_addr())
            src_addr.set_value(i, xl[j * 16 * hw + hw * i + src_shift].get_phy_addr())
        if bad_addr > 0:
            src_addr.set_value(0, bad_addr)
        asc.trans_data_to_5hd(dst_addr, src_addr, params)
        qa.free_tensor(dst_addr)
        qb.free_tensor(src_addr)
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(z.dtype)
    asc.data_copy(zg, zl, count=per)
    qz.free_tensor(zl)


@asc.jit
def addresses_unknown(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    qa = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(que=qa, num=2, len=16 * asc.uint64.sizeof())
    a = qa.alloc_tensor(asc.uint64)
    b = qa.alloc_tensor(asc.uint64)
    asc.trans_data_to_5hd(a, b, asc.TransDataTo5HDParams(False, False, 1, 0, 0))


def _line(text):
    return next(i for i, s in enumerate(open(__file__), 1) if text in s)


def _ref(x, n, c, hw):
    return x.reshape(n, c // 16, 16, hw).transpose(0, 1, 3, 2).reshape(-1)


@pytest.mark.parametrize("n,c,hw", [(1, 16, 32), (3, 32, 48), (2, 48, 256)])
@pytest.mark.parametrize("d", [np.float16, np.int16, np.uint16], ids=lambda d: np.dtype(d).name)
def test_nchw_to_nc1hwc0(d, n, c, hw):
    rng = np.random.default_rng(n * 100 + c + hw)
    if np.dtype(d).kind == "f":
        x = rng.standard_normal(n * c * hw).astype(d)
    else:
        x = rng.integers(0, 30000, n * c * hw).astype(d)
    z = np.zeros_like(x)
    nchw_to_nc1hwc0[n](x, z, c, hw, 0, 0, 16)
    np.testing.assert_array_equal(z, _ref(x, n, c, hw))


def test_torch_bfloat16():
    torch = pytest.importorskip("torch")
    x = torch.randn(2 * 32 * 32).to(torch.bfloat16)
    z = torch.zeros_like(x)
    nchw_to_nc1hwc0[2](x, z, 32, 32, 0, 0, 16)
    ref = x.reshape(2, 2, 16, 32).permute(0, 1, 3, 2).reshape(-1)
    assert torch.equal(z, ref)


def test_emitted_source_names_the_element_type():
    src = nchw_to_nc1hwc0.source(np.zeros(256, np.float16), np.zeros(256, np.float16), 16, 16, 0, 0, 16)
    assert "AscendC::TransDataTo5HD<half>(dst_addr, src_addr, params)" in src
    assert "((uint64_t)(zl[" in src


RULE_LINE = "asc.trans_data_to_5hd(dst_addr, src_addr, params)"


@pytest.mark.parametrize("hw,shift,bad,n_addr,rule", [
    (32, 8, 0, 16, r"TransDataTo5HD: srcList\[0\] = UB address \d+ is not 32-byte aligned"),
    (32, 0, 196608, 16, r"TransDataTo5HD: srcList\[0\]: the DataBlock at UB address 196608 is not inside the "
                        r"196608 B Unified Buffer"),
    # repeatTimes == 1: the one repeat starts one srcRepStride further on (the docs), past the last channel's data
    (16, 0, 0, 16, r"TransDataTo5HD: srcList\[15\]: reads UB byte \d+, which was never written"),
    (32, 0, 0, 15, r"TransDataTo5HD: reads element 15 of a LocalTensor<uint64_t> .* never written"),
])
def test_rules(hw, shift, bad, n_addr, rule):
    x = np.arange(16 * hw, dtype=np.float16)
    z = np.zeros_like(x)
    with pytest.raises(AscendSimError, match=rule) as e:
        nchw_to_nc1hwc0[1](x, z, 16, hw, shift, bad, n_addr)
    assert f"test_pyasc_5hd_addr.py:{_line(RULE_LINE)}" in str(e.value)
    assert not z.any()                        # a kernel that breaks a rule leaves the caller's data unchanged


def test_element_type_unknown():
    with pytest.raises(KernelTypeError, match=r"element type of the address tensors is unknown") as e:
        addresses_unknown[1](np.zeros(16, np.float16), np.zeros(16, np.float16))
    assert f"test_pyasc_5hd_addr.py:{_line('asc.trans_data_to_5hd(a, b')}" in str(e.value)


def test_32_bit_refused():
    x = np.zeros(16 * 16, np.float32)
    with pytest.raises(UnsupportedError, match=r"float32 elements: asc emulates TransDataTo5HD for 16-bit") as e:
        nchw_to_nc1hwc0[1](x, np.zeros_like(x), 16, 16, 0, 0, 16)
    assert f"test_pyasc_5hd_addr.py:{_line(RULE_LINE)}" in str(e.value)
