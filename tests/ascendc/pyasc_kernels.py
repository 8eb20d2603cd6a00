"""pyasc-style kernels (written here, in pyasc's API) shared by the tests of asc.ascendc: each family of the vector
API in one kernel per dtype, so that a test file compiles each kernel once.

Every kernel moves `n` elements per block (block b starts at b * n) through TQue buffers of `cap` elements, with
data_copy_pad at both ends, so that n need not be a multiple of 32 bytes."""
import math

import asc


@asc.jit
def load(q: asc.TQue, gm: asc.GlobalTensor, n: int):
    t = q.alloc_tensor(gm.dtype)
    asc.data_copy_pad(t, gm, asc.DataCopyExtParams(1, n * gm.dtype.sizeof(), 0, 0, 0),
                      asc.DataCopyPadExtParams(gm.dtype, False, 0, 0, 0))
    q.enque(t)


@asc.jit
def store(q: asc.TQue, gm: asc.GlobalTensor, n: int):
    t = q.deque(gm.dtype)
    asc.data_copy_pad(gm, t, asc.DataCopyExtParams(1, n * gm.dtype.sizeof(), 0, 0, 0))
    q.free_tensor(t)


@asc.jit
def binary_op(op: asc.ConstExpr[int], qx: asc.TQue, qy: asc.TQue, qo: asc.TQue, dt: asc.ConstExpr[object], n: int):
    x = qx.deque(dt)
    y = qy.deque(dt)
    o = qo.alloc_tensor(dt)
    if op == 0:
        asc.add(o, x, y, n)
    elif op == 1:
        asc.sub(o, x, y, count=n)
    elif op == 2:
        asc.mul(o, x, y, n)
    elif op == 3:
        asc.max(o, x, y, n)
    elif op == 4:
        asc.min(o, x, y, n)
    else:
        asc.div(o, x, y, n)
    qo.enque(o)
    qx.free_tensor(x)
    qy.free_tensor(y)


@asc.jit
def binary_all(x: asc.GlobalAddress, y: asc.GlobalAddress, o: asc.GlobalAddress, n: int, ops: asc.ConstExpr[int],
               cap: asc.ConstExpr[int]):
    """o[k * total + i] = op_k(x[i], y[i]) for the first `ops` binary ops (add, sub, mul, max, min, div)."""
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
    pipe.init_buffer(que=qo, num=1, len=cap * x.dtype.sizeof())
    for k in range(ops):
        og = asc.GlobalTensor()
        og.set_global_buffer(o + k * total + off)
        load(qx, xg, n)
        load(qy, yg, n)
        if k == 0:
            binary_op(0, qx, qy, qo, x.dtype, n)
        elif k == 1:
            binary_op(1, qx, qy, qo, x.dtype, n)
        elif k == 2:
            binary_op(2, qx, qy, qo, x.dtype, n)
        elif k == 3:
            binary_op(3, qx, qy, qo, x.dtype, n)
        elif k == 4:
            binary_op(4, qx, qy, qo, x.dtype, n)
        elif ops > 5:        # compile time: Div is instantiated only where it is asked for (half and float take it)
            binary_op(5, qx, qy, qo, x.dtype, n)
        store(qo, og, n)


@asc.jit
def unary_op(op: asc.ConstExpr[int], qx: asc.TQue, qo: asc.TQue, dt: asc.ConstExpr[object], n: int, s: float):
    x = qx.deque(dt)
    o = qo.alloc_tensor(dt)
    if op == 0:
        asc.adds(o, x, s, n)
    elif op == 1:
        asc.muls(o, x, s, count=n)
    elif op == 2:
        asc.maxs(o, x, s, n)
    elif op == 3:
        asc.mins(o, x, s, n)
    elif op == 4:
        asc.duplicate(o, s, n)
    elif op == 5:
        asc.abs(o, x, n)
    elif op == 6:
        asc.relu(o, x, n)
    elif op == 7:
        asc.exp(o, x, n)
    elif op == 8:
        asc.ln(o, x, n)
    elif op == 9:
        asc.sqrt(o, x, n)
    elif op == 10:
        asc.rsqrt(o, x, n)
    else:
        asc.reciprocal(o, x, n)
    qo.enque(o)
    qx.free_tensor(x)


@asc.jit
def unary_all(x: asc.GlobalAddress, o: asc.GlobalAddress, n: int, s: float, first: asc.ConstExpr[int],
              last: asc.ConstExpr[int], cap: asc.ConstExpr[int]):
    """o[(k - first) * total + i] = op_k(x[i]) for first <= k < last: adds, muls, maxs, mins (scalar s),
    duplicate(s), abs, relu, exp, ln, sqrt, rsqrt, reciprocal."""
    total = n * asc.get_block_num()
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, cap * x.dtype.sizeof())
    for k in range(last - first):
        og = asc.GlobalTensor()
        og.set_global_buffer(o + k * total + off)
        load(qx, xg, n)
        for j in range(last - first):
            if j == k:
                unary_dispatch(first, last, j, qx, qo, x.dtype, n, s)
        store(qo, og, n)


@asc.jit
def unary_dispatch(first: asc.ConstExpr[int], last: asc.ConstExpr[int], j: int, qx: asc.TQue, qo: asc.TQue,
                   dt: asc.ConstExpr[object], n: int, s: float):
    # one runtime j selects one compile-time op (each branch is one specialization of unary_op); a branch past
    # `last` repeats the last op, so that no API is instantiated for a dtype that does not take it (the NPU build
    # of an integer kernel must not instantiate Exp or Abs)
    if j == 0:
        unary_op(first, qx, qo, dt, n, s)
    elif j == 1:
        unary_op(min(first + 1, last - 1), qx, qo, dt, n, s)
    elif j == 2:
        unary_op(min(first + 2, last - 1), qx, qo, dt, n, s)
    elif j == 3:
        unary_op(min(first + 3, last - 1), qx, qo, dt, n, s)
    elif j == 4:
        unary_op(min(first + 4, last - 1), qx, qo, dt, n, s)
    elif j == 5:
        unary_op(min(first + 5, last - 1), qx, qo, dt, n, s)
    else:
        unary_op(min(first + 6, last - 1), qx, qo, dt, n, s)


@asc.jit
def vadd_queues(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: asc.ConstExpr[int],
                tile: asc.ConstExpr[int]):
    """The tutorial shape: TPipe, three TQues of depth 2, copy-in / compute / copy-out per tile (count form)."""
    off = asc.get_block_idx() * block_length
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, block_length)
    yg.set_global_buffer(y + off, block_length)
    zg.set_global_buffer(z + off, block_length)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qx, 2, tile * x.dtype.sizeof())
    pipe.init_buffer(qy, 2, tile * y.dtype.sizeof())
    pipe.init_buffer(qz, 2, tile * z.dtype.sizeof())
    for i in range(block_length // tile):
        a = qx.alloc_tensor(x.dtype)
        b = qy.alloc_tensor(y.dtype)
        asc.data_copy(a, xg[i * tile:], tile)
        asc.data_copy(b, yg[i * tile:], tile)
        qx.enque(a)
        qy.enque(b)
        a = qx.deque(x.dtype)
        b = qy.deque(y.dtype)
        c = qz.alloc_tensor(z.dtype)
        asc.add(c, a, b, tile)
        qz.enque(c)
        qx.free_tensor(a)
        qy.free_tensor(b)
        c = qz.deque(z.dtype)
        asc.data_copy(zg[i * tile:], c, tile)
        qz.free_tensor(c)


@asc.jit(insert_sync=True)
def vadd_auto(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: asc.ConstExpr[int],
              tile: asc.ConstExpr[int]):
    """LocalTensorAuto: no queues and no flags in the source; the translator reserves the buffers and inserts the
    SetFlag/WaitFlag pairs."""
    off = asc.get_block_idx() * block_length
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    yg.set_global_buffer(y + off)
    zg.set_global_buffer(z + off)
    for i in asc.range(block_length // tile):
        a = asc.LocalTensorAuto(x.dtype, tile)
        b = asc.LocalTensorAuto(y.dtype, tile)
        c = asc.LocalTensorAuto(z.dtype, tile)
        asc.data_copy(a, xg[i * tile:], count=tile)
        asc.data_copy(b, yg[i * tile:], count=tile)
        first = a.get_value(0)
        asc.adds(c, b, first, tile)
        asc.add(c, c, a, tile)
        asc.data_copy(zg[i * tile:], c, count=tile)


@asc.jit
def specials(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """z[0] = min(x[0], inf), z[1] = -inf, z[2] = nan: float specials as compile-time values."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    lim = float("inf")
    zg.set_value(0, min(xg.get_value(0), lim))
    zg.set_value(1, -math.inf)
    zg.set_value(2, math.nan)


@asc.jit
def tuple_assign(x: asc.GlobalAddress, z: asc.GlobalAddress, k: int):
    """Tuple assignment of runtime values: the whole right side first (a swap), mixed with compile-time ones."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a, b, c = xg.get_value(0), xg.get_value(1), 3
    a, b = b, a
    n, m = max(1, k // 2), k * c
    zg.set_value(0, a)
    zg.set_value(1, b)
    zg.set_value(2, a + b * c)
    zg.set_value(3, n + m)


@asc.jit
def tuple_alias(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    """Tuple assignment of objects: the names refer to the same GlobalTensors (z[0] = y[0], z[1] = x[0])."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    p, q = yg, xg
    zg.set_value(0, p.get_value(0))
    zg.set_value(1, q.get_value(0))


@asc.jit(insert_sync=True)
def branch_on_read(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """An if whose condition reads a LocalTensor the MTE2 copy just wrote: its MTE2 -> S pair goes before the if."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensorAuto(x.dtype, n)
    c = asc.LocalTensorAuto(z.dtype, n)
    asc.data_copy(a, xg, count=n)
    if a.get_value(0) > 0.0:
        asc.adds(c, a, 1.0, n)
    else:
        asc.adds(c, a, -1.0, n)
    asc.data_copy(zg, c, count=n)
