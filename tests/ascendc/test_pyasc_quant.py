"""asc.adv.quant (AscendC::AscendQuant, per tensor: int8 output, half or float input, scalar scale and offset) and
asc.adv.QuantConfig on the CPU twin, against a NumPy model written from the Ascend C docs: float input cast to half
first, scale and offset in half, the product and the sum each rounded to half, the final cast to int8 rounded to
nearest even and saturated. float16 and float32, counts of one and several chunks of the temporary buffer (with a
tail), 1 and 4 blocks, values on the .5 ties and past the int8 range; each rule names AscendQuant (or asc.adv.quant)
and the Python line (tests/ascendc/pyasc_quant_kernels.py)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import KernelTypeError
from asc.runtime.ascend_sim import AscendSimError

import pyasc_quant_kernels as K


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def _line(text):
    return next(i for i, s in enumerate(open(K.__file__), 1) if text in s)


def quant_ref(x, scale, offset):
    """AscendQuant's per-tensor computation on A2 (asc-devkit: AscendQuant.md, the v220 implementation)."""
    s = np.float16(np.float32(scale))          # the C parameters are float, static_cast to half
    o = np.float16(np.float32(offset))
    h = x.astype(np.float16)                   # Cast<half, float>(CAST_NONE): to nearest even (half: itself)
    m = (h.astype(np.float32) * np.float32(s)).astype(np.float16)      # Muls in half
    a = (m.astype(np.float32) + np.float32(o)).astype(np.float16)      # Adds in half
    r = np.rint(a.astype(np.float32))          # Cast<int8_t, half>(CAST_NONE): to nearest even ...
    return np.clip(r, -128, 127).astype(np.int8)                        # ... saturated


def _ties(x, scale, offset):
    """How many elements reach the final cast exactly half-way between two integers."""
    s, o = np.float16(np.float32(scale)), np.float16(np.float32(offset))
    m = (x.astype(np.float16).astype(np.float32) * np.float32(s)).astype(np.float16)
    a = (m.astype(np.float32) + np.float32(o)).astype(np.float16).astype(np.float32)
    return int(np.sum(a - np.floor(a) == 0.5))


def _data(d, total, seed):
    """Random values in [-80, 80) (scaled past the int8 range both ways), a quarter k + 0.5 and a quarter 4k + 1
    (on the .5 ties of the final cast for scale 1 / offset 0.5 and scale 0.75 / offset -3.25), and 63.75, -64.25,
    300, -300."""
    rng = np.random.default_rng(seed)
    x = (rng.random(total) * 160 - 80).astype(d)
    k = total // 4
    x[:k] = rng.integers(-40, 40, k).astype(d) + d(0.5)
    x[k:2 * k] = (4 * rng.integers(-10, 10, k) + 1).astype(d)
    x[2 * k:2 * k + 4] = [63.75, -64.25, 300, -300]
    return x


@pytest.mark.parametrize("n,blocks,tmp", [(32, 1, 512), (64, 4, 512), (288, 1, 512), (1056, 4, 1024),
                                          (2048, 1, 4096)])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scale,offset", [(2.0, 0.9), (1.0, 0.5), (0.75, -3.25)])
def test_quant_per_tensor(d, n, blocks, tmp, scale, offset):
    x = _data(d, n * blocks, n + blocks)
    z = np.zeros(n * blocks, np.int8)
    K.quant_blocks[blocks](x, z, n, n, n, tmp, scale, offset, 0, None)
    want = quant_ref(x, scale, offset)
    np.testing.assert_array_equal(z, want)
    assert (want == 127).any() and (want == -128).any()
    if (scale, offset) != (2.0, 0.9):
        assert _ties(x, scale, offset) >= n * blocks // 4


def test_float_input_goes_through_half():
    """float32 values half-way between two halves round to the even one before the scale: 2.5 + 2**-10 becomes
    2.5 (to 2 after the cast), where float32 arithmetic would give 3."""
    x = np.full(32, 2.5 + 2.0 ** -10, np.float32)
    x[16:] = -(3.5 + 2.0 ** -9)                 # half-way between -3.5 and -3.50390625: to -3.5, then to -4
    z = np.zeros(32, np.int8)
    K.quant_blocks[1](x, z, 32, 32, 32, 512, 1.0, 0.0, 0, None)
    np.testing.assert_array_equal(z, np.r_[np.full(16, 2), np.full(16, -4)].astype(np.int8))
    np.testing.assert_array_equal(z, quant_ref(x, 1.0, 0.0))


@pytest.mark.parametrize("form", [1, 2, 3, 5])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_quant_forms(d, form):
    """With a QuantConfig built on the host (1) or in the kernel (5: calc_count and work_local_size both set: the
    constant path, chunks of work_local_size), without the temporary buffer (2), without the count (3: all of
    src)."""
    n, blocks = 576, 2
    x = _data(d, n * blocks, 7)
    z = np.zeros(n * blocks, np.int8)
    cfg = asc.adv.QuantConfig(n, 0, 0, 512)
    K.quant_blocks[blocks](x, z, n, n, n, 1024, 2.0, 0.9, form, cfg if form == 1 else None)
    np.testing.assert_array_equal(z, quant_ref(x, 2.0, 0.9))


def test_config_calc_count_replaces_count():
    """calc_count and work_local_size both set: AscendQuant computes calc_count elements (here all 64), not count
    (32): the constant path of the docs."""
    x = _data(np.float16, 64, 5)
    z = np.zeros(64, np.int8)
    K.quant_blocks[1](x, z, 64, 32, 64, 512, 2.0, 0.9, 1, asc.adv.QuantConfig(64, 0, 0, 512))
    np.testing.assert_array_equal(z, quant_ref(x, 2.0, 0.9))


@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_quant_in_place(d):
    n = 1024                                    # 4 chunks of the 512-byte temporary buffer
    x = _data(d, n, 3)
    z = np.zeros(n, np.int8)
    K.quant_in_place[1](x, z, n, 2.0, 0.9)
    np.testing.assert_array_equal(z, quant_ref(x, 2.0, 0.9))


@pytest.mark.parametrize("cols", [8, 40])
def test_local_tensor_auto_of_a_run_time_shape(cols):
    x = _data(np.float16, 4 * cols, cols)
    z = np.zeros(4 * cols, np.int8)
    K.quant_dynamic_len[1](x, z, 4, cols, 512)
    np.testing.assert_array_equal(z, quant_ref(x, 2.0, 0.9))
    src = next(iter(K.quant_dynamic_len.cache.values())).text
    assert "InitBuffer(asc_auto_buf_0, static_cast<uint32_t>((4) * (cols) * 2))" in src, src


def test_local_tensor_auto_length_from_a_local_is_refused():
    with pytest.raises(KernelTypeError, match="computed from the kernel's scalar parameters.*not from m") as e:
        K.auto_len_from_local[1](np.zeros(64, np.float32), 8)
    assert f"pyasc_quant_kernels.py:{_line('t = asc.LocalTensorAuto(x.dtype, m)')}" in str(e.value)


# ------------------------------------------------------------------ the rules

def _sim_rule(rule, line_text, *args, form=0, cfg=None):
    n, cnt, cap, tmp = args
    with pytest.raises(AscendSimError, match=rule) as e:
        K.quant_blocks[1](np.ones(cap, np.float16), np.zeros(cap, np.int8), n, cnt, cap, tmp, 2.0, 0.9, form, cfg)
    msg = str(e.value)
    assert "AscendQuant" in msg, msg
    assert f"pyasc_quant_kernels.py:{_line(line_text)}" in msg, msg


def test_rule_tmp_too_small():
    _sim_rule("sharedTmpBuffer has 480 B: AscendQuant needs at least 512 B", "asc.adv.quant(zl, xl, scale, offset, "
              "cnt, tmp)", 64, 64, 64, 480)


def test_rule_count_not_32_byte_aligned():
    _sim_rule("calCount is 48: the int8_t output of 48 B is not 32-byte aligned",
              "asc.adv.quant(zl, xl, scale, offset, cnt, tmp)", 64, 48, 64, 512)


def test_rule_count_past_the_tensors():
    _sim_rule("calCount is 96, above the 64 elements of srcTensor", "asc.adv.quant(zl, xl, scale, offset, cnt, tmp)",
              64, 96, 64, 512)


def test_rule_tmp_overlapping_src():
    _sim_rule("of sharedTmpBuffer the call uses overlap srcTensor",
              "asc.adv.quant(zl, xl, scale, offset, cnt, xl.reinterpret_cast", 256, 256, 256, 512, form=4)


@pytest.mark.parametrize("cfg,rule", [
    ((32, 0, 0, 1024), "config.workLocalSize is 1024 B, above the 512 B of sharedTmpBuffer"),
    ((32, 0, 0, 256), "config.workLocalSize is 256 B: the temporary space must be at least 512 B"),
    ((96, 0, 0, 512), "config.calcCount is 96, above the 64 elements of srcTensor"),
    ((48, 0, 0, 512), "config.calcCount is 48: the int8_t output of 48 B is not 32-byte aligned"),
    ((32, 0, 0, 512, 96), "calCount is 96, above the 64 elements of srcTensor"),
])
def test_rule_config(cfg, rule):
    cnt = cfg[4] if len(cfg) > 4 else 64
    _sim_rule(rule, "asc.adv.quant(zl, xl, scale, offset, cnt, tmp, config=cfg)", 64, cnt, 64, 512, form=1,
              cfg=asc.adv.QuantConfig(*cfg[:4]))


@pytest.mark.parametrize("xd,zd,td,rule", [
    (np.int16, np.int8, asc.uint8, "src is int16: AscendQuant quantizes half or float"),
    (np.float16, np.float16, asc.uint8, "dst is float16: the per-tensor AscendQuant of A2 writes int8"),
    (np.float32, np.int8, asc.float16, "temp_buffer is float16: AscendQuant's sharedTmpBuffer is a uint8 tensor"),
])
def test_rule_types(xd, zd, td, rule):
    with pytest.raises(KernelTypeError, match=rule) as e:
        K.quant_types[1](np.zeros(64, xd), np.zeros(64, zd), 64, td)
    assert f"pyasc_quant_kernels.py:{_line('asc.adv.quant(zl, xl, 2.0, 0.5, n, tmp)')}" in str(e.value)


def test_quant_config_fields_are_checked():
    with pytest.raises(ValueError, match="work_local_size must be a compile-time uint32"):
        asc.adv.QuantConfig(32, 0, 0, -1)
