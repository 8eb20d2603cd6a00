"""pyasc-style kernels (written here) for asc.adv.quant (AscendQuant, per tensor, int8 output) and
asc.adv.QuantConfig. Each block quantizes the `n` elements starting at block_idx * n through a VECIN and a VECOUT
queue, with a VECCALC TBuf of `tmp_bytes` as the temporary buffer; `cnt` is the count given to quant."""
import asc


@asc.jit
def quant_blocks(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cnt: int, cap: asc.ConstExpr[int],
                 tmp_bytes: asc.ConstExpr[int], scale: float, offset: float, form: asc.ConstExpr[int],
                 cfg: asc.ConstExpr[object]):
    off = asc.get_block_idx() * n
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off, n)
    zg.set_global_buffer(z + off, n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 1)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=qin, num=1, len=cap * x.dtype.sizeof())
    pipe.init_buffer(que=qout, num=1, len=cap)
    tbuf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf=tbuf, num=tmp_bytes)
    xl = qin.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, count=n)
    qin.enque(xl)
    xl = qin.deque(x.dtype)
    zl = qout.alloc_tensor(asc.int8)
    tmp = tbuf.get(asc.uint8)
    if form == 0:
        asc.adv.quant(zl, xl, scale, offset, cnt, tmp)
    elif form == 1:
        asc.adv.quant(zl, xl, scale, offset, cnt, tmp, config=cfg)
    elif form == 2:
        asc.adv.quant(zl, xl, scale, offset, cnt)
    elif form == 3:
        asc.adv.quant(zl, xl, scale, offset, temp_buffer=tmp)
    elif form == 4:
        asc.adv.quant(zl, xl, scale, offset, cnt, xl.reinterpret_cast(asc.uint8))
    else:
        asc.adv.quant(zl, xl, scale, offset, cnt, tmp, config=asc.adv.QuantConfig(cap, 0, 0, tmp_bytes))
    qout.enque(zl)
    qin.free_tensor(xl)
    zl = qout.deque(asc.int8)
    asc.data_copy(zg, zl, count=n)
    qout.free_tensor(zl)


@asc.jit(insert_sync=True)
def quant_in_place(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], scale: float, offset: float):
    """dst is src's own buffer (the docs allow src and dst to be the same): the int8 results over the first n bytes
    of the float16 / float32 source, chunk by chunk."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensorAuto(x.dtype, n)
    tmp = asc.LocalTensorAuto(asc.uint8, 512)
    asc.data_copy(xl, xg, count=n)
    zl = xl.reinterpret_cast(asc.int8)
    asc.adv.quant(zl, xl, scale, offset, n, tmp)
    asc.data_copy(zg, zl, count=n)


@asc.jit(insert_sync=True)
def quant_types(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], tmp_dtype: asc.ConstExpr[object]):
    """quant with the element types given: x's for src, z's for dst, tmp_dtype for the temporary buffer."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensorAuto(x.dtype, n)
    zl = asc.LocalTensorAuto(z.dtype, n)
    tmp = asc.LocalTensorAuto(tmp_dtype, 512)
    asc.data_copy(xl, xg, count=n)
    asc.adv.quant(zl, xl, 2.0, 0.5, n, tmp)
    asc.data_copy(zg, zl, count=n)


@asc.jit(insert_sync=True)
def quant_dynamic_len(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: asc.ConstExpr[int], cols: int,
                      tmp_bytes: int):
    """LocalTensorAuto of a shape whose last dim, and of a byte count, known at run time only (pyasc's
    test_quant_dynamic), with a positional count in data_copy."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensorAuto(x.dtype, (rows, cols))
    asc.data_copy(xl, xg, rows * cols)
    zl = asc.LocalTensorAuto(asc.int8, (rows, cols))
    tmp = asc.LocalTensorAuto(asc.uint8, tmp_bytes)
    asc.adv.quant(zl, xl, 2.0, 0.9, rows * cols, tmp)
    asc.data_copy(zg, zl, rows * cols)


@asc.jit(insert_sync=True)
def auto_len_from_local(x: asc.GlobalAddress, cols: int):
    """A LocalTensorAuto whose run-time length is a local value: refused (its space is given at kernel start)."""
    m = cols * 2
    t = asc.LocalTensorAuto(x.dtype, m)
    asc.duplicate(t, 1.0, m)
