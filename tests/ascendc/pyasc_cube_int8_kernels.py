"""pyasc kernels with the int8 cube path for tests/ascendc/test_pyasc_cube_int8.py: int8 A (M x K) and B given
transposed (N x K) through L1 (NZ, 16 x 32 int8 fractals) into L0A / L0B, mmad into an int32 L0C, fixpipe to GM as
int32 (NoQuant), float16 (DEQF16 with deq_scalar, VDEQF16 with one word per column in L1) or int8 / uint8 (REQ8,
VREQ8); a float16 product through QF322B8_PRE / VQF322B8_PRE to int8. Broken kernels break one rule each on the line
marked `# RULE: name`."""
import asc
import asc.runtime.config as config

AIC = config.KernelType.AIC_ONLY


@asc.jit(kernel_type=AIC)
def mm_int8(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, w: asc.GlobalAddress,
            m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int], steps: asc.ConstExpr[int],
            quant: asc.ConstExpr, deq: asc.ConstExpr[int], relu: asc.ConstExpr[bool] = False):
    """C (m x n) = A (m x k) @ B (k x n), B given as B^T (n x k); each core takes m rows (core i: rows i*m..) and
    the K of each step (k // steps, a multiple of 32 when steps > 1) is accumulated in L0C. quant: Fixpipe's
    pre-mode; deq: the scalar word (DEQF16 / REQ8 / QF322B8_PRE); the V modes read one word per column from w."""
    blk = asc.get_block_idx()
    kk = k // steps
    mp = (m + 15) // 16 * 16
    np_ = (n + 15) // 16 * 16
    kp = (kk + 31) // 32 * 32
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gw = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(bt)
    gc.set_global_buffer(c)
    gw.set_global_buffer(w)
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qw = asc.TQue(asc.TPosition.C1, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, mp * kp)
    pipe.init_buffer(qb1, 1, np_ * kp)
    pipe.init_buffer(qw, 1, np_ * 8)
    pipe.init_buffer(qa2, 1, mp * kp)
    pipe.init_buffer(qb2, 1, np_ * kp)
    pipe.init_buffer(qc, 1, mp * np_ * 4)
    c1 = qc.alloc_tensor(asc.int32)
    for s in range(steps):
        a1 = qa1.alloc_tensor(asc.int8)
        b1 = qb1.alloc_tensor(asc.int8)
        asc.data_copy(a1, ga[blk * m * k + s * kk:], asc.Nd2NzParams(1, m, kk, 0, k, mp, 1, 0))
        asc.data_copy(b1, gb[s * kk:], asc.Nd2NzParams(1, n, kk, 0, k, np_, 1, 0))
        qa1.enque(a1)
        qb1.enque(b1)
        a1 = qa1.deque(asc.int8)
        b1 = qb1.deque(asc.int8)
        a2 = qa2.alloc_tensor(asc.int8)
        b2 = qb2.alloc_tensor(asc.int8)
        # L1 NZ: the 16 x 32 fractal (row block i, K strip j) at j * (mp / 16) + i; L0A takes row block i's in a row
        for i in range(mp // 16):
            asc.load_data(a2[i * kp * 16:], a1, asc.LoadData2DParams(i, kp // 32, mp // 16, 0, 0, False, 0))
        # B^T in NZ: fractal (N block j, K strip i) at i * (np_ / 16) + j, (n, k) at n * 32 + k: already Zn
        asc.load_data(b2, b1, asc.LoadData2DParams(0, (kp // 32) * (np_ // 16), 1, 0, 0, False, 0))
        qa1.free_tensor(a1)
        qb1.free_tensor(b1)
        qa2.enque(a2)
        qb2.enque(b2)
        a2 = qa2.deque(asc.int8)
        b2 = qb2.deque(asc.int8)
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, kk, unit_flag=0, cmatrix_source=False, cmatrix_init_val=s == 0))
        qa2.free_tensor(a2)
        qb2.free_tensor(b2)
    qc.enque(c1)
    c1 = qc.deque(asc.int32)
    p = asc.FixpipeParamsV220(n, m, mp, n, quant, deq, relu_en=relu)
    if quant == asc.QuantModes.VDEQF16 or quant == asc.QuantModes.VREQ8:
        w1 = qw.alloc_tensor(asc.uint64)
        asc.data_copy(w1, gw, np_)
        qw.enque(w1)
        w1 = qw.deque(asc.uint64)
        asc.fixpipe(gc[blk * m * n:], c1, w1, p)
        qw.free_tensor(w1)
    else:
        asc.fixpipe(gc[blk * m * n:], c1, p, asc.FixpipeConfig.cfg_row_major)
    qc.free_tensor(c1)


@asc.jit(kernel_type=AIC)
def mm_f16_to_b8(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, w: asc.GlobalAddress,
                 quant: asc.ConstExpr, deq: asc.ConstExpr[int]):
    """C (32 x 32 int8 / uint8) from A (32 x 32) @ B (B^T given, 32 x 32) of float16 in a float L0C, through
    QF322B8_PRE (deq) or VQF322B8_PRE (one word per column from w)."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gw = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(bt)
    gc.set_global_buffer(c)
    gw.set_global_buffer(w)
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qw = asc.TQue(asc.TPosition.C1, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, 2048)
    pipe.init_buffer(qb1, 1, 2048)
    pipe.init_buffer(qw, 1, 256)
    pipe.init_buffer(qa2, 1, 2048)
    pipe.init_buffer(qb2, 1, 2048)
    pipe.init_buffer(qc, 1, 4096)
    a1 = qa1.alloc_tensor(asc.float16)
    b1 = qb1.alloc_tensor(asc.float16)
    asc.data_copy(a1, ga, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
    asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
    qa1.enque(a1)
    qb1.enque(b1)
    a1 = qa1.deque(asc.float16)
    b1 = qb1.deque(asc.float16)
    a2 = qa2.alloc_tensor(asc.float16)
    b2 = qb2.alloc_tensor(asc.float16)
    for i in range(2):
        asc.load_data(a2[i * 512:], a1, asc.LoadData2DParams(i, 2, 2, 0, 0, False, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 4, 1, 0, 0, False, 0))
    qa1.free_tensor(a1)
    qb1.free_tensor(b1)
    qa2.enque(a2)
    qb2.enque(b2)
    a2 = qa2.deque(asc.float16)
    b2 = qb2.deque(asc.float16)
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    qa2.free_tensor(a2)
    qb2.free_tensor(b2)
    qc.enque(c1)
    c1 = qc.deque(asc.float32)
    p = asc.FixpipeParamsV220(32, 32, 32, 32, quant, deq)
    if quant == asc.QuantModes.VQF322B8_PRE:
        w1 = qw.alloc_tensor(asc.uint64)
        asc.data_copy(w1, gw, 32)
        qw.enque(w1)
        w1 = qw.deque(asc.uint64)
        asc.fixpipe(gc, c1, w1, p)
        qw.free_tensor(w1)
    else:
        asc.fixpipe(gc, c1, p)  # RULE: f16_pair
    qc.free_tensor(c1)


@asc.jit(kernel_type=AIC)
def mm_bias(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
            m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int], case: asc.ConstExpr[str] = "ok"):
    """C (m x n) = A (m x k) @ B (B^T given, n x k) + bias (n), int8 operands with an int32 bias or float16 ones
    with a float32 bias: the bias GM -> L1 (C1) -> BiasTable (C2), then the mmad overload with the bias tensor."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(bt)
    gc.set_global_buffer(c)
    gbias.set_global_buffer(bias)
    dt = ga.dtype
    c0 = 32 // dt.sizeof()
    mp = (m + 15) // 16 * 16
    np_ = (n + 15) // 16 * 16
    kp = (k + c0 - 1) // c0 * c0
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qs1 = asc.TQue(asc.TPosition.C1, 1)
    qbt = asc.TQue(asc.TPosition.C2, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, mp * kp * dt.sizeof())
    pipe.init_buffer(qb1, 1, np_ * kp * dt.sizeof())
    pipe.init_buffer(qs1, 1, np_ * 4)
    pipe.init_buffer(qbt, 1, np_ * 4)
    pipe.init_buffer(qa2, 1, mp * kp * dt.sizeof())
    pipe.init_buffer(qb2, 1, np_ * kp * dt.sizeof())
    pipe.init_buffer(qc, 1, mp * np_ * 4)
    a1 = qa1.alloc_tensor(dt)
    b1 = qb1.alloc_tensor(dt)
    s1 = qs1.alloc_tensor(gbias.dtype)
    asc.data_copy(a1, ga, asc.Nd2NzParams(1, m, k, 0, k, mp, 1, 0))
    asc.data_copy(b1, gb, asc.Nd2NzParams(1, n, k, 0, k, np_, 1, 0))
    asc.data_copy(s1, gbias, np_)
    qa1.enque(a1)
    qb1.enque(b1)
    qs1.enque(s1)
    a1 = qa1.deque(dt)
    b1 = qb1.deque(dt)
    s1 = qs1.deque(gbias.dtype)
    a2 = qa2.alloc_tensor(dt)
    b2 = qb2.alloc_tensor(dt)
    b_t = qbt.alloc_tensor(gbias.dtype)
    for i in range(mp // 16):
        asc.load_data(a2[i * kp * 16:], a1, asc.LoadData2DParams(i, kp // c0, mp // 16, 0, 0, False, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, (kp // c0) * (np_ // 16), 1, 0, 0, False, 0))
    if case == "bt_from_gm":
        asc.data_copy(b_t, gbias, np_)  # RULE: bt_from_gm
    asc.data_copy(b_t, s1, np_)
    qa1.free_tensor(a1)
    qb1.free_tensor(b1)
    qs1.free_tensor(s1)
    qa2.enque(a2)
    qb2.enque(b2)
    qbt.enque(b_t)
    a2 = qa2.deque(dt)
    b2 = qb2.deque(dt)
    b_t = qbt.deque(gbias.dtype)
    c1 = qc.alloc_tensor(gc.dtype)
    if case == "bias_accumulate":
        asc.mmad(c1, a2, b2, b_t, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=False,  # RULE: bias_accumulate
                                                 cmatrix_init_val=False))
    elif case == "bias_in_l0b":
        asc.mmad(c1, a2, b2, b2.reinterpret_cast(gbias.dtype), asc.MmadParams(m, n, k, unit_flag=0,  # RULE: bias_in_l0b
                                                                             cmatrix_source=False,
                                                                             cmatrix_init_val=True))
    else:
        asc.mmad(c1, a2, b2, b_t, asc.MmadParams(m, n, k, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    qa2.free_tensor(a2)
    qb2.free_tensor(b2)
    qbt.free_tensor(b_t)
    qc.enque(c1)
    c1 = qc.deque(gc.dtype)
    asc.fixpipe(gc, c1, asc.FixpipeParamsV220(n, m, mp, n))
    qc.free_tensor(c1)


@asc.jit(kernel_type=AIC)
def broken(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, w: asc.GlobalAddress,
           case: asc.ConstExpr[str], quant: asc.ConstExpr = asc.QuantModes.NoQuant, deq: asc.ConstExpr[int] = 0):
    """C (32 x 32) = A (32 x 32 int8) @ B (B^T given) with one rule broken, chosen by `case`; quant / deq: the
    pre-mode and scalar word the last Fixpipe takes."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gw = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(bt)
    gc.set_global_buffer(c)
    gw.set_global_buffer(w)
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qw = asc.TQue(asc.TPosition.C1, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, 1024)
    pipe.init_buffer(qb1, 1, 1024)
    pipe.init_buffer(qw, 1, 256)
    pipe.init_buffer(qa2, 1, 1024)
    pipe.init_buffer(qb2, 1, 1024)
    pipe.init_buffer(qc, 1, 4096)
    a1 = qa1.alloc_tensor(asc.int8)
    b1 = qb1.alloc_tensor(asc.int8)
    asc.data_copy(a1, ga, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
    asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
    qa1.enque(a1)
    qb1.enque(b1)
    a1 = qa1.deque(asc.int8)
    b1 = qb1.deque(asc.int8)
    a2 = qa2.alloc_tensor(asc.int8)
    b2 = qb2.alloc_tensor(asc.int8)
    for i in range(2):
        asc.load_data(a2[i * 512:], a1, asc.LoadData2DParams(i, 1, 2, 0, 0, False, 0))
    if case == "transpose_b8":
        asc.load_data(b2, b1, asc.LoadData2DParams(0, 2, 1, 0, 0, True, 0))  # RULE: transpose_b8
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 2, 1, 0, 0, False, 0))
    qa1.free_tensor(a1)
    qb1.free_tensor(b1)
    qa2.enque(a2)
    qb2.enque(b2)
    a2 = qa2.deque(asc.int8)
    b2 = qb2.deque(asc.int8)
    if case == "l0c_float":
        cf = qc.alloc_tensor(asc.float32)
        asc.mmad(cf, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))  # RULE: l0c_float
    if case == "uint8_operands":
        ua = a2.reinterpret_cast(asc.uint8)
        ub = b2.reinterpret_cast(asc.uint8)
        asc.mmad(qc.alloc_tensor(asc.int32), ua, ub, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))  # RULE: uint8_operands
    c1 = qc.alloc_tensor(asc.int32)
    asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    qa2.free_tensor(a2)
    qb2.free_tensor(b2)
    qc.enque(c1)
    c1 = qc.deque(asc.int32)
    w1 = qw.alloc_tensor(asc.uint64)
    asc.data_copy(w1, gw, 32)
    qw.enque(w1)
    w1 = qw.deque(asc.uint64)
    p = asc.FixpipeParamsV220(32, 32, 32, 32, quant, deq)
    if case == "ws_dtype":
        asc.fixpipe(gc, c1, w1.reinterpret_cast(asc.int32), p)  # RULE: ws_dtype
    elif case == "vector_without_ws":
        asc.fixpipe(gc, c1, p)  # RULE: vector_without_ws
    elif case == "ws_with_scalar":
        asc.fixpipe(gc, c1, w1, p)  # RULE: ws_with_scalar
    elif case == "vector":
        asc.fixpipe(gc, c1, w1, p)  # RULE: vector
    else:
        asc.fixpipe(gc, c1, p)  # RULE: pair
    qw.free_tensor(w1)
    qc.free_tensor(c1)


# ------------------------------------------------------------------ the Matmul high-level API with int8 A and B

from pyasc_matmul_kernels import offsets  # noqa: E402  (the per-core offsets and tails of test_pyasc_matmul)


@asc.jit
def mm_adv_int8(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                qv: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, quant_word: int,
                mode: asc.ConstExpr[str], with_bias: asc.ConstExpr[bool]):
    """asc.adv.Matmul of int8 A (M x K) and B (K x N) into an int32 C (mode "none") or a float16 C dequantized with
    set_quant_scalar(quant_word) ("scalar") or set_quant_vector(qv) ("vector", one word per column); a MIX kernel."""
    off_a, off_b, off_c, off_n, tail_m, tail_n = offsets(tiling, False, False)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    gq = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    gbias.set_global_buffer(bias + off_n)
    gq.set_global_buffer(qv + off_n)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        if with_bias:
            mm.set_bias(gbias)
        if mode == "scalar":
            mm.set_quant_scalar(quant_word)  # RULE: mm_quant_scalar
        if mode == "vector":
            mm.set_quant_vector(gq)  # RULE: mm_quant_vector
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(gc)  # RULE: mm_iterate_all
        mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
