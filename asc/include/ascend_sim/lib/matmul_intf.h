// ascend-sim: the Matmul high-level API of Ascend C (CANN's lib/matmul_intf.h) on the CPU.
//
// AscendC::Matmul<MatmulType<...> A, B, C, BIAS, MM_CFG> with REGIST_MATMUL_OBJ / Init(&tiling), SetTensorA/B
// (GM, ND or NZ, transposed or not), SetBias, SetTail, SetOrgShape, SetSingleShape, Iterate / GetTensorC (one base
// block of baseM x baseN at a time, in the order of CANN's Norm scheduler: iterateOrder, stepM, stepN), IterateAll (every block of the core's
// singleCoreM x singleCoreN part of C into GM), IterateBatch (IterateAll over the batches of the NORMAL layout)
// and End. A and B of half, bfloat16_t or float; C of float or the
// inputs' type; the products are accumulated in float32 (as L0C does) and rounded once to C's type (Fixpipe).
// A and B of int8_t: the products are accumulated exactly in int32_t (an int32_t L0C); C of int32_t (NoQuant), or of
// half through Fixpipe's dequantization (kernel_operator.h): SetQuantScalar(word) (DEQF16) or SetQuantVector(a
// GlobalTensor<uint64_t>, one word per column of the core's part of C: VDEQF16); the bias of an int8_t Matmul is
// int32_t.
//
// The launch model is the one of kernel_operator.h: a MIX (KERNEL_TYPE_MIX_AIC_1_2) launch runs every AIC and AIV;
// REGIST_MATMUL_OBJ makes the AIC leave the kernel (on the NPU it serves the AIVs' Matmul messages) and each AIV's
// Matmul object computes what its cube core would. An AIC-only launch (matmul_cube_only: ASCENDC_CUBE_ONLY) runs
// the Matmul on the AIC itself. The rules, each a violation naming the call and the line:
//   - a Matmul in a launch of vector cores only (no cube core to run on);
//   - a MIX kernel's REGIST_MATMUL_OBJ without a workspace (the AIC-AIV messages live there);
//   - methods before Init (REGIST_MATMUL_OBJ with a tiling, or Init), Iterate/IterateAll before SetTensorA and
//     SetTensorB, GetTensorC without a block from Iterate;
//   - IterateBatch outside the Norm template, with A and B in different layouts, batchA and batchB not multiples
//     of one another, or into GM with enSequentialWrite;
//   - a type pair the cube does not take (A and B differ, C neither float nor the inputs' type; for int8_t A and B
//     C neither int32_t nor half); a half C of int8_t A and B without SetQuantScalar / SetQuantVector, an int32_t C
//     with one, a quantization of float operands (not emulated), a quantization word Fixpipe refuses;
//   - a tiling whose base block does not fit L0A / L0B (L0A_SIZE / L0B_SIZE, with dbL0A / dbL0B), L0C (L0C_SIZE
//     with dbL0C), or whose L1 residency (depthA1 x baseM x baseK + depthB1 x baseK x baseN (+ the bias row))
//     exceeds L1_SIZE; base
//     blocks that are not whole 16 x (32 B) fractals; non-positive shapes;
//   - GM accesses outside the GlobalTensors; GetTensorC into a LocalTensor smaller than the block, or not in UB;
//     C's position (MatmulType) disagreeing with the output (IterateAll to GM needs C at GM, GetTensorC into UB
//     needs C at VECIN / VECOUT / VECCALC).
// This header is part of asc; the API names and parameter lists follow the Ascend C docs (asc-devkit).
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"

#include "matmul_base.h"

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM>
class Matmul {
public:
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    static constexpr bool kInt8 = std::is_same<SrcAT, int8_t>::value;
    using AccT = typename std::conditional<kInt8, int32_t, float>::type;   // L0C's type

    void Init(const TCubeTiling* __restrict cubeTiling, TPipe* tpipe = nullptr, int line = __builtin_LINE()) {
        const char* api = "Matmul::Init";
        ascend_sim::BlockCtx& c = ascend_sim::ctx(api, line);
        if (c.coreType == 0)
            fail(api, line, "the Matmul runs on the cube core (AIC), and this launch has vector cores only: launch "
                 "the kernel as KERNEL_TYPE_MIX_AIC_1_2 (a pyasc kernel using Matmul, the default) or "
                 "KERNEL_TYPE_AIC_ONLY (@asc.jit(matmul_cube_only=True))");
        if (!cubeTiling) fail(api, line, "the tiling is null");
        check_types(api, line);
        t_ = *cubeTiling;
        check_tiling(api, line);
        (void)tpipe;
        inited_ = true;
        orgM_ = t_.M; orgN_ = t_.N; orgKa_ = t_.Ka; orgKb_ = t_.Kb;
        singleM_ = t_.singleCoreM; singleN_ = t_.singleCoreN; singleK_ = t_.singleCoreK;
        tailM_ = tailN_ = tailK_ = -1;
        hasA_ = hasB_ = hasBias_ = false;
        reset_iteration();
    }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb = -1, int orgKc = 0, int line = __builtin_LINE()) {
        need_init("Matmul::SetOrgShape", line);
        (void)orgKc;
        orgM_ = orgM; orgN_ = orgN; orgKa_ = orgKa; orgKb_ = orgKb < 0 ? orgKa : orgKb;
        reset_iteration();
    }
    void SetSingleShape(int singleM, int singleN, int singleK, int line = __builtin_LINE()) {
        need_init("Matmul::SetSingleShape", line);
        singleM_ = singleM; singleN_ = singleN; singleK_ = singleK;
        tailM_ = tailN_ = tailK_ = -1;
        reset_iteration();
    }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, int line = __builtin_LINE()) {
        need_init("Matmul::SetTail", line);
        if (tailM > 0) tailM_ = tailM;
        if (tailN > 0) tailN_ = tailN;
        if (tailK > 0) tailK_ = tailK;
        reset_iteration();
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false, int line = __builtin_LINE()) {
        need_init("Matmul::SetTensorA", line);
        if (A_TYPE::pos != TPosition::GM)
            fail("Matmul::SetTensorA", line, "a GlobalTensor for an A whose MatmulType position is not GM");
        a_ = gm; transA_ = isTransposeA; hasA_ = true;
        reset_iteration();
    }
    void SetTensorA(const LocalTensor<SrcAT>&, bool = false, int line = __builtin_LINE()) {
        fail("Matmul::SetTensorA", line, "asc-sim emulates A in GM only (a LocalTensor A is not emulated yet)");
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false, int line = __builtin_LINE()) {
        need_init("Matmul::SetTensorB", line);
        if (B_TYPE::pos != TPosition::GM)
            fail("Matmul::SetTensorB", line, "a GlobalTensor for a B whose MatmulType position is not GM");
        b_ = gm; transB_ = isTransposeB; hasB_ = true;
        reset_iteration();
    }
    void SetTensorB(const LocalTensor<SrcBT>&, bool = false, int line = __builtin_LINE()) {
        fail("Matmul::SetTensorB", line, "asc-sim emulates B in GM only (a LocalTensor B is not emulated yet)");
    }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal, int line = __builtin_LINE()) {
        need_init("Matmul::SetBias", line);
        if (kInt8 && !std::is_same<BiasT, int32_t>::value)
            fail("Matmul::SetBias", line, std::string("a bias of ") + type_name<BiasT>::get() + ": the bias of int8_t "
                 "A and B is int32_t (give the Matmul a bias MatmulType of int32)");
        bias_ = biasGlobal; hasBias_ = true;
        reset_iteration();
    }
    void DisableBias(int line = __builtin_LINE()) {
        need_init("Matmul::DisableBias", line);
        hasBias_ = false;
        reset_iteration();
    }
    void ClearBias(int line = __builtin_LINE()) { DisableBias(line); }
    // Fixpipe's dequantization of an int8_t Matmul's int32_t L0C into a half C: one word (DEQF16) ...
    void SetQuantScalar(const uint64_t quantScalar, int line = __builtin_LINE()) {
        const char* api = "Matmul::SetQuantScalar";
        need_quant(api, line);
        detail::quant_word(quantScalar, api, line, "the quantization scalar");
        quant_ = 1; quantScalar_ = quantScalar;
    }
    // ... or one word per column of the core's part of C (VDEQF16)
    void SetQuantVector(const GlobalTensor<uint64_t>& quantTensor, int line = __builtin_LINE()) {
        need_quant("Matmul::SetQuantVector", line);
        quant_ = 2; quantVec_ = quantTensor;
    }

    // the next base block into the (emulated) L0C; false when the core's part of C is done
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, int line = __builtin_LINE()) {
        const char* api = "Matmul::Iterate";
        prepare(api, line);
        if (next_ >= mBlocks_ * nBlocks_) {
            have_ = false;
            return false;
        }
        const int64_t bi = order_[size_t(next_)].first, bj = order_[size_t(next_)].second;
        ++next_;
        r0_ = bi * t_.baseM; c0_ = bj * t_.baseN;
        rows_ = std::min<int64_t>(t_.baseM, sm_ - r0_);
        cols_ = std::min<int64_t>(t_.baseN, sn_ - c0_);
        compute(enPartialSum);
        have_ = true;
        return true;
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, int line = __builtin_LINE()) {
        const char* api = "Matmul::IterateAll";
        (void)waitIterateAll; (void)fakeMsg;
        if (C_TYPE::pos != TPosition::GM)
            fail(api, line, "IterateAll into a GlobalTensor needs C at TPosition::GM in its MatmulType");
        prepare(api, line);
        next_ = 0;                      // every block of the core's part, from the first
        have_ = false;
        while (Iterate<sync>(false, line)) write_gm(api, gm, enAtomic, enSequentialWrite, line);
    }

    // IterateBatch (the mix form, output to GM): batchC = max(batchA, batchB) matmuls of the core's singleCoreM x
    // singleCoreN x singleCoreK part, each IterateAll's, in the NORMAL (BMNK) layout: batch i of A, B and C starts
    // matrixStrideA / matrixStrideB elements (0: one orgM x orgKa / orgKb x orgN matrix) and orgM x orgN elements
    // after batch i - 1. With batchA != batchB the smaller side is broadcast: batch i takes A's batch
    // i / (batchC / batchA) and B's batch i / (batchC / batchB).
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                      uint32_t matrixStrideA = 0, uint32_t matrixStrideB = 0, uint32_t matrixStrideC = 0,
                      bool enPartialSum = false, uint8_t enAtomic = 0, int line = __builtin_LINE()) {
        const char* api = "Matmul::IterateBatch";
        (void)matrixStrideC;            // reserved (the docs: keep 0)
        need_init(api, line);
        if (!MM_CFG.doNorm)
            fail(api, line, "IterateBatch takes the Norm template only (MatmulConfig with doNorm, CFG_NORM): "
                 "BatchMatmul has no MDL form");
        if (A_TYPE::layout != B_TYPE::layout)
            fail(api, line, "A and B have different LayoutModes: IterateBatch needs one layout for both");
        if (A_TYPE::layout != LayoutMode::NORMAL)
            fail(api, line, "asc-sim emulates IterateBatch in the NORMAL (BMNK) layout only (A's MatmulType "
                 "layout is not LayoutMode::NORMAL)");
        if (A_TYPE::format != CubeFormat::ND || B_TYPE::format != CubeFormat::ND)
            fail(api, line, "asc-sim emulates IterateBatch with A and B in ND format");
        if (C_TYPE::pos != TPosition::GM)
            fail(api, line, "IterateBatch into a GlobalTensor needs C at TPosition::GM in its MatmulType");
        if (enSequentialWrite)
            fail(api, line, "IterateBatch into GM writes each block at its place in C: enSequentialWrite is false");
        if (enPartialSum)
            fail(api, line, "IterateBatch with enPartialSum (accumulating onto L0C) is not emulated yet");
        if (batchA == 0 || batchB == 0)
            fail(api, line, "batchA = " + std::to_string(batchA) + ", batchB = " + std::to_string(batchB) +
                 ": each side has at least one batch");
        const uint32_t batchC = std::max(batchA, batchB);
        if (batchC % batchA || batchC % batchB)
            fail(api, line, "batchA = " + std::to_string(batchA) + " and batchB = " + std::to_string(batchB) +
                 " are not multiples of one another (the NORMAL layout broadcasts the smaller side)");
        if (!hasA_) fail(api, line, "SetTensorA was not called before the matmul");
        if (!hasB_) fail(api, line, "SetTensorB was not called before the matmul");
        // CANN's IterateBatch in the NORMAL layout (asc-devkit batch_copy_cube_in.h, batch_scheduler_base.h) reads
        // each batch of A as a contiguous singleCoreM x singleCoreK matrix (rows singleCoreK apart, batches
        // singleCoreM * singleCoreK apart unless matrixStrideA), B likewise, and writes C's batches singleCoreM *
        // singleCoreN apart: the places of the BMNK layout only when each core's part is the whole matrix.
        const int64_t sm = tailM_ > 0 ? tailM_ : singleM_, sn = tailN_ > 0 ? tailN_ : singleN_,
                      sk = tailK_ > 0 ? tailK_ : singleK_;
        if (sm != orgM_ || sn != orgN_ || sk != orgKa_ || orgKa_ != orgKb_)
            fail(api, line, "the core's part is " + std::to_string(sm) + " x " + std::to_string(sn) + " x " +
                 std::to_string(sk) + " of M x N x K = " + std::to_string(orgM_) + " x " +
                 std::to_string(orgN_) + " x " + std::to_string(orgKa_) + ": CANN's IterateBatch (NORMAL layout) "
                 "reads each batch of A and B as a contiguous matrix of the core's part (rows singleCoreK and "
                 "singleCoreN apart) and writes C's batches singleCoreM * singleCoreN apart, so on the NPU it would "
                 "read and write the batches at the wrong places; give each core whole matrices (singleCoreM = M, "
                 "singleCoreN = N, singleCoreK = K) and split the batches between the cores");
        const GlobalTensor<SrcAT> a0 = a_;
        const GlobalTensor<SrcBT> b0 = b_;
        const uint64_t sa = matrixStrideA ? matrixStrideA : uint64_t(orgM_ * orgKa_);
        const uint64_t sb = matrixStrideB ? matrixStrideB : uint64_t(orgKb_ * orgN_);
        const uint64_t sc = uint64_t(orgM_ * orgN_);
        for (uint32_t i = 0; i < batchC; ++i) {
            a_ = a0[uint64_t(i / (batchC / batchA)) * sa];
            b_ = b0[uint64_t(i / (batchC / batchB)) * sb];
            prepared_ = false;
            prepare(api, line);
            have_ = false;
            const GlobalTensor<DstT> c = gm[uint64_t(i) * sc];
            while (Iterate<sync>(false, line)) write_gm(api, c, enAtomic, false, line);
        }
        a_ = a0; b_ = b0;
        reset_iteration();
    }

    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    int line = __builtin_LINE()) {
        const char* api = "Matmul::GetTensorC";
        need_block(api, line);
        if (C_TYPE::pos == TPosition::GM)
            fail(api, line, "GetTensorC into a LocalTensor needs C at TPosition::VECIN / VECOUT / VECCALC in its "
                 "MatmulType (it is GM)");
        if (co2Local.mem_ != 0) fail(api, line, "asc-sim emulates GetTensorC into the Unified Buffer only");
        if (!enSequentialWrite)
            fail(api, line, "asc-sim emulates GetTensorC into a LocalTensor with enSequentialWrite = true (the "
                 "block as baseM x baseN rows)");
        const uint64_t n = uint64_t(rows_ - 1) * t_.baseN + cols_;
        co2Local.use(api, n, line);
        DstT* d = co2Local.ptr();
        for (int64_t r = 0; r < rows_; ++r) {
            store_row(d + r * t_.baseN, acc_.data() + r * t_.baseN, cols_, enAtomic, api, line);
            co2Local.mark_written(uint64_t(r) * t_.baseN, uint64_t(cols_));
        }
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    int line = __builtin_LINE()) {
        const char* api = "Matmul::GetTensorC";
        need_block(api, line);
        write_gm(api, gm, enAtomic, enSequentialWrite, line);
    }
    void End(int line = __builtin_LINE()) {
        need_init("Matmul::End", line);
        hasA_ = hasB_ = hasBias_ = false;
        reset_iteration();
    }

private:
    TCubeTiling t_{};
    bool inited_ = false, hasA_ = false, hasB_ = false, hasBias_ = false, transA_ = false, transB_ = false;
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    GlobalTensor<BiasT> bias_;
    int64_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, singleM_ = 0, singleN_ = 0, singleK_ = 0;
    int64_t tailM_ = -1, tailN_ = -1, tailK_ = -1;
    // the core's operands as float32 (A: sm x sk, B: sk x sn, row-major), the block accumulator (baseM x baseN)
    bool prepared_ = false, have_ = false;
    int64_t sm_ = 0, sn_ = 0, sk_ = 0, mBlocks_ = 0, nBlocks_ = 0, next_ = 0;
    std::vector<std::pair<int64_t, int64_t>> order_;   // (M block, N block) in the order Iterate gives them
    int64_t r0_ = 0, c0_ = 0, rows_ = 0, cols_ = 0;
    std::vector<AccT> af_, bf_, biasf_, acc_;
    int quant_ = 0;                 // 0: none, 1: SetQuantScalar, 2: SetQuantVector
    uint64_t quantScalar_ = 0;
    GlobalTensor<uint64_t> quantVec_;
    std::vector<detail::QuantWord> words_;   // the scale of each column of the core's part (prepare)

    void need_init(const char* api, int line) const {
        if (!inited_)
            fail(api, line, "the Matmul is not initialized: REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling) or "
                 "mm.Init(&tiling) first");
    }
    void need_block(const char* api, int line) const {
        need_init(api, line);
        if (!have_) fail(api, line, "no block to fetch: GetTensorC follows an Iterate() that returned true");
    }
    void reset_iteration() { prepared_ = false; have_ = false; next_ = 0; }
    void need_quant(const char* api, int line) const {
        need_init(api, line);
        if (!kInt8)
            fail(api, line, std::string("the quantization of a Matmul of ") + type_name<SrcAT>::get() + " A and B "
                 "(a float L0C to int8_t C, QF322B8_PRE) is not emulated yet: asc-sim dequantizes int8_t A and B into "
                 "a half C");
        if (!std::is_same<DstT, half>::value)
            fail(api, line, std::string("C is ") + type_name<DstT>::get() + ": the int32_t L0C goes to an int32_t C "
                 "unquantized; SetQuantScalar / SetQuantVector dequantize it into a half C");
    }

    static void check_types(const char* api, int line) {
        constexpr bool h = std::is_same<SrcAT, half>::value, bf = std::is_same<SrcAT, bfloat16_t>::value,
                       f = std::is_same<SrcAT, float>::value;
        if (!std::is_same<SrcAT, SrcBT>::value)
            fail(api, line, std::string("A is ") + type_name<SrcAT>::get() + " and B is " + type_name<SrcBT>::get() +
                 ": the cube multiplies operands of one type");
        if (!(h || bf || f || kInt8))
            fail(api, line, std::string("A and B of ") + type_name<SrcAT>::get() + ": asc-sim emulates the Matmul "
                 "of half, bfloat16_t, float and int8_t operands");
        if (kInt8) {
            if (!(std::is_same<DstT, int32_t>::value || std::is_same<DstT, half>::value))
                fail(api, line, std::string("C of ") + type_name<DstT>::get() + " for A and B of int8_t: asc-sim "
                     "emulates C of int32_t and of half (dequantized)");
            if (!std::is_same<BiasT, int32_t>::value && !std::is_same<BIAS_TYPE, C_TYPE>::value)
                fail(api, line, std::string("a bias of ") + type_name<BiasT>::get() + ": the bias of int8_t A and B "
                     "is int32_t");
        } else {
            if (!(std::is_same<DstT, float>::value || std::is_same<DstT, SrcAT>::value))
                fail(api, line, std::string("C of ") + type_name<DstT>::get() + " for A and B of " +
                     type_name<SrcAT>::get() + ": C is float or the inputs' type");
            if (!(std::is_same<BiasT, float>::value || std::is_same<BiasT, SrcAT>::value))
                fail(api, line, std::string("a bias of ") + type_name<BiasT>::get() + ": the bias is float or the "
                     "inputs' type");
        }
        if ((A_TYPE::layout != LayoutMode::NONE && A_TYPE::layout != LayoutMode::NORMAL) ||
            (B_TYPE::layout != LayoutMode::NONE && B_TYPE::layout != LayoutMode::NORMAL))
            fail(api, line, "the BSNGD, SBNGD and BNGS1S2 batch layouts (LayoutMode) are not emulated yet (NORMAL "
                 "is)");
        if ((A_TYPE::format != CubeFormat::ND && A_TYPE::format != CubeFormat::NZ) ||
            (B_TYPE::format != CubeFormat::ND && B_TYPE::format != CubeFormat::NZ))
            fail(api, line, "asc-sim emulates A and B in ND or NZ format");
        if (C_TYPE::format != CubeFormat::ND)
            fail(api, line, "asc-sim emulates C in ND format");
    }

    void check_tiling(const char* api, int line) const {
        const TCubeTiling& t = t_;
        struct { const char* n; int32_t v; } pos[] = {
            {"M", t.M}, {"N", t.N}, {"Ka", t.Ka}, {"Kb", t.Kb}, {"singleCoreM", t.singleCoreM},
            {"singleCoreN", t.singleCoreN}, {"singleCoreK", t.singleCoreK}, {"baseM", t.baseM},
            {"baseN", t.baseN}, {"baseK", t.baseK}, {"depthA1", t.depthA1}, {"depthB1", t.depthB1}};
        for (auto& p : pos)
            if (p.v <= 0) fail(api, line, std::string("the tiling's ") + p.n + " = " + std::to_string(p.v) +
                               " is not positive");
        const int c0 = int(32 / sizeof(SrcAT));
        if (t.baseM % 16 || t.baseN % 16)
            fail(api, line, "baseM = " + std::to_string(t.baseM) + ", baseN = " + std::to_string(t.baseN) +
                 ": a base block is whole 16 x 16 fractals (multiples of 16)");
        if (t.baseK % c0)
            fail(api, line, "baseK = " + std::to_string(t.baseK) + " is not a multiple of " + std::to_string(c0) +
                 " (32 bytes of the inputs' type: whole fractals)");
        auto db = [](int32_t d) { return int64_t(d >= 2 ? 2 : 1); };
        const int64_t kal = ascend_sim::mm::align(t.baseK, std::max(16, c0));
        const int64_t l0a = int64_t(t.baseM) * kal * sizeof(SrcAT) * db(t.dbL0A);
        const int64_t l0b = int64_t(t.baseN) * kal * sizeof(SrcBT) * db(t.dbL0B);
        const int64_t l0c = int64_t(t.baseM) * t.baseN * 4 * db(t.dbL0C);
        const int64_t l1 = int64_t(t.depthA1) * t.baseM * t.baseK * sizeof(SrcAT) +
                           int64_t(t.depthB1) * t.baseN * t.baseK * sizeof(SrcBT) +
                           (t.isBias ? int64_t(t.baseN) * sizeof(BiasT) : 0);
        auto over = [&](const char* what, int64_t use, uint32_t cap, const std::string& how) {
            if (use > int64_t(cap))
                fail(api, line, std::string("the tiling needs ") + std::to_string(use) + " B of " + what + " (" +
                     how + "), more than its " + std::to_string(cap) + " B");
        };
        over("L0A", l0a, ascend_sim::L0A_SIZE, "baseM x baseK x " + std::to_string(sizeof(SrcAT)) + " B x dbL0A");
        over("L0B", l0b, ascend_sim::L0B_SIZE, "baseK x baseN x " + std::to_string(sizeof(SrcBT)) + " B x dbL0B");
        over("L0C", l0c, ascend_sim::L0C_SIZE, "baseM x baseN x 4 B x dbL0C");
        over("L1", l1, ascend_sim::L1_SIZE, "depthA1 x baseM x baseK + depthB1 x baseK x baseN elements, and the "
             "bias row");
        if (t.iterateOrder != 0 && t.iterateOrder != 1)
            fail(api, line, "iterateOrder = " + std::to_string(t.iterateOrder) + " is neither 0 (M first) nor 1 "
                 "(N first)");
    }

    // element (i, k) of A / (k, j) of B in GM: ND row-major (transposed: stored K x M / N x K), or NZ fractals
    // (16-row strips of c0 columns, rows padded to 16)
    template <class T, CubeFormat F>
    static uint64_t at(int64_t r, int64_t c, int64_t rowsOrg, int64_t colsOrg) {
        if (F == CubeFormat::NZ) {
            const int64_t c0 = 32 / sizeof(T);
            return uint64_t((c / c0) * ascend_sim::mm::align(rowsOrg, 16) * c0 + r * c0 + c % c0);
        }
        (void)rowsOrg;
        return uint64_t(r * colsOrg + c);
    }
    template <class T, CubeFormat F>
    static uint64_t extent(int64_t rowsOrg, int64_t colsOrg, int64_t rows, int64_t cols) {
        if (F == CubeFormat::NZ) return at<T, F>(rows - 1, cols - 1, rowsOrg, colsOrg) + 1;
        return uint64_t((rows - 1) * colsOrg + cols);
    }

    void prepare(const char* api, int line) {
        need_init(api, line);
        if (!hasA_) fail(api, line, "SetTensorA was not called before the matmul");
        if (!hasB_) fail(api, line, "SetTensorB was not called before the matmul");
        if (prepared_) return;
        sm_ = tailM_ > 0 ? tailM_ : singleM_;
        sn_ = tailN_ > 0 ? tailN_ : singleN_;
        sk_ = tailK_ > 0 ? tailK_ : singleK_;
        if (sm_ <= 0 || sn_ <= 0 || sk_ <= 0)
            fail(api, line, "the core's shape " + std::to_string(sm_) + " x " + std::to_string(sn_) + " x " +
                 std::to_string(sk_) + " is empty");
        // A: sm x sk; stored M x Ka (ND), or Ka x M transposed
        af_.assign(size_t(sm_ * sk_), AccT(0));
        const SrcAT* pa = a_.base_;
        if (!transA_) {
            a_.check(api, 0, extent<SrcAT, A_TYPE::format>(orgM_, orgKa_, sm_, sk_), line);
            for (int64_t i = 0; i < sm_; ++i)
                for (int64_t k = 0; k < sk_; ++k)
                    af_[size_t(i * sk_ + k)] = ascend_sim::mm::to_f(pa[at<SrcAT, A_TYPE::format>(i, k, orgM_, orgKa_)]);
        } else {
            a_.check(api, 0, extent<SrcAT, A_TYPE::format>(orgKa_, orgM_, sk_, sm_), line);
            for (int64_t k = 0; k < sk_; ++k)
                for (int64_t i = 0; i < sm_; ++i)
                    af_[size_t(i * sk_ + k)] = ascend_sim::mm::to_f(pa[at<SrcAT, A_TYPE::format>(k, i, orgKa_, orgM_)]);
        }
        // B: sk x sn; stored Kb x N (ND), or N x Kb transposed
        bf_.assign(size_t(sk_ * sn_), AccT(0));
        const SrcBT* pb = b_.base_;
        if (!transB_) {
            b_.check(api, 0, extent<SrcBT, B_TYPE::format>(orgKb_, orgN_, sk_, sn_), line);
            for (int64_t k = 0; k < sk_; ++k)
                for (int64_t j = 0; j < sn_; ++j)
                    bf_[size_t(k * sn_ + j)] = ascend_sim::mm::to_f(pb[at<SrcBT, B_TYPE::format>(k, j, orgKb_, orgN_)]);
        } else {
            b_.check(api, 0, extent<SrcBT, B_TYPE::format>(orgN_, orgKb_, sn_, sk_), line);
            for (int64_t j = 0; j < sn_; ++j)
                for (int64_t k = 0; k < sk_; ++k)
                    bf_[size_t(k * sn_ + j)] = ascend_sim::mm::to_f(pb[at<SrcBT, B_TYPE::format>(j, k, orgN_, orgKb_)]);
        }
        biasf_.clear();
        if (hasBias_) {
            bias_.check(api, 0, uint64_t(sn_), line);
            biasf_.resize(size_t(sn_));
            for (int64_t j = 0; j < sn_; ++j) biasf_[size_t(j)] = ascend_sim::mm::to_f(bias_.base_[j]);
        }
        acc_.assign(size_t(int64_t(t_.baseM) * t_.baseN), AccT(0));
        words_.clear();
        if (kInt8 && std::is_same<DstT, half>::value) {
            if (quant_ == 0)
                fail(api, line, "C of half for int8_t A and B is the int32_t L0C dequantized: call SetQuantScalar "
                     "(DEQF16) or SetQuantVector (VDEQF16) before the matmul");
            if (quant_ == 2) quantVec_.check(api, 0, uint64_t(sn_), line);
            for (int64_t j = 0; j < (quant_ == 2 ? sn_ : 1); ++j)
                words_.push_back(detail::quant_word(quant_ == 2 ? uint64_t(quantVec_.base_[j]) : quantScalar_, api,
                                                    line, quant_ == 2 ? "the quantization vector's word " +
                                                    std::to_string(j) : std::string("the quantization scalar")));
        }
        mBlocks_ = ascend_sim::mm::cdiv(sm_, t_.baseM);
        nBlocks_ = ascend_sim::mm::cdiv(sn_, t_.baseN);
        block_order();
        next_ = 0;
        prepared_ = true;
    }

    // The order of the base blocks, as CANN's Norm scheduler walks them (scheduler_norm_base.h): M and N each in
    // windows of stepM / stepN blocks (the last window shorter). iterateOrder 0 (ORDER_M): for each N window, for
    // each M window, for each M block of it, the N blocks of the N window; 1 (ORDER_N) the same with M and N
    // swapped. With stepN = 1 (ORDER_M) or stepM = 1 (ORDER_N) this is M-first (N-first) block by block.
    void block_order() {
        order_.clear();
        const int64_t sM = std::max<int64_t>(1, t_.stepM), sN = std::max<int64_t>(1, t_.stepN);
        const bool byM = t_.iterateOrder != 1;
        const int64_t outer = byM ? nBlocks_ : mBlocks_, inner = byM ? mBlocks_ : nBlocks_;
        const int64_t so = byM ? sN : sM, si = byM ? sM : sN;
        for (int64_t wo = 0; wo < outer; wo += so)
            for (int64_t wi = 0; wi < inner; wi += si)
                for (int64_t i = wi; i < std::min(wi + si, inner); ++i)
                    for (int64_t o = wo; o < std::min(wo + so, outer); ++o)
                        order_.emplace_back(byM ? i : o, byM ? o : i);
    }

    // the block [r0, r0 + rows) x [c0, c0 + cols) over the whole K, as baseM x baseN rows of float32 (the bias row
    // first, as the BiasTable feeds the first Mmad; enPartialSum adds onto the previous block's values)
    void compute(bool partial) {
        const int64_t ld = t_.baseN;
        if (!partial) {
            for (int64_t r = 0; r < rows_; ++r) {
                AccT* c = acc_.data() + r * ld;
                if (hasBias_) std::memcpy(c, biasf_.data() + c0_, size_t(cols_) * sizeof(AccT));
                else std::fill(c, c + cols_, AccT(0));
            }
        }
        ascend_sim::mm::gemm(af_.data() + r0_ * sk_, int(sk_), bf_.data() + c0_, int(sn_), acc_.data(), int(ld),
                             int(rows_), int(cols_), int(sk_));
    }

    // one row of the block into C: C's type from the L0C's (float32 rounded once; int32_t as is, or dequantized to
    // half with the column's word, as Fixpipe's (V)DEQF16), with enAtomic's add / max / min
    DstT out(AccT v, int64_t col) const {
        if constexpr (kInt8 && std::is_same<DstT, half>::value) {
            const detail::QuantWord& w = words_[quant_ == 2 ? size_t(col) : 0];
            return detail::quantize<half>(v, w.m1, false);
        } else {
            return DstT(v);
        }
    }
    void store_row(DstT* d, const AccT* s, int64_t n, uint8_t enAtomic, const char* api, int line) const {
        if (enAtomic > 3)
            fail(api, line, "enAtomic = " + std::to_string(int(enAtomic)) + " is not 0 (none), 1 (add), 2 "
                 "(max) or 3 (min)");
        if (kInt8 && std::is_same<DstT, half>::value && enAtomic)
            fail(api, line, "enAtomic with a dequantized (half) C is not emulated yet");
        for (int64_t j = 0; j < n; ++j) {
            const int64_t col = c0_ + j;
            switch (enAtomic) {
                case 0: d[j] = out(s[j], col); break;
                case 1: d[j] = DstT(ascend_sim::mm::to_f(d[j]) + s[j]); break;
                case 2: d[j] = DstT(std::max<AccT>(AccT(ascend_sim::mm::to_f(d[j])), s[j])); break;
                default: d[j] = DstT(std::min<AccT>(AccT(ascend_sim::mm::to_f(d[j])), s[j])); break;
            }
        }
    }

    void write_gm(const char* api, const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool seq, int line) {
        if (seq) fail(api, line, "asc-sim emulates the GM output at the block's place in C (enSequentialWrite = "
                      "false)");
        const int64_t ldc = orgN_;
        gm.check(api, uint64_t(r0_ * ldc + c0_), uint64_t((rows_ - 1) * ldc + cols_), line);
        for (int64_t r = 0; r < rows_; ++r)
            store_row(gm.base_ + (r0_ + r) * ldc + c0_, acc_.data() + r * t_.baseN, cols_, enAtomic, api, line);
    }
};

}  // namespace AscendC

namespace ascend_sim {

// the start of REGIST_MATMUL_OBJ: true on the AIC of a MIX launch (it leaves the kernel: on the NPU it serves
// the AIVs' Matmul messages until they End, and here each AIV computes what its cube core would)
inline bool regist_begin(int line, const void* workspace) {
    const char* api = "REGIST_MATMUL_OBJ";
    BlockCtx& c = ctx(api, line);
    if (c.coreType == 0)
        fail(api, line, "the Matmul runs on the cube core (AIC), and this launch has vector cores only: launch the "
             "kernel as KERNEL_TYPE_MIX_AIC_1_2 (a pyasc kernel using Matmul, the default) or KERNEL_TYPE_AIC_ONLY "
             "(@asc.jit(matmul_cube_only=True))");
    const bool mix = launch && launch->mix;
    if (mix && workspace == nullptr)
        fail(api, line, "the workspace is null: in a MIX kernel the AIV and the AIC exchange the Matmul's messages "
             "through it (pass the kernel's workspace / GetSysWorkspacePtr())");
    return mix && c.coreType == 1;
}

template <class TP, class M>
inline void regist_objs(int line, TP* pipe, M& mm) { (void)line; (void)pipe; (void)mm; }

template <class TP, class M, class X, class... R>
inline void regist_objs(int line, TP* pipe, M& mm, X&& x, R&&... rest) {
    if constexpr (std::is_pointer<typename std::decay<X>::type>::value) {
        mm.Init(x, pipe, line);
        if constexpr (sizeof...(R) > 0) regist_objs(line, pipe, rest...);
    } else {
        regist_objs(line, pipe, mm);
        regist_objs(line, pipe, x, rest...);
    }
}

template <class TP, class... R>
inline bool regist_matmul(int line, TP* pipe, const void* workspace, R&&... objs) {
    const bool aic_server = regist_begin(line, workspace);
    regist_objs(line, pipe, objs...);
    return aic_server;
}

}  // namespace ascend_sim

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    if (ascend_sim::regist_matmul(__LINE__, tpipe, workspace, __VA_ARGS__)) return
