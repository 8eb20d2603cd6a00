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


@asc.jit
def cmp_one(j: int, m: asc.LocalTensor, x: asc.LocalTensor, y: asc.LocalTensor, s: float, n: int,
            scalar: asc.ConstExpr[bool], eq_only: asc.ConstExpr[bool]):
    # mode j (LT, GT, EQ, LE, GE, NE), each branch a compile-time CMPMODE; int32_t takes EQ only (eq_only)
    if eq_only:
        if scalar:
            asc.compare_scalar(m, x, s, asc.CMPMODE.EQ, n)
        else:
            asc.compare(m, x, y, asc.CMPMODE.EQ, n)
    elif scalar:
        if j == 0:
            asc.compare_scalar(m, x, s, asc.CMPMODE.LT, n)
        elif j == 1:
            asc.compare_scalar(m, x, s, asc.CMPMODE.GT, n)
        elif j == 2:
            asc.compare_scalar(m, x, s, asc.CMPMODE.EQ, n)
        elif j == 3:
            asc.compare_scalar(m, x, s, asc.CMPMODE.LE, n)
        elif j == 4:
            asc.compare_scalar(m, x, s, asc.CMPMODE.GE, n)
        else:
            asc.compare_scalar(m, x, s, cmp_mode=asc.CMPMODE.NE, count=n)
    else:
        if j == 0:
            asc.compare(m, x, y, asc.CMPMODE.LT, n)
        elif j == 1:
            asc.compare(m, x, y, asc.CMPMODE.GT, n)
        elif j == 2:
            asc.compare(m, x, y, asc.CMPMODE.EQ, n)
        elif j == 3:
            asc.compare(m, x, y, asc.CMPMODE.LE, n)
        elif j == 4:
            asc.compare(m, x, y, asc.CMPMODE.GE, n)
        else:
            asc.compare(m, x, y, asc.CMPMODE.NE, n)


@asc.jit
def compares(x: asc.GlobalAddress, y: asc.GlobalAddress, masks: asc.GlobalAddress, sel: asc.GlobalAddress, n: int,
             s: float, modes: asc.ConstExpr[int], with_select: asc.ConstExpr[bool]):
    """Per block of n elements (n * sizeof a multiple of 256 B, as Compare's count form needs): for each mode j <
    modes, the bit masks compare_scalar(x, s) and compare(x, y) (n / 8 bytes each) to masks[(2 j + 0/1) * total / 8
    + off / 8]; with_select: sel = select(compare(x, y, LT), x, y) (the elementwise minimum)."""
    total = n * asc.get_block_num()
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    yg.set_global_buffer(y + off)
    sg.set_global_buffer(sel + off)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qm = asc.TQue(asc.TPosition.VECOUT, 1)
    qs = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qy, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qm, 1, 256)
    pipe.init_buffer(qs, 1, n * x.dtype.sizeof())
    load(qx, xg, n)
    load(qy, yg, n)
    xl = qx.deque(x.dtype)
    yl = qy.deque(x.dtype)
    for j in range(modes):
        for scalar in range(2):
            mg = asc.GlobalTensor()
            mg.set_global_buffer(masks + (2 * j + scalar) * (total // 8) + off // 8)
            m = qm.alloc_tensor(asc.uint8)
            if scalar == 1:
                cmp_one(j, m, xl, yl, s, n, True, modes == 1)
            else:
                cmp_one(j, m, xl, yl, s, n, False, modes == 1)
            qm.enque(m)
            m = qm.deque(asc.uint8)
            asc.data_copy_pad(mg, m, asc.DataCopyExtParams(1, n // 8, 0, 0, 0))
            qm.free_tensor(m)
    if with_select:
        m = qm.alloc_tensor(asc.uint8)
        asc.compare(m, xl, yl, asc.CMPMODE.LT, n)
        o = qs.alloc_tensor(x.dtype)
        asc.select(o, m, xl, yl, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        qs.enque(o)
        qm.free_tensor(m)
        store(qs, sg, n)
    qx.free_tensor(xl)
    qy.free_tensor(yl)


@asc.jit
def casts(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int], mode: asc.ConstExpr[object]):
    """z = cast(x, z's type, mode) over each block's n elements."""
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    zg.set_global_buffer(z + off)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, cap * z.dtype.sizeof())
    load(qx, xg, n)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(z.dtype)
    asc.cast(zl, xl, mode, n)
    qz.enque(zl)
    qx.free_tensor(xl)
    store(qz, zg, n)


@asc.jit
def reductions(x: asc.GlobalAddress, o: asc.GlobalAddress, n: int, mask: int, repeat: int, cap: asc.ConstExpr[int]):
    """Block b reduces its n elements (count form) and its first `repeat` repeats of 256 B (continuous mask `mask`)
    into 12 slots of 32 elements at o + (b * 12 + k) * 32, the rest of each slot 0: 0 reduce_sum, 1 reduce_max,
    2 reduce_max with its index, 3 reduce_min with its index, 4 whole_reduce_max, 5 whole_reduce_min (value, index
    pairs), 6 whole_reduce_sum, 7 block_reduce_sum, 8 block_reduce_max, 9 block_reduce_min (8 per repeat),
    10 whole_reduce_max ORDER_ONLY_INDEX, 11 whole_reduce_min ORDER_INDEX_VALUE."""
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    og.set_global_buffer(o + asc.get_block_idx() * 12 * 32)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    tw = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, 12 * 32 * x.dtype.sizeof())
    pipe.init_buffer(tw, 2 * cap * x.dtype.sizeof())
    xl = qx.alloc_tensor(x.dtype)
    asc.duplicate(xl, 0.0, cap)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy_pad(xl, xg, asc.DataCopyExtParams(1, n * x.dtype.sizeof(), 0, 0, 0),
                      asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    qx.enque(xl)
    xl = qx.deque(x.dtype)
    ol = qo.alloc_tensor(x.dtype)
    w = tw.get_with_offset(x.dtype, cap, cap * x.dtype.sizeof())     # the second half of the buffer
    asc.duplicate(ol, 0.0, 12 * 32)
    asc.reduce_sum(ol[0:], xl, w, n)
    asc.reduce_max(ol[32:], xl, w, n)
    asc.reduce_max(ol[64:], xl, w, n, True)
    asc.reduce_min(ol[96:], xl, w, n, cal_index=True)
    asc.whole_reduce_max(ol[128:], xl, mask, repeat, 1, 1, 8)
    asc.whole_reduce_min(ol[160:], xl, mask, repeat, 1, 1, 8, asc.ReduceOrder.ORDER_VALUE_INDEX)
    asc.whole_reduce_sum(ol[192:], xl, mask, repeat, 1, 1, 8)
    asc.block_reduce_sum(ol[224:], xl, repeat, mask, 1, 1, 8)
    asc.block_reduce_max(ol[256:], xl, repeat, mask, 1, 1, 8)
    asc.block_reduce_min(ol[288:], xl, repeat, mask, 1, 1, 8)
    asc.whole_reduce_max(ol[320:], xl, mask, repeat, 1, 1, 8, asc.ReduceOrder.ORDER_ONLY_INDEX)
    asc.whole_reduce_min(ol[352:], xl, mask, repeat, 1, 1, 8, order=asc.ReduceOrder.ORDER_INDEX_VALUE)
    qo.enque(ol)
    qx.free_tensor(xl)
    ol = qo.deque(x.dtype)
    asc.data_copy(og, ol, 12 * 32)
    qo.free_tensor(ol)


@asc.jit
def queries(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """z[block * 40 + k] = the k-th queried value (int32; the test lists what each must be), and z[block * 40 + 32
    ...] = x[0:8] + 1 moved through the TQueBind and a TBuf the pipe got from get_tpipe_ptr."""
    zg = asc.GlobalTensor()
    xg = asc.GlobalTensor()
    zg.set_global_buffer(z + asc.get_block_idx() * 40)
    xg.set_global_buffer(x)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    qb = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
    tb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(q, 2, n * x.dtype.sizeof())
    pipe.init_buffer(qb, 1, n * x.dtype.sizeof())
    pipe.init_buffer(tb, n * x.dtype.sizeof())
    zg.set_value(0, q.vacant_in_que())
    zg.set_value(1, q.has_tensor_in_que())
    zg.set_value(2, q.get_tensor_count_in_que())
    zg.set_value(3, q.has_idle_buffer())
    a = q.alloc_tensor(x.dtype)
    q.enque(a)
    zg.set_value(4, q.vacant_in_que())
    zg.set_value(5, q.has_tensor_in_que())
    zg.set_value(6, q.get_tensor_count_in_que())
    zg.set_value(7, q.has_idle_buffer())
    b = q.alloc_tensor(x.dtype)
    q.enque(b)
    zg.set_value(8, q.vacant_in_que())
    zg.set_value(9, q.has_tensor_in_que())
    zg.set_value(10, q.get_tensor_count_in_que())
    zg.set_value(11, q.has_idle_buffer())
    a = q.deque(x.dtype)
    zg.set_value(12, q.get_tensor_count_in_que())
    q.free_tensor(a)
    b = q.deque(x.dtype)
    q.free_tensor(b)
    t = tb.get(x.dtype)
    zg.set_value(13, t.get_length())
    u = t[16:]
    zg.set_value(14, u.get_length())
    zg.set_value(15, t.get_position())
    t.set_size(8)
    zg.set_value(16, t.get_size())
    zg.set_value(17, t.get_length())
    t.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (4, 8))))
    zg.set_value(18, asc.get_shape_size(t.get_shape_info()))
    zg.set_value(19, asc.get_data_block_size_in_bytes())
    zg.set_value(20, asc.get_sub_block_idx())
    e = pipe.alloc_event_id(asc.HardEvent.V_MTE3)
    zg.set_value(21, e)
    pipe.release_event_id(e, asc.HardEvent.V_MTE3)
    zg.set_value(22, pipe.fetch_event_id(asc.HardEvent.V_MTE3))
    zg.set_value(23, qb.vacant_in_que())
    zg.set_value(24, qb.has_idle_buffer())
    c = qb.alloc_tensor(x.dtype)
    zg.set_value(25, qb.has_idle_buffer())
    asc.data_copy(c, xg, n)
    qb.enque(c)
    zg.set_value(26, qb.has_tensor_in_que())
    zg.set_value(27, qb.get_tensor_count_in_que())
    zg.set_value(28, qb.vacant_in_que())
    c = qb.deque(x.dtype)
    p = asc.get_tpipe_ptr()
    tb2 = asc.TBuf(asc.TPosition.VECCALC)
    p.init_buffer(tb2, n * x.dtype.sizeof())
    r = tb2.get(x.dtype)
    asc.adds(r, c, 1, n)
    qb.free_tensor(c)
    qb.free_all_event()
    ri = r.reinterpret_cast(asc.int32)
    asc.cast(ri, r, asc.RoundMode.CAST_RINT, 8)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg[32:], ri, 8)


@asc.jit
def adv_op(j: int, o: asc.LocalTensor, x: asc.LocalTensor, tmp: asc.LocalTensor, n: int):
    if j == 0:
        asc.adv.tanh(o, x, tmp, n)
    elif j == 1:
        asc.adv.sin(o, x, tmp, n)
    elif j == 2:
        asc.adv.cos(o, x, tmp, n)
    elif j == 3:
        asc.adv.erf(o, x, tmp, n)
    elif j == 4:
        asc.adv.floor(o, x, tmp, n)
    elif j == 5:
        asc.adv.ceil(o, x, tmp, n)
    else:
        asc.adv.exp(o, x, tmp, n)


@asc.jit
def adv_math(x: asc.GlobalAddress, o: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int]):
    """o[k * total + i] = f_k(x[i]) for the advanced math: tanh, sin, cos, erf, floor, ceil, exp."""
    total = n * asc.get_block_num()
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    tb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(tb, 2 * cap * x.dtype.sizeof() + 512)
    load(qx, xg, n)
    xl = qx.deque(x.dtype)
    tmp = tb.get(asc.uint8)
    for j in range(7):
        og = asc.GlobalTensor()
        og.set_global_buffer(o + j * total + off)
        ol = qo.alloc_tensor(x.dtype)
        adv_op(j, ol, xl, tmp, n)
        qo.enque(ol)
        store(qo, og, n)
    qx.free_tensor(xl)


@asc.jit
def prints(x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """printf of the block index, a float and an int; DumpTensor of the block's n elements."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(qx, 1, n * x.dtype.sizeof())
    asc.printf("block %d: x0=%f n=%d\n", asc.get_block_idx(), xg.get_value(0), n)
    t = qx.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    qx.enque(t)
    t = qx.deque(x.dtype)
    asc.dump_tensor(t, 7, n)
    qx.free_tensor(t)


@asc.jit
def mm_shapes(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
              flags: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, m: int, n: int,
              k: int):
    """A MIX kernel of one block: AIV 0 computes C = A @ B with set_org_shape / set_single_shape, a bias set and then
    disabled (C has no bias); each AIV writes flags[8 * block_idx] = 1 + get_sub_block_idx()."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gc.set_global_buffer(c)
    gbias.set_global_buffer(bias)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.ascend_is_aiv():
        fg = asc.GlobalTensor()
        fg.set_global_buffer(flags + asc.get_block_idx() * 8)
        fg.set_value(0, 1 + asc.get_sub_block_idx())
    if asc.get_block_idx() == 0:
        mm.set_org_shape(m, n, k)
        mm.set_single_shape(m, n, k)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_bias(gbias)
        mm.disable_bias()
        mm.iterate_all(gc)
        mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
