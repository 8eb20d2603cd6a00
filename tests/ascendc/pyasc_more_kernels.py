"""pyasc-style kernels (written here, in pyasc's API) for the APIs tests/ascendc/test_pyasc_api_coverage.py checks:
AddRelu/SubRelu, the bitwise and shift APIs, Cast, Compare/CompareScalar/Select, the reductions, the advanced math,
the queue / pipe / tensor queries, printf and DumpTensor. One kernel per family; ConstExpr selectors (folded at
compile time) keep an API from being instantiated for a type it does not take.

Each block moves `n` elements (block b starts at b * n) through TQue buffers of `cap` elements, with data_copy_pad
at both ends, so that n need not be a multiple of 32 bytes."""
import asc

from pyasc_kernels import load, store


@asc.jit
def elem_op(op: asc.ConstExpr[int], qx: asc.TQue, qy: asc.TQue, qo: asc.TQue, dt: asc.ConstExpr[object], n: int,
            s: int):
    x = qx.deque(dt)
    y = qy.deque(dt)
    o = qo.alloc_tensor(dt)
    if op == 0:
        asc.add_relu(o, x, y, n)
    elif op == 1:
        asc.sub_relu(o, x, y, count=n)
    elif op == 2:
        asc.bitwise_and(o, x, y, n)
    elif op == 3:
        asc.bitwise_or(o, x, y, n)
    elif op == 4:
        asc.bitwise_not(o, x, n)
    elif op == 5:
        asc.shift_left(o, x, s, n)
    else:
        asc.shift_right(o, x, s, count=n)
    qo.enque(o)
    qx.free_tensor(x)
    qy.free_tensor(y)


@asc.jit
def elementwise(x: asc.GlobalAddress, y: asc.GlobalAddress, o: asc.GlobalAddress, n: int, s: int,
                sel: asc.ConstExpr[int], cap: asc.ConstExpr[int]):
    """o[k * total + i] = op_k(x[i], y[i]) for each op k whose bit is set in sel: 0 add_relu, 1 sub_relu,
    2 bitwise_and, 3 bitwise_or, 4 bitwise_not (x), 5 shift_left (x, s), 6 shift_right (x, s)."""
    total = n * asc.get_block_num()
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    yg.set_global_buffer(y + off)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qy, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, cap * x.dtype.sizeof())
    for k in range(7):
        if (sel >> k) & 1:
            og = asc.GlobalTensor()
            og.set_global_buffer(o + k * total + off)
            load(qx, xg, n)
            load(qy, yg, n)
            for j in range(7):
                if j == k:
                    elem_dispatch(sel, j, qx, qy, qo, x.dtype, n, s)
            store(qo, og, n)


@asc.jit
def elem_dispatch(sel: asc.ConstExpr[int], j: int, qx: asc.TQue, qy: asc.TQue, qo: asc.TQue,
                  dt: asc.ConstExpr[object], n: int, s: int):
    # one runtime j selects one compile-time op, instantiated only where sel asks for it
    if j == 0:
        if sel & 1:
            elem_op(0, qx, qy, qo, dt, n, s)
    elif j == 1:
        if sel & 2:
            elem_op(1, qx, qy, qo, dt, n, s)
    elif j == 2:
        if sel & 4:
            elem_op(2, qx, qy, qo, dt, n, s)
    elif j == 3:
        if sel & 8:
            elem_op(3, qx, qy, qo, dt, n, s)
    elif j == 4:
        if sel & 16:
            elem_op(4, qx, qy, qo, dt, n, s)
    elif j == 5:
        if sel & 32:
            elem_op(5, qx, qy, qo, dt, n, s)
    else:
        if sel & 64:
            elem_op(6, qx, qy, qo, dt, n, s)
