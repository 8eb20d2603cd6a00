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
