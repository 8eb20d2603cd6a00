"""Tuple assignment in pyasc kernels (issue 38, item 7): `xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(),
asc.GlobalTensor()` (README's pyasc example) declares each object under its name, as three assignments do; it
failed with "a new has no method 'set_global_buffer'". A call on the right (`a, b = qx.alloc_tensor(dt), ...`) runs
once, left to right, before a name is bound, as in Python; parameter structs become variables; `a, b = b, a`
swaps objects as it swaps scalars."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import CompileError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """README's pyasc add, with every object made by a tuple assignment."""
    off = asc.get_block_idx() * n
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, n)
    yg.set_global_buffer(y + off, n)
    zg.set_global_buffer(z + off, n)
    pipe = asc.TPipe()
    qx, qy, qz = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qy, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, n * x.dtype.sizeof())
    a, b = qx.alloc_tensor(x.dtype), qy.alloc_tensor(x.dtype)     # each queue's one buffer, allocated once
    copy, pad = asc.DataCopyExtParams(1, n * x.dtype.sizeof(), 0, 0, 0), asc.DataCopyPadExtParams(x.dtype)
    asc.data_copy_pad(a, xg, copy, pad)
    asc.data_copy_pad(b, yg, copy, pad)
    qx.enque(a)
    qy.enque(b)
    a, b = qx.deque(x.dtype), qy.deque(x.dtype)
    c = qz.alloc_tensor(x.dtype)
    asc.sub(c, a, b, n)
    qz.enque(c)
    qx.free_tensor(a)
    qy.free_tensor(b)
    c = qz.deque(x.dtype)
    asc.data_copy_pad(zg, c, copy)
    qz.free_tensor(c)


@asc.jit
def swap(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    """z[0] = y[0], z[1] = x[0] through a swap of two GlobalTensors made by one tuple assignment."""
    p, q = asc.GlobalTensor(), asc.GlobalTensor()
    zg = asc.GlobalTensor()
    p.set_global_buffer(x)
    q.set_global_buffer(y)
    zg.set_global_buffer(z)
    p, q = q, p
    zg.set_value(0, p.get_value(0))
    zg.set_value(1, q.get_value(0))


@asc.jit
def twice(x: asc.GlobalAddress):
    xg, xg2 = asc.GlobalTensor(), asc.GlobalTensor()
    xg, xg2 = asc.GlobalTensor(), asc.GlobalTensor()


def test_readme_add_with_tuple_constructors():
    n, cores = 40, 4
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n * cores).astype(np.float32)
    y = rng.standard_normal(n * cores).astype(np.float32)
    z = np.zeros_like(x)
    vadd[cores, rt.current_stream()](x, y, z, n)
    np.testing.assert_array_equal(z, x - y)
    src = vadd.source(x, y, z, n)
    for name in ("xg", "yg", "zg"):
        assert f"AscendC::GlobalTensor<float> {name};" in src
    assert src.count("AllocTensor<float>()") == 3 and src.count("DeQue<float>()") == 3


def test_tuple_constructors_compile_as_separate_assignments():
    x, y = np.zeros(8, np.float32), np.zeros(8, np.float32)
    z = np.zeros(8, np.float32)
    src = vadd.source(x, y, z, 8)
    for q in ("qx", "qy", "qz"):
        assert f" {q};" in src, q


def test_swap_of_objects():
    x, y, z = np.array([2.0], np.float32), np.array([5.0], np.float32), np.zeros(2, np.float32)
    swap[1](x, y, z)
    np.testing.assert_array_equal(z, [5.0, 2.0])


def test_an_object_constructed_twice_is_named():
    with pytest.raises(CompileError, match="'xg' is constructed twice") as e:
        twice[1](np.zeros(8, np.float32))
    assert "test_pyasc_tuple_ctors.py" in str(e.value)


@asc.jit
def ping_pong(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], steps: int):
    """z = x + steps: two work tensors swapped by `a, b = b, a` in a run-time loop (double buffering): the swap
    happens at run time, each iteration, as in Python."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    tb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qi, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, n * x.dtype.sizeof())
    pipe.init_buffer(tb, 2 * n * x.dtype.sizeof())
    t = qi.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    qi.enque(t)
    t = qi.deque(x.dtype)
    a, b = tb.get_with_offset(x.dtype, n, 0), tb.get_with_offset(x.dtype, n, n * x.dtype.sizeof())
    asc.adds(a, t, 0.0, n)
    qi.free_tensor(t)
    for _ in range(steps):
        asc.adds(b, a, 1.0, n)
        a, b = b, a
    o = qo.alloc_tensor(x.dtype)
    asc.adds(o, a, 0.0, n)
    qo.enque(o)
    o = qo.deque(x.dtype)
    asc.data_copy(zg, o, n)
    qo.free_tensor(o)


@pytest.mark.parametrize("steps", [0, 1, 2, 5])
def test_a_swap_in_a_run_time_loop_swaps_each_iteration(steps):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    ping_pong[1](x, z, 64, steps)
    np.testing.assert_array_equal(z, x + steps)
