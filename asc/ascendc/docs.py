"""docs/pyasc.md, generated from the declaration table (api.py): every pyasc 1.1.1 API with its Ascend C name and
status. `python -m asc.ascendc.docs > docs/pyasc.md` regenerates it; tests/ascendc/test_docs.py checks it is up
to date."""
from __future__ import annotations

from . import api, docs_twin

HEAD = """# pyasc programs on asc

asc runs programs written against pyasc 1.1.1 (Huawei's Python binding of Ascend C: `import asc`, `@asc.jit`,
`kernel[core_num, stream](...)`) unmodified on the CPU. Each `@asc.jit` function, and each `@asc.jit` helper it
calls, is translated 1:1 to Ascend C: specialized on its `asc.ConstExpr` values and the arguments' dtypes, with
the Python line as a comment and a `#line` directive above each statement. On the CPU twin that source is compiled
with the system C++ compiler against ascend-sim (asc's emulation of the Ascend C API, which enforces the
hardware's rules and reports a violation with the API call, the rule and the Python line); `asc compile
FILE.py::KERNEL --target ascend -o DIR` writes the same source as a CANN project for a real NPU.

- Backends (`asc.runtime.config`): `Backend.CPU` runs on the CPU twin; `Backend.Model` (CANN's simulator in
  pyasc) runs on the CPU twin too, with a one-time notice; `Backend.NPU` without an NPU is an error saying what
  to run instead.
- `LocalTensorAuto` (and `@asc.jit(insert_sync=True)`): each LocalTensorAuto becomes a `TBuf` of a kernel TPipe
  (its length or shape compile-time, or, known at run time, an expression of the kernel's scalar parameters: the
  TBuf is given its space at kernel start), and the translator inserts the `SetFlag`/`WaitFlag` pairs (MTE2->V, V->MTE3, MTE2->S, and the next iteration's
  V/MTE3->MTE2) a real build needs.
- Arguments: NumPy arrays and torch CPU tensors (global memory), Python scalars, `asc.language.core.struct`
  structs, and compile-time values for `asc.ConstExpr` parameters.
- The API below is generated from `asc/ascendc/api.py`, the one declaration table the translator reads.
  "supported" means asc translates the call (every form listed in the table) to its Ascend C; running it on the
  CPU twin also needs ascend-sim's emulation of that Ascend C API (asc/include/ascend_sim/), which covers the count
  forms of the vector API, the repeat/mask forms (bit and continuous masks, block and repeat strides) of the
  binary, unary and scalar families and Duplicate, Copy, Axpy, Transpose (16 x 16 and NCHW <-> NHWC),
  DataCopy/DataCopyPad, the queues and TBuf (TPipe Init/Destroy/Reset), LocalTensor at an address, Cast,
  Compare/Select, the reductions, TransDataTo5HD (16-bit elements; tensor lists, uint64_t address arrays and the
  address-tensor form, whose element type asc takes from the addresses stored with
  `set_value(i, t[k].get_phy_addr())`), SetAippFunctions (the configuration, checked as documented; LoadImageToLocal,
  which applies it, is not yet), SoftMax (ND, last axis, from the ShapeInfo), AscendQuant (per tensor, int8 output: lib/ascend_quant.h), LeakyRelu, DataCopy with
  DataCopyParams between GM and UB, AddRelu/SubRelu, And/Or/Not, ShiftLeft/ShiftRight, WholeReduce*/BlockReduce*,
  printf and DumpTensor, the cube basic API and the Matmul high-level API (below); the repeat form of Cast is not yet.
  Every API marked supported runs in a test against NumPy (tests/ascendc/test_pyasc_api_coverage.py keeps it so). A
  call whose emulation is missing fails to compile for the CPU twin, naming the Python line.

"""

TAIL = """## The cube basic API (`load_data`, `mmad`, `fixpipe`)

A cube kernel (`@asc.jit(kernel_type=config.KernelType.AIC_ONLY)`: pyasc gives a kernel without a Matmul the type
AIV_ONLY, so asc refuses a cube call in such a kernel, naming its line) moves its operands through the cube core's
memories in queues or buffers at `TPosition.A1/B1` (L1), `A2` (L0A), `B2` (L0B) and `CO1` (L0C), as CANN:
`asc.data_copy(l1, gm, asc.Nd2NzParams(nd_num, n_value, d_value, src_nd_matrix_stride, src_d_value,
dst_nz_c0_stride, dst_nz_n_stride, dst_nz_matrix_stride))` (GM ND -> L1 NZ, `DataCopy(dst, src, Nd2NzParams)`),
`asc.load_data(l0, l1, asc.LoadData2DParams(start_index, repeat_times, src_stride, sid, dst_gap, if_transpose,
addr_mode))` (L1 -> L0A/L0B, `LoadData`; float32 transposed with `asc.load_data_with_transpose(l0, l1,
asc.LoadData2dTransposeParams(...))`, `LoadDataWithTranspose`), `asc.mmad(l0c, l0a, l0b, asc.MmadParams(...))` (`Mmad`) and
`asc.fixpipe(gm, l0c[, cbuf_workspace], asc.FixpipeParamsV220(n_size, m_size, src_stride, dst_stride, quant_pre, deq_scalar, nd_num,
src_nd_stride, dst_nd_stride, relu_en, unit_flag, is_channel_split), config=asc.FixpipeConfig.cfg_row_major)`
(`Fixpipe`, whose C++ constructor takes `reluEn` fifth; asc reorders). `asc.MmadParams` takes, as pyasc, either all
of `is_bias, fm_offset, en_ssparse, en_winograd_a, en_winograd_b` (CANN's 8-argument constructor) or all of
`unit_flag, cmatrix_source, cmatrix_init_val` (the 6-argument one; `cmatrix_init_val=False` accumulates into L0C);
any other mix, which pyasc turns into an empty `MmadParams()` (m = n = k = 0), is refused. `set_sys_workspace` /
`get_sys_workspace` are `SetSysWorkspace` / `GetSysWorkspacePtr` (ascend-sim keeps a block's first non-null
workspace, as CANN, and refuses a null one and a get before any set).

ascend-sim emulates 16-bit (float16, bfloat16) and float32 operands into a float32 L0C and int8 operands into an
int32 L0C (exact; 16 x 32 int8 fractals in L1 and L0A, 32 x 16 in L0B, K padded to 32: give B as B^T, N x K, whose
NZ fractals are already L0B's), with the fractal layouts of the 910B (L1 NZ, L0A Zz, L0B Zn, L0C Nz; 512-byte
fractals), and refuses, naming the call and the Python line: an L0 destination not 512-byte aligned, `if_transpose`
of data that is not 16-bit, a K padding that holds no data, `isBias` / `fmOffset` / `enSsparse` / Winograd /
`cmatrixSource` (not emulated), a Fixpipe output type without its pre-mode, `ndNum != 1`, `CFG_NZ` output, a
`srcStride` that is not the row count padded to 16, and reads of L0C results never computed.

Fixpipe's pre-modes (FixpipeParamsV220 `quant_pre`), as the Fixpipe docs give them for the Atlas A2/A3 (910B): a
float32 L0C goes to float32 (NoQuant), float16 (F322F16), bfloat16 (F322BF16) or int8/uint8 (QF322B8_PRE, or
VQF322B8_PRE); an int32 L0C to int32 (NoQuant), float16 (DEQF16 / VDEQF16) or int8/uint8 (REQ8 / VREQ8). The scalar
modes take the uint64 word `deq_scalar`; the V modes take one word per column from `asc.fixpipe(gm, l0c,
cbuf_workspace, params)`, a uint64 LocalTensor in L1 (`TPosition.C1` or A1/B1, filled with `asc.data_copy`). A
word's bits [31:13] are the scale M1 (a float32 with its low 13 mantissa bits cleared: 1 sign + 8 exponent + 10
mantissa bits), bit 46 the Sign (1: int8, 0: uint8). An element x (the int32 converted to float32, or the float32)
is multiplied in float32 by M1 when x >= 0 and by M2 below (M2 = M1, or 0 with `relu_en`); DEQF16 rounds the product
to float16 (nearest even), saturating at +-65504; REQ8 / QF322B8_PRE clamp it to [-256, 255], round it to the
nearest integer (ties to even) and saturate it to int8 [-128, 127] or uint8 [0, 255]. Refused with the call and the
line: a mode without its dtype pair, a V mode without a cbuf_workspace or a scalar mode with one, a Sign bit that
disagrees with the output type, a scale that is inf, nan or subnormal (the docs forbid them), and the two word
fields asc does not emulate: MCB (bit 36, a right shift of the int32 by N first: the docs give N two encodings) and
a nonzero Offset (bits [45:37]: the docs do not say whether it is signed).

`asc.mmad(l0c, l0a, l0b, bias, params)` adds a bias row: `bias` is a LocalTensor of the L0C's type (float32;
int32 for int8 operands) at `TPosition.C2` (the 1 KB BiasTable buffer, 64-byte aligned), filled from L1 with
`asc.data_copy(bt, l1, count)` (whole 32-byte blocks, the count rounded down as the docs say; the half -> float
conversion form is not yet); C = A B + bias, so `cmatrix_init_val=False` with a bias is refused, as are a bias
outside C2 and a copy into C2 from GM.

The translator refuses what it sees at compile time: `load_data` from GM, LoadData2DParamsV2 and the 3-D forms,
a bias of another type than the L0C's, operands of two types or of a type the cube does not take (uint8, int4), an L0C of
another type than the operands' (float32; int32 for int8), a Fixpipe dtype pair the docs do not list, a
`cbuf_workspace` that is not uint64, `load_data_with_transpose` of 16-bit data.

## The Matmul high-level API (`asc.adv.Matmul`)

pyasc's tutorials 03 (matmul_mix), 04 (matmul_cube_only) and 05 (matmul_leakyrelu) run unmodified on the CPU
twin. A kernel builds `asc.adv.Matmul(a=MatmulType(position, CubeFormat, dtype, is_trans), b=..., c=...,
bias=None, matmul_config=None)`, registers it with `asc.adv.register_matmul(pipe, workspace, mm, tiling)` (or
`register_matmul(pipe, workspace, mm)` and `mm.init(tiling)`), gives it its operands (`set_tensor_a/b(tensor,
transpose)`, `set_bias`, `disable_bias`, `set_tail(tail_m, tail_n, tail_k)`, `set_org_shape`,
`set_single_shape`) and computes C with `iterate_all(gm_tensor, en_atomic)` or block by block with
`with mm.iterate() as count:` and `get_tensor_c(ub_tensor, en_sequential_write=True)` (or into GM), then
`end()`. They are translated 1:1 to CANN's API: `#include "lib/matmul_intf.h"`,
`AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false>, ...> mm;`,
`REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling);`, `mm.SetTensorA(...)`, `mm.IterateAll(...)`, `while
mm.Iterate()` as `for (int64_t count = 0; mm.Iterate(false); ++count)`, `mm.GetTensorC(...)`, `mm.End()`. The
tiling is CANN's `TCubeTiling` (`#include "kernel_tiling/kernel_tiling.h"`; `tiling.base_m` is `tiling.baseM`).
`MatmulConfig()` is CFG_NORM and `MatmulConfig(do_norm=False, do_multi_data_load=True)` CFG_MDL; other
configurations, matmul policies and the batch forms other than IterateBatch's are not yet.

A kernel with a Matmul is, as in pyasc, a MIX kernel (`KERNEL_TYPE_MIX_AIC_1_2`: each of the launch's blocks is
one AIC and two AIVs; `set_dim(48)` on the host counts the AIVs) or, with `@asc.jit(matmul_cube_only=True)`, a
cube-only one (`#define ASCENDC_CUBE_ONLY`, `KERNEL_TYPE_AIC_ONLY`: one AIC per block, where
`asc.ascend_is_aic()` holds). ascend-sim runs both with the launch model of kernel_operator.h: in a MIX launch
`REGIST_MATMUL_OBJ` makes the AIC leave the kernel (on the NPU it serves the AIVs' Matmul messages through the
workspace) and each AIV's Matmul computes what its cube core would; in a cube-only launch the AIC computes.
ascend-sim's Matmul (asc/include/ascend_sim/lib/matmul_intf.h) takes A and B in GM, ND or NZ, transposed or
not, of float16, bfloat16 or float32, C float32 or the inputs' type in GM or UB, a float32 (or input-typed)
bias; it multiplies each base block (baseM x baseN over the whole K, in the order of CANN's Norm scheduler:
windows of step_m x step_n blocks; iterate_order 0 walks the N blocks of a window innermost, then its M blocks,
the M windows, the N windows, and 1 the same with M and N swapped, so with step_n = 1 (step_m = 1) the blocks
come M first (N first) one by one, the order tutorial 05 computes a block's place from; the CANN twin gives the
same order) accumulating in float32 as L0C does, adds the bias row first, and rounds once to C's type; the core's
part of C is singleCoreM x singleCoreN, or the tails `set_tail` gives. int8 A and B accumulate exactly in int32
(an int32 L0C, an int32 bias) into an int32 C, or into a float16 C dequantized as Fixpipe's DEQF16 / VDEQF16 do
(above): `set_quant_scalar(word)` (`SetQuantScalar`, one uint64 word) or `set_quant_vector(gm)` (`SetQuantVector`,
a uint64 GlobalTensor with a word per column of the core's part of C, as pyasc's test_matmul_quant.py offsets it). Its rules, each an error naming the call
and the Python line:

- a Matmul in a launch of vector cores only (`kernel_type=KERNEL_TYPE_AIV_ONLY`): there is no cube core;
- a MIX kernel's `register_matmul` with a null workspace;
- a method before the Matmul is initialized (register_matmul with a tiling, or `init`); `iterate` /
  `iterate_all` before `set_tensor_a` and `set_tensor_b`; `get_tensor_c` without a block from `iterate`;
- A and B of different types, C neither float32 nor the inputs' type (int8: neither int32 nor float16), a bias
  of another type; a float16 C of int8 A and B without `set_quant_scalar` / `set_quant_vector`, a quantization
  with an int32 C or of float operands, a quantization word Fixpipe refuses;
- the tiling: non-positive shapes, base_m / base_n not multiples of 16 or base_k not of 32 bytes of the input
  (whole fractals), L0A (base_m x base_k x size x db_l0a), L0B (base_k x base_n x size x db_l0b) over 64 KB,
  L0C (base_m x base_n x 4 x db_l0c) over 128 KB, L1 (depth_a1 x base_m x base_k + depth_b1 x base_k x base_n
  elements, plus the bias row) over 512 KB, an iterate_order other than 0 and 1;
- GM accesses outside a sized GlobalTensor; `get_tensor_c` into a LocalTensor smaller than the block or outside
  the UB; `iterate_all` into GM with C not at `TPosition.GM`, `get_tensor_c` into UB with C at GM;
- `iterate_batch` with a core's part smaller than the matrices (single_core_m < M, single_core_n < N or
  single_core_k < K, or a smaller tail): CANN's IterateBatch (asc-devkit batch_copy_cube_in.h,
  batch_scheduler_base.h) reads each batch of A as a contiguous single_core_m x single_core_k matrix (rows
  single_core_k apart, batches single_core_m x single_core_k apart unless matrix_stride_a), B likewise, and writes
  C's batches single_core_m x single_core_n apart, which are the places of the NORMAL layout only when each core
  holds whole matrices; split the batches between the cores instead (on the CANN twin, Huawei's Matmul then puts
  every batch where ascend-sim does; with a 16 x 16 part of 32 x 32 matrices it reads batch 1 of A 16 x 32
  elements after batch 0, not 32 x 32).

The emulation is fast enough to develop on: a 1024 x 1024 x 1024 float16 Matmul costs about 0.17 s of CPU time per
launch on the CPU twin (0.16-0.20 s, MIX and cube only, medians of 7 launches, on a 2-core AMD EPYC VM; NumPy's
float32 matmul of the same operands: 0.05 s), the operands converted to float32 once per core and multiplied by a
register-blocked kernel compiled -O3. The blocks run on threads over all the cores, so the wall time of a launch
is at least that CPU time divided by the cores, more on a busy machine (0.55-1.0 s on that VM loaded by other
work). `python benchmarks/pyasc_matmul.py` times it.

## Quantization (`asc.adv.quant`)

`asc.adv.quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False, config=None)` is the
per-tensor `AscendC::AscendQuant<T, isReuseSource[, config]>(dst, src[, sharedTmpBuffer], scale, offset[,
calCount])` of A2 (pyasc's tests kernels/insert_sync/test_quant.py, test_quant_dynamic.py and
generalization/adv/test_quant.py run unmodified); `asc.adv.QuantConfig(calc_count, offset_count, scale_count,
work_local_size)` (compile-time ints) becomes a `static constexpr AscendC::AscendQuantConfig`. As the Ascend C docs
and asc-devkit's implementation compute it, all in half: a float src is cast to half (to nearest even), scale and
offset (pyasc materializes them in src's type; the C parameters are float) are cast to half, then `half(x *
scale)`, `half(... + offset)`, and the cast to int8 rounds to nearest even and saturates to [-128, 127]. With
`calc_count` and `work_local_size` both non-zero the call computes `calc_count` elements, whatever `count` says (the
docs' constant parameters). ascend-sim (asc/include/ascend_sim/lib/ascend_quant.h) computes chunk by chunk of the
temporary buffer as the NPU, and refuses, naming the call and the Python line: a temp_buffer under 512 bytes
(GetAscendQuantMaxMinTmpSize's minimum), a `work_local_size` under 512 bytes or over the temp_buffer, a count (or
`calc_count`) over src's or dst's size or not a multiple of 32 (the int8 output's data length must be 32-byte
aligned), and a temp_buffer overlapping src or dst (src and dst may be the same buffer). The translator refuses a src
other than float16 / float32, a dst other than int8, a temp_buffer other than uint8 and a config that is not a
QuantConfig.

## Host tiling (`asc.lib.host`)

`import asc.lib.host as host` gives pyasc's Matmul tiling classes with asc's own tiling algorithm:
`MatmulApiTiling` (one core), `MultiCoreMatmulTiling` (up to `set_dim(dim)` cores, all of the platform's by
default) and `BatchMatmulTiling` (one core, the batch counts and layouts recorded), the setters pyasc documents
(`set_a_type/set_b_type(pos, format, dtype, is_trans)`, `set_c_type`, `set_bias_type`, `set_shape`,
`set_org_shape(m, n, k[, kb])`, `enable_bias`/`set_bias`, `set_fix_split`, `set_buffer_space`, `set_traverse`,
`set_single_shape`, `set_align_split`, `enable_multi_core_split_k`, the layouts and batch counts), `get_tiling(t)`,
`get_base_m/n/k`, `get_core_num`, `get_single_shape`, and `get_ascendc_platform()` (the SoC of
`asc.lib.runtime.get_soc_version()`: core counts and memory sizes from `asc/backends/ascend/soc.py`). As in pyasc,
setters and `get_tiling` return 0 or -1; a -1 also issues a `host.TilingWarning` naming the call and the argument
(`set_shape: m must be a positive number of elements ..., got 0`), kept in `.error`, and a later `get_tiling`
refuses to tile after a failed setter. An argument of the wrong kind is a `TypeError` naming it. A/B take
float16, bfloat16, float32 or int8 (both the same); C float32/float16/bfloat16 (int32/float16/int8/bfloat16 for
int8); the bias float32 or the inputs' type (int32 for int8). asc's kernel types (`asc.float16`) are taken for
a `host.DataType` too.

`asc.adv.TCubeTiling` (also `host.TCubeTiling`) is a kernel struct with the 50 int32 fields of asc-devkit's
TCubeTiling in its order (usedCoreNum ... BatchNum, mxTypePara), under pyasc's names (`used_core_num`, `m`, `n`,
`k_a`, `k_b`, `single_core_m`, ..., `step_k_a`, `db_l0c`, ...; `t.c_name("k_a")` is `"Ka"`). It is built on the
host (`TCubeTiling(m=..., ...)` or by `get_tiling`) and passed to an `@asc.jit` kernel by value, where the kernel
reads and assigns its fields.

The algorithm, for the 910B1 (24 cube cores, 48 vector cores; L1 512 KB less the 128 B ascend-sim reserves, L0A
and L0B 64 KB, L0C 128 KB, BiasTable 1 KB; `set_buffer_space` lowers L1, L0C, UB and the BiasTable):

1. Granules. A base block is whole 16 x 32-byte fractals of every operand: base_m and base_n multiples of 16
   (32 for int8 where M or N is the operand's inner axis), base_k a multiple of 32 bytes of the input (8 float32,
   16 float16/bfloat16, 32 int8) only when K is the inner axis of both A (not transposed) and B (transposed), and
   of 16 rows otherwise (float32: 16, not 8).
2. Core split. Every (m_dim, n_dim[, k_dim]) with m_dim * n_dim * k_dim <= dim gives single-core blocks
   `ceil(M / m_dim)` rounded up to the granule (to the fixed base where `set_fix_split` fixed one, and to
   `set_align_split`'s multiple), then m_dim becomes `ceil(M / single_core_m)`: every used core has work and
   `used_core_num = m_dim * n_dim * k_dim`. Each split is estimated by a roofline: the slowest of one core's cube
   work (padded to fractals, one 16 x c0 x 16 fractal product per cycle), one core's GM traffic (its A and B
   panels once and its C block, at 128 B/cycle) and the chip's HBM traffic (every byte once, 1600 GB/s at
   1.85 GHz). Within 1% of the fastest: no tails first, then the fastest core by its own work and traffic,
   then fewer cores. K is split only with `enable_multi_core_split_k` (no bias then) or a fixed single_core_k.
3. Base block. Every base_m x base_n (granule multiples up to the core's block and 1024, base_m * base_n * 4 <=
   L0C, base_n * sizeof(bias) <= BiasTable) is estimated for the core: its cube work with the padding of the last
   blocks, or its L1 -> L0 traffic at 256 B/cycle where slower (ping-pong overlaps them), plus 200 cycles per
   block; the fastest wins (ties: the larger block). base_k is the largest granule multiple with
   base_m * base_k * size * 2 <= L0A and base_n * base_k * size * 2 <= L0B (ping-pong, db_l0a = db_l0b = 2; 1 if
   only that fits), then evened out over K (K = 1024 with a 176-wide B block: 80, 13 steps, the last of 64).
   db_l0c is 2 where two C blocks fit L0C.
4. L1. step_ka = step_kb base blocks of K are kept in L1, doubled for ping-pong (depth = step * step_k * 2) if
   that fits beside the bias row, else once: the fewest K loads, evened out. Where all of K is resident, step_m
   and step_n grow in turn while depth_a1 * A block + depth_b1 * B block + bias row fits L1. iterate_order follows
   `set_traverse`, else keeps the larger block in place (N first when A's block is the larger).
5. Check. Before writing, every tiling is checked (`host.check_tiling`, also `tiling_obj.check(t)`): the core
   count and that every core has work, fractal multiples, bases within the core's block, L0A / L0B / L0C / L1 /
   BiasTable / UB with ping-pong, depth = step * step_k * (1 or 2), step_m = step_n = 1 where K is not
   resident, K loads of A and B multiples of one another. A fixed split or single shape that breaks a rule is -1
   naming it; asc's own choices always pass (tests/lib/test_host_tiling.py sweeps them).

The tutorials' shapes: 128 x 30720 x 64 float16 on 24 cores splits N, 1280 columns per core in (128, 256, 64)
blocks; 512 x 1024 x 512 with `set_dim(48)` gives 32 blocks of 128 x 128; 1024 x 640 x 256 with `set_dim(2)` and
`set_fix_split(256, 128, -1)` two 512 x 640 blocks (the kernel copies whole base blocks and has no tails).
In a mixed kernel (`set_dim(48)` counts vector cores), two Matmuls share one cube core; asc budgets each as if
it had that core's L1 and L0 to itself. transLength is 0 unless an operand is in the UB (VECIN/VECCALC/VECOUT),
then its largest block; share_l1_size / share_l0c_size hold the bytes the tiling uses.
"""


def render() -> str:
    out = [HEAD]
    for module, title in (("core", "asc.language.core: tensors"), ("basic", "asc.language.basic: the basic API"),
                          ("fwk", "asc.language.fwk: TPipe, TQue, TBuf"), ("adv", "asc.language.adv: advanced APIs")):
        rows = sorted((a for a in api.TABLE if a.module == module), key=lambda a: a.name)
        n = sum(a.status == api.SUPPORTED for a in rows)
        out.append(f"## {title} ({n} of {len(rows)} supported)\n")
        out.append("| pyasc | Ascend C | status | note |")
        out.append("| --- | --- | --- | --- |")
        for a in rows:
            name = a.name if a.name.startswith("adv.") or module != "basic" else a.name
            cls = a.name.split(".")[0] if "." in a.name and not a.name.startswith("adv.") else None
            parts = a.name.split(".")
            if len(parts) == 3 and parts[1][:1].isupper():          # adv.Matmul.set_tensor_a
                cls = parts[1]
            c = "" if not a.cname or a.status != api.SUPPORTED else \
                (f"`{cls}::{a.cname}`" if cls else f"`{a.cname[2:]}` (global scope)" if a.cname.startswith("::")
                 else f"`{a.cname}`" if a.cname.isupper() else f"`AscendC::{a.cname}`")
            out.append(f"| `asc.{name}` | {c} | {a.status} | {a.note} |")
        out.append("")
    out.append(TAIL)
    out.append(docs_twin.TWIN)
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
