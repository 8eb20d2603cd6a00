"""The one declaration table of pyasc's Ascend C API in Python: every pyasc 1.1.1 API, what it becomes in Ascend C
(the AscendC:: name and the parameter order of the asc-devkit headers), the pipe it runs on, and its status here.
The translator (translate.py, calls.py, methods.py: a method of a kernel object is also a row there) and
docs/pyasc.md (docs.py) read it.

A signature is a string of `name:role[=default]` items in the Ascend C parameter order. Roles:
  dst / src      a tensor the call writes / reads (a LocalTensor, or a GlobalTensor where the API takes one)
  n              an integer expression (count, repeat times, strides)
  s              a scalar, converted to the element type of the tensor just before it
  mask           an int, or a list of two 64-bit ints (emitted as a uint64_t[2] array)
  p              a parameter struct (BinaryRepeatParams, DataCopyParams, ...) or any value passed as is
  e              an enum member (RoundMode, CMPMODE, ...)
  T              a template argument (is_set_mask=False becomes Add<T, false>(...)); never a C argument
"""
from __future__ import annotations

from dataclasses import dataclass, field

SUPPORTED, NOT_YET = "supported", "not yet"


@dataclass(frozen=True)
class Param:
    name: str
    role: str
    default: object = None
    optional: bool = False


@dataclass(frozen=True)
class Sig:
    params: tuple

    @staticmethod
    def parse(text: str) -> "Sig":
        out = []
        for item in text.split():
            name, _, rest = item.partition(":")
            role, eq, default = rest.partition("=")
            out.append(Param(name, role, {"True": True, "False": False, "None": None}.get(default, default),
                             bool(eq)))
        return Sig(tuple(out))


@dataclass(frozen=True)
class Api:
    name: str                  # pyasc's name: "add", "adv.softmax", "TQue.alloc_tensor", "GlobalTensor"
    module: str                # where pyasc documents it: core, basic, fwk, adv
    cname: str | None = None   # the Ascend C name
    sigs: tuple = ()           # the overloads, as Sig
    pipe: str | None = None    # V, MTE2, MTE3, S, or "copy" (by the operands' memories), None: no pipe
    status: str = SUPPORTED
    note: str = ""
    special: str | None = None   # the translator's handler for calls that are not a plain AscendC:: call
    aliases: tuple = field(default=())


TABLE: list = []


def api(name, module, cname=None, *sigs, pipe=None, status=SUPPORTED, note="", special=None, aliases=()):
    TABLE.append(Api(name, module, cname, tuple(Sig.parse(s) for s in sigs), pipe, status, note, special,
                     tuple(aliases)))


def not_yet(module, *names, note=""):
    for n in names:
        TABLE.append(Api(("adv." + n) if module == "adv" else n, module, status=NOT_YET, note=note))


# ------------------------------------------------------------------ vector instructions (basic)

_MASKED_BIN = "dst:dst src0:src src1:src mask:mask repeat_times:n repeat_params:p is_set_mask:T=True"
for _n, _c in (("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("div", "Div"), ("max", "Max"), ("min", "Min"),
               ("bitwise_and", "And"), ("bitwise_or", "Or"), ("add_relu", "AddRelu"), ("sub_relu", "SubRelu")):
    api(_n, "basic", _c, "dst:dst src0:src src1:src count:n", _MASKED_BIN, pipe="V")

_MASKED_UN = "dst:dst src:src mask:mask repeat_times:n repeat_params:p is_set_mask:T=True"
for _n, _c in (("abs", "Abs"), ("exp", "Exp"), ("ln", "Ln"), ("sqrt", "Sqrt"), ("rsqrt", "Rsqrt"),
               ("reciprocal", "Reciprocal"), ("relu", "Relu"), ("bitwise_not", "Not")):
    api(_n, "basic", _c, "dst:dst src:src count:n", _MASKED_UN, pipe="V")

_MASKED_SC = "dst:dst src:src scalar:s mask:mask repeat_times:n repeat_params:p is_set_mask:T=True"
for _n, _c in (("adds", "Adds"), ("muls", "Muls"), ("maxs", "Maxs"), ("mins", "Mins"), ("leaky_relu", "LeakyRelu"),
               ("shift_left", "ShiftLeft"), ("shift_right", "ShiftRight")):
    api(_n, "basic", _c, "dst:dst src:src scalar:s count:n", _MASKED_SC, pipe="V")

api("axpy", "basic", "Axpy", "dst:dst src:src scalar:s count:n",
    "dst:dst src:src scalar:s mask:mask repeat_times:n repeat_params:p is_set_mask:T=True", pipe="V")
api("duplicate", "basic", "Duplicate", "dst:dst scalar:s count:n",
    "dst:dst scalar:s mask:mask repeat_times:n dst_block_stride:n dst_repeat_stride:n is_set_mask:T=True", pipe="V")
api("copy", "basic", "Copy", "dst:dst src:src mask:mask repeat_time:n repeat_params:p is_set_mask:T=True", pipe="V")
api("cast", "basic", "Cast", "dst:dst src:src round_mode:e count:n",
    "dst:dst src:src round_mode:e mask:mask repeat_times:n repeat_params:p is_set_mask:T=True", pipe="V")
api("compare", "basic", "Compare", "dst:dst src0:src src1:src cmp_mode:e count:n", pipe="V")
api("compare_scalar", "basic", "CompareScalar", "dst:dst src0:src src1:s cmp_mode:e count:n", pipe="V")
api("select", "basic", "Select", "dst:dst sel_mask:src src0:src src1:src sel_mode:e count:n", pipe="V")
for _n, _c in (("reduce_sum", "ReduceSum"), ("reduce_max", "ReduceMax"), ("reduce_min", "ReduceMin")):
    api(_n, "basic", _c, "dst:dst src:src work_local:dst count:n" + ("" if _n == "reduce_sum" else
                                                                    " cal_index:p=False"), pipe="V")
for _n, _c in (("whole_reduce_sum", "WholeReduceSum"), ("whole_reduce_max", "WholeReduceMax"),
               ("whole_reduce_min", "WholeReduceMin")):
    api(_n, "basic", _c, "dst:dst src:src mask:mask repeat_times:n dst_rep_stride:n src_blk_stride:n "
        "src_rep_stride:n" + ("" if _n == "whole_reduce_sum" else " order:e=None"), pipe="V")
for _n, _c in (("block_reduce_sum", "BlockReduceSum"), ("block_reduce_max", "BlockReduceMax"),
               ("block_reduce_min", "BlockReduceMin")):
    api(_n, "basic", _c, "dst:dst src:src repeat_times:n mask:mask dst_rep_stride:n src_blk_stride:n "
        "src_rep_stride:n", pipe="V")
api("transpose", "basic", "Transpose", "dst:dst src:src", "dst:dst src:src shared_tmp_buffer:dst params:p",
    pipe="V")
api("trans_data_to_5hd", "basic", "TransDataTo5HD", "dst_list:dst src_list:src params:p", pipe="V",
    special="trans_5hd")

# ------------------------------------------------------------------ data movement, sync, system (basic)

api("data_copy", "basic", "DataCopy", "dst:dst src:src count:n", "dst:dst src:src repeat_params:p",
    "dst:dst src:src intri_params:p enhanced_params:p", "dst:dst src:src intri_params:p", pipe="copy",
    note="intri_params alone: the Nd2NzParams form (GM ND -> L1 NZ)")
api("data_copy_pad", "basic", "DataCopyPad", "dst:dst src:src data_copy_params:p pad_params:p",
    "dst:dst src:src data_copy_params:p", pipe="copy",
    note="DataCopyExtParams with DataCopyPadExtParams(dtype, ...), or DataCopyParams with DataCopyPadParams "
         "(padding_value 0 only, as Ascend C documents)")
api("set_flag", "basic", "SetFlag", "event:e event_id:n=0", special="flag")
api("wait_flag", "basic", "WaitFlag", "event:e event_id:n=0", special="flag")
api("pipe_barrier", "basic", "PipeBarrier", "pipe:e", special="barrier")
api("get_block_idx", "basic", "GetBlockIdx", "", special="sysvar")
api("get_block_num", "basic", "GetBlockNum", "", special="sysvar")
api("get_sub_block_idx", "basic", "GetSubBlockIdx", "", special="sysvar")
api("get_data_block_size_in_bytes", "basic", "GetDataBlockSizeInBytes", "", special="sysvar")
api("printf", "basic", "printf", special="printf")
api("dump_tensor", "basic", "DumpTensor", "tensor:src desc:n dump_size:n", pipe="S")
api("set_aipp_functions", "basic", "SetAippFunctions", "src0:src input_format:e config:p",
    "src0:src src1:src input_format:e config:p", special="aipp",
    note="the configuration (checked as the docs state it); LoadImageToLocal, which applies it, is not yet")

# ------------------------------------------------------------------ tensors (core)

api("GlobalTensor", "core", "GlobalTensor", special="ctor")
api("GlobalTensor.set_global_buffer", "core", "SetGlobalBuffer", "buffer:p buffer_size:n=None", special="method")
api("GlobalTensor.get_phy_addr", "core", "GetPhyAddr", "offset:n=None", special="method")
api("GlobalTensor.get_size", "core", "GetSize", "", special="method")
api("GlobalTensor.get_value", "core", "GetValue", "offset:n", special="method")
api("GlobalTensor.set_value", "core", "SetValue", "offset:n value:s", special="method")
api("LocalTensor", "core", "LocalTensor", special="ctor")
api("LocalTensorAuto", "core", "LocalTensor", special="ctor",
    note="materialized as a TBuf of the kernel's TPipe, with the SetFlag/WaitFlag pairs a real build needs")
for _n, _c, _s in (("get_value", "GetValue", "index:n"), ("set_value", "SetValue", "index:n value:s"),
                   ("get_size", "GetSize", ""), ("get_length", "GetLength", ""), ("get_phy_addr", "GetPhyAddr", ""),
                   ("get_position", "GetPosition", ""), ("set_size", "SetSize", "size:n"),
                   ("set_buffer_len", "SetBufferLen", "len:n"), ("get_user_tag", "GetUserTag", ""),
                   ("set_user_tag", "SetUserTag", "tag:n"), ("reinterpret_cast", "ReinterpretCast", "dtype:p"),
                   ("set_addr_with_offset", "SetAddrWithOffset", "src:p offset:n"),
                   ("set_shape_info", "SetShapeInfo", "shape_info:p"), ("get_shape_info", "GetShapeInfo", "")):
    api(f"LocalTensor.{_n}", "core", _c, _s, special="method")
api("ShapeInfo", "core", "ShapeInfo", special="ctor")
api("get_shape_size", "core", "GetShapeSize", "shape_info:p", special="call")
not_yet("core", "GlobalTensor.get_shape_info", "GlobalTensor.set_shape_info", "GlobalTensor.set_l2_cache_hint",
        "LocalMemAllocator", "LocalMemAllocator.alloc", "LocalMemAllocator.get_cur_addr")

# ------------------------------------------------------------------ the framework (fwk)

api("TPipe", "fwk", "TPipe", special="ctor")
api("TPipe.init_buffer", "fwk", "InitBuffer", "que:p num:n len:n", "buf:p num:n", special="method",
    note="the TBuf form is pyasc's (buf, num): num is the buffer's length in bytes, as InitBuffer(buf, len) in C++")
for _n, _c in (("destroy", "Destroy"), ("init", "Init"), ("reset", "Reset")):
    api(f"TPipe.{_n}", "fwk", _c, "", special="method")
for _n, _c in (("alloc_event_id", "AllocEventID"), ("fetch_event_id", "FetchEventID")):
    api(f"TPipe.{_n}", "fwk", _c, "event:e", special="method")
api("TPipe.release_event_id", "fwk", "ReleaseEventID", "id:n event:e", special="method")
api("get_tpipe_ptr", "fwk", "GetTPipePtr", "", special="call")
api("TQue", "fwk", "TQue", special="ctor")
for _n, _c, _s in (("alloc_tensor", "AllocTensor", "dtype:p"), ("enque", "EnQue", "tensor:p"),
                   ("deque", "DeQue", "dtype:p"), ("free_tensor", "FreeTensor", "tensor:p"),
                   ("vacant_in_que", "VacantInQue", ""), ("has_tensor_in_que", "HasTensorInQue", ""),
                   ("get_tensor_count_in_que", "GetTensorCountInQue", ""), ("has_idle_buffer", "HasIdleBuffer", ""),
                   ("free_all_event", "FreeAllEvent", "")):
    if _n != "free_all_event":
        api(f"TQue.{_n}", "fwk", _c, _s, special="method")
    api(f"TQueBind.{_n}", "fwk", _c, _s, special="method")
api("TBuf", "fwk", "TBuf", special="ctor")
api("TBuf.get", "fwk", "Get", "dtype:p len:n=None", special="method")
api("TBuf.get_with_offset", "fwk", "GetWithOffset", "dtype:p size:n offset:n", special="method")
not_yet("fwk", "TBufPool", "TBufPool.init_buf_pool", "TBufPool.init_buffer", "TBufPool.reset",
        "TPipe.init_buf_pool")

# ------------------------------------------------------------------ advanced APIs (adv)

api("adv.softmax", "adv", "SoftMax", "dst:dst sum:dst max:dst src:src tiling:p temp_buffer:dst=None "
    "reuse_source:T=False basic_block:T=False data_format_nz:T=False", pipe="V", special="softmax")
api("adv.SoftmaxTiling", "adv", "::SoftMaxTiling", special="ctor")   # "::": CANN declares it at global scope
for _n, _c in (("exp", "Exp"), ("tanh", "Tanh"), ("sin", "Sin"), ("cos", "Cos"), ("erf", "Erf"),
               ("floor", "Floor"), ("ceil", "Ceil")):
    api(f"adv.{_n}", "adv", _c, "dst:dst src:src shared_tmp_buffer:dst count:n", pipe="V",
        note="the (dst, src, shared_tmp_buffer, count) form")

api("adv.quant", "adv", "AscendQuant", "dst:dst src:src scale:s offset:s count:n=None temp_buffer:dst=None "
    "reuse_source:T=False config:p=None", pipe="V", special="quant",
    note="the per-tensor form: dst int8, src float16 or float32, scalar scale and offset; with or without "
         "temp_buffer (uint8, at least 512 bytes) and count; the QuantConfig form")
api("adv.QuantConfig", "adv", "AscendQuantConfig", special="ctor",
    note="calc_count, offset_count, scale_count, work_local_size: compile-time ints, a static constexpr")

# ------------------------------------------------------------------ not yet: named so that docs/pyasc.md lists them

not_yet("basic", "add_deq_relu", "add_relu_cast", "sub_relu_cast", "bilinear_interpolation", "brcb", "cast_deq",
        "check_local_memory_ia", "count_bits_cnt_same_as_sign_bit", "cross_core_set_flag", "cross_core_wait_flag",
        "data_cache_clean_and_invalid", "data_cache_preload", "data_sync_barrier", "dump_acc_chk_point",
        "fused_mul_add", "fused_mul_add_relu", "gather", "gather_mask", "gatherb", "get_cmp_mask",
        "get_hccl_context", "get_icache_preload_status", "get_mrg_sort_result", "get_program_counter",
        "get_sort_len", "get_sort_offset", "get_store_atomic_config", "get_system_cycle",
        "get_task_ratio", "ib_set", "ib_wait", "icache_preload", "init_const_value", "init_soc_state",
        "load_data_with_sparse", "load_image_to_local",
        "metrics_prof_start", "metrics_prof_stop", "mmad_with_sparse", "mrg_sort", "mrg_sort4",
        "mul_add_dst", "mul_cast", "notify_next_block", "pair_reduce_sum", "print_time_stamp", "proposal_concat",
        "proposal_extract", "repeat_reduce_sum", "reset_mask", "rp_sort16", "scalar_cast",
        "scalar_count_leading_zero", "scalar_get_count_of_value", "scalar_get_sff_value", "scatter",
        "set_atomic_add", "set_atomic_max", "set_atomic_min", "set_atomic_none",
        "set_atomic_type", "set_cmp_mask", "set_deq_scale", "set_fix_pipe_pre_quant_flag", "set_hccl_context",
        "set_hf32_mode", "set_hf32_trans_mode", "set_load_data_boundary", "set_load_data_padding_value",
        "set_load_data_repeat", "set_mask_count", "set_mask_norm", "set_mm_layout_transform", "set_pad_value",
        "set_store_atomic_config", "set_vector_mask", "sort", "sort32", "sync_all", "trap", "wait_pre_block",
        "ListTensorDesc.get_data_ptr", "ListTensorDesc.get_desc", "ListTensorDesc.get_size", "ListTensorDesc.init",
        "TensorDesc.get_data_obj", "TensorDesc.get_data_ptr", "TensorDesc.get_dim", "TensorDesc.get_index",
        "TensorDesc.get_shape", "TensorDesc.set_shape_addr", note="vector path first; cube, atomics, sort later")
api("adv.Matmul", "adv", "Matmul", special="ctor",
    note="A and B in GM (ND or NZ, transposed or not) of float16, bfloat16 or float32; C float32 or the inputs' type "
         "in GM or UB; bias; int8 A and B (exact int32 accumulation) into an int32 C, or a float16 C dequantized "
         "with set_quant_scalar / set_quant_vector; an int32 bias")
api("adv.register_matmul", "adv", "REGIST_MATMUL_OBJ", "pipe:p workspace:p matmul:p tiling:p=None", special="regist")
for _n, _c, _s in (("init", "Init", "tiling:p"), ("set_tensor_a", "SetTensorA", "tensor:p transpose:p=False"),
                   ("set_tensor_b", "SetTensorB", "tensor:p transpose:p=False"), ("set_bias", "SetBias", "tensor:p"),
                   ("disable_bias", "DisableBias", ""), ("set_tail", "SetTail", "tail_m:n=-1 tail_n:n=-1 tail_k:n=-1"),
                   ("set_org_shape", "SetOrgShape", "org_m:n org_n:n org_ka:n org_kb:n=None org_kc:n=None"),
                   ("set_single_shape", "SetSingleShape", "single_m:n single_n:n single_k:n"),
                   ("iterate", "Iterate", "en_partial_sum:p=False sync:p=True local_c_matrix:p=None"),
                   ("iterate_all", "IterateAll", "tensor:p en_atomic:n=0 sync:p=True en_sequential_write:p=None "
                    "wait_iterate_all:p=None fake_msg:p=None"),
                   ("get_tensor_c", "GetTensorC", "tensor:p en_atomic:n=0 en_sequential_write:p=False sync:p=True "
                    "optional_tensor:p=None"),
                   ("iterate_batch", "IterateBatch", "tensor:p batch_a:n batch_b:n en_sequential_write:p "
                    "matrix_stride_a:n=0 matrix_stride_b:n=0 matrix_stride_c:n=0 en_partial_sum:p=False "
                    "en_atomic:n=0 sync:p=True wait_iterate_batch:p=None"), ("end", "End", ""),
                   ("set_quant_scalar", "SetQuantScalar", "quant_scalar:n"),
                   ("set_quant_vector", "SetQuantVector", "quant_vector:p")):
    api(f"adv.Matmul.{_n}", "adv", _c, _s, special="method",
        note={"iterate": "`with mm.iterate() as count:` loops while Iterate() gives a block",
              "iterate_batch": "the mix form into a GlobalTensor, LayoutMode.NORMAL (BMNK), A and B in ND, batch_a "
                               "and batch_b multiples of one another (the smaller broadcast), each core whole "
                               "matrices (CANN reads a core's batches as contiguous matrices of its part); into "
                               "UB, en_partial_sum and wait_iterate_batch not yet",
              "set_quant_scalar": "int8 A and B into a float16 C (DEQF16: the uint64 word, its scale 1 + 8 + 10 "
                                  "bits)",
              "set_quant_vector": "int8 A and B into a float16 C (VDEQF16: a uint64 GlobalTensor, a word per "
                                  "column of the core's part)"}.get(_n, ""))
# the cube basic API (cube.py): GM -> A1/B1 with data_copy(dst, src, Nd2NzParams), A1/B1 -> A2/B2, Mmad, Fixpipe
api("load_data", "basic", "LoadData", "dst:dst src:src params:p", pipe="MTE1", special="load_data",
    note="LoadData2DParams from L1 (A1/B1) to L0A/L0B (A2/B2) of float16, bfloat16, float32 and int8 (16 x 32 "
         "fractals), if_transpose for 16-bit data; the GM source, LoadData2DParamsV2 and the 3-D forms are not yet")
api("load_data_with_transpose", "basic", "LoadDataWithTranspose", "dst:dst src:src params:p", pipe="MTE1",
    special="load_data_with_transpose",
    note="LoadData2dTransposeParams, float32 (16-bit data: load_data with if_transpose); V2 params not yet")
api("mmad", "basic", "Mmad", "dst:dst fm:src filter:src params:p", pipe="M", special="mmad",
    note="float16 / bfloat16 / float32 operands into a float32 L0C, int8 into an int32 L0C (exact); accumulate "
         "with cmatrix_init_val=False; the bias-tensor form mmad(dst, fm, filter, bias, params): the bias row of the "
         "L0C's type in the BiasTable (TPosition.C2, filled from C1 with data_copy)")
api("fixpipe", "basic", "Fixpipe", "dst:dst src:src params:p config:T=None", pipe="FIX", special="fixpipe",
    note="L0C (CO1) to GM, FixpipeConfig.cfg_row_major; every quant_pre of FixpipeParamsV220: float32 L0C -> "
         "float32 / float16 (F322F16) / bfloat16 (F322BF16) / int8, uint8 ((V)QF322B8_PRE), int32 L0C -> int32 / "
         "float16 ((V)DEQF16) / int8, uint8 ((V)REQ8); the V modes with a cbuf_workspace (uint64 in L1, a word per "
         "column); words with MCB or a nonzero Offset are refused")
api("set_sys_workspace", "basic", "SetSysWorkspace", "workspace:p", special="sys_workspace")
api("get_sys_workspace", "basic", "GetSysWorkspacePtr", "", special="sys_workspace",
    note="a GlobalAddress of uint8; before any set_sys_workspace it is refused (a null workspace)")
api("ascend_is_aic", "basic", "ASCEND_IS_AIC", "", special="coretype")
api("ascend_is_aiv", "basic", "ASCEND_IS_AIV", "", special="coretype")
not_yet("adv", "acos", "acosh", "asin", "asinh", "atan", "atanh", "axpy", "concat", "cosh", "digamma", "erfc",
        "extract", "frac", "lgamma", "log", "power", "round", "sign", "sinh", "tan", "trunc", "xor",
        "get_basic_config", "get_ib_share_norm_config", "get_matmul_api_tiling", "get_mdl_config", "get_mm_config",
        "get_normal_config", "get_special_basic_config", "get_special_mdl_config",
        "Matmul.async_get_tensor_c", "Matmul.get_batch_tensor_c", "Matmul.get_offset_c",
        "Matmul.iterate_n_batch", "Matmul.set_batch_num", "Matmul.set_hf32", "Matmul.set_self_define_data", "Matmul.set_sparse_index", "Matmul.set_user_def_info", "Matmul.set_workspace",
        "Matmul.wait_get_tensor_c", "Matmul.wait_iterate_all", "Matmul.wait_iterate_batch",
        note="the rest of the Matmul API and of the advanced math come later")

BY_NAME = {a.name: a for a in TABLE}


def lookup(name: str) -> Api | None:
    return BY_NAME.get(name)
