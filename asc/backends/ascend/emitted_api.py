"""The Ascend C API that the ascend renderer may emit, each with its parameter list as documented (Ascend C API
reference, CANN 8.x, A2 = Ascend 910B; see the asc repository's shared Ascend C reference notes).

tests/backends/test_ascend_source.py checks that every generated kernel uses nothing outside this table and that the
ascend-sim header (asc/include/ascend_sim/kernel_operator.h) implements every entry."""
from __future__ import annotations

# name -> documented prototype (count forms; template parameters as documented)
API = {
    # kernel entry, block index
    "AscendC": "namespace AscendC (kernel_operator.h)",
    "KERNEL_TASK_TYPE_DEFAULT": "KERNEL_TASK_TYPE_DEFAULT(KernelMetaType value): KERNEL_TYPE_AIV_ONLY, "
                                "KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIC_1_2, ...",
    "GetBlockIdx": "int64_t GetBlockIdx()",
    "GetBlockNum": "int64_t GetBlockNum()",
    "GetTaskRatio": "int64_t GetTaskRatio() (2 on an AIV of a MIX 1:2 kernel, else 1)",
    "ASCEND_IS_AIC": "macro: `if ASCEND_IS_AIC { ... }` runs on the cube cores of a MIX kernel",
    "ASCEND_IS_AIV": "macro: `if ASCEND_IS_AIV { ... }` runs on the vector cores of a MIX kernel",
    "PipeBarrier": "template <pipe_t pipe> void PipeBarrier() (PIPE_ALL: every queued instruction of the core done)",
    "SyncAll": "template <bool isAIVOnly = true> void SyncAll() (hard all-core barrier; isAIVOnly = false in a MIX "
               "kernel: every AIC and AIV)",
    # tensors and buffers
    "GlobalTensor": "template <class T> class GlobalTensor",
    "SetGlobalBuffer": "void GlobalTensor<T>::SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize)",
    "LocalTensor": "template <class T> class LocalTensor",
    "GetValue": "T GlobalTensor<T>::GetValue(uint64_t offset) / T LocalTensor<T>::GetValue(uint32_t idx) const",
    "ReinterpretCast": "template <class U> LocalTensor<U> LocalTensor<T>::ReinterpretCast() const",
    "SetValue": "void GlobalTensor<T>::SetValue(uint64_t offset, T value)",
    "TPipe": "class TPipe",
    "InitBuffer": "template <class Q> bool TPipe::InitBuffer(Q& que, uint8_t num, uint32_t len) / "
                  "template <TPosition p> bool TPipe::InitBuffer(TBuf<p>& buf, uint32_t len)",
    "TQue": "template <TPosition pos, int32_t depth, auto mask = 0> class TQue",
    "TBuf": "template <TPosition pos = TPosition::VECCALC> class TBuf",
    "TPosition": "enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, ... }",
    "AllocTensor": "template <class T> LocalTensor<T> TQue::AllocTensor()",
    "EnQue": "template <class T> bool TQue::EnQue(const LocalTensor<T>& tensor)",
    "DeQue": "template <class T> LocalTensor<T> TQue::DeQue()",
    "FreeTensor": "template <class T> void TQue::FreeTensor(LocalTensor<T>& tensor)",
    "Get": "template <class T> LocalTensor<T> TBuf::Get()",
    "GetWithOffset": "template <class T> LocalTensor<T> TBuf::GetWithOffset(uint32_t size, uint32_t bufOffset)",
    # data movement
    "DataCopy": "template <class T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, "
                "const uint32_t count) / (const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)",
    "DataCopyPad": "template <class T> void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, "
                   "const DataCopyExtParams& dataCopyParams, const DataCopyPadExtParams<T>& padParams) / "
                   "(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& dataCopyParams)",
    "DataCopyExtParams": "struct DataCopyExtParams { uint16_t blockCount; uint32_t blockLen; uint32_t srcStride; "
                         "uint32_t dstStride; uint32_t rsv; } (blockCount, blockLen, srcStride, dstStride, rsv)",
    "DataCopyPadExtParams": "template <class T> struct DataCopyPadExtParams { bool isPad; uint8_t leftPadding; "
                            "uint8_t rightPadding; T paddingValue; } (isPad, leftPadding, rightPadding, paddingValue)",
    "DataCacheCleanAndInvalid": "template <class T, CacheLine entireType, DcciDst dcciDst> void "
                                "DataCacheCleanAndInvalid(const GlobalTensor<T>& dstTensor)",
    "CacheLine": "enum class CacheLine { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE }",
    "DcciDst": "enum class DcciDst { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC }",
    # synchronization
    "GetTPipePtr": "TPipe* GetTPipePtr()",
    "FetchEventID": "TEventID TPipe::FetchEventID(HardEvent evt)",
    "SetFlag": "template <HardEvent event> void SetFlag(int32_t eventID)",
    "WaitFlag": "template <HardEvent event> void WaitFlag(int32_t eventID)",
    "HardEvent": "enum class HardEvent : uint8_t { MTE2_MTE1, ..., MTE2_V, V_MTE2, MTE3_V, V_MTE3, ..., S_V, V_S, "
                 "S_MTE2, MTE2_S, ... }",
    # vector: binary (count form)
    "Add": "template <class T> void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "Sub": "template <class T> void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "Mul": "template <class T> void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "Div": "template <class T> void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "Max": "template <class T> void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "Min": "template <class T> void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, "
           "const LocalTensor<T>& src1, const int32_t& count)",
    "BinaryRepeatParams": "struct BinaryRepeatParams (dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, "
                          "src0RepStride, src1RepStride); the repeat forms Add / Mul(dst, src0, src1, uint64_t mask, "
                          "const uint8_t repeatTime, const BinaryRepeatParams& repeatParams)",
    "Brcb": "template <class T> void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
            "const uint8_t repeatTime, const BrcbRepeatParams& repeatParams)",
    "BrcbRepeatParams": "struct BrcbRepeatParams (dstBlkStride, dstRepStride)",
    # vector: tensor-scalar
    "Adds": "template <class T, bool isSetMask = true> void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
            "const T& scalarValue, const int32_t& count)",
    "Muls": "template <class T, bool isSetMask = true> void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
            "const T& scalarValue, const int32_t& count)",
    "Maxs": "template <class T, bool isSetMask = true> void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
            "const T& scalarValue, const int32_t& count)",
    "Mins": "template <class T, bool isSetMask = true> void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
            "const T& scalarValue, const int32_t& count)",
    # vector: unary
    "Exp": "template <class T> void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)",
    "Ln": "template <class T> void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)",
    "Sqrt": "template <class T> void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)",
    "Rsqrt": "template <class T> void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)",
    "Abs": "template <class T> void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)",
    "Duplicate": "template <class T> void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, "
                 "const int32_t& count)",
    "Cast": "template <class T, class U> void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, "
            "const RoundMode& round_mode, const uint32_t count)",
    "RoundMode": "enum class RoundMode : uint8_t { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, "
                 "CAST_TRUNC, CAST_ODD }",
    # advanced math (with sharedTmpBuffer)
    "Tanh": "template <class T, bool isReuseSource = false> void Tanh(const LocalTensor<T>& dst, "
            "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Erf": "template <class T, bool isReuseSource = false> void Erf(const LocalTensor<T>& dst, "
           "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Sigmoid": "template <class T, bool isReuseSource = false> void Sigmoid(const LocalTensor<T>& dst, "
               "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Sin": "template <class T, bool isReuseSource = false> void Sin(const LocalTensor<T>& dst, "
           "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Cos": "template <class T, bool isReuseSource = false> void Cos(const LocalTensor<T>& dst, "
           "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Floor": "template <class T, bool isReuseSource = false> void Floor(const LocalTensor<T>& dst, "
             "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    "Ceil": "template <class T, bool isReuseSource = false> void Ceil(const LocalTensor<T>& dst, "
            "const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)",
    # cube path
    "Nd2NzParams": "struct Nd2NzParams { uint16_t ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, "
                   "dstNzC0Stride, dstNzNStride, dstNzMatrixStride; } (same order)",
    "LoadData": "template <class T> void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
                "const LoadData2DParams& loadDataParams)",
    "LoadData2DParams": "struct LoadData2DParams (startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, "
                        "addrMode)",
    "LoadDataWithTranspose": "template <class T> void LoadDataWithTranspose(const LocalTensor<T>& dst, "
                             "const LocalTensor<T>& src, const LoadData2dTransposeParams& loadDataParams)",
    "LoadData2dTransposeParams": "struct LoadData2dTransposeParams (startIndex, repeatTimes, srcStride, dstGap, "
                                 "dstFracGap, addrMode)",
    "Fill": "template <class T, class U = T> void Fill(const LocalTensor<T>& dst, "
            "const InitConstValueParams<U>& initConstValueParams) (L1 / L0A / L0B)",
    "InitConstValueParams": "template <class T> struct InitConstValueParams (repeatTimes, blockNum, dstGap, "
                            "initValue)",
    "Mmad": "template <class T, class U, class S> void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, "
            "const LocalTensor<S>& filter, const MmadParams& mmadParams)",
    "MmadParams": "struct MmadParams (m, n, k, unitFlag, cmatrixSource, cmatrixInitVal)",
    "Fixpipe": "template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR> void Fixpipe("
               "const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& intriParams)",
    "FixpipeParamsV220": "struct FixpipeParamsV220 (nSize, mSize, srcStride, dstStride, reluEn); quantPre",
    "QuantMode_t": "enum QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, "
                   "REQ8, VREQ8 }",
    "FixpipeConfig": "struct FixpipeConfig; constexpr CFG_ROW_MAJOR (NZ -> ND), CFG_NZ",
    # compare / select
    "Compare": "template <class T, class U> void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, "
               "const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count)",
    "CompareScalar": "template <class T, class U> void CompareScalar(const LocalTensor<U>& dst, "
                     "const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode, uint32_t count)",
    "Select": "template <class T, class U> void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, "
              "const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)",
    "CMPMODE": "enum class CMPMODE : uint8_t { LT, GT, EQ, LE, GE, NE }",
    "SELMODE": "enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE }",
    # reductions (count form, with a work tensor)
    "ReduceSum": "template <class T, bool isSetMask = true> void ReduceSum(const LocalTensor<T>& dst, "
                 "const LocalTensor<T>& src, const LocalTensor<T>& work, const int32_t count)",
    "ReduceMax": "template <class T> void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
                 "const LocalTensor<T>& work, const int32_t count, bool calIndex = false)",
    "ReduceMin": "template <class T> void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, "
                 "const LocalTensor<T>& work, const int32_t count, bool calIndex = false)",
}

# argument count of each function as the renderer calls it (for the conformance test; a tuple: the count and the
# repeat forms)
ARITY = {
    "Add": (4, 6), "Sub": 4, "Mul": (4, 6), "Brcb": 4, "BrcbRepeatParams": 2, "BinaryRepeatParams": 6, "Div": 4, "Max": 4, "Min": 4, "Adds": 4, "Muls": 4, "Maxs": 4, "Mins": 4,
    "Exp": 3, "Ln": 3, "Sqrt": 3, "Rsqrt": 3, "Abs": 3, "Duplicate": 3, "Cast": 4, "Tanh": 4, "Erf": 4,
    "Sigmoid": 4, "Sin": 4, "Cos": 4, "Floor": 4, "Ceil": 4, "ReduceSum": 4, "ReduceMax": 4, "ReduceMin": 4,
    "DataCopyExtParams": 5, "DataCopyPadExtParams": 4, "SetFlag": 1, "WaitFlag": 1, "GetBlockIdx": 0,
    "GetBlockNum": 0, "SyncAll": 0, "GetTaskRatio": 0, "GetTPipePtr": 0, "FetchEventID": 1, "EnQue": 1, "FreeTensor": 1, "AllocTensor": 0,
    "DeQue": 0, "SetGlobalBuffer": 2, "GetWithOffset": 2, "Get": 0, "LoadData": 3, "Mmad": 4, "Fixpipe": 3,
    "Nd2NzParams": 8, "Compare": 5, "CompareScalar": 5, "Select": 6, "LoadData2DParams": 7, "MmadParams": 6, "FixpipeParamsV220": 5,
    "PipeBarrier": 0, "LoadDataWithTranspose": 3, "LoadData2dTransposeParams": 6, "Fill": 2, "InitConstValueParams": 4,
}

# C++ words in generated kernels that are not API calls (language keywords, types, our own names)
NON_API = {"uint8_t", "uint32_t", "uint64_t", "int32_t", "int64_t", "int16_t", "int8_t", "float", "half",
           "bfloat16_t", "bool", "double", "sizeof", "static_cast", "reinterpret_cast", "if", "for", "return",
           "GM_ADDR", "ASCENDC_CPU_DEBUG", "__gm__", "__global__", "__aicore__", "__builtin_nanf"}
