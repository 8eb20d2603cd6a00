"""Every supported pyasc API is exercised by a kernel of tests/ascendc against NumPy (the meta-test at the end keeps
it so). Here: AddRelu/SubRelu, the bitwise and shift APIs, Cast, Compare/CompareScalar/Select, the reductions
(count form, WholeReduce*, BlockReduce*), the advanced math, the queue / pipe / tensor queries, printf and
DumpTensor, and the Matmul shape calls, over the types each API takes on A2 among float16/float32/int16/int32, with
per-block sizes that are and are not a multiple of 32 bytes where the API allows it, on 1 and 4 blocks
(tests/ascendc/pyasc_more_kernels.py). The references are written from the Ascend C docs (asc-devkit
docs/zh/api/SIMD-API): the type lists, ShiftLeft keeping the sign bit of a signed type and ShiftRight copying it,
the Compare bit masks (element i -> bit i % 8 of byte i / 8), ReduceMax's [value, index] with the first index of a
tie, the index in the bits of the element type, BlockReduceSum's binary tree with half partial sums saturating at
65504."""
import ast
import math
import pathlib
import re

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.ascendc import api
from asc.runtime.ascend_sim import AscendSimError

import pyasc_more_kernels as K

HERE = pathlib.Path(__file__).resolve().parent
BLOCKS = [1, 4]


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def _line(text):
    return next(i for i, s in enumerate(open(K.__file__), 1) if text in s)


def _f32(a):
    return a.astype(np.float32)


def _check(got, ref, d):
    ref = np.asarray(ref).astype(d)
    if np.dtype(d).kind == "f":
        tol = {"rtol": 1e-3, "atol": 1e-3} if d == np.float16 else {"rtol": 2e-6, "atol": 1e-6}
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), **tol)
    else:
        np.testing.assert_array_equal(got, ref)


# ------------------------------------------------------------------ AddRelu, SubRelu, And, Or, Not, ShiftLeft, ShiftRight

OPS = ["add_relu", "sub_relu", "bitwise_and", "bitwise_or", "bitwise_not", "shift_left", "shift_right"]
# the A2 type lists: AddRelu / SubRelu int16, half, float; And / Or / Not int16 (and uint16); the shifts int16, int32
# (and the unsigned ones)
TAKES = {np.float16: {0, 1}, np.float32: {0, 1}, np.int16: set(range(7)), np.int32: {5, 6}}


def _shl(x, s):
    """ShiftLeft of a signed type: the bits move left, the sign bit stays (the docs' arithmetic left shift)."""
    bits = x.dtype.itemsize * 8
    u = x.view(np.uint16 if bits == 16 else np.uint32).astype(np.uint64)
    r = (u << np.uint64(s)) & np.uint64((1 << bits) - 1)
    sign = np.uint64(1 << (bits - 1))
    r = (r & ~sign & np.uint64((1 << bits) - 1)) | (u & sign)
    return r.astype(np.uint16 if bits == 16 else np.uint32).view(x.dtype)


def _elem_refs(x, y, s):
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return [np.maximum(_f32(x) + _f32(y), 0) if x.dtype.kind == "f" else np.maximum(x64 + y64, 0),
            np.maximum(_f32(x) - _f32(y), 0) if x.dtype.kind == "f" else np.maximum(x64 - y64, 0),
            x & y if x.dtype.kind == "i" else None, x | y if x.dtype.kind == "i" else None,
            ~x if x.dtype.kind == "i" else None, _shl(x, s) if x.dtype.kind == "i" else None,
            x >> s if x.dtype.kind == "i" else None]


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("n", [64, 37])
@pytest.mark.parametrize("d", [np.float16, np.float32, np.int16, np.int32], ids=lambda d: np.dtype(d).name)
def test_elementwise(d, n, blocks):
    rng = np.random.default_rng(3)
    x = rng.integers(-10000, 10000, n * blocks).astype(d) if np.dtype(d).kind == "i" else \
        rng.uniform(-50, 50, n * blocks).astype(d)
    y = rng.integers(-10000, 10000, n * blocks).astype(d) if np.dtype(d).kind == "i" else \
        rng.uniform(-50, 50, n * blocks).astype(d)
    sel = sum(1 << k for k in TAKES[d])
    for s in ((3, 0, np.dtype(d).itemsize * 8 - 1) if np.dtype(d).kind == "i" else (3,)):
        o = np.zeros(7 * n * blocks, d)
        K.elementwise[blocks](x, y, o, n, s, sel, 64)
        refs = _elem_refs(x, y, s)
        for k in range(7):
            got = o[k * n * blocks:(k + 1) * n * blocks]
            if k in TAKES[d]:
                _check(got, refs[k], d)
            else:
                assert not got.any(), OPS[k]          # not run for this type: the slot stays 0


def test_shift_examples_from_the_docs():
    """int16 1010101010101010: << 1 = 1101010101010100, << 3 = 1101010101010000, >> 1 = 1101010101010101,
    >> 3 = 1111010101010101 (the ShiftLeft / ShiftRight docs' examples)."""
    x = np.full(64, 0b1010101010101010, np.uint16).view(np.int16)
    for s, left, right in ((1, 0b1101010101010100, 0b1101010101010101), (3, 0b1101010101010000, 0b1111010101010101)):
        o = np.zeros(7 * 64, np.int16)
        K.elementwise[1](x, x, o, 64, s, 127, 64)
        assert (o[5 * 64:6 * 64].view(np.uint16) == left).all(), s
        assert (o[6 * 64:7 * 64].view(np.uint16) == right).all(), s
        assert (o[4 * 64:5 * 64].view(np.uint16) == 0b0101010101010101).all()


def test_shift_out_of_range():
    x = np.ones(64, np.int16)
    with pytest.raises(AscendSimError, match=r"ShiftLeft: the shift 17 is outside \[0, 16\] for 16-bit") as e:
        K.elementwise[1](x, x, np.zeros(7 * 64, np.int16), 64, 17, 127, 64)
    assert f"pyasc_more_kernels.py:{_line('asc.shift_left(o, x, s, n)')}" in str(e.value)


# ------------------------------------------------------------------ Compare, CompareScalar, Select

CMP = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]


def _bits(c):
    return np.packbits(c.astype(np.uint8), bitorder="little")


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("reps", [1, 2])
@pytest.mark.parametrize("d", [np.float16, np.float32, np.int32], ids=lambda d: np.dtype(d).name)
def test_compare_select(d, reps, blocks):
    """The count form takes n * sizeof(T) a multiple of 256 B; int32 takes CMPMODE.EQ only."""
    n = reps * 256 // np.dtype(d).itemsize
    rng = np.random.default_rng(4)
    x = rng.integers(-3, 4, n * blocks).astype(d)
    y = rng.integers(-3, 4, n * blocks).astype(d)
    if np.dtype(d).kind == "f":
        x[::5] += 0.5
    total = n * blocks
    modes = 1 if d == np.int32 else 6
    masks = np.zeros(2 * modes * total // 8, np.uint8)
    sel = np.zeros(total, d)
    K.compares[blocks](x, y, masks, sel, n, 1.0, modes, d != np.int32)
    masks = masks.reshape(2 * modes, total // 8)
    for j in range(modes):
        f = np.equal if modes == 1 else CMP[j]
        np.testing.assert_array_equal(masks[2 * j], _bits(f(x, y)), err_msg=f"compare {f.__name__}")
        np.testing.assert_array_equal(masks[2 * j + 1], _bits(f(x, np.array(1, d))),
                                      err_msg=f"compare_scalar {f.__name__}")
    if d != np.int32:
        np.testing.assert_array_equal(sel, np.where(x < y, x, y))


def test_compare_count_must_fill_256_bytes():
    x = np.ones(40, np.float32)
    with pytest.raises(AscendSimError, match=r"Compare: count 40 x 4 B is not a multiple of 256 B") as e:
        K.compares[1](x, x, np.zeros(64, np.uint8), np.zeros(40, np.float32), 40, 1.0, 6, True)
    assert f"pyasc_more_kernels.py:{_line('asc.compare(m, x, y, asc.CMPMODE.LT, n)')}" in str(e.value)


# ------------------------------------------------------------------ Cast

def _round_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


RM = asc.RoundMode
CASTS = [  # (src, dst, mode, reference)
    (np.float32, np.float16, RM.CAST_RINT, lambda v: v.astype(np.float16)),
    (np.float16, np.float32, RM.CAST_NONE, lambda v: v.astype(np.float32)),
    (np.float32, np.int32, RM.CAST_FLOOR, lambda v: np.floor(v)),
    (np.int32, np.float32, RM.CAST_NONE, lambda v: v.astype(np.float32)),
    (np.int16, np.float16, RM.CAST_NONE, lambda v: v.astype(np.float16)),
    (np.float16, np.int16, RM.CAST_ROUND, lambda v: _round_away(v.astype(np.float64))),
    (np.int16, np.float32, RM.CAST_NONE, lambda v: v.astype(np.float32)),
    (np.int32, np.int16, RM.CAST_NONE, lambda v: v),
    (np.float16, np.int32, RM.CAST_TRUNC, lambda v: np.trunc(v.astype(np.float64))),
    (np.float32, np.int16, RM.CAST_CEIL, lambda v: np.ceil(v)),
]


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("n", [64, 37])
@pytest.mark.parametrize("case", range(len(CASTS)),
                         ids=[f"{np.dtype(a).name}-{np.dtype(b).name}-{m.name}" for a, b, m, _ in CASTS])
def test_cast(case, n, blocks):
    src, dst, mode, ref = CASTS[case]
    rng = np.random.default_rng(case)
    if np.dtype(src).kind == "f":
        x = (rng.integers(-2000, 2000, n * blocks) / 4).astype(src)     # quarters: .25, .5 and .75 to round
        x[:4] = [2.5, -2.5, 0.5, -1.5]
    else:
        x = rng.integers(-2000, 2000, n * blocks).astype(src)
    z = np.zeros(n * blocks, dst)
    K.casts[blocks](x, z, n, 64, mode)
    np.testing.assert_array_equal(z, ref(x).astype(dst))


def test_cast_mode_not_taken():
    with pytest.raises(AscendSimError, match=r"Cast half -> float does not accept RoundMode::CAST_RINT") as e:
        K.casts[1](np.ones(64, np.float16), np.zeros(64, np.float32), 64, 64, RM.CAST_RINT)
    assert f"pyasc_more_kernels.py:{_line('asc.cast(zl, xl, mode, n)')}" in str(e.value)


# ------------------------------------------------------------------ the reductions

def _pairwise(v, d):
    """BlockReduceSum: a binary tree inside the block, each partial sum rounded to d (half: saturating at 65504)."""
    v = v.astype(d)
    while len(v) > 1:
        s = _f32(v[0::2]) + _f32(v[1::2])
        if d == np.float16:
            s = np.clip(s, -65504, 65504)
        v = s.astype(d)
    return v[0]


def _sum_tol(v, d):
    """A float sum of len(v) terms (each addition within 2**-24 of the partial sum), then for half the rounding of
    the result (2**-11)."""
    exact = v.astype(np.float64)
    return len(v) * 2.0 ** -24 * np.abs(exact).sum() + (2.0 ** -11 * abs(exact.sum()) if d == np.float16 else 0)


def _ix(v, d):
    """An index stored in the bits of the element type."""
    return int(np.array(v, d).view(np.uint16 if d == np.float16 else np.uint32))


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("mask", ["full", 20])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_reductions(d, mask, ragged, blocks):
    per, epb = 256 // np.dtype(d).itemsize, 32 // np.dtype(d).itemsize
    n = 2 * per + (5 if ragged else 0)
    m = per if mask == "full" else mask
    rng = np.random.default_rng(6)
    x = rng.integers(-400, 400, n * blocks).astype(d) / np.array(8, d)
    x[3] = x[:n].max()                                  # a tie: the first index counts
    o = np.zeros(blocks * 12 * 32, d)
    K.reductions[blocks](x, o, n, m, 2, 4 * per)
    o = o.reshape(blocks, 12, 32)
    for b in range(blocks):
        xb = x[b * n:(b + 1) * n]
        s = o[b]
        assert abs(float(s[0, 0]) - xb.astype(np.float64).sum()) <= _sum_tol(xb, d)
        assert s[1, 0] == xb.max() and not s[1, 1:].any()
        assert s[2, 0] == xb.max() and _ix(s[2, 1], d) == int(np.argmax(xb))
        assert s[3, 0] == xb.min() and _ix(s[3, 1], d) == int(np.argmin(xb))
        for r in range(2):
            act = xb[r * per:r * per + m]
            assert s[4, 2 * r] == act.max() and _ix(s[4, 2 * r + 1], d) == int(np.argmax(act))
            assert s[5, 2 * r] == act.min() and _ix(s[5, 2 * r + 1], d) == int(np.argmin(act))
            assert abs(float(s[6, r]) - act.astype(np.float64).sum()) <= _sum_tol(act, d)
            for k in range(8):
                blk = act[k * epb:(k + 1) * epb]
                got = s[7:10, r * 8 + k]
                if len(blk) == 0:                       # a block with no active element is not written
                    assert not got.any()
                    continue
                assert got[0] == _pairwise(np.pad(blk, (0, epb - len(blk))), d), (r, k)
                assert got[1] == blk.max() and got[2] == blk.min()
            assert s[10].view(np.uint32)[r] == int(np.argmax(act))      # ORDER_ONLY_INDEX: a uint32_t each
            assert _ix(s[11, 2 * r], d) == int(np.argmin(act)) and s[11, 2 * r + 1] == act.min()
        assert not s[4, 4:].any() and not s[6, 2:].any() and not s[7, 16:].any()


def test_block_reduce_sum_saturates_as_documented():
    """The docs' example: [60000, 60000, -30000, 100] sums to 35604 (60000 + 60000 saturates at 65504); in half
    -29900 is -29904 and 65504 - 29904 rounds to 35584 (the spacing there is 32)."""
    x = np.zeros(256, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    o = np.zeros(12 * 32, np.float16)
    K.reductions[1](x, o, 256, 128, 2, 512)
    assert o[7 * 32] == _pairwise(x[:16], np.float16) == 35584
    assert abs(float(o[7 * 32]) - 35604) <= 32


def test_whole_reduce_reads_past_the_tensor():
    x = np.ones(64, np.float32)
    with pytest.raises(AscendSimError, match=r"WholeReduceMax: repeat 1, element 0 reads element 64 of a source "
                                             r"LocalTensor<float> of 64 elements") as e:
        K.reductions[1](x, np.zeros(12 * 32, np.float32), 64, 64, 2, 64)
    assert f"pyasc_more_kernels.py:{_line('asc.whole_reduce_max(ol[128:], xl, mask, repeat, 1, 1, 8)')}" in \
        str(e.value)


# ------------------------------------------------------------------ the advanced math

@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("n", [64, 37])
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_adv_math(d, n, blocks):
    x = np.linspace(-2.6, 2.6, n * blocks).astype(d)
    o = np.zeros(7 * n * blocks, d)
    K.adv_math[blocks](x, o, n, 64)
    xf = _f32(x)
    refs = [np.tanh(xf), np.sin(xf), np.cos(xf), np.array([math.erf(v) for v in xf], np.float32), np.floor(xf),
            np.ceil(xf), np.exp(xf)]
    for k, r in enumerate(refs):
        got = o[k * n * blocks:(k + 1) * n * blocks]
        if d == np.float16:      # a float result rounded to half: within one half ulp (2**-10 relative)
            np.testing.assert_allclose(got.astype(np.float64), r, rtol=2.0 ** -10, atol=2.0 ** -24)
        else:
            np.testing.assert_allclose(got, r, rtol=4e-7, atol=1e-7)


# ------------------------------------------------------------------ the queue, pipe and tensor queries

QUERIES = {  # z[k]: what it must be (n = 64 floats)
    0: 1, 1: 0, 2: 0, 3: 1,          # an empty TQue of depth 2: vacant, no tensor, count 0, an idle buffer
    4: 1, 5: 1, 6: 1, 7: 1,          # one enqueued: still vacant, one buffer idle
    8: 0, 9: 1, 10: 2, 11: 0,        # two enqueued: full, no idle buffer
    12: 1,                           # one dequeued
    13: 256, 14: 192,                # get_length of the TBuf tensor (bytes) and of its slice [16:]
    15: 11,                          # get_position: TPosition::VECCALC
    16: 8, 17: 32,                   # set_size(8): get_size 8, get_length 32 bytes
    18: 32,                          # get_shape_size of a (4, 8) ShapeInfo
    19: 32,                          # get_data_block_size_in_bytes
    20: 0,                           # get_sub_block_idx outside a MIX launch
    23: 1, 24: 1, 25: 0, 26: 1, 27: 1, 28: 0,   # the TQueBind of depth 1 before / after alloc and enque
}


@pytest.mark.parametrize("blocks", BLOCKS)
def test_queries(blocks):
    x = np.arange(64, dtype=np.float32)
    z = np.full(40 * blocks, -1, np.int32)
    K.queries[blocks](x, z, 64)
    for b in range(blocks):
        zb = z[b * 40:(b + 1) * 40]
        for k, v in QUERIES.items():
            assert zb[k] == v, (b, k, zb[k], v)
        assert 0 <= zb[21] < 8 and zb[22] == zb[21]     # alloc_event_id, then fetch_event_id after the release
        np.testing.assert_array_equal(zb[32:], x[:8] + 1)


# ------------------------------------------------------------------ printf, DumpTensor

def test_printf_and_dump_tensor(capfd):
    x = np.arange(16, dtype=np.float32) * 0.5
    K.prints[2](x, 8)
    out = capfd.readouterr().out.splitlines()
    assert sorted(line for line in out if line.startswith("block")) == [
        "block 0: x0=0.000000 n=8", "block 1: x0=4.000000 n=8"]
    dumps = sorted(line for line in out if line.startswith("DumpTensor"))
    assert dumps == ["DumpTensor: desc=7, dtype=float, position=9, size=8: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5]",
                     "DumpTensor: desc=7, dtype=float, position=9, size=8: [4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5]"]


# ------------------------------------------------------------------ Matmul: set_org_shape, set_single_shape, disable_bias; ascend_is_aiv

def test_matmul_shapes_and_disabled_bias():
    m, n, k = 32, 48, 40
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(True)
    t.set_buffer_space(-1, -1, -1)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0, t.error
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32) + 100
    c = np.zeros((m, n), np.float32)
    flags = np.zeros(16, np.int32)
    K.mm_shapes[1, rt.current_stream()](a, b, c, bias, flags, tl, np.zeros(16 * 1024 * 1024, np.uint8), m, n, k)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    tol = 2 * (k + 1) * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    assert (np.abs(c - a64 @ b64) <= tol).all()          # no bias: disable_bias after set_bias
    np.testing.assert_array_equal(flags, [1] + [0] * 7 + [2] + [0] * 7)   # the two AIVs: sub-block 0 and 1


# ------------------------------------------------------------------ the meta-test

# supported APIs no kernel of tests/ascendc can exercise, with the reason (keep it empty)
NOT_EXERCISED: dict = {}


def _kernel_names():
    """Every attribute and name used inside an @asc.jit function of tests/ascendc/*.py."""
    used = set()
    for path in sorted(HERE.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for f in ast.walk(tree):
            if isinstance(f, ast.FunctionDef) and any(re.match(r"asc\.jit\b", ast.unparse(d))
                                                      for d in f.decorator_list):
                for node in ast.walk(f):
                    if isinstance(node, ast.Attribute):
                        used.add(node.attr)
                    elif isinstance(node, ast.Name):
                        used.add(node.id)
    return used


def test_every_supported_api_is_in_a_kernel():
    used = _kernel_names()
    missing = [a.name for a in api.TABLE if a.status == api.SUPPORTED and a.name not in NOT_EXERCISED and
               a.name.split(".")[-1] not in used]
    assert not missing, f"supported APIs that no @asc.jit kernel of tests/ascendc uses: {missing}"
    for name in NOT_EXERCISED:
        assert api.lookup(name) is not None and api.lookup(name).status == api.SUPPORTED, name
