"""pyasc-style kernels (written here) for the APIs added to the CPU twin after the first vector families: tensors at
a fixed local-memory address, the repeat/mask forms, Copy, Axpy, Transpose and the TPipe/LocalTensor methods. Each
block handles `n` elements starting at block_idx * n; data_copy_pad moves ragged lengths."""
import asc


@asc.jit
def at_address(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int,
               cap: asc.ConstExpr[int], gap: asc.ConstExpr[int]):
    """z = x + y through three LocalTensors placed at byte addresses 0, cap*size + gap, 2*(cap*size + gap)."""
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, n)
    yg.set_global_buffer(y + off, n)
    zg.set_global_buffer(z + off, n)
    step = cap * x.dtype.sizeof() + gap
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, step, cap)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, step + step, cap)
    nb = n * x.dtype.sizeof()
    asc.data_copy_pad(xl, xg, asc.DataCopyExtParams(1, nb, 0, 0, 0), asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    asc.data_copy_pad(yl, yg, asc.DataCopyExtParams(1, nb, 0, 0, 0), asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(zl, xl, yl, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(zg, zl, asc.DataCopyExtParams(1, nb, 0, 0, 0))


@asc.jit
def bad_address(x: asc.GlobalAddress, pos: asc.ConstExpr[object], addr: asc.ConstExpr[int],
                tile: asc.ConstExpr[int]):
    t = asc.LocalTensor(x.dtype, pos, addr, tile)
    asc.duplicate(t, 1.0, 8)


@asc.jit
def load_full(q: asc.TQue, gm: asc.GlobalTensor, cap: asc.ConstExpr[int]):
    t = q.alloc_tensor(gm.dtype)
    asc.data_copy(t, gm, cap)
    q.enque(t)


@asc.jit
def repeat_op(fam: asc.ConstExpr[int], op: int, zl: asc.LocalTensor, xl: asc.LocalTensor, yl: asc.LocalTensor,
              mask, repeat: int, db: int, sb: int, dr: int, sr: int, s: float):
    bp = asc.BinaryRepeatParams(db, sb, sb, dr, sr, sr)
    up = asc.UnaryRepeatParams(db, sb, dr, sr)
    if fam == 0:
        if op == 0:
            asc.add(zl, xl, yl, mask, repeat, bp)
        elif op == 1:
            asc.sub(zl, xl, yl, mask=mask, repeat_times=repeat, repeat_params=bp)
        elif op == 2:
            asc.max(zl, xl, yl, mask, repeat, bp)
        elif op == 3:
            asc.adds(zl, xl, s, mask, repeat, up)
        elif op == 4:
            asc.muls(zl, xl, s, mask, repeat, up)
        elif op == 7:
            asc.duplicate(zl, s, mask, repeat, db, dr)
        else:
            asc.copy(zl, xl, mask, repeat, asc.CopyRepeatParams(db, sb, dr, sr))
    else:
        if op == 5:
            asc.exp(zl, xl, mask, repeat, up)
        elif op == 6:
            asc.abs(zl, xl, mask, repeat, up)
        else:
            asc.axpy(zl, xl, s, mask, repeat, up)


@asc.jit
def repeat_forms(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, cap: asc.ConstExpr[int],
                 fam: asc.ConstExpr[int], op: int, bits: asc.ConstExpr[object], mcont: int, repeat: int,
                 db: int, sb: int, dr: int, sr: int, fill: float, s: float):
    """z = fill everywhere, then one repeat-form call on each block's cap elements, with the bit mask `bits`
    (a list) or, where bits is None, the continuous mask mcont: fam 0 (every type): op 0 add, 1 sub, 2 max,
    3 adds, 4 muls, 7 duplicate(s), 8 copy; fam 1 (half, float): 5 exp, 6 abs, 9 axpy (z = s * x + z)."""
    off = asc.get_block_idx() * cap
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, cap)
    yg.set_global_buffer(y + off, cap)
    zg.set_global_buffer(z + off, cap)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qy, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, cap * x.dtype.sizeof())
    load_full(qx, xg, cap)
    load_full(qy, yg, cap)
    xl = qx.deque(x.dtype)
    yl = qy.deque(x.dtype)
    zl = qz.alloc_tensor(x.dtype)
    asc.duplicate(zl, fill, cap)
    if bits is None:
        repeat_op(fam, op, zl, xl, yl, mcont, repeat, db, sb, dr, sr, s)
    else:
        repeat_op(fam, op, zl, xl, yl, bits, repeat, db, sb, dr, sr, s)
    qz.enque(zl)
    qx.free_tensor(xl)
    qy.free_tensor(yl)
    zl = qz.deque(x.dtype)
    asc.data_copy(zg, zl, cap)
    qz.free_tensor(zl)


@asc.jit
def axpy_count(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int], s: asc.ConstExpr[float]):
    """z = s * x + z over each block's n elements (count form)."""
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, n)
    zg.set_global_buffer(z + off, n)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(qx, 1, cap * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, cap * z.dtype.sizeof())
    nb = n * x.dtype.sizeof()
    xl = qx.alloc_tensor(x.dtype)
    zl = qz.alloc_tensor(z.dtype)
    asc.data_copy_pad(xl, xg, asc.DataCopyExtParams(1, nb, 0, 0, 0), asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    asc.data_copy_pad(zl, zg, asc.DataCopyExtParams(1, n * z.dtype.sizeof(), 0, 0, 0),
                      asc.DataCopyPadExtParams(z.dtype, False, 0, 0, 0))
    qx.enque(xl)
    qz.enque(zl)
    xl = qx.deque(x.dtype)
    zl = qz.deque(z.dtype)
    asc.axpy(zl, xl, s, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(zg, zl, asc.DataCopyExtParams(1, n * z.dtype.sizeof(), 0, 0, 0))
    qx.free_tensor(xl)
    qz.free_tensor(zl)


@asc.jit
def pipe_reuse(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], rounds: asc.ConstExpr[int]):
    """Each round gives the queues fresh buffers (destroy, init, init_buffer), re-enqueues a dequeued tensor, and
    writes z[0:16] = (x + 1) * tag (set_user_tag / get_user_tag), z[16:32] = the size of a tensor moved 16
    elements on with set_addr_with_offset (its byte length stays: n), z[32:48] = the size after set_buffer_len(64)."""
    off = asc.get_block_idx() * n * rounds
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, n * rounds)
    zg.set_global_buffer(z + off, n * rounds)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    for i in range(rounds):
        pipe.destroy()
        pipe.init()
        pipe.init_buffer(q, 1, n * x.dtype.sizeof())
        pipe.init_buffer(qo, 1, n * x.dtype.sizeof())
        t = q.alloc_tensor(x.dtype)
        asc.data_copy(t, xg[i * n:], n)
        q.enque(t)
        t = q.deque(x.dtype)
        asc.adds(t, t, 1, n)
        q.enque(t)
        t = q.deque(x.dtype)
        t.set_user_tag(7)
        tag = t.get_user_tag()
        o = qo.alloc_tensor(x.dtype)
        asc.muls(o, t, tag, n)
        h = o.reinterpret_cast(x.dtype)
        h.set_addr_with_offset(o, 16)
        asc.duplicate(h, h.get_size(), 16)
        g = o.reinterpret_cast(x.dtype)
        g.set_buffer_len(64)
        asc.duplicate(o[32:], g.get_size(), 16)
        qo.enque(o)
        q.free_tensor(t)
        o = qo.deque(x.dtype)
        asc.data_copy(zg[i * n:], o, n)
        qo.free_tensor(o)
        pipe.reset()


@asc.jit
def transposes(x: asc.GlobalAddress, z: asc.GlobalAddress, total: asc.ConstExpr[int], kind: asc.ConstExpr[int],
               n: asc.ConstExpr[int], c: asc.ConstExpr[int], h: asc.ConstExpr[int], w: asc.ConstExpr[int]):
    """kind 0: the 16 x 16 transpose; 1: NCHW -> NHWC; 2: NHWC -> NCHW (TransposeParamsExt, a tmp buffer)."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, total)
    zg.set_global_buffer(z, total)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    qt = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(qx, 1, total * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, total * x.dtype.sizeof())
    pipe.init_buffer(qt, 1, 8192)
    load_full(qx, xg, total)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(x.dtype)
    if kind == 0:
        asc.transpose(zl, xl)
    else:
        tmp = qt.alloc_tensor(asc.uint8)
        tt = asc.TransposeType.TRANSPOSE_NCHW2NHWC if kind == 1 else asc.TransposeType.TRANSPOSE_NHWC2NCHW
        asc.transpose(zl, xl, tmp, asc.TransposeParamsExt(n, c, h, w, tt))
        qt.free_tensor(tmp)
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(x.dtype)
    asc.data_copy(zg, zl, total)
    qz.free_tensor(zl)


@asc.jit
def to_5hd(x: asc.GlobalAddress, z: asc.GlobalAddress, hw: asc.ConstExpr[int], repeat: asc.ConstExpr[int],
           dst_stride: asc.ConstExpr[int], src_stride: asc.ConstExpr[int], room: asc.ConstExpr[int]):
    """16 channels of hw 16-bit elements: srcList[i] = channel i, dstList[j] = z[16 j:], one TransDataTo5HD; the
    two UB buffers hold `room` elements more than the data (Huawei's size check asks one repeat stride more of each
    listed tensor than the repeats reach)."""
    total = 16 * hw
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, total)
    zg.set_global_buffer(z, total)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, (total + room) * x.dtype.sizeof())
    pipe.init_buffer(qz, 1, (total + room) * x.dtype.sizeof())
    load_full(qx, xg, total)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(x.dtype)
    asc.duplicate(zl, 0, total)
    src = [xl[0 * hw], xl[1 * hw], xl[2 * hw], xl[3 * hw], xl[4 * hw], xl[5 * hw], xl[6 * hw], xl[7 * hw],
           xl[8 * hw], xl[9 * hw], xl[10 * hw], xl[11 * hw], xl[12 * hw], xl[13 * hw], xl[14 * hw], xl[15 * hw]]
    dst = [zl[0], zl[16], zl[32], zl[48], zl[64], zl[80], zl[96], zl[112], zl[128], zl[144], zl[160], zl[176],
           zl[192], zl[208], zl[224], zl[240]]
    asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(False, False, repeat, dst_stride, src_stride))
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(x.dtype)
    asc.data_copy(zg, zl, total)
    qz.free_tensor(zl)


@asc.jit(insert_sync=True)
def softmax_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, sums: asc.GlobalAddress, maxes: asc.GlobalAddress,
                 m: asc.ConstExpr[int], k: asc.ConstExpr[int], shaped: asc.ConstExpr[int]):
    """Each block: softmax over the last axis of its m x k rows; the row sums and maxima, one 32-byte block per
    row, to sums / maxes."""
    epb = 32 // x.dtype.sizeof()
    off = asc.get_block_idx() * m * k
    soff = asc.get_block_idx() * m * epb
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    mg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, m * k)
    zg.set_global_buffer(z + off, m * k)
    sg.set_global_buffer(sums + soff, m * epb)
    mg.set_global_buffer(maxes + soff, m * epb)
    src = asc.LocalTensorAuto(x.dtype, m * k)
    dst = asc.LocalTensorAuto(x.dtype, m * k)
    sl = asc.LocalTensorAuto(x.dtype, m * epb)
    ml = asc.LocalTensorAuto(x.dtype, m * epb)
    asc.data_copy(src, xg, count=m * k)
    if shaped == 1:
        src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (m, k))))
    asc.adv.softmax(dst, sl, ml, src, asc.adv.SoftmaxTiling())
    asc.data_copy(zg, dst, count=m * k)
    asc.data_copy(sg, sl, count=m * epb)
    asc.data_copy(mg, ml, count=m * epb)
