"""AIPP's configuration (asc.set_aipp_functions with asc.AippParams and its parts): translated to Ascend C, checked
on the CPU twin as the asc-devkit docs state it (the source's element type is the format's uint8_t pixels,
YUV420SP takes two planes, the padding modes' ranges), each rule naming the call and the Python line; a DataCopy
after it copies as always (against NumPy, on 1 and many blocks). LoadImageToLocal, which applies the
configuration, is refused (not yet)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import AscError, KernelTypeError
from asc.runtime.ascend_sim import AscendSimError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def aipp_then_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
                   fmt: asc.ConstExpr[asc.AippInputFormat], out_dtype: asc.ConstExpr[asc.DataType],
                   padding_mode: asc.ConstExpr[int], two_planes: asc.ConstExpr[bool]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que=q, num=1, len=n * x.dtype.sizeof())
    cfg = asc.AippParams(dtype=out_dtype, padding_params=asc.AippPaddingParams(padding_mode=padding_mode),
                         swap_params=asc.AippSwapParams(is_swap_rb=True),
                         dtc_params=asc.AippDataTypeConvParams(dtc_mean_ch0=3, dtc_var_ch0=0.5),
                         csc_params=asc.AippColorSpaceConvParams(is_enable_csc=False, csc_matrix_r0_c0=-7))
    if two_planes:
        asc.set_aipp_functions(xg, xg, fmt, cfg)
    else:
        asc.set_aipp_functions(xg, fmt, cfg)
    xl = q.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, count=n)
    q.enque(xl)
    xl = q.deque(x.dtype)
    asc.data_copy(zg, xl, count=n)
    q.free_tensor(xl)


@asc.jit
def load_image(x: asc.GlobalAddress):
    asc.load_image_to_local(x)


F = asc.AippInputFormat


def _line(text):
    return next(i for i, s in enumerate(open(__file__), 1) if text in s)


@pytest.mark.parametrize("fmt,two", [(F.RGB888_U8, False), (F.XRGB8888_U8, False), (F.YUV400_U8, False),
                                     (F.YUV420SP_U8, True)])
@pytest.mark.parametrize("out", [asc.int8, asc.float16, asc.uint8])
@pytest.mark.parametrize("n,blocks", [(16 * 16 * 3, 1), (64, 5)])
def test_configuration_then_copy(fmt, two, out, n, blocks):
    x = np.random.default_rng(n).integers(0, 256, n * blocks).astype(np.uint8)
    z = np.zeros_like(x)
    aipp_then_copy[blocks](x, z, n, fmt, out, 0, two)
    np.testing.assert_array_equal(z, x)


def test_emitted_source():
    src = aipp_then_copy.source(np.zeros(64, np.uint8), np.zeros(64, np.uint8), 64, F.RGB888_U8, asc.int8, 2,
                                False)
    assert "AscendC::AippParams<int8_t> cfg = AscendC::AippParams<int8_t>{AscendC::AippPaddingParams<int8_t>{" \
           "static_cast<uint32_t>(2), static_cast<int8_t>(0)" in src
    assert "AscendC::AippSwapParams{true, false, false}" in src
    assert "static_cast<uint8_t>(3)" in src and "static_cast<int16_t>(-7)" in src
    assert "AscendC::SetAippFunctions(xg, AscendC::AippInputFormat::RGB888_U8, cfg);" in src


@pytest.mark.parametrize("dt", [np.int8, np.float16])
def test_source_element_type_is_the_formats(dt):
    x = np.zeros(64, dt)
    with pytest.raises(AscendSimError, match=r"SetAippFunctions: the source image is a GlobalTensor<(int8_t|half)>: "
                                             r"the template type T must be the pixel type of the format RGB888_U8, "
                                             r"uint8_t") as e:
        aipp_then_copy[1](x, np.zeros_like(x), 64, F.RGB888_U8, asc.int8, 0, False)
    assert f"test_pyasc_aipp.py:{_line('asc.set_aipp_functions(xg, fmt, cfg)')}" in str(e.value)


def test_yuv420sp_takes_two_planes():
    x = np.zeros(64, np.uint8)
    with pytest.raises(AscendSimError, match=r"SetAippFunctions: YUV420SP_U8 takes two GlobalTensors") as e:
        aipp_then_copy[1](x, np.zeros_like(x), 64, F.YUV420SP_U8, asc.int8, 0, False)
    assert f"test_pyasc_aipp.py:{_line('asc.set_aipp_functions(xg, fmt, cfg)')}" in str(e.value)


def test_padding_mode_range():
    x = np.zeros(64, np.uint8)
    z = np.ones_like(x)
    with pytest.raises(AscendSimError, match=r"SetAippFunctions: paddingMode 4 is outside \[0, 3\]"):
        aipp_then_copy[1](x, z, 64, F.RGB888_U8, asc.float16, 4, False)
    assert (z == 1).all()


def test_output_type_checked():
    x = np.zeros(64, np.uint8)
    with pytest.raises(KernelTypeError, match=r"asc.AippParams: dtype \(the output pixel type\) must be asc.int8"):
        aipp_then_copy[1](x, np.zeros_like(x), 64, F.RGB888_U8, asc.float32, 0, False)


def test_load_image_to_local_not_yet():
    with pytest.raises(AscError, match=r"load_image_to_local is not supported yet") as e:
        load_image[1](np.zeros(64, np.uint8))
    assert f"test_pyasc_aipp.py:{_line('asc.load_image_to_local(x)')}" in str(e.value)
