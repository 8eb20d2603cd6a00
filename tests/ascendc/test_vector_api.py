"""The vector API of pyasc kernels against NumPy, on the CPU twin: the binary, scalar, unary and duplicate families
over float16/float32/int16/int32, with per-block sizes that are (64) and are not (37) a multiple of 32 bytes, on
1 and on 4 blocks. One kernel per family and dtype (tests/ascendc/pyasc_kernels.py). 37 elements on each of 4
adjacent blocks: two blocks write the two parts of one 32-byte block of GM with DataCopyPad, which writes only its
valid bytes."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config

import pyasc_kernels as K

DTYPES = [np.float16, np.float32, np.int16, np.int32]
SHAPES = [(64, 1), (37, 4), (64, 4), (37, 1)]
CAP = 64


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def _tol(d):
    return {"rtol": 1e-3, "atol": 1e-3} if d == np.float16 else {"rtol": 2e-6, "atol": 1e-6}


def _f32(a):
    return a.astype(np.float32)


def _check(got, ref, d):
    ref = ref.astype(d)
    if np.dtype(d).kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), **_tol(d))
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("n,blocks", SHAPES)
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_binary(d, n, blocks):
    rng = np.random.default_rng(7)
    x = rng.uniform(-50, 50, n * blocks).astype(d)
    y = rng.uniform(1, 50, n * blocks).astype(d)        # div by y: no zero
    ops = 6 if np.dtype(d).kind == "f" else 5           # Div: half and float only
    o = np.zeros(ops * n * blocks, d)
    K.binary_all[blocks](x, y, o, n, ops, CAP)
    ref = [_f32(x) + _f32(y), _f32(x) - _f32(y), _f32(x) * _f32(y), np.maximum(x, y), np.minimum(x, y),
           _f32(x) / _f32(y)][:ops]
    for k, r in enumerate(ref):
        _check(o[k * n * blocks:(k + 1) * n * blocks], r, d)


SCALAR_OPS = ["adds", "muls", "maxs", "mins", "duplicate"]


@pytest.mark.parametrize("n,blocks", SHAPES)
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scalar_ops(d, n, blocks):
    rng = np.random.default_rng(8)
    x = rng.uniform(-60, 60, n * blocks).astype(d)
    s = 3.0 if np.dtype(d).kind == "i" else 2.5
    o = np.zeros(5 * n * blocks, d)
    K.unary_all[blocks](x, o, n, s, 0, 5, CAP)
    sv = np.float32(s)
    ref = [_f32(x) + sv, _f32(x) * sv, np.maximum(_f32(x), sv), np.minimum(_f32(x), sv),
           np.full(n * blocks, sv)]
    for k, r in enumerate(ref):
        _check(o[k * n * blocks:(k + 1) * n * blocks], r, d)


@pytest.mark.parametrize("n,blocks", SHAPES)
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_unary(d, n, blocks):
    rng = np.random.default_rng(9)
    x = rng.uniform(0.5, 4, n * blocks).astype(d)
    x[::3] *= -1                                         # abs and relu see negatives
    o = np.zeros(7 * n * blocks, d)
    K.unary_all[blocks](x, o, n, 0.0, 5, 12, CAP)
    a = np.abs(_f32(x))
    ref = [np.abs(_f32(x)), np.maximum(_f32(x), 0), np.exp(_f32(x)), None, None, None, 1 / _f32(x)]
    for k, r in enumerate(ref):
        got = o[k * n * blocks:(k + 1) * n * blocks]
        if r is None:                                    # ln, sqrt, rsqrt: on the positive elements
            pos = _f32(x) > 0
            r = [np.log(a), np.sqrt(a), 1 / np.sqrt(a)][k - 3]
            _check(got[pos], r[pos], d)
            assert np.isnan(got[~pos].astype(np.float32)).all()
            continue
        _check(got, r, d)


def test_same_kernel_new_data():
    """A cached specialization runs on each call's own tensors (a call must never see the first call's data)."""
    x = np.arange(64, dtype=np.float32)
    for s in (1.0, 2.0):
        y = np.full(64, s, np.float32)
        z = np.zeros(64, np.float32)
        K.vadd_queues[1](x, y, z, 64, 16)
        np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("blocks", [1, 8])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_queue_vadd(d, blocks):
    rng = np.random.default_rng(10)
    n = 256
    x = rng.integers(-100, 100, n * blocks).astype(d)
    y = rng.integers(-100, 100, n * blocks).astype(d)
    z = np.zeros_like(x)
    K.vadd_queues[blocks](x, y, z, n, 64)
    _check(z, _f32(x) + _f32(y), d)


@pytest.mark.parametrize("blocks", [1, 8])
@pytest.mark.parametrize("d", [np.float32, np.float16, np.int32, np.int16], ids=lambda d: np.dtype(d).name)
def test_local_tensor_auto(d, blocks):
    """insert_sync: MTE2 -> S (get_value), MTE2 -> V, V -> MTE3, and the next iteration's MTE3/V -> MTE2."""
    rng = np.random.default_rng(11)
    n, tile = 512, 128
    x = rng.integers(-100, 100, n * blocks).astype(d)
    y = rng.integers(-100, 100, n * blocks).astype(d)
    z = np.zeros_like(x)
    K.vadd_auto[blocks](x, y, z, n, tile)
    first = x.reshape(-1, tile)[:, :1]
    ref = _f32(y).reshape(-1, tile) + _f32(first) + _f32(x).reshape(-1, tile)
    _check(z, ref.reshape(-1), d)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    x = torch.arange(512, dtype=torch.float32)
    y = torch.ones(512)
    z = torch.zeros(512)
    K.vadd_queues[2](x, y, z, 256, 64)
    assert torch.equal(z, x + y)


def test_int32_arithmetic_is_exact_and_wraps():
    """Integer vector arithmetic is integer arithmetic (ascend-sim computed it in float: 2**24 + 1 + 2 gave
    2**24 + 2), wrapping as int32 does, as NumPy's int32 does."""
    x = np.array([2**30 + 12345, 2**31 - 1, -2**31, 2**24 + 1] * 16, np.int32)
    y = np.array([2**30 + 1, 1, -1, 2] * 16, np.int32)
    o = np.zeros(5 * 64, np.int32)
    K.binary_all[1](x, y, o, 64, 5, CAP)
    with np.errstate(over="ignore"):
        ref = [x + y, x - y, x * y, np.maximum(x, y), np.minimum(x, y)]
    for k, r in enumerate(ref):
        np.testing.assert_array_equal(o[k * 64:(k + 1) * 64], r)


@pytest.mark.parametrize("d", [np.int32, np.int16], ids=lambda d: np.dtype(d).name)
def test_apis_a_dtype_lacks_do_not_compile(d):
    """Div has no integer form on the 910B (asc-devkit: half and float): a kernel instantiating it for int32 does
    not build for the NPU, and must not build on the CPU twin either; the error names the API and the Python line."""
    from asc.errors import ToolchainError
    x = np.ones(64, d)
    with pytest.raises(ToolchainError) as e:
        K.binary_all[1](x, x, np.zeros(6 * 64, d), 64, 6, CAP)
    msg = str(e.value)
    div_line = next(i for i, line in enumerate(open(K.__file__), 1) if "asc.div(" in line)
    assert "Div: this element type is not one the API takes on A2" in msg, msg
    assert f"pyasc_kernels.py:{div_line}" in msg, msg


def test_byte_order_and_read_only_arguments():
    """A big-endian array is refused by name; a read-only input is fine; a read-only argument the kernel writes is
    an error, and no argument is written back then."""
    from asc.errors import ArgumentError
    x = np.arange(128, dtype=np.float32)
    with pytest.raises(ArgumentError, match=r"x has non-native byte order \(>f4\)"):
        K.vadd_queues[2](x.astype(">f4"), x, np.zeros(128, np.float32), 64, 16)
    ro = x.copy()
    ro.flags.writeable = False
    z = np.zeros(128, np.float32)
    K.vadd_queues[2](ro, ro, z, 64, 16)
    np.testing.assert_array_equal(z, 2 * x)
    zro = np.zeros(128, np.float32)
    zro.flags.writeable = False
    y = np.full(128, 7, np.float32)
    with pytest.raises(ArgumentError, match="wrote argument z, which is a read-only array"):
        K.vadd_queues[2](x, y, zro, 64, 16)
    assert not zro.any()


def test_float_specials_are_literals():
    """inf and nan as compile-time values render as C++ (they were a 'has no literal' error)."""
    x = np.array([3.5] + [0] * 7, np.float32)
    z = np.zeros(8, np.float32)
    K.specials[1](x, z)
    assert z[0] == 3.5 and z[1] == -np.inf and np.isnan(z[2])


@pytest.mark.parametrize("k", [0, 1, 7])
def test_tuple_assignment_of_runtime_values(k):
    """`a, b = b, a` swaps (the right side is evaluated before a name is bound); runtime and compile-time values mix."""
    x = np.array([1.5, -2.25, 0, 0], np.float32)
    z = np.zeros(4, np.float32)
    K.tuple_assign[1](x, z, k)
    np.testing.assert_array_equal(z, [-2.25, 1.5, -2.25 + 1.5 * 3, max(1, k // 2) + k * 3])


def test_tuple_assignment_of_objects_aliases_them():
    x, y, z = np.array([2.0], np.float32), np.array([5.0], np.float32), np.zeros(2, np.float32)
    K.tuple_alias[1](x, y, z)
    np.testing.assert_array_equal(z, [5.0, 2.0])
