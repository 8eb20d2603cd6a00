"""pyasc kernels with the Matmul high-level API (asc.adv.Matmul) for tests/ascendc/test_pyasc_matmul.py: the GM
output of tutorials 03/04 (MIX and cube only), the block-by-block output into UB of tutorial 05, and broken kernels,
each breaking one rule on the line marked `# RULE: name` (the tests look the line up)."""
import asc
import asc.runtime.config as config


@asc.jit
def offsets(tiling: asc.adv.TCubeTiling, trans_a: asc.ConstExpr[bool], trans_b: asc.ConstExpr[bool]):
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_index = idx % m_blocks
    n_index = idx // m_blocks
    off_a = m_index * tiling.k_a * tiling.single_core_m
    if trans_a:
        off_a = m_index * tiling.single_core_m
    off_b = n_index * tiling.single_core_n
    if trans_b:
        off_b = n_index * tiling.k_b * tiling.single_core_n
    off_c = m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n
    tail_m = tiling.m - m_index * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - n_index * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    return off_a, off_b, off_c, n_index * tiling.single_core_n, tail_m, tail_n


@asc.jit
def run_all(mm, ga, gb, gc, gbias, tiling: asc.adv.TCubeTiling, tail_m, tail_n, trans_a: asc.ConstExpr[bool],
            trans_b: asc.ConstExpr[bool], with_bias: asc.ConstExpr[bool]):
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga, trans_a)
        mm.set_tensor_b(gb, trans_b)
        if with_bias:
            mm.set_bias(gbias)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(gc)
        mm.end()


@asc.jit
def mm_gm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
          tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, trans_a: asc.ConstExpr[bool],
          trans_b: asc.ConstExpr[bool], with_bias: asc.ConstExpr[bool], fmt_a: asc.ConstExpr = asc.CubeFormat.ND,
          fmt_b: asc.ConstExpr = asc.CubeFormat.ND):
    """A MIX kernel (the default of a Matmul kernel): 1 AIC + 2 AIVs per block, each AIV one core's part of C."""
    off_a, off_b, off_c, off_bias, tail_m, tail_n = offsets(tiling, trans_a, trans_b)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    gbias.set_global_buffer(bias + off_bias)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, fmt_a, ga.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, fmt_b, gb.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    run_all(mm, ga, gb, gc, gbias, tiling, tail_m, tail_n, trans_a, trans_b, with_bias)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def mm_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, trans_a: asc.ConstExpr[bool],
            trans_b: asc.ConstExpr[bool], with_bias: asc.ConstExpr[bool]):
    """The cube-only kernel (KERNEL_TYPE_AIC_ONLY): one block per cube core."""
    if asc.ascend_is_aic():
        off_a, off_b, off_c, off_bias, tail_m, tail_n = offsets(tiling, trans_a, trans_b)
        ga = asc.GlobalTensor()
        gb = asc.GlobalTensor()
        gc = asc.GlobalTensor()
        gbias = asc.GlobalTensor()
        ga.set_global_buffer(a + off_a)
        gb.set_global_buffer(b + off_b)
        gc.set_global_buffer(c + off_c)
        gbias.set_global_buffer(bias + off_bias)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype, trans_a),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype, trans_b),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype),
                            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        run_all(mm, ga, gb, gc, gbias, tiling, tail_m, tail_n, trans_a, trans_b, with_bias)


@asc.jit
def mm_ub(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
          workspace: asc.GlobalAddress, in_turn: asc.ConstExpr[bool] = False):
    """Tutorial 05's loop without the LeakyRelu: each base block into UB (get_tensor_c), then DataCopy to its place
    in C, the blocks counted by `with mm.iterate() as count` in the tiling's iterate_order (0: M first; right when
    step_m = step_n = 1). in_turn: block `count` of this core goes to c[core, count] (base_m x base_n each)."""
    off_a, off_b, off_c, off_bias, tail_m, tail_n = offsets(tiling, False, False)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    c_turn = asc.GlobalTensor()
    blocks = (tiling.single_core_m // tiling.base_m) * (tiling.single_core_n // tiling.base_n)
    c_turn.set_global_buffer(c + asc.get_block_idx() * blocks * tiling.base_m * tiling.base_n)
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=que, num=1, len=tiling.base_m * tiling.base_n * c.dtype.sizeof())
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, gc.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate() as count:
            t = que.alloc_tensor(c.dtype)
            mm.get_tensor_c(t, en_sequential_write=True)
            que.enque(t)
            t = que.deque(c.dtype)
            m_blocks = tiling.single_core_m // tiling.base_m
            start = count % m_blocks * tiling.base_m * tiling.n + count // m_blocks * tiling.base_n
            if tiling.iterate_order == 1:
                n_blocks = tiling.single_core_n // tiling.base_n
                start = count // n_blocks * tiling.base_m * tiling.n + count % n_blocks * tiling.base_n
            if in_turn:
                asc.data_copy(c_turn[count * tiling.base_m * tiling.base_n:], t, count=tiling.base_m * tiling.base_n)
            else:
                params = asc.DataCopyParams(block_count=tiling.base_m,
                                            block_len=tiling.base_n * c.dtype.sizeof() // 32, src_stride=0,
                                            dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof() // 32)
                asc.data_copy(gc[start:], t, repeat_params=params)
            que.free_tensor(t)
        mm.end()


@asc.jit
def mm_auto(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
            size_m: asc.ConstExpr[int], size_n: asc.ConstExpr[int], size_k: asc.ConstExpr[int],
            base: asc.ConstExpr, used: asc.ConstExpr[int], workspace: asc.GlobalAddress):
    """pyasc's insert_sync matmul shape: the tiling built in the kernel, a bare ConstExpr, Matmul.init after
    register_matmul, MatmulConfig(), each block into a LocalTensorAuto (on the kernel's own TPipe), LeakyRelu, and
    DataCopy to C; one AIV per part of C (the others idle)."""
    tiling = asc.adv.TCubeTiling(used_core_num=used, m=size_m, n=size_n, k_a=size_k, k_b=size_k, base_m=base,
                                 base_n=base, base_k=base, single_core_m=base, single_core_n=base,
                                 single_core_k=size_k, depth_a1=1, depth_b1=1, step_m=1, step_n=1)
    idx = asc.get_block_idx()
    m_index = idx % (size_m // base)
    n_index = idx // (size_m // base)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + m_index * size_k * base)
    gb.set_global_buffer(b + n_index * base)
    gc.set_global_buffer(c + m_index * size_n * base + n_index * base)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, gc.dtype),
                        matmul_config=asc.adv.MatmulConfig())
    asc.adv.register_matmul(pipe, workspace, mm)
    if idx < used:
        mm.init(tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate() as count:
            out = asc.LocalTensorAuto(c.dtype, base * base)
            mm.get_tensor_c(out, en_sequential_write=True)
            asc.leaky_relu(out, out, alpha, count=base * base)
            params = asc.DataCopyParams(block_count=base, block_len=base * c.dtype.sizeof() // 32, src_stride=0,
                                        dst_stride=(size_n - base) * c.dtype.sizeof() // 32)
            asc.data_copy(gc[count * base:], out, repeat_params=params)
        mm.end()


# ------------------------------------------------------------------ broken kernels (one rule each)

@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def on_vector_cores(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                    workspace: asc.GlobalAddress):
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)  # RULE: vector_only


@asc.jit
def broken(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
           workspace: asc.GlobalAddress, case: asc.ConstExpr[str]):
    """One Matmul used wrongly, chosen by `case`; the other steps are right."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    if case == "sized":
        gc.set_global_buffer(c, 63 * 64)
    else:
        gc.set_global_buffer(c)
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=que, num=1, len=1024)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC if case == "small_ub" or case == "c_not_gm"
                                             else asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype))
    if case == "no_init":
        asc.adv.register_matmul(pipe, workspace, mm)
        mm.set_tensor_a(ga)  # RULE: no_init
    else:
        asc.adv.register_matmul(pipe, workspace, mm, tiling)  # RULE: tiling
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(ga)
        if case != "no_b":
            mm.set_tensor_b(gb)
        if case == "no_b":
            mm.iterate_all(gc)  # RULE: no_b
        if case == "no_block":
            t = que.alloc_tensor(c.dtype)
            mm.get_tensor_c(t, en_sequential_write=True)  # RULE: no_block
            que.free_tensor(t)
        if case == "small_ub":
            with mm.iterate() as count:
                t = que.alloc_tensor(c.dtype)
                mm.get_tensor_c(t, en_sequential_write=True)  # RULE: small_ub
                que.free_tensor(t)
        if case == "c_not_gm":
            mm.iterate_all(gc)  # RULE: c_not_gm
        if case == "ok" or case == "sized":
            mm.iterate_all(gc)  # RULE: gm_bounds
        mm.end()
