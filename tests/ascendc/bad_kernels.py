"""pyasc kernels that break a rule (tests/ascendc/test_pyasc_errors.py)."""
import asc


@asc.jit
def uses_try(x: asc.GlobalAddress):
    try:
        pass
    except Exception:
        pass


@asc.jit
def wrong_arity(x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, n * 4)
    t = q.alloc_tensor(x.dtype)
    asc.add(t, t, n)
    q.free_tensor(t)


@asc.jit
def ub_overflow(x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, n * x.dtype.sizeof())


@asc.jit
def deque_empty(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.deque(x.dtype)
    q.free_tensor(t)


@asc.jit
def overlapping_blocks(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], step: asc.ConstExpr[int]):
    off = asc.get_block_idx() * step
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    zg.set_global_buffer(z + off)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, n * 4)
    t = q.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    q.enque(t)
    t = q.deque(x.dtype)
    asc.data_copy(zg, t, n)
    q.free_tensor(t)


@asc.jit
def prints(x: asc.GlobalAddress):
    print(x)


@asc.jit
def runtime_assert(x: asc.GlobalAddress, n: int):
    assert n > 0


@asc.jit
def static_assert(x: asc.GlobalAddress, y: asc.GlobalAddress):
    assert x.dtype == y.dtype, "x and y differ"
