"""pyasc's int8 cube path on the CPU twin: int8 A and B (values over -128..127) through Nd2Nz (16 x 32 int8
fractals), load_data, mmad into an int32 L0C (exact), and Fixpipe's pre-quantization modes: int32 out (NoQuant),
DEQF16 (deq_scalar) and VDEQF16 (one uint64 word per column in L1) to float16, REQ8 / VREQ8 to int8 and uint8,
QF322B8_PRE / VQF322B8_PRE from a float L0C to int8, each compared with a NumPy reference written from the Fixpipe
docs' arithmetic (the scale is the word's bits [31:13]: 1 sign, 8 exponent, 10 mantissa bits; M2 = M1, or 0 with
ReLU, for values below 0; round to nearest even; saturation); sizes with tails in M, N and K; one and several
cores; each rule firing with the call and the Python line."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import CompileError
from asc.runtime.ascend_sim import AscendSimError

import pyasc_cube_int8_kernels as K

Q = asc.QuantModes


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


# ------------------------------------------------------------------ the documented arithmetic, in NumPy

def word(scale, signed=False, extra=0):
    """The quantization word of a float32 scale: its 32 bits, bit 46 the Sign (1: int8 result), plus `extra`."""
    bits = int(np.array(scale, np.float32).view(np.uint32))
    return bits | (int(signed) << 46) | extra


def m1_of(w):
    """The scale the hardware multiplies by: bits [31:13] of the word as a float32 (the low 13 mantissa bits
    cleared: 1 + 8 + 10 bits)."""
    return np.array(int(w) & 0xFFFFE000, np.uint32).view(np.float32)


def pre_scale(x, m1, relu):
    """x (float32) times M1 where x >= 0, times M2 below (M2 = M1, or 0 with ReLU), in float32; m1 is one scale or
    one per column."""
    x = x.astype(np.float32)
    m1 = np.broadcast_to(np.asarray(m1, np.float32), x.shape)
    m2 = np.zeros_like(m1) if relu else m1
    return (x * np.where(x >= 0, m1, m2)).astype(np.float32)


def ref_deqf16(acc, m1, relu=False):
    """(V)DEQF16: the int32 converted to float32, scaled, to float16 (nearest even), saturating at +-65504."""
    y = pre_scale(acc.astype(np.float32), m1, relu)
    return np.clip(y, -65504, 65504).astype(np.float16)


def ref_b8(x, m1, dt, relu=False):
    """(V)REQ8 / (V)QF322B8_PRE: scaled, clamped to [-256, 255], rounded to nearest even, saturated to int8 or
    uint8 (Offset 0)."""
    y = np.rint(np.clip(pre_scale(x, m1, relu), -256, 255))
    lo, hi = (-128, 127) if dt == np.int8 else (0, 255)
    return np.clip(y, lo, hi).astype(dt)


def operands(m, n, k, seed=0, cores=1, span=128):
    """A (cores * m x k) and B (k x n) int8 covering -span..span-1 (by default -128..127, the extremes included)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-span, span, (cores * m, k)).astype(np.int8)
    b = rng.integers(-span, span, (k, n)).astype(np.int8)
    a[0, :4] = [-span, span - 1, -span, span - 1]
    b[:4, 0] = [-span, -span, span - 1, span - 1]
    return a, b


def run(m, n, k, quant=Q.NoQuant, c_dt=np.int32, deq=0, words=None, steps=1, cores=1, relu=False, seed=0,
        span=128):
    a, b = operands(m, n, k, seed, cores, span)
    c = np.zeros((cores * m, n), c_dt)
    w = np.zeros((n + 15) // 16 * 16, np.uint64)
    if words is not None:
        w[:n] = words
    K.mm_int8[cores, rt.current_stream()](a, np.ascontiguousarray(b.T), c, w, m, n, k, steps, quant, deq, relu)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    assert np.abs(acc).max() < 2 ** 31
    return c, acc.astype(np.int32)


# ------------------------------------------------------------------ int8 x int8 -> int32

@pytest.mark.parametrize("m,n,k,steps", [(16, 16, 32, 1), (32, 48, 64, 1), (32, 48, 128, 2), (20, 40, 50, 1),
                                         (17, 33, 95, 1), (48, 16, 200, 1)])
def test_int8_to_int32_exact(m, n, k, steps):
    c, acc = run(m, n, k, steps=steps)
    assert (c == acc).all()


def test_int8_to_int32_several_cores():
    c, acc = run(24, 40, 72, cores=3, seed=1)
    assert (c == acc).all()


def test_k_steps_accumulate():
    # the second K step's products are in C: not the first step's alone
    c, acc = run(32, 32, 64, steps=2, seed=2)
    a, b = operands(32, 32, 64, 2)
    first = a[:, :32].astype(np.int32) @ b[:32].astype(np.int32)
    assert (c == acc).all() and (c != first).any()


def test_relu_on_int32():
    c, acc = run(32, 32, 64, relu=True, seed=3)
    assert (c == np.maximum(acc, 0)).all() and (acc < 0).any()


# ------------------------------------------------------------------ DEQF16 / VDEQF16

@pytest.mark.parametrize("scale", [2.0 ** -10, 0.0012345, 0.37, 3.1])
def test_deqf16_scalar(scale):
    w = word(scale)
    c, acc = run(20, 40, 50, Q.DEQF16, np.float16, deq=w)
    ref = ref_deqf16(acc, m1_of(w))
    assert np.array_equal(c.view(np.uint16), ref.view(np.uint16))
    if scale == 3.1:
        assert (np.abs(c) == 65504).any()            # saturated, not inf
        assert np.isfinite(c.astype(np.float32)).all()


def test_deqf16_uses_only_ten_mantissa_bits():
    scale = np.float32(0.0012345)
    assert m1_of(word(scale)) != scale               # the low 13 bits are not all zero
    c, acc = run(32, 48, 64, Q.DEQF16, np.float16, deq=word(scale), seed=4)
    full = np.clip(acc.astype(np.float32) * scale, -65504, 65504).astype(np.float16)
    assert np.array_equal(c, ref_deqf16(acc, m1_of(word(scale)))) and not np.array_equal(c, full)


@pytest.mark.parametrize("relu", [False, True])
def test_vdeqf16_per_column(relu):
    n = 40
    scales = np.float32(2.0) ** -np.arange(6, 6 + n, dtype=np.float32) * (1 + np.arange(n) / 7)
    scales[::5] *= -1                                  # negative scales too
    words = [word(s) for s in scales]
    c, acc = run(20, n, 50, Q.VDEQF16, np.float16, words=words, relu=relu, seed=5)
    ref = ref_deqf16(acc, np.array([m1_of(w) for w in words]), relu)
    assert np.array_equal(c.view(np.uint16), ref.view(np.uint16))


def test_vdeqf16_several_cores():
    n = 32
    words = [word(2.0 ** -8 * (1 + j / 32)) for j in range(n)]
    c, acc = run(16, n, 64, Q.VDEQF16, np.float16, words=words, cores=4, seed=6)
    assert np.array_equal(c, ref_deqf16(acc, np.array([m1_of(w) for w in words])))


# ------------------------------------------------------------------ REQ8 / VREQ8 and (V)QF322B8_PRE

@pytest.mark.parametrize("dt", [np.int8, np.uint8])
def test_req8_scalar(dt):
    w = word(1 / 250, signed=dt == np.int8)
    c, acc = run(20, 40, 50, Q.REQ8, dt, deq=w, seed=7)
    ref = ref_b8(acc, m1_of(w), dt)
    assert np.array_equal(c, ref)
    lo, hi = (-128, 127) if dt == np.int8 else (0, 255)
    assert (c == lo).any() and (c == hi).any() and ((c > lo) & (c < hi)).any()   # saturated and in range


def test_vreq8_per_column_with_relu():
    n = 48
    words = [word(1 / (500 + 97 * j), signed=True) for j in range(n)]
    c, acc = run(32, n, 96, Q.VREQ8, np.int8, words=words, relu=True, seed=8)
    assert np.array_equal(c, ref_b8(acc, np.array([m1_of(w) for w in words]), np.int8, relu=True))
    assert (c == 0).sum() >= (acc < 0).sum()


def test_req8_rounds_to_nearest_even():
    # small operands and a scale of 1/8: many products land on a .5, and those go to the even neighbour
    c, acc = run(16, 16, 32, Q.REQ8, np.int8, deq=word(0.125, signed=True), seed=9, span=8)
    y = acc.astype(np.float32) * np.float32(0.125)
    tie = (np.abs(y - np.trunc(y)) == 0.5) & (np.abs(y) < 127)
    assert tie.sum() >= 10 and (c[tie] % 2 == 0).all()
    assert np.array_equal(c, ref_b8(acc, m1_of(word(0.125)), np.int8))


def f16_operands(seed=10):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    return a, b


@pytest.mark.parametrize("vector", [False, True])
def test_qf322b8_from_a_float_l0c(vector):
    a, b = f16_operands()
    c = np.zeros((32, 32), np.int8)
    words = [word(9.5 + j / 4, signed=True) for j in range(32)]
    w = np.array(words if vector else [0] * 32, np.uint64)
    quant = Q.VQF322B8_PRE if vector else Q.QF322B8_PRE
    K.mm_f16_to_b8[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, w, quant, words[0])
    # the float L0C: the float16 products are exact in float32; ascend-sim sums them in K order, rounding each sum
    acc = np.zeros((32, 32), np.float32)
    for i in range(32):
        acc = (acc + a[:, i:i + 1].astype(np.float32) * b[i:i + 1, :].astype(np.float32)).astype(np.float32)
    m1 = np.array([m1_of(x) for x in words]) if vector else m1_of(words[0])
    assert np.array_equal(c, ref_b8(acc, m1, np.int8))
    assert (c == 127).any() and (c == -128).any() and ((c > -128) & (c < 127)).any()


# ------------------------------------------------------------------ the source

def test_the_source_is_canns_api():
    a, b = operands(16, 16, 32)
    c = np.zeros((16, 16), np.float16)
    w = np.zeros(16, np.uint64)
    src = K.mm_int8.source(a, np.ascontiguousarray(b.T), c, w, 16, 16, 32, 1, Q.VDEQF16, 0)
    for call in ("AscendC::Mmad(c1, a2, b2, AscendC::MmadParams(16, 16, 32, 0, false, ((s == 0))));",
                 "AscendC::FixpipeParamsV220(16, 16, 16, 16, false, QuantMode_t::VDEQF16, 0, 1, 0, 0, 0, "
                 "false)",
                 "AscendC::Fixpipe(gc[((blk * 16) * 16)], c1, w1, p);",
                 "AscendC::DataCopy(a1, ga[(((blk * 16) * 32) + (s * 32))], AscendC::Nd2NzParams(1, 16, 32, 0, 32, "
                 "16, 1, 0));"):
        assert call in src, call
    src = K.mm_int8.source(a, np.ascontiguousarray(b.T), c, w, 16, 16, 32, 1, Q.DEQF16, word(0.5))
    assert f"QuantMode_t::DEQF16, {word(0.5)}, 1, 0, 0, 0, false)" in src


# ------------------------------------------------------------------ the rules

def line_of(rule):
    src, first = inspect.getsourcelines(K)
    hits = [(first or 1) + i for i, s in enumerate(src) if s.rstrip().endswith(f"# RULE: {rule}")]
    assert len(hits) == 1, rule
    return f"pyasc_cube_int8_kernels.py:{hits[0]}"


def broken(case, quant=Q.NoQuant, deq=0, c_dt=np.int32, words=None, raises=AscendSimError):
    a, b = operands(32, 32, 32)
    c = np.zeros((32, 32), c_dt)
    w = np.zeros(32, np.uint64) if words is None else np.array(words, np.uint64)
    with pytest.raises(raises) as e:
        K.broken[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, w, case, quant, deq)
    return str(e.value)


def test_the_broken_kernel_runs_when_nothing_is_broken():
    a, b = operands(32, 32, 32)
    c = np.zeros((32, 32), np.int32)
    K.broken[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, np.zeros(32, np.uint64), "ok")
    assert (c == a.astype(np.int32) @ b.astype(np.int32)).all()


@pytest.mark.parametrize("case,c_dt,words", [
    ("l0c_float", np.int32, "asc.mmad: dst (L0C) holds float32: int8 operands accumulate in int32"),
    ("uint8_operands", np.int32, "asc.mmad of uint8 operands is not supported"),
    ("pair", "bfloat16", "asc.fixpipe: an int32 L0C goes to int32, float16, int8, uint8 in GM, not bfloat16"),
    ("ws_dtype", np.float16, "asc.fixpipe: cbuf_workspace holds int32: the quantization words are uint64"),
])
def test_translator_rules(case, c_dt, words):
    if c_dt == "bfloat16":
        from asc.dtypes import bfloat16_np
        c_dt = bfloat16_np()
    msg = broken(case, c_dt=c_dt, raises=CompileError)
    assert line_of(case) in msg and words in msg, msg


@pytest.mark.parametrize("case,quant,deq,c_dt,words", [
    ("transpose_b8", Q.NoQuant, 0, np.int32, "LoadData: ifTranspose transposes fractals of 16-bit data only"),
    ("pair", Q.DEQF16, word(1.0), np.int32, "Fixpipe: an int32_t output needs NoQuant, not DEQF16"),
    ("pair", Q.NoQuant, 0, np.float16,
     "Fixpipe: an int32_t L0C to a half output needs quantPre = DEQF16 or VDEQF16, not NoQuant"),
    ("pair", Q.DEQF16, word(1.0), np.int8,
     "Fixpipe: an int32_t L0C to an int8_t output needs quantPre = REQ8 or VREQ8, not DEQF16"),
    ("pair", Q.QF322B8_PRE, word(1.0, True), np.int8,
     "Fixpipe: an int32_t L0C to an int8_t output needs quantPre = REQ8 or VREQ8, not QF322B8_PRE"),
    ("vector_without_ws", Q.VDEQF16, 0, np.float16,
     "Fixpipe: quantPre = VDEQF16 takes its per-column scales from a cbufWorkspace"),
    ("ws_with_scalar", Q.DEQF16, word(1.0), np.float16,
     "Fixpipe: a cbufWorkspace is used with quantPre VDEQF16, VQF322B8_PRE or VREQ8 only, not DEQF16"),
    ("pair", Q.REQ8, word(0.01), np.int8,
     "Fixpipe: deqScalar: the Sign bit (46) is 0 but the output is int8_t (1: int8_t, 0: uint8_t)"),
    ("pair", Q.REQ8, word(0.01, True), np.uint8, "Fixpipe: deqScalar: the Sign bit (46) is 1 but the output is uint8_t"),
    ("pair", Q.DEQF16, word(np.inf), np.float16, "Fixpipe: deqScalar: the scale (bits [31:13]) is inf or nan"),
    ("pair", Q.DEQF16, word(1e-39), np.float16, "Fixpipe: deqScalar: the scale (bits [31:13]) is a subnormal float"),
    ("pair", Q.REQ8, word(0.01, True, 1 << 36), np.int8, "Fixpipe: deqScalar: MCB (bit 36, shift the int32_t "
                                                         "right by N first) is not emulated"),
    ("pair", Q.REQ8, word(0.01, True, 3 << 37), np.int8, "Fixpipe: deqScalar: a nonzero Offset (bits [45:37]) is "
                                                         "not emulated"),
])
def test_sim_rules(case, quant, deq, c_dt, words):
    msg = broken(case, quant, deq, c_dt)
    assert line_of(case) in msg and words in msg, msg


def test_a_bad_word_in_the_cbuf_workspace():
    words = [word(0.01)] * 32
    words[3] = word(np.nan)
    msg = broken("vector", Q.VDEQF16, 0, np.float16, words)
    assert line_of("vector") in msg and "Fixpipe: cbufWorkspace[3]: the scale (bits [31:13]) is inf or nan" in msg, msg


def test_a_float_l0c_to_int8_needs_qf322b8():
    a, b = f16_operands()
    with pytest.raises(AscendSimError) as e:
        K.mm_f16_to_b8[1, rt.current_stream()](a, np.ascontiguousarray(b.T), np.zeros((32, 32), np.int8),
                                               np.zeros(32, np.uint64), Q.REQ8, word(1.0, True))
    msg = str(e.value)
    assert "Fixpipe: a float L0C to an int8_t output needs quantPre = QF322B8_PRE or VQF322B8_PRE, not REQ8" in msg
    assert line_of("f16_pair") in msg, msg


# ------------------------------------------------------------------ asc.adv.Matmul of int8 A and B

import asc.lib.host as host  # noqa: E402

HDT = {np.int32: host.DataType.DT_INT32, np.float16: host.DataType.DT_FLOAT16}
WS = np.zeros(16 * 1024 * 1024, np.uint8)


def mm_tiling(m, n, k, dim, c_dt, bias=False):
    """pyasc's host tiling with DT_INT8 A and B (as test_matmul_quant.py builds it)."""
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, HDT[c_dt])
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT32)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    t.set_buffer_space(-1, -1, -1)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0, t.error
    return tl


def run_mm(m, n, k, dim, c_dt, mode="none", quant_word=0, words=None, bias=False, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    bv = rng.integers(-2 ** 20, 2 ** 20, n).astype(np.int32)
    a[0], b[:, 0] = 127, 127                 # C[0, 0] = 127 * 127 * k: above 2**24 and odd for a large odd k
    qv = np.zeros(n, np.uint64) if words is None else np.array(words, np.uint64)
    tl = mm_tiling(m, n, k, dim, c_dt, bias)
    c = np.zeros((m, n), c_dt)
    K.mm_adv_int8[-(-tl.used_core_num // 2), rt.current_stream()](a, b, c, bv, qv, tl, WS, quant_word, mode, bias)
    acc = a.astype(np.int64) @ b.astype(np.int64) + (bv if bias else 0)
    assert np.abs(acc).max() < 2 ** 31
    return c, acc.astype(np.int32), tl


@pytest.mark.parametrize("m,n,k,dim", [(64, 64, 64, 1), (96, 80, 2049, 4), (50, 70, 130, 3)])
def test_matmul_int8_to_int32_exact(m, n, k, dim):
    c, acc, tl = run_mm(m, n, k, dim, np.int32)
    assert (c == acc).all()
    if k == 2049:
        assert acc[0, 0] == 127 * 127 * 2049 and acc[0, 0] > 2 ** 24 and acc[0, 0] % 2


def test_matmul_int8_int32_bias():
    c, acc, _ = run_mm(48, 64, 96, 2, np.int32, bias=True, seed=1)
    assert (c == acc).all()


@pytest.mark.parametrize("m,n,k,dim", [(64, 64, 64, 1), (50, 70, 130, 4)])
def test_matmul_set_quant_scalar(m, n, k, dim):
    w = word(2.0 ** -12 * 1.3711)
    c, acc, _ = run_mm(m, n, k, dim, np.float16, "scalar", quant_word=w, seed=2)
    assert np.array_equal(c.view(np.uint16), ref_deqf16(acc, m1_of(w)).view(np.uint16))


@pytest.mark.parametrize("m,n,k,dim", [(64, 64, 64, 1), (50, 70, 130, 4), (256, 256, 256, 16)])
def test_matmul_set_quant_vector(m, n, k, dim):
    rng = np.random.default_rng(3)
    scales = ((rng.random(n) - 0.5) * 10 * 2.0 ** -10).astype(np.float32)
    words = [word(s) for s in scales]
    c, acc, _ = run_mm(m, n, k, dim, np.float16, "vector", words=words, seed=3)
    ref = ref_deqf16(acc, np.array([m1_of(w) for w in words]))
    assert np.array_equal(c.view(np.uint16), ref.view(np.uint16))


def test_matmul_tiling_of_int8_within_the_budgets():
    # pyasc's test_matmul_quant.py shapes (m, k, n) with set_dim(16): base blocks of whole 16 x 32 int8 fractals
    for m, k, n in [(256, 256, 256), (256, 128, 64), (64, 128, 256)]:
        tl = mm_tiling(m, n, k, 16, np.float16)
        assert tl.base_k % 32 == 0 and tl.base_m % 16 == 0 and tl.base_n % 16 == 0
        assert tl.base_m * tl.base_k <= 64 * 1024 and tl.base_n * tl.base_k <= 64 * 1024
        assert tl.base_m * tl.base_n * 4 <= 128 * 1024
        assert tl.depth_a1 * tl.base_m * tl.base_k + tl.depth_b1 * tl.base_k * tl.base_n <= 512 * 1024


def mm_broken(c_dt, mode, quant_word=0, words=None):
    with pytest.raises(AscendSimError) as e:
        run_mm(64, 64, 64, 1, c_dt, mode, quant_word, words)
    return str(e.value)


def test_matmul_half_c_of_int8_needs_a_quantization():
    msg = mm_broken(np.float16, "none")
    assert line_of("mm_iterate_all") in msg and "Matmul::IterateAll: C of half for int8_t A and B is the int32_t " \
        "L0C dequantized: call SetQuantScalar (DEQF16) or SetQuantVector (VDEQF16)" in msg, msg


def test_matmul_quant_scalar_with_an_int32_c():
    msg = mm_broken(np.int32, "scalar", word(0.5))
    assert line_of("mm_quant_scalar") in msg and "Matmul::SetQuantScalar: C is int32_t: the int32_t L0C goes to an " \
        "int32_t C unquantized" in msg, msg


def test_matmul_quant_words_refused():
    msg = mm_broken(np.float16, "scalar", word(0.5, extra=1 << 36))
    assert line_of("mm_quant_scalar") in msg and "Matmul::SetQuantScalar: the quantization scalar: MCB (bit 36" \
        in msg, msg
    words = [word(0.5)] * 64
    words[5] = word(np.inf)
    msg = mm_broken(np.float16, "vector", words=words)
    assert line_of("mm_iterate_all") in msg and "Matmul::IterateAll: the quantization vector's word 5: the scale " \
        "(bits [31:13]) is inf or nan" in msg, msg


# ------------------------------------------------------------------ mmad with a bias tensor (the BiasTable, C2)

def run_bias(m, n, k, dt, case="ok", seed=11):
    rng = np.random.default_rng(seed)
    npad = (n + 15) // 16 * 16
    if dt == np.int8:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        bias = np.zeros(npad, np.int32)
        bias[:n] = rng.integers(-2 ** 24, 2 ** 24, n)
        c = np.zeros((m, n), np.int32)
    else:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        bias = np.zeros(npad, np.float32)
        bias[:n] = rng.standard_normal(n).astype(np.float32) * 8
        c = np.zeros((m, n), np.float32)
    K.mm_bias[1, rt.current_stream()](a, np.ascontiguousarray(b.T), c, bias, m, n, k, case)
    return a, b, bias[:n], c


@pytest.mark.parametrize("m,n,k", [(32, 48, 64), (20, 40, 50)])
def test_mmad_with_an_int32_bias(m, n, k):
    a, b, bias, c = run_bias(m, n, k, np.int8)
    assert (c == (a.astype(np.int64) @ b.astype(np.int64) + bias).astype(np.int32)).all()


def test_mmad_with_a_float32_bias():
    a, b, bias, c = run_bias(32, 48, 64, np.float16)
    # C starts from the bias; the float16 products are exact in float32 and summed in K order
    ref = np.broadcast_to(bias, (32, 48)).astype(np.float32)
    for i in range(64):
        ref = (ref + a[:, i:i + 1].astype(np.float32) * b[i:i + 1, :].astype(np.float32)).astype(np.float32)
    assert np.array_equal(c, ref)


@pytest.mark.parametrize("case,words", [
    ("bias_accumulate", "Mmad: cmatrixInitVal = false with a bias tensor: the bias form initializes C from the "
                        "BiasTable"),
    ("bias_in_l0b", "Mmad: the bias of Mmad is in the BiasTable buffer (C2)"),
    ("bt_from_gm", "DataCopy: the BiasTable buffer (C2) is filled from L1 (C1), not from GM"),
])
def test_mmad_bias_rules(case, words):
    with pytest.raises((AscendSimError, CompileError)) as e:
        run_bias(32, 32, 32, np.int8, case)
    msg = str(e.value)
    assert line_of(case) in msg and words in msg, msg


def test_the_bias_form_in_the_source():
    a = np.zeros((32, 32), np.int8)
    src = K.mm_bias.source(a, a, np.zeros((32, 32), np.int32), np.zeros(32, np.int32), 32, 32, 32)
    assert "AscendC::Mmad(c1, a2, b2, b_t, AscendC::MmadParams(32, 32, 32, 0, false, true));" in src
    assert "AscendC::DataCopy(b_t, s1, 32);" in src
