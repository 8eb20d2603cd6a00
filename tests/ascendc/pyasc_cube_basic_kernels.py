"""pyasc kernels with the cube basic API (GM -> A1/B1 with data_copy and Nd2NzParams, A1/B1 -> A2/B2 with load_data,
mmad into CO1, fixpipe to GM) for tests/ascendc/test_pyasc_cube_basic.py, and broken kernels, each breaking one rule
on the line marked `# RULE: name` (the tests look the line up)."""
import asc
import asc.runtime.config as config

AIC = config.KernelType.AIC_ONLY


@asc.jit
def to_l0(qa1, qb1, qa2, qb2, ga, gb, m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
          kk: asc.ConstExpr[int], s, dt: asc.ConstExpr, tb: asc.ConstExpr[bool]):
    """K step s: A[:, s*kk:(s+1)*kk] and B[s*kk:(s+1)*kk, :] through L1 (NZ) into L0A (Zz) and L0B (Zn); tb: B is
    given transposed (N x K in GM, x @ w^T)."""
    c0 = 32 // dt.sizeof()
    a1 = qa1.alloc_tensor(dt)
    b1 = qb1.alloc_tensor(dt)
    asc.data_copy(a1, ga[s * kk:], intri_params=asc.Nd2NzParams(1, m, kk, 0, k, m, 1, 0))   # pyasc's keyword
    if tb:
        asc.data_copy(b1, gb[s * kk:], asc.Nd2NzParams(1, n, kk, 0, k, n, 1, 0))
    elif c0 == 8:
        # float32 B: 16 rows at a time with a strip stride of 16, so a block's strips are consecutive fractals
        for i in range(kk // 16):
            asc.data_copy(b1[i * 16 * n:], gb[(s * kk + i * 16) * n:], asc.Nd2NzParams(1, 16, n, 0, n, 16, 1, 0))
    else:
        asc.data_copy(b1, gb[s * kk * n:], asc.Nd2NzParams(1, kk, n, 0, n, kk, 1, 0))
    qa1.enque(a1)
    qb1.enque(b1)
    a1 = qa1.deque(dt)
    b1 = qb1.deque(dt)
    a2 = qa2.alloc_tensor(dt)
    b2 = qb2.alloc_tensor(dt)
    # L1 NZ: fractal (row block i, column strip j) at j * (rows / 16) + i; L0A wants row block i's fractals in a row
    for i in range(m // 16):
        asc.load_data(a2[i * kk * 16:], a1, asc.LoadData2DParams(i, kk // c0, m // 16, 0, 0, False, 0))
    if tb:
        # B^T in NZ: fractal (N block j, K strip i) at i * (n / 16) + j holding (n, k) at n * c0 + k: already Zn
        asc.load_data(b2, b1, asc.LoadData2DParams(0, (kk // c0) * (n // 16), 1, 0, 0, False, 0))
    elif c0 == 8:
        # each 16 x 16 square (two 16 x 8 fractals side by side) transposed into two K fractals of L0B
        for i in range(kk // 16):
            asc.load_data_with_transpose(b2[i * n * 16:], b1[i * 16 * n:],
                                         asc.LoadData2dTransposeParams(0, n // 16, 1, 0, n // 16 - 1, 0))
    else:
        # L0B (Zn): the K x 16 fractals of one K block in a row, each transposed (16-bit data: if_transpose)
        for i in range(kk // 16):
            asc.load_data(b2[i * n * 16:], b1, asc.LoadData2DParams(i, n // 16, kk // 16, 0, 0, True, 0))
    qa1.free_tensor(a1)
    qb1.free_tensor(b1)
    qa2.enque(a2)
    qb2.enque(b2)


@asc.jit(kernel_type=AIC)
def mm_basic(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
             n: asc.ConstExpr[int], k: asc.ConstExpr[int], steps: asc.ConstExpr[int],
             quant: asc.ConstExpr = asc.QuantModes.NoQuant, tb: asc.ConstExpr[bool] = False):
    """C (m x n) = A (m x k) @ B (k x n), 16-bit A and B, K in `steps` steps accumulated in L0C (cmatrix_init_val
    true on the first step only); one AIC."""
    kk = k // steps
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gc.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, m * kk * ga.dtype.sizeof())
    pipe.init_buffer(qb1, 1, kk * n * gb.dtype.sizeof())
    pipe.init_buffer(qa2, 1, m * kk * ga.dtype.sizeof())
    pipe.init_buffer(qb2, 1, kk * n * gb.dtype.sizeof())
    pipe.init_buffer(qc, 1, m * n * 4)
    c1 = qc.alloc_tensor(asc.float32)
    for s in range(steps):
        to_l0(qa1, qb1, qa2, qb2, ga, gb, m, n, k, kk, s, ga.dtype, tb)
        a2 = qa2.deque(ga.dtype)
        b2 = qb2.deque(gb.dtype)
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, kk, unit_flag=0, cmatrix_source=False, cmatrix_init_val=s == 0))
        qa2.free_tensor(a2)
        qb2.free_tensor(b2)
    qc.enque(c1)
    c1 = qc.deque(asc.float32)
    asc.fixpipe(gc, c1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n, quant_pre=quant),
                asc.FixpipeConfig.cfg_row_major)
    qc.free_tensor(c1)


@asc.jit(kernel_type=AIC)
def broken(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, case: asc.ConstExpr[str]):
    """C (32 x 32) = A (32 x 32) @ B^T (B given 32 x 32, N x K) in one step, with one rule broken, chosen by `case`;
    the other steps are right."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gc.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1 = asc.TQue(asc.TPosition.A1, 1)
    qb1 = asc.TQue(asc.TPosition.B1, 1)
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa1, 1, 2048)
    pipe.init_buffer(qb1, 1, 2048)
    pipe.init_buffer(qa2, 1, 4096)
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
    if case == "wrong_params":
        asc.load_data(a2, a1, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))  # RULE: wrong_params
    if case == "from_gm":
        asc.load_data(a2, ga, asc.LoadData2DParams(0, 4, 1, 0, 0, False, 0))  # RULE: from_gm
    for i in range(2):
        if case == "unaligned":
            asc.load_data(a2[i * 512 + 16:], a1, asc.LoadData2DParams(i, 2, 2, 0, 0, False, 0))  # RULE: unaligned
        else:
            asc.load_data(a2[i * 512:], a1, asc.LoadData2DParams(i, 2, 2, 0, 0, False, 0))
    if case == "lwt_half":
        asc.load_data_with_transpose(b2, b1, asc.LoadData2dTransposeParams(0, 2, 1, 0, 1, 0))  # RULE: lwt_half
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 4, 1, 0, 0, False, 0))
    qa1.free_tensor(a1)
    qb1.free_tensor(b1)
    qa2.enque(a2)
    qb2.enque(b2)
    a2 = qa2.deque(asc.float16)
    b2 = qb2.deque(asc.float16)
    c1 = qc.alloc_tensor(asc.float32)
    if case == "is_bias":
        p = asc.MmadParams(32, 32, 32, True, 0, False, False, False)
        asc.mmad(c1, a2, b2, p)  # RULE: is_bias
    elif case == "fm_offset":
        p = asc.MmadParams(32, 32, 32, False, 16, False, False, False)
        asc.mmad(c1, a2, b2, p)  # RULE: fm_offset
    elif case == "cmatrix_source":
        p = asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=True, cmatrix_init_val=False)
        asc.mmad(c1, a2, b2, p)  # RULE: cmatrix_source
    elif case == "c_half":
        ch = qc.alloc_tensor(asc.float16)
        asc.mmad(ch, a2, b2, asc.MmadParams())  # RULE: c_half
    elif case == "mixed":
        p = asc.MmadParams(32, 32, 32, is_bias=False, unit_flag=0)  # RULE: mixed
    elif case == "mmad_bias":
        asc.mmad(c1, a2, b2, b2, asc.MmadParams())  # RULE: mmad_bias
    elif case == "b_type":
        bf = qb2.alloc_tensor(asc.float32)
        p = asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True)
        asc.mmad(c1, a2, bf, p)  # RULE: b_type
    else:
        asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
    qa2.free_tensor(a2)
    qb2.free_tensor(b2)
    qc.enque(c1)
    c1 = qc.deque(asc.float32)
    if case == "deq":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.DEQF16, 0))  # RULE: deq
    elif case == "cbuf":
        asc.fixpipe(gc, c1, a2, asc.FixpipeParamsV220(32, 32, 32, 32))  # RULE: cbuf
    elif case == "bad_config":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32), asc.CO2Layout.NZ)  # RULE: bad_config
    elif case == "nd_num":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32, nd_num=2))  # RULE: nd_num
    elif case == "nz":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32), asc.FixpipeConfig.cfg_nz)  # RULE: nz
    elif case == "stride":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 24, 32))  # RULE: stride
    elif case == "half_noquant":
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32))  # RULE: half_noquant
    else:
        asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32, gc.dtype == asc.float16 and asc.QuantModes.F322F16
                                                  or asc.QuantModes.NoQuant))
    qc.free_tensor(c1)



@asc.jit
def sys_workspace(workspace: asc.GlobalAddress, out: asc.GlobalAddress, set_first: asc.ConstExpr[bool]):
    """set_sys_workspace, then a GlobalTensor on get_sys_workspace(): its byte i gets i + 1 and out[i] reads it back;
    set_first=False: get_sys_workspace before any set_sys_workspace."""
    if set_first:
        asc.set_sys_workspace(workspace)  # RULE: null_sys_workspace
    g = asc.GlobalTensor()
    g.set_global_buffer(asc.get_sys_workspace())  # RULE: no_sys_workspace
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    for i in range(4):
        g.set_value(i, i + 1)
        o.set_value(i, g.get_value(i))


@asc.jit
def mmad_default_type(c: asc.GlobalAddress):
    """A cube instruction in a kernel of pyasc's default type (AIV_ONLY without a Matmul)."""
    pipe = asc.TPipe()
    qa2 = asc.TQue(asc.TPosition.A2, 1)
    qb2 = asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa2, 1, 512)
    pipe.init_buffer(qb2, 1, 512)
    pipe.init_buffer(qc, 1, 1024)
    a2 = qa2.alloc_tensor(asc.float16)
    b2 = qb2.alloc_tensor(asc.float16)
    c1 = qc.alloc_tensor(asc.float32)
    p = asc.MmadParams(16, 16, 16, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True)
    asc.mmad(c1, a2, b2, p)  # RULE: default_type
    qa2.free_tensor(a2)
    qb2.free_tensor(b2)
    qc.free_tensor(c1)
