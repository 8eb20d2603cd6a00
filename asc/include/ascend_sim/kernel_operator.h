// ascend-sim: a header-only CPU emulation of the subset of the Ascend C API (kernel_operator.h) that asc emits.
//
// A kernel .cpp written for the NPU compiles unchanged with g++ against this header and runs on the CPU, one
// worker thread per block at a time (blocks as parallel workers). Instead of hiding the documented rules of the
// hardware, the emulation enforces them and reports a violation as an error naming the API call and the line of
// the kernel source (the caller's line, through __builtin_LINE()):
//   - Unified Buffer capacity (196608 B on Ascend910B1) at TPipe::InitBuffer, at most 8 queue buffers per position;
//   - 32-byte alignment of UB operands, DataCopy lengths that are not a multiple of 32 B (the hardware silently
//     rounds them down: use DataCopyPad), GM accesses outside the GlobalTensor;
//   - two blocks writing the same 32-byte block of GM with DataCopy or DataCopyPad (UB->GM);
//   - the 8 KB of Unified Buffer that Select (modes 1 and 2) takes as scratch on A2: Select refuses to run when
//     InitBuffer has handed out more than 196608 - 8192 B;
//   - the queue protocol: depth, AllocTensor / EnQue / DeQue / FreeTensor order, buffers left in use at kernel end;
//   - reads of UB that was never written (UB is poisoned with NaN bytes when a buffer is handed out);
//   - scalar reads (GetValue) of UB after vector or MTE2 writes without a V_S / MTE2_S SetFlag/WaitFlag pair;
//   - vector reads of UB written by a GM->UB copy (MTE2) and UB->GM copies of UB written by a vector instruction,
//     without the MTE2_V / V_MTE3 synchronization between the pipes: SetFlag/WaitFlag, PipeBarrier<PIPE_ALL>, or
//     the EnQue/DeQue of a VECIN / VECOUT queue (the queues synchronize; TBuf buffers do not);
//   - Cast round modes that the A2 (910B) hardware does not accept for a type pair; count-form semantics.
//   - the element types each vector API takes on A2 (as asc-devkit lists them: Div, Exp, Ln, Abs, Sqrt, Rsqrt,
//     Reciprocal take half and float only; Relu also int32_t): another type does not compile, as for the NPU;
//     integer arithmetic is exact and wraps.
// See docs/ascend.md. This header is part of asc; the API names and parameter lists follow the Ascend C docs.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*
#define KERNEL_TASK_TYPE_DEFAULT(type) ((void)0)
#define ASCEND_IS_AIC (ascend_sim::is_core(1, __LINE__))
#define ASCEND_IS_AIV (ascend_sim::is_core(2, __LINE__))

namespace ascend_sim {

constexpr uint32_t UB_SIZE = 196608;      // Ascend910B1 Unified Buffer per vector core
constexpr uint32_t UB_BLOCK = 32;
constexpr uint32_t SELECT_SCRATCH = 8192;  // Select modes 1/2 on A2: UB reserved as the API's temporary space
constexpr int MAX_QUE_BUFFERS_PER_POS = 8;
constexpr uint32_t L1_SIZE = 524288, L0A_SIZE = 65536, L0B_SIZE = 65536, L0C_SIZE = 131072;
constexpr uint32_t BT_SIZE = 1024;        // the BiasTable buffer (C2) of the Atlas A2 / A3
constexpr uint32_t MEM_SIZE[6] = {UB_SIZE, L1_SIZE - 128, L0A_SIZE, L0B_SIZE, L0C_SIZE, BT_SIZE};   // L1: 128 B reserved
constexpr uint32_t MEM_ALIGN[6] = {32, 32, 512, 512, 1024, 64};
constexpr const char* MEM_NAME[6] = {"Unified Buffer", "L1 buffer", "L0A buffer", "L0B buffer", "L0C buffer",
                                     "BiasTable buffer"};

struct Violation {
    std::string api;
    std::string msg;
    int line;
};

struct QueueRec;

struct BlockCtx {
    int64_t idx = 0;
    int64_t num = 1;
    int coreType = 0;                  // 0: an AIV-only / AIC-only launch; in a MIX 1:2 launch 1: an AIC, 2: an AIV
    uint32_t phase = 0;                // SyncAll<false> barriers this core has passed (MIX launches)
    alignas(64) uint8_t ub[UB_SIZE];
    uint8_t written[UB_SIZE];          // shadow: 1 when the UB byte was written since its buffer was handed out
    // the cube core's memories: L1, L0A, L0B, L0C, BiasTable (memory kinds 1..5; the UB is 0), with their shadows
    alignas(64) uint8_t l1[L1_SIZE], l0a[L0A_SIZE], l0b[L0B_SIZE], l0c[L0C_SIZE], bt[BT_SIZE];
    uint8_t l1w[L1_SIZE], l0aw[L0A_SIZE], l0bw[L0B_SIZE], l0cw[L0C_SIZE], btw[BT_SIZE];
    uint32_t usedMem[6] = {0};         // bytes handed out by InitBuffer, per memory
    uint8_t* sysWorkspace = nullptr;   // SetSysWorkspace's (the first non-null one of this block)
    uint8_t* mem(int m) { uint8_t* t[6] = {ub, l1, l0a, l0b, l0c, bt}; return t[m]; }
    uint8_t* shadow(int m) { uint8_t* t[6] = {written, l1w, l0aw, l0bw, l0cw, btw}; return t[m]; }
    int pipes = 0;
    int posBuffers[32] = {0};
    // UB ranges [start, end) written by vector instructions / MTE2 copies since the last V_S / MTE2_S sync
    std::vector<std::pair<uint32_t, uint32_t>> pendingV, pendingMte2;
    bool pendingS = false;             // a scalar SetValue wrote UB since the last S_V sync
    std::vector<std::pair<uint32_t, uint32_t>> sWrites;   // the UB ranges of those SetValue writes
    // UB ranges [start, end) with the sequence number of the write: written by MTE2 (GM->UB) and not yet
    // synchronized to the vector pipe (MTE2_V), written by the vector pipe and not yet synchronized to MTE3 (V_MTE3)
    struct Pending { uint32_t a, b; uint64_t seq; };
    std::vector<Pending> mte2V, vMte3;
    std::vector<Pending> sMte3;        // written by a scalar SetValue and not yet synchronized to MTE3 (S_MTE3)
    // GM byte ranges [start, end) written by this block's UB->GM copies (MTE3) since its last MTE3_MTE2 sync: a
    // GM->UB copy (MTE2) of those bytes may read the old data on the NPU, the two DMA queues are not ordered
    std::vector<std::pair<uintptr_t, uintptr_t>> gmMte3;
    uint64_t seq = 0;                  // counts the pipes' writes; a SetFlag covers the writes issued before it
    std::deque<uint64_t> flagSeq[64][8];  // per HardEvent and id: the sequence number at each pending SetFlag
    int flags[64][8] = {{0}};          // SetFlag counts per HardEvent and event id
    std::vector<std::string> leaks;
    void* pipe = nullptr;              // the block's TPipe (GetTPipePtr)
    // the vector mask register (Normal mode), set by a repeat-form call with isSetMask = true
    uint64_t maskLo = 0, maskHi = 0;
    int64_t maskCont = -1;             // >= 0: set in continuous mode (the first maskCont elements of a repeat)
    bool maskSet = false;
    void pipe_all() {                  // every pipe is done (PipeBarrier<PIPE_ALL>, SyncAll)
        gmMte3.clear();
        pendingV.clear();
        pendingMte2.clear();
        pendingS = false;
        sWrites.clear();
        mte2V.clear();
        vMte3.clear();
        sMte3.clear();
    }
    void reset(int64_t i, int64_t n, int type = 0) {
        idx = i; num = n; pipes = 0; coreType = type; phase = 0;
        sysWorkspace = nullptr;
        maskLo = maskHi = 0; maskCont = -1; maskSet = false;
        std::memset(usedMem, 0, sizeof(usedMem));
        std::memset(l1, 0xFF, sizeof(l1)); std::memset(l0a, 0xFF, sizeof(l0a));
        std::memset(l0b, 0xFF, sizeof(l0b)); std::memset(l0c, 0xFF, sizeof(l0c));
        std::memset(l1w, 0, sizeof(l1w)); std::memset(l0aw, 0, sizeof(l0aw));
        std::memset(l0bw, 0, sizeof(l0bw)); std::memset(l0cw, 0, sizeof(l0cw));
        std::memset(bt, 0xFF, sizeof(bt)); std::memset(btw, 0, sizeof(btw));
        std::memset(posBuffers, 0, sizeof(posBuffers));
        std::memset(ub, 0xFF, sizeof(ub));          // NaN in every float type
        std::memset(written, 0, sizeof(written));
        pendingV.clear();
        pendingMte2.clear();
        pendingS = false;
        sWrites.clear();
        mte2V.clear();
        vMte3.clear();
        sMte3.clear();
        gmMte3.clear();
        seq = 0;
        for (auto& e : flagSeq)
            for (auto& q : e) q.clear();
        std::memset(flags, 0, sizeof(flags));
        leaks.clear();
        pipe = nullptr;
    }
};

inline thread_local BlockCtx* cur = nullptr;

inline void note(std::vector<std::pair<uint32_t, uint32_t>>& v, uint32_t addr, uint64_t bytes) {
    std::pair<uint32_t, uint32_t> r(addr, uint32_t(addr + bytes));
    for (auto& x : v)
        if (x == r) return;
    v.push_back(r);
}

inline bool pending(const std::vector<std::pair<uint32_t, uint32_t>>& v, uint32_t addr) {
    for (auto& x : v)
        if (x.first <= addr && addr < x.second) return true;
    return false;
}

// a write by one pipe that another pipe must wait for (MTE2 -> V, V -> MTE3)
inline void wrote(std::vector<BlockCtx::Pending>& v, uint64_t& seq, uint32_t addr, uint64_t bytes) {
    if (!bytes) return;
    v.push_back({addr, uint32_t(addr + bytes), ++seq});
}

// the writes synchronized by a wait that covers the sequence numbers up to `upto`
inline void synced(std::vector<BlockCtx::Pending>& v, uint64_t upto) {
    v.erase(std::remove_if(v.begin(), v.end(), [upto](const BlockCtx::Pending& p) { return p.seq <= upto; }), v.end());
}

inline const BlockCtx::Pending* unsynced(const std::vector<BlockCtx::Pending>& v, uint32_t addr, uint64_t bytes) {
    for (auto& p : v)
        if (p.a < addr + bytes && addr < p.b) return &p;
    return nullptr;
}

// a UB->GM copy of [gm, gm + bytes) by this block: pending for its later GM->UB copies until an MTE3_MTE2 sync
inline void gm_wrote(const void* gm, uint64_t bytes) {
    if (!cur || !bytes) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(gm), b = a + bytes;
    auto& v = cur->gmMte3;
    if (!v.empty() && v.back().second == a) { v.back().second = b; return; }    // the next bytes: one range
    v.emplace_back(a, b);
}

// a GM->UB copy of [gm, gm + bytes) reads bytes this block wrote by MTE3 without an MTE3_MTE2 sync
inline bool gm_unsynced(const void* gm, uint64_t bytes) {
    if (!cur || !bytes) return false;
    uintptr_t a = reinterpret_cast<uintptr_t>(gm), b = a + bytes;
    for (auto& r : cur->gmMte3)
        if (r.first < b && a < r.second) return true;
    return false;
}

struct Launch {
    std::mutex mu;
    std::unordered_map<uintptr_t, int64_t> owner;   // 32-byte GM block -> block that wrote it with DataCopy
    // the first cross-core write of one 32-byte block (detail::own): reported when the launch ends without another
    // violation, so that a block reading or writing past the end of a tensor (the usual cause: whole tiles from
    // a share that is not a multiple of the tile) is reported first, whichever order the threads ran the blocks in
    bool raced = false;
    std::string raceApi, raceMsg;
    int raceLine = 0;
    int64_t raceBlock = -1;
    // MIX 1:2 launches: the SyncAll<false> barrier over every AIC and AIV, and the phase in which the AIC wrote each
    // GM byte through Fixpipe (an AIV reading it in the same phase has no barrier between the write and the read)
    bool mix = false;
    // KERNEL_TYPE_MIX_AIV_1_0 launches (a vector kernel with the hard SyncAll): every AIV at once, and the block and
    // phase of each GM byte a UB->GM copy wrote (another block may read it only after a SyncAll)
    bool aivSync = false;
    struct GmRange { uintptr_t a, b; uint32_t phase; };
    std::map<int64_t, std::vector<GmRange>> aivWrites, aivReads;     // per block
    uint32_t cores = 0, arrived = 0, ended = 0, generation = 0;
    bool aborted = false;
    std::condition_variable cv;
    std::unordered_map<uintptr_t, uint32_t> cubeWrote;   // GM byte address -> phase of the Fixpipe write
    std::unordered_map<uintptr_t, uint32_t> vecRead;     // GM byte address -> last phase an AIV copied it in
};
inline Launch* launch = nullptr;

// The GM extents [lo, hi) of the launch's tensor arguments, and how far past hi a pointer still belongs to the
// argument (the launcher's guard zone), set by the launcher before each launch (empty: not known). A GlobalTensor
// set without a size (SetGlobalBuffer(p), as pyasc kernels do) is bounds-checked against the extent its buffer
// pointer falls in: x + offset of a block whose share starts past the end of x still names x.
struct GmExtent { uintptr_t lo, hi, reach; };
inline std::vector<GmExtent> gm_extents;

inline void set_gm_extents(const uint64_t* v, int n) {
    gm_extents.clear();
    for (int i = 0; i < n; ++i) gm_extents.push_back({uintptr_t(v[3 * i]), uintptr_t(v[3 * i + 1]), uintptr_t(v[3 * i + 2])});
}

inline const GmExtent* gm_extent_of(const void* p) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (auto& e : gm_extents)
        if (e.lo <= a && a < e.reach) return &e;
    return nullptr;
}

[[noreturn]] inline void fail(const char* api, int line, const std::string& msg) {
    throw Violation{api, msg, line};
}

inline BlockCtx& ctx(const char* api, int line) {
    if (!cur) fail(api, line, "called outside a kernel launch");
    return *cur;
}

// ASCEND_IS_AIC / ASCEND_IS_AIV: the core type of the running block (only meaningful in a MIX launch)
inline bool is_core(int type, int line) {
    BlockCtx& c = ctx(type == 1 ? "ASCEND_IS_AIC" : "ASCEND_IS_AIV", line);
    if (c.coreType == 0)
        fail(type == 1 ? "ASCEND_IS_AIC" : "ASCEND_IS_AIV", line, "asc-sim runs core-type branches only in a "
             "KERNEL_TYPE_MIX_AIC_1_2 launch");
    return c.coreType == type;
}

// a GM read by an AIV of bytes [p, p + bytes): refused when the AIC wrote one of them in this same phase
inline void read_after_cube(const void* p, uint64_t bytes, const char* api, int line) {
    Launch* L = launch;
    if (!L || !L->mix || !bytes) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> g(L->mu);
    for (uintptr_t b = a; b < a + bytes; ++b) {
        auto it = L->cubeWrote.find(b);
        if (it != L->cubeWrote.end() && it->second == cur->phase)
            fail(api, line, "reads GM at address " + std::to_string(uint64_t(b)) + " that the cube core (AIC) wrote "
                 "with Fixpipe in the same phase: without SyncAll<false>() between them the vector core may read "
                 "it before the cube core wrote it");
        L->vecRead[b] = cur->phase;
    }
}

// a Fixpipe write by an AIC of GM bytes [p, p + bytes): refused when an AIV read one of them in this same phase
inline void cube_write(const void* p, uint64_t bytes, const char* api, int line) {
    Launch* L = launch;
    if (!L || !L->mix) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> g(L->mu);
    for (uintptr_t b = a; b < a + bytes; ++b) {
        auto it = L->vecRead.find(b);
        if (it != L->vecRead.end() && it->second == cur->phase)
            fail(api, line, "writes GM at address " + std::to_string(uint64_t(b)) + " that a vector core (AIV) read "
                 "in the same phase: the AIV read it before the cube core wrote it (no SyncAll<false>() between "
                 "the Fixpipe and the copy)");
        L->cubeWrote[b] = cur->phase;
    }
}

// KERNEL_TYPE_MIX_AIV_1_0: GM ranges copied UB->GM / GM->UB by each block, with the phase (SyncAll barriers passed):
// a block reading what another block wrote in the same phase, or writing what another block read in it, has no
// SyncAll between the two (either may come first on the NPU); checked in both orders, so whichever way the threads
// run, the race is refused
inline void aiv_access(const void* p, uint64_t bytes, bool write, const char* api, int line);

inline std::string str(uint64_t v) { return std::to_string(v); }

inline void aiv_access(const void* p, uint64_t bytes, bool write, const char* api, int line) {
    Launch* L = launch;
    if (!L || !L->aivSync || !bytes || !cur) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p), e = a + bytes;
    std::lock_guard<std::mutex> g(L->mu);
    for (auto& [blk, ranges] : (write ? L->aivReads : L->aivWrites)) {
        if (blk == cur->idx) continue;
        for (auto& r : ranges)
            if (r.phase == cur->phase && r.a < e && a < r.b)
                fail(api, line, std::string(write ? "writes" : "reads") + " GM at address " +
                     str(uint64_t(std::max(a, r.a))) + " that block " + str(uint64_t(blk)) +
                     (write ? " read" : " wrote") + " in the same phase: without SyncAll() between the two, either "
                     "may come first on the NPU");
    }
    auto& mine = (write ? L->aivWrites : L->aivReads)[cur->idx];
    if (!mine.empty() && mine.back().phase == cur->phase && mine.back().b == a) mine.back().b = e;
    else mine.push_back({a, e, cur->phase});
}

// ------------------------------------------------------------------ 16-bit float formats and rounding

enum Mode { RM_NONE = 0, RM_RINT, RM_FLOOR, RM_CEIL, RM_ROUND, RM_TRUNC, RM_ODD };

// Rounds a float to a binary format with `mbits` mantissa bits and exponent bias `bias` (half: 10, 15;
// bfloat16: 7, 127) with the given rounding mode; returns the bit pattern.
inline uint16_t to_bits(float f, int mode, int mbits, int ebits) {
    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias;
    const uint16_t sign = std::signbit(f) ? uint16_t(1u << 15) : uint16_t(0);
    const uint16_t expmask = uint16_t(((1u << ebits) - 1) << mbits);
    if (std::isnan(f)) {                      // sign and the top of the payload, not quieted (asc_cpu.h's rule)
        uint32_t u;
        std::memcpy(&u, &f, 4);
        const uint32_t p = (u & 0x7fffffu) >> (23 - mbits);
        return uint16_t(sign | expmask | (p ? p : 1u));
    }
    if (std::isinf(f)) return uint16_t(sign | expmask);
    double a = std::fabs(double(f));
    if (a == 0.0) return sign;
    if (mode == RM_NONE) mode = RM_RINT;
    if (mode == RM_FLOOR) mode = sign ? RM_CEIL : RM_TRUNC;       // magnitude rounding from here on
    else if (mode == RM_CEIL) mode = sign ? RM_TRUNC : RM_CEIL;
    int e;
    std::frexp(a, &e);
    e -= 1;                                   // a in [2^e, 2^(e+1))
    if (e < emin) e = emin;                   // subnormal range: fixed quantum
    double q = std::ldexp(1.0, e - mbits);
    double s = a / q;                         // exact: a has 24 significant bits
    double fl = std::floor(s);
    double r;
    switch (mode) {
        case RM_RINT: r = std::nearbyint(s); break;          // the default rounding of the FPU: ties to even
        case RM_ROUND: r = std::floor(s + 0.5); break;
        case RM_TRUNC: r = fl; break;
        case RM_CEIL: r = std::ceil(s); break;
        case RM_ODD: r = (s == fl) ? fl : (std::fmod(fl, 2.0) == 0.0 ? fl + 1.0 : fl); break;
        default: r = std::nearbyint(s);
    }
    double v = r * q;
    const int emax = bias;
    const double maxfin = std::ldexp(2.0 - std::ldexp(1.0, -mbits), emax);
    if (v > maxfin) {
        if (mode == RM_TRUNC || mode == RM_ODD) v = maxfin;
        else return uint16_t(sign | expmask);
    }
    if (v == 0.0) return sign;
    int e2;
    std::frexp(v, &e2);
    e2 -= 1;
    if (e2 < emin) {                          // subnormal
        return uint16_t(sign | uint16_t(std::lround(v / std::ldexp(1.0, emin - mbits))));
    }
    uint32_t m = uint32_t(std::lround(v / std::ldexp(1.0, e2 - mbits))) - (1u << mbits);
    return uint16_t(sign | uint16_t(uint32_t(e2 + bias) << mbits) | m);
}

inline float from_bits(uint16_t b, int mbits, int ebits) {
    const int bias = (1 << (ebits - 1)) - 1;
    const bool neg = b >> 15;
    const uint32_t ex = (b >> mbits) & ((1u << ebits) - 1);
    const uint32_t m = b & ((1u << mbits) - 1);
    double v;
    if (ex == (1u << ebits) - 1 && m) {       // a NaN: its sign and payload, exactly (not quieted)
        const uint32_t u = (uint32_t(neg) << 31) | 0x7f800000u | (m << (23 - mbits));
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    if (ex == 0) v = std::ldexp(double(m), 1 - bias - mbits);
    else if (ex == (1u << ebits) - 1) v = INFINITY;
    else v = std::ldexp(double(m | (1u << mbits)), int(ex) - bias - mbits);
    return float(neg ? -v : v);
}

}  // namespace ascend_sim

// The device's 16-bit float types (software classes here, as in the CANN CPU debug library).
struct half {
    uint16_t bits;
    half() = default;
    half(float f) : bits(ascend_sim::to_bits(f, ascend_sim::RM_RINT, 10, 5)) {}
    half(double f) : half(float(f)) {}
    template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    half(I v) : half(float(v)) {}   // any integer (int, uint32_t from GetSize, int64_t)
    operator float() const { return ascend_sim::from_bits(bits, 10, 5); }
    static half raw(uint16_t b) { half h; h.bits = b; return h; }
};

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(ascend_sim::to_bits(f, ascend_sim::RM_RINT, 7, 8)) {}
    bfloat16_t(double f) : bfloat16_t(float(f)) {}
    template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    bfloat16_t(I v) : bfloat16_t(float(v)) {}   // any integer (int, uint32_t from GetSize, int64_t)
    operator float() const { return ascend_sim::from_bits(bits, 7, 8); }
    static bfloat16_t raw(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
};

namespace AscendC {

using ascend_sim::fail;
using ascend_sim::str;

enum KernelMetaType { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
                      KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2 };

enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, SPM, TSCM, C2PIPE2GM,
                                 C2PIPE2LOCAL, MAX };

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2,
              PIPE_FIX };

enum class HardEvent : uint8_t { MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
                                 MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2,
                                 MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S,
                                 FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX };

using TEventID = int8_t;

}  // namespace AscendC

// the pipes are a global enum on the NPU (the compiler's pipe_t): PipeBarrier<PIPE_ALL>() as kernels write it
using AscendC::pipe_t;
using AscendC::PIPE_S; using AscendC::PIPE_V; using AscendC::PIPE_M; using AscendC::PIPE_MTE1;
using AscendC::PIPE_MTE2; using AscendC::PIPE_MTE3; using AscendC::PIPE_ALL; using AscendC::PIPE_MTE4;
using AscendC::PIPE_MTE5; using AscendC::PIPE_V2; using AscendC::PIPE_FIX;

namespace ascend_sim {
inline int mem_of(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return 1;
        case TPosition::A2: return 2;
        case TPosition::B2: return 3;
        case TPosition::CO1: return 4;
        case TPosition::C2: return 5;
        default: return 0;
    }
}
}  // namespace ascend_sim

// Fixpipe's quantization pre-modes: a global enum in CANN (the compiler's QuantMode_t), not a member of AscendC
enum QuantMode_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };

namespace AscendC {

inline int64_t GetBlockIdx() { return ascend_sim::ctx("GetBlockIdx", 0).idx; }
inline int64_t GetBlockNum() { return ascend_sim::ctx("GetBlockNum", 0).num; }
inline int64_t GetTaskRatio() { return ascend_sim::ctx("GetTaskRatio", 0).coreType == 2 ? 2 : 1; }
// GetSubBlockIdx: the AIV's index inside its AI Core (0 or 1) in a MIX 1:2 launch, 0 elsewhere;
// GetDataBlockSizeInBytes: one DataBlock, 32 bytes
inline int64_t GetSubBlockIdx() {
    const auto& c = ascend_sim::ctx("GetSubBlockIdx", 0);
    return c.coreType == 2 ? c.idx % 2 : 0;
}
inline constexpr int16_t GetDataBlockSizeInBytes() { return 32; }

// The hard SyncAll: SyncAll<false>() is the all-core barrier of a MIX kernel (every AIV and AIC of the launch);
// SyncAll<true>() (the default) the barrier of every AIV of a vector kernel, which must be KERNEL_TYPE_MIX_AIV_1_0
// (its docs: a pure vector kernel with the hard sync is a mix kernel of vector cores only). Its default config
// triggers and waits on every pipe: the block's copies and vector instructions are done, as after
// PipeBarrier<PIPE_ALL>. The soft (GM workspace) form is not emulated.
template <bool isAIVOnly = true>
inline void SyncAll(int line = __builtin_LINE()) {
    const char* api = "SyncAll";
    ascend_sim::Launch* L = ascend_sim::launch;
    ascend_sim::BlockCtx& c = ascend_sim::ctx(api, line);
    if (!L || (!L->mix && !L->aivSync))
        ascend_sim::fail(api, line, "the hard SyncAll needs a KERNEL_TYPE_MIX_AIV_1_0 (vector cores) or "
                         "KERNEL_TYPE_MIX_AIC_1_2 launch (KERNEL_TASK_TYPE_DEFAULT): in an AIV_ONLY kernel the "
                         "cores are not started together");
    if (L->mix && isAIVOnly) ascend_sim::fail(api, line, "SyncAll<true> in a MIX kernel syncs only the vector cores: use SyncAll<false>");
    if (L->aivSync && !isAIVOnly)
        ascend_sim::fail(api, line, "SyncAll<false> in a vector kernel (KERNEL_TYPE_MIX_AIV_1_0) waits for cube cores "
                         "that do not run: the NPU hangs (isAIVOnly must be true)");
    c.pipe_all();
    std::unique_lock<std::mutex> g(L->mu);
    const uint32_t gen = L->generation;
    if (++L->arrived + L->ended == L->cores) {
        if (L->ended) {
            L->aborted = true;
            L->cv.notify_all();
            ascend_sim::fail(api, line, "a core of the launch ended without reaching this SyncAll (the NPU hangs)");
        }
        L->arrived = 0;
        ++L->generation;
        L->cv.notify_all();
    } else {
        L->cv.wait(g, [&] { return L->generation != gen || L->aborted; });
        if (L->generation == gen)
            ascend_sim::fail(api, line, "another core of the launch failed or ended before this SyncAll");
    }
    ++c.phase;
}

template <class T> struct type_name { static const char* get() { return "?"; } };
template <> struct type_name<float> { static const char* get() { return "float"; } };
template <> struct type_name<half> { static const char* get() { return "half"; } };
template <> struct type_name<bfloat16_t> { static const char* get() { return "bfloat16_t"; } };
template <> struct type_name<int32_t> { static const char* get() { return "int32_t"; } };
template <> struct type_name<int16_t> { static const char* get() { return "int16_t"; } };
template <> struct type_name<uint8_t> { static const char* get() { return "uint8_t"; } };
template <> struct type_name<uint64_t> { static const char* get() { return "uint64_t"; } };
template <> struct type_name<int64_t> { static const char* get() { return "int64_t"; } };
template <> struct type_name<uint16_t> { static const char* get() { return "uint16_t"; } };
template <> struct type_name<uint32_t> { static const char* get() { return "uint32_t"; } };
template <> struct type_name<int8_t> { static const char* get() { return "int8_t"; } };

// ------------------------------------------------------------------ tensors

template <class T>
class GlobalTensor {
public:
    T* base_ = nullptr;
    uint64_t size_ = 0;          // elements (0: unknown)
    bool sized_ = false;
    const T* root_ = nullptr;    // the buffer given to SetGlobalBuffer (errors name the tensor through it)

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        base_ = buffer; size_ = bufferSize; sized_ = true; root_ = buffer;
    }
    void SetGlobalBuffer(__gm__ T* buffer) { base_ = buffer; size_ = 0; sized_ = false; root_ = buffer; }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g;
        g.root_ = root_;
        g.base_ = base_ + offset;
        g.sized_ = sized_;
        g.size_ = sized_ ? (offset <= size_ ? size_ - offset : 0) : 0;
        if (sized_ && offset > size_) g.size_ = 0, g.base_ = base_ + offset;
        return g;
    }
    uint64_t GetSize() const { return size_; }
    const __gm__ T* GetPhyAddr() const { return base_; }
    T GetValue(uint64_t offset, int line = __builtin_LINE()) const {
        check("GlobalTensor::GetValue", offset, 1, line);
        return base_[offset];
    }
    void SetValue(uint64_t offset, T value, int line = __builtin_LINE()) const {
        check("GlobalTensor::SetValue", offset, 1, line);
        base_[offset] = value;
    }
    void check(const char* api, uint64_t offset, uint64_t count, int line) const {
        if (!base_) fail(api, line, "the GlobalTensor has no buffer (SetGlobalBuffer was not called)");
        if (sized_ && (offset > size_ || count > size_ - offset)) {    // (no wrap-around: offsets are unsigned)
            // the tag lets the Python side name the tensor and the element index (runtime/ascend_sim.py)
            std::string tag = " [gm " + std::to_string((uintptr_t)root_) + " " +
                              std::to_string((int64_t)((base_ - root_) + (int64_t)offset)) + "]";
            if (offset >> 63)
                fail(api, line, "GM access at element " + std::to_string((int64_t)offset) +
                     ", before the start of the GlobalTensor of " + str(size_) + " elements" + tag);
            fail(api, line, "GM access of elements [" + str(offset) + ", " + str(offset + count) +
                 ") is outside the GlobalTensor of " + str(size_) + " elements" + tag);
        }
        if (!sized_ && count) {
            // no size given: the access must stay inside the tensor argument that holds the buffer
            const auto* e = ascend_sim::gm_extent_of(root_);
            if (!e) return;
            const uintptr_t a = reinterpret_cast<uintptr_t>(base_) + offset * sizeof(T), b = a + count * sizeof(T);
            if (offset >> 63 || a < e->lo || b > e->hi) {
                const T* arg = reinterpret_cast<const T*>(e->lo);
                const uint64_t len = (e->hi - e->lo) / sizeof(T);
                const int64_t first = (int64_t)((base_ - arg) + (int64_t)offset);
                const int64_t bad = a < e->lo ? first : std::max<int64_t>(first, (int64_t)len);
                fail(api, line, "GM access of elements [" + std::to_string(first) + ", " +
                     std::to_string(first + (int64_t)count) + ") of a tensor argument of " + str(len) +
                     " elements (a GlobalTensor set without a size reaches past its argument)" + " [gm " +
                     std::to_string(e->lo) + " " + std::to_string(bad) + "]");
            }
        }
    }
};

enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC };

// the shape a LocalTensor carries (SetShapeInfo / GetShapeInfo); the advanced APIs (SoftMax) read it
struct ShapeInfo {
    uint8_t shapeDim = 0, originalShapeDim = 0;
    uint32_t shape[8] = {0}, originalShape[8] = {0};
    DataFormat dataFormat = DataFormat::ND;
    ShapeInfo() = default;
    ShapeInfo(uint8_t dim, const uint32_t s[], DataFormat f = DataFormat::ND) : shapeDim(dim), originalShapeDim(dim),
                                                                                dataFormat(f) {
        for (int i = 0; i < dim && i < 8; ++i) shape[i] = originalShape[i] = s[i];
    }
    ShapeInfo(uint8_t dim, const uint32_t s[], uint8_t odim, const uint32_t os[], DataFormat f)
        : shapeDim(dim), originalShapeDim(odim), dataFormat(f) {
        for (int i = 0; i < dim && i < 8; ++i) shape[i] = s[i];
        for (int i = 0; i < odim && i < 8; ++i) originalShape[i] = os[i];
    }
};

inline uint64_t GetShapeSize(const ShapeInfo& s) {
    uint64_t n = 1;
    for (int i = 0; i < s.shapeDim; ++i) n *= s.shape[i];
    return n;
}

template <class T>
class LocalTensor {
public:
    uint32_t addr_ = 0;          // byte offset in its memory
    uint8_t mem_ = 0;            // 0 UB, 1 L1, 2 L0A, 3 L0B, 4 L0C
    uint32_t size_ = 0;          // elements
    TPosition pos_ = TPosition::VECCALC;
    bool valid_ = false;

    LocalTensor() = default;
    // A tensor at a fixed byte address of a position's memory, outside any TPipe buffer (the user places it).
    // The rules of the Ascend C CPU-debug build: not GM, a 32-byte aligned address, 0 < tileSize elements that fit
    // the memory, a 32-byte multiple of bytes, and [addr, addr + bytes) inside the memory.
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, int line = __builtin_LINE()) {
        const char* api = "LocalTensor(pos, addr, tileSize)";
        ascend_sim::ctx(api, line);
        if (pos == TPosition::GM || pos == TPosition::MAX)
            fail(api, line, "the position must be a local memory (not GM or MAX)");
        const int m = ascend_sim::mem_of(pos);
        const uint64_t maxLen = ascend_sim::MEM_SIZE[m];
        if (addr % ascend_sim::UB_BLOCK)
            fail(api, line, "addr " + str(addr) + " is not 32-byte aligned");
        if (tileSize == 0 || uint64_t(tileSize) * sizeof(T) > maxLen)
            fail(api, line, "tileSize " + str(tileSize) + " must be in (0, " + str(maxLen / sizeof(T)) + "] elements of " +
                 str(sizeof(T)) + " B (the " + ascend_sim::MEM_NAME[m] + " has " + str(maxLen) + " B)");
        const uint64_t bytes = uint64_t(tileSize) * sizeof(T);
        if (bytes % ascend_sim::UB_BLOCK)
            fail(api, line, "tileSize " + str(tileSize) + " x " + str(sizeof(T)) + " B = " + str(bytes) +
                 " B is not a multiple of 32 B");
        if (addr + bytes > maxLen)
            fail(api, line, "addr " + str(addr) + " + " + str(bytes) + " B = " + str(addr + bytes) + " B exceeds the " +
                 str(maxLen) + " B of the " + ascend_sim::MEM_NAME[m]);
        addr_ = addr; mem_ = uint8_t(m); size_ = tileSize; pos_ = pos; valid_ = true;
    }
    // as asc-devkit's LocalTensor::operator[] asserts (its data length must exceed offset * sizeof(T)): an offset
    // at or past the end of the tensor is refused, the offset equal to the length included
    LocalTensor operator[](uint32_t offset) const {
        if (offset >= size_)
            fail("LocalTensor::operator[]", 0, "offset " + str(offset) + " is not inside the LocalTensor<" +
                 type_name<T>::get() + "> of " + str(size_) + " elements (the offset must be below the length)");
        LocalTensor t = *this;
        t.addr_ = addr_ + uint32_t(offset * sizeof(T));
        t.size_ = size_ - offset;
        return t;
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return uint32_t(size_ * sizeof(T)); }
    void SetSize(uint32_t n) { size_ = n; }
    // the length in bytes (Ascend C's dataLen; GetSize is dataLen / sizeof(T))
    void SetBufferLen(uint32_t dataLen) { size_ = uint32_t(dataLen / sizeof(T)); }
    ShapeInfo shape_;
    void SetShapeInfo(const ShapeInfo& si) { shape_ = si; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    int32_t tag_ = 0;
    void SetUserTag(int32_t tag) { tag_ = tag; }
    int32_t GetUserTag() const { return tag_; }
    // this tensor becomes src's buffer from element `offset` of src's type on, keeping src's byte length (as in
    // Ascend C: GetSize is src's length in bytes / sizeof(T))
    template <class U> void SetAddrWithOffset(const LocalTensor<U>& src, uint32_t offset) {
        addr_ = uint32_t(src.addr_ + uint64_t(offset) * sizeof(U));
        mem_ = src.mem_; pos_ = src.pos_; valid_ = src.valid_; tag_ = src.tag_;
        size_ = uint32_t(uint64_t(src.size_) * sizeof(U) / sizeof(T));
    }
    uint64_t GetPhyAddr() const { return addr_; }
    int32_t GetPosition() const { return int32_t(pos_); }
    template <class U> LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> t;
        t.addr_ = addr_; t.size_ = uint32_t(size_ * sizeof(T) / sizeof(U)); t.pos_ = pos_; t.valid_ = valid_;
        t.mem_ = mem_;
        return t;
    }
    T* ptr() const { return reinterpret_cast<T*>(ascend_sim::cur->mem(mem_) + addr_); }
    uint8_t* shadow() const { return ascend_sim::cur->shadow(mem_) + addr_; }
    T GetValue(uint32_t idx, int line = __builtin_LINE()) const {
        auto& c = ascend_sim::ctx("LocalTensor::GetValue", line);
        use("LocalTensor::GetValue", idx + 1, line);
        const uint32_t a = addr_ + uint32_t(idx * sizeof(T));
        if (ascend_sim::pending(c.pendingV, a))
            fail("LocalTensor::GetValue", line, "scalar read of UB written by a vector instruction without a V_S "
                 "sync (SetFlag<HardEvent::V_S> / WaitFlag<HardEvent::V_S>)");
        if (ascend_sim::pending(c.pendingMte2, a))
            fail("LocalTensor::GetValue", line, "scalar read of UB written by a GM->UB copy without an MTE2_S sync "
                 "(SetFlag<HardEvent::MTE2_S> / WaitFlag<HardEvent::MTE2_S>)");
        check_written("LocalTensor::GetValue", idx, 1, line);
        return ptr()[idx];
    }
    void SetValue(uint32_t idx, T v, int line = __builtin_LINE()) const {
        auto& c = ascend_sim::ctx("LocalTensor::SetValue", line);
        use("LocalTensor::SetValue", idx + 1, line);
        ptr()[idx] = v;
        mark_written(idx, 1);
        c.pendingS = true;
        if (mem_ == 0) ascend_sim::wrote(c.sMte3, c.seq, uint32_t(addr_ + idx * sizeof(T)), sizeof(T));
        if (mem_ == 0) ascend_sim::note(c.sWrites, uint32_t(addr_ + idx * sizeof(T)), sizeof(T));
    }
    // ---- checks used by the API emulation
    void use(const char* api, uint64_t count, int line) const {
        ascend_sim::ctx(api, line);
        if (!valid_) fail(api, line, "the LocalTensor was not obtained from a queue or buffer (AllocTensor, DeQue, Get)");
        if (addr_ % ascend_sim::UB_BLOCK)
            fail(api, line, "UB operand start address " + str(addr_) + " is not 32-byte aligned");
        if (mem_ != 0 && std::strncmp(api, "DataCopy", 8) != 0 && std::strncmp(api, "LoadData", 8) != 0 &&
            std::strncmp(api, "Mmad", 4) != 0 && std::strncmp(api, "Fixpipe", 7) != 0 &&
            std::strncmp(api, "Fill", 4) != 0)
            fail(api, line, std::string("the operand is in the ") + ascend_sim::MEM_NAME[mem_] +
                 ", not the Unified Buffer (vector instructions work on VECIN/VECOUT/VECCALC tensors)");
        if (count > size_)
            fail(api, line, "accesses " + str(count) + " elements of a LocalTensor<" + type_name<T>::get() +
                 "> of " + str(size_) + " elements");
    }
    void check_written(const char* api, uint64_t start, uint64_t count, int line) const {
        const uint8_t* w = shadow() + start * sizeof(T);
        for (uint64_t i = 0; i < count * sizeof(T); ++i)
            if (!w[i]) {
                uint64_t e = start + i / sizeof(T);
                fail(api, line, "reads element " + str(e) + " of a LocalTensor<" + type_name<T>::get() +
                     "> (UB byte " + str(addr_ + start * sizeof(T) + i) + ") that was never written "
                     "(poisoned with NaN)");
            }
    }
    void mark_written(uint64_t start, uint64_t count) const {
        std::memset(shadow() + start * sizeof(T), 1, count * sizeof(T));
    }
    // the pipes' ordering on the UB: a vector read waits for the GM->UB copies (MTE2_V), a UB->GM copy for the
    // vector writes (V_MTE3); `byteOff`/`bytes`: the range of this tensor the instruction touches
    void vector_reads(const char* api, uint64_t byteOff, uint64_t bytes, int line) const {
        if (mem_ != 0 || !ascend_sim::cur) return;
        if (auto* p = ascend_sim::unsynced(ascend_sim::cur->mte2V, uint32_t(addr_ + byteOff), bytes))
            fail(api, line, "vector read of UB bytes [" + str(p->a) + ", " + str(p->b) + ") written by a GM->UB copy "
                 "(MTE2) without an MTE2_V sync between them: SetFlag<HardEvent::MTE2_V> / WaitFlag<HardEvent::MTE2_V>"
                 " or PipeBarrier<PIPE_ALL> (a VECIN queue's EnQue/DeQue does it; a TBuf has no queue)");
    }
    void mte3_reads(const char* api, uint64_t byteOff, uint64_t bytes, int line) const {
        if (mem_ != 0 || !ascend_sim::cur) return;
        if (auto* p = ascend_sim::unsynced(ascend_sim::cur->vMte3, uint32_t(addr_ + byteOff), bytes))
            fail(api, line, "UB->GM copy of UB bytes [" + str(p->a) + ", " + str(p->b) + ") written by a vector "
                 "instruction without a V_MTE3 sync between them: SetFlag<HardEvent::V_MTE3> / "
                 "WaitFlag<HardEvent::V_MTE3> or PipeBarrier<PIPE_ALL> (a VECOUT queue's EnQue/DeQue does it; a "
                 "TBuf has no queue)");
        if (auto* p = ascend_sim::unsynced(ascend_sim::cur->sMte3, uint32_t(addr_ + byteOff), bytes))
            fail(api, line, "UB->GM copy of UB bytes [" + str(p->a) + ", " + str(p->b) + ") written by a scalar "
                 "SetValue without an S_MTE3 sync between them: SetFlag<HardEvent::S_MTE3> / "
                 "WaitFlag<HardEvent::S_MTE3> or PipeBarrier<PIPE_ALL>");
    }
    void mte2_writes(uint64_t byteOff, uint64_t bytes) const {
        if (mem_ == 0 && ascend_sim::cur) ascend_sim::wrote(ascend_sim::cur->mte2V, ascend_sim::cur->seq,
                                                             uint32_t(addr_ + byteOff), bytes);
    }
    void vector_writes(uint64_t byteOff, uint64_t bytes) const {
        if (mem_ == 0 && ascend_sim::cur) ascend_sim::wrote(ascend_sim::cur->vMte3, ascend_sim::cur->seq,
                                                             uint32_t(addr_ + byteOff), bytes);
    }
};

// ------------------------------------------------------------------ TPipe, TQue, TBuf

class TPipe;

struct QueBase {
    uint32_t base_ = 0, len_ = 0;
    int num_ = 0;
    int depth_ = 1;
    TPosition pos_ = TPosition::VECIN;
    int state_[8] = {0};          // 0 free, 1 allocated, 2 in the queue, 3 dequeued
    uint64_t enqSeq_[8] = {0};    // the pipes' write count at each buffer's EnQue (its SetFlag)
    std::deque<int> fifo_;
    bool init_ = false;
    const char* kind_ = "TQue";
    ~QueBase() {
        if (!init_ || !ascend_sim::cur) return;
        for (int i = 0; i < num_; ++i)
            if (state_[i] != 0)
                ascend_sim::cur->leaks.push_back(std::string(kind_) + " buffer " + std::to_string(i) +
                    (state_[i] == 2 ? " is still in the queue (EnQue without DeQue)"
                                    : " was never released (AllocTensor/DeQue without FreeTensor)"));
    }
    int find(uint32_t addr) const {
        for (int i = 0; i < num_; ++i)
            if (base_ + uint32_t(i) * len_ == addr) return i;
        return -1;
    }
};

template <TPosition POS, int32_t DEPTH, auto MASK = 0>
class TQue : public QueBase {
public:
    TQue() { depth_ = DEPTH; pos_ = POS; }
    template <class T> LocalTensor<T> AllocTensor(int line = __builtin_LINE()) {
        ascend_sim::ctx("TQue::AllocTensor", line);
        if (!init_) fail("TQue::AllocTensor", line, "the queue has no buffers (TPipe::InitBuffer was not called)");
        for (int i = 0; i < num_; ++i)
            if (state_[i] == 0) {
                state_[i] = 1;
                LocalTensor<T> t;
                t.addr_ = base_ + uint32_t(i) * len_; t.size_ = uint32_t(len_ / sizeof(T)); t.pos_ = POS; t.valid_ = true;
                t.mem_ = uint8_t(ascend_sim::mem_of(POS));
                std::memset(t.ptr(), 0xFF, len_);      // contents undefined: poison
                std::memset(t.shadow(), 0, len_);
                return t;
            }
        fail("TQue::AllocTensor", line, "all " + str(num_) + " buffers of the queue are in use (a FreeTensor is "
             "missing; on the NPU this waits forever)");
    }
    template <class T> bool EnQue(const LocalTensor<T>& t, int line = __builtin_LINE()) {
        ascend_sim::ctx("TQue::EnQue", line);
        int i = find(t.addr_);
        if (i < 0) fail("TQue::EnQue", line, "the tensor does not belong to this queue");
        // Ascend C accepts an allocated (OCCUPIED) or a dequeued (DEQUE) buffer
        if (state_[i] != 1 && state_[i] != 3)
            fail("TQue::EnQue", line, state_[i] == 2 ? "the tensor is already in the queue"
                 : "the tensor is not allocated (EnQue needs a tensor from AllocTensor or DeQue)");
        if (int(fifo_.size()) >= depth_)
            fail("TQue::EnQue", line, "the queue already holds " + str(fifo_.size()) + " tensor(s), its depth is " +
                 str(depth_) + " (DeQue first)");
        state_[i] = 2;
        fifo_.push_back(i);
        enqSeq_[i] = ascend_sim::cur->seq;
        return true;
    }
    template <class T> LocalTensor<T> DeQue(int line = __builtin_LINE()) {
        ascend_sim::ctx("TQue::DeQue", line);
        if (fifo_.empty()) fail("TQue::DeQue", line, "DeQue of an empty queue (no EnQue before it; on the NPU this "
                                "waits forever)");
        int i = fifo_.front();
        fifo_.pop_front();
        state_[i] = 3;
        // the queue's EnQue / DeQue are a SetFlag / WaitFlag pair: MTE2_V for VECIN, V_MTE3 for VECOUT
        if (POS == TPosition::VECIN) ascend_sim::synced(ascend_sim::cur->mte2V, enqSeq_[i]);
        if (POS == TPosition::VECOUT) ascend_sim::synced(ascend_sim::cur->vMte3, enqSeq_[i]);
        LocalTensor<T> t;
        t.addr_ = base_ + uint32_t(i) * len_; t.size_ = uint32_t(len_ / sizeof(T)); t.pos_ = POS; t.valid_ = true;
        t.mem_ = uint8_t(ascend_sim::mem_of(POS));
        return t;
    }
    template <class T> void FreeTensor(LocalTensor<T>& t, int line = __builtin_LINE()) {
        ascend_sim::ctx("TQue::FreeTensor", line);
        int i = find(t.addr_);
        if (i < 0) fail("TQue::FreeTensor", line, "the tensor does not belong to this queue");
        if (state_[i] == 0) fail("TQue::FreeTensor", line, "the tensor is already free (double FreeTensor)");
        if (state_[i] == 2) fail("TQue::FreeTensor", line, "the tensor is still in the queue (DeQue it first)");
        state_[i] = 0;
    }
    bool VacantInQue() const { return int(fifo_.size()) < depth_; }
    bool HasTensorInQue() const { return !fifo_.empty(); }
    int32_t GetTensorCountInQue() const { return int32_t(fifo_.size()); }
    bool HasIdleBuffer() const {
        for (int i = 0; i < num_; ++i) if (state_[i] == 0) return true;
        return false;
    }
    void FreeAllEvent() {}
};

// TQueBind<SRC, DST, DEPTH>: a queue between two positions, its buffers in SRC's memory; its EnQue / DeQue pair
// syncs what SRC's queue syncs (MTE2_V for VECIN) and what DST's does (V_MTE3 for VECOUT)
template <TPosition SRC, TPosition DST, int32_t DEPTH, auto MASK = 0>
class TQueBind : public TQue<SRC, DEPTH, MASK> {
public:
    TQueBind() { this->kind_ = "TQueBind"; }
    template <class T> LocalTensor<T> DeQue(int line = __builtin_LINE()) {
        LocalTensor<T> t = TQue<SRC, DEPTH, MASK>::template DeQue<T>(line);
        if (DST == TPosition::VECOUT) ascend_sim::synced(ascend_sim::cur->vMte3, this->enqSeq_[this->find(t.addr_)]);
        return t;
    }
};

template <TPosition POS = TPosition::VECCALC>
class TBuf {
public:
    uint32_t base_ = 0, len_ = 0;
    bool init_ = false;
    template <class T> LocalTensor<T> Get(int line = __builtin_LINE()) { return Get<T>(len_ / sizeof(T), line); }
    template <class T> LocalTensor<T> Get(uint32_t lenElems, int line = __builtin_LINE()) {
        return GetWithOffset<T>(lenElems, 0, line);
    }
    template <class T> LocalTensor<T> GetWithOffset(uint32_t sizeElems, uint32_t byteOffset,
                                                    int line = __builtin_LINE()) {
        ascend_sim::ctx("TBuf::GetWithOffset", line);
        if (!init_) fail("TBuf::Get", line, "the buffer has no memory (TPipe::InitBuffer was not called)");
        if (byteOffset % ascend_sim::UB_BLOCK)
            fail("TBuf::GetWithOffset", line, "byte offset " + str(byteOffset) + " is not 32-byte aligned");
        if (byteOffset + uint64_t(sizeElems) * sizeof(T) > len_)
            fail("TBuf::GetWithOffset", line, "asks for bytes [" + str(byteOffset) + ", " +
                 str(byteOffset + uint64_t(sizeElems) * sizeof(T)) + ") of a " + str(len_) + "-byte TBuf");
        LocalTensor<T> t;
        t.addr_ = base_ + byteOffset; t.size_ = sizeElems; t.pos_ = POS; t.valid_ = true;
        t.mem_ = uint8_t(ascend_sim::mem_of(POS));
        return t;
    }
};

class TPipe {
public:
    TPipe(int line = __builtin_LINE()) {
        auto& c = ascend_sim::ctx("TPipe", line);
        if (c.pipes) fail("TPipe", line, "a second TPipe in one kernel (one TPipe per kernel)");
        c.pipes = 1;
        c.pipe = this;
    }
    ~TPipe() {
        if (ascend_sim::cur) { ascend_sim::cur->pipes = 0; ascend_sim::cur->pipe = nullptr; }
    }
    template <TPosition P, int32_t D, auto M>
    bool InitBuffer(TQue<P, D, M>& que, uint8_t num, uint32_t len, int line = __builtin_LINE()) {
        auto& c = ascend_sim::ctx("TPipe::InitBuffer", line);
        if (que.init_) fail("TPipe::InitBuffer", line, "the queue already has buffers");
        if (num < 1 || num > 8) fail("TPipe::InitBuffer", line, "num must be in [1, 8], got " + str(num));
        if (c.posBuffers[int(P)] + num > ascend_sim::MAX_QUE_BUFFERS_PER_POS)
            fail("TPipe::InitBuffer", line, "more than 8 queue buffers at one TPosition");
        const int m = ascend_sim::mem_of(P);
        uint32_t l = round(len, ascend_sim::MEM_ALIGN[m]);
        take(c, m, "TPipe::InitBuffer", uint64_t(l) * num, line);
        que.base_ = c.usedMem[m]; que.len_ = l; que.num_ = num; que.init_ = true;
        ques_.push_back(&que);
        c.usedMem[m] += l * num;
        c.posBuffers[int(P)] += num;
        return true;
    }
    template <TPosition P>
    bool InitBuffer(TBuf<P>& buf, uint32_t len, int line = __builtin_LINE()) {
        auto& c = ascend_sim::ctx("TPipe::InitBuffer", line);
        if (buf.init_) fail("TPipe::InitBuffer", line, "the TBuf already has memory");
        const int m = ascend_sim::mem_of(P);
        uint32_t l = round(len, ascend_sim::MEM_ALIGN[m]);
        take(c, m, "TPipe::InitBuffer", l, line);
        buf.base_ = c.usedMem[m]; buf.len_ = l; buf.init_ = true;
        bufs_.push_back(&buf.init_);
        std::memset(c.mem(m) + c.usedMem[m], 0xFF, l);
        std::memset(c.shadow(m) + c.usedMem[m], 0, l);
        c.usedMem[m] += l;
        return true;
    }
    template <HardEvent E> TEventID FetchEventID() { return 0; }
    TEventID FetchEventID(HardEvent) { return 0; }
    template <HardEvent E> TEventID AllocEventID() { return 0; }
    template <HardEvent E> void ReleaseEventID(TEventID) {}
    // Destroy / Reset release every buffer InitBuffer handed out (queues and TBufs can be given buffers again);
    // Init makes this the block's TPipe again
    void Destroy(int line = __builtin_LINE()) { release(ascend_sim::ctx("TPipe::Destroy", line)); }
    void Reset(int line = __builtin_LINE()) { release(ascend_sim::ctx("TPipe::Reset", line)); }
    void Init(int line = __builtin_LINE()) {
        auto& c = ascend_sim::ctx("TPipe::Init", line);
        c.pipes = 1;
        c.pipe = this;
    }

private:
    std::vector<QueBase*> ques_;
    std::vector<bool*> bufs_;
    void release(ascend_sim::BlockCtx& c) {
        for (auto* q : ques_) {
            q->init_ = false; q->num_ = 0; q->fifo_.clear();
            for (int& st : q->state_) st = 0;
        }
        for (auto* b : bufs_) *b = false;
        ques_.clear();
        bufs_.clear();
        std::memset(c.usedMem, 0, sizeof(c.usedMem));
        std::memset(c.posBuffers, 0, sizeof(c.posBuffers));
    }
    static uint32_t round(uint32_t len, uint32_t a) { return (len + a - 1) / a * a; }
    static void take(ascend_sim::BlockCtx& c, int m, const char* api, uint64_t bytes, int line) {
        if (c.usedMem[m] + bytes > ascend_sim::MEM_SIZE[m])
            fail(api, line, std::string(ascend_sim::MEM_NAME[m]) + " over capacity: this buffer needs " + str(bytes) +
                 " B with " + str(c.usedMem[m]) + " B already in use; the " + ascend_sim::MEM_NAME[m] +
                 " of Ascend910B1 has " + str(ascend_sim::MEM_SIZE[m]) + " B");
    }
};

}  // namespace AscendC

// the block's TPipe: CANN declares GetTPipePtr at global scope (asc-devkit include/basic_api/kernel_common.h), not
// in AscendC, so `AscendC::GetTPipePtr()` does not compile there and does not here
inline AscendC::TPipe* GetTPipePtr() {
    return ascend_sim::cur ? static_cast<AscendC::TPipe*>(ascend_sim::cur->pipe) : nullptr;
}

namespace AscendC {

// ------------------------------------------------------------------ synchronization

template <pipe_t P> inline void PipeBarrier(int line = __builtin_LINE()) {
    auto& c = ascend_sim::ctx("PipeBarrier", line);
    if (P == PIPE_S) fail("PipeBarrier", line, "PipeBarrier<PIPE_S> is a hardware error");
    if (P == PIPE_ALL) c.pipe_all();
}

template <HardEvent E> inline void SetFlag(int32_t eventID, int line = __builtin_LINE()) {
    auto& c = ascend_sim::ctx("SetFlag", line);
    if (eventID < 0 || eventID > 7) fail("SetFlag", line, "event id " + str(eventID) + " outside [0, 8)");
    c.flags[int(E)][eventID]++;
    c.flagSeq[int(E)][eventID].push_back(c.seq);
}

template <HardEvent E> inline void WaitFlag(int32_t eventID, int line = __builtin_LINE()) {
    auto& c = ascend_sim::ctx("WaitFlag", line);
    if (eventID < 0 || eventID > 7) fail("WaitFlag", line, "event id " + str(eventID) + " outside [0, 8)");
    if (c.flags[int(E)][eventID] <= 0)
        fail("WaitFlag", line, "WaitFlag without a matching SetFlag of the same event and id (hangs on the NPU)");
    c.flags[int(E)][eventID]--;
    const uint64_t upto = c.flagSeq[int(E)][eventID].front();
    c.flagSeq[int(E)][eventID].pop_front();
    if (E == HardEvent::MTE2_V) ascend_sim::synced(c.mte2V, upto);
    if (E == HardEvent::V_MTE3) ascend_sim::synced(c.vMte3, upto);
    if (E == HardEvent::S_MTE3) ascend_sim::synced(c.sMte3, upto);
    if (E == HardEvent::V_S) c.pendingV.clear();
    if (E == HardEvent::MTE2_S) c.pendingMte2.clear();
    if (E == HardEvent::S_V) { c.pendingS = false; c.sWrites.clear(); }
    if (E == HardEvent::MTE3_MTE2) c.gmMte3.clear();
}

// GM scalar writes go through the scalar data cache: flushed before DMA or the host reads (a no-op here: the CPU's
// caches are coherent)
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

template <class T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, int line = __builtin_LINE()) {
    ascend_sim::ctx("DataCacheCleanAndInvalid", line);
    (void)dst;
}

// ------------------------------------------------------------------ data movement

struct DataCopyParams {
    uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t c, uint16_t l, uint16_t s, uint16_t d) : blockCount(c), blockLen(l), srcStride(s), dstStride(d) {}
};

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0, srcStride = 0, dstStride = 0, rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t c, uint32_t l, uint32_t s, uint32_t d, uint32_t r)
        : blockCount(c), blockLen(l), srcStride(s), dstStride(d), rsv(r) {}
};

template <class T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0, rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool p, uint8_t l, uint8_t r, T v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

// the older padding struct of DataCopyPad's DataCopyParams overload: paddingValue is a uint64_t that the hardware's
// pad register takes as is; Ascend C documents 0 as its only value
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0, rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool p, uint8_t l, uint8_t r, uint64_t v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

namespace detail {
template <class T> inline void check_len(const char* api, uint32_t count, int line) {
    if ((uint64_t(count) * sizeof(T)) % 32)
        fail(api, line, "count " + str(count) + " x " + str(sizeof(T)) + " B = " + str(uint64_t(count) * sizeof(T)) +
             " B is not a multiple of 32 B: the hardware silently rounds it down to " +
             str(uint64_t(count) * sizeof(T) / 32 * 32) + " B (use DataCopyPad for a ragged length)");
}

inline void gm_read_after_write(const void* gm, uint64_t bytes, const char* api, int line) {
    if (ascend_sim::gm_unsynced(gm, bytes))
        fail(api, line, "a GM->UB copy reads GM bytes this block wrote with a UB->GM copy, without an MTE3_MTE2 "
             "sync between them (SetFlag/WaitFlag<HardEvent::MTE3_MTE2> or PipeBarrier<PIPE_ALL>): the MTE2 and "
             "MTE3 queues are not ordered, it may read the old data on the NPU");
}

inline void own(const void* gm, uint64_t bytes, const char* api, int line) {
    auto* L = ascend_sim::launch;
    if (!L || !bytes) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(gm);
    int64_t me = ascend_sim::cur->idx;
    std::lock_guard<std::mutex> g(L->mu);
    for (uintptr_t b = a / 32; b <= (a + bytes - 1) / 32; ++b) {
        auto it = L->owner.find(b);
        if (it == L->owner.end()) L->owner.emplace(b, me);
        else if (it->second != me && !L->raced) {
            L->raced = true;
            L->raceApi = api;
            L->raceLine = line;
            L->raceBlock = me;
            L->raceMsg = "blocks " + str(uint64_t(it->second)) + " and " + str(uint64_t(me)) +
                 " both write the 32-byte GM block at address " + str(uint64_t(b * 32)) +
                 " (UB->GM copies of two cores into one 32-byte block race on the NPU: split the work on 32-byte "
                 "boundaries of GM)";
            return;
        }
    }
}
}  // namespace detail

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, int line = __builtin_LINE()) {
    if (dst.mem_ == 5) fail("DataCopy", line, "the BiasTable buffer (C2) is filled from L1 (C1), not from GM");
    detail::check_len<T>("DataCopy", count, line);
    dst.use("DataCopy", count, line);
    src.check("DataCopy", 0, count, line);
    detail::gm_read_after_write(src.base_, uint64_t(count) * sizeof(T), "DataCopy", line);
    ascend_sim::read_after_cube(src.base_, uint64_t(count) * sizeof(T), "DataCopy", line);
    ascend_sim::aiv_access(src.base_, uint64_t(count) * sizeof(T), false, "DataCopy", line);
    std::memcpy(dst.ptr(), src.base_, size_t(count) * sizeof(T));
    dst.mark_written(0, count);
    ascend_sim::note(ascend_sim::cur->pendingMte2, dst.addr_, uint64_t(count) * sizeof(T));
    dst.mte2_writes(0, uint64_t(count) * sizeof(T));
}

template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, int line = __builtin_LINE()) {
    detail::check_len<T>("DataCopy", count, line);
    src.use("DataCopy", count, line);
    src.check_written("DataCopy", 0, count, line);
    src.mte3_reads("DataCopy", 0, uint64_t(count) * sizeof(T), line);
    dst.check("DataCopy", 0, count, line);
    detail::own(dst.base_, uint64_t(count) * sizeof(T), "DataCopy", line);
    ascend_sim::gm_wrote(dst.base_, uint64_t(count) * sizeof(T));
    ascend_sim::aiv_access(dst.base_, uint64_t(count) * sizeof(T), true, "DataCopy", line);
    std::memcpy(dst.base_, src.ptr(), size_t(count) * sizeof(T));
}

// DataCopy with DataCopyParams between GM and UB: blockCount blocks of blockLen x 32 B, srcStride / dstStride
// 32-byte blocks between the end of one block and the start of the next, on either side
template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     int line = __builtin_LINE()) {
    const char* api = "DataCopy";
    static_assert(32 % sizeof(T) == 0, "DataCopy: element size");
    const uint64_t blk = uint64_t(p.blockLen) * 32 / sizeof(T);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint64_t so = uint64_t(i) * (p.blockLen + p.srcStride) * 32 / sizeof(T);
        const uint64_t dn = uint64_t(i) * (p.blockLen + p.dstStride) * 32 / sizeof(T);
        src.use(api, so + blk, line);
        src.check_written(api, so, blk, line);
        src.mte3_reads(api, so * sizeof(T), blk * sizeof(T), line);
        dst.check(api, dn, blk, line);
        detail::own(dst.base_ + dn, blk * sizeof(T), api, line);
        ascend_sim::gm_wrote(dst.base_ + dn, blk * sizeof(T));
        std::memcpy(dst.base_ + dn, src.ptr() + so, size_t(blk * sizeof(T)));
    }
}

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     int line = __builtin_LINE()) {
    if (dst.mem_ == 5) fail("DataCopy", line, "the BiasTable buffer (C2) is filled from L1 (C1), not from GM");
    const char* api = "DataCopy";
    static_assert(32 % sizeof(T) == 0, "DataCopy: element size");
    const uint64_t blk = uint64_t(p.blockLen) * 32 / sizeof(T);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint64_t so = uint64_t(i) * (p.blockLen + p.srcStride) * 32 / sizeof(T);
        const uint64_t dn = uint64_t(i) * (p.blockLen + p.dstStride) * 32 / sizeof(T);
        dst.use(api, dn + blk, line);
        src.check(api, so, blk, line);
        detail::gm_read_after_write(src.base_ + so, blk * sizeof(T), api, line);
        ascend_sim::read_after_cube(src.base_ + so, blk * sizeof(T), api, line);
        std::memcpy(dst.ptr() + dn, src.base_ + so, size_t(blk * sizeof(T)));
        dst.mark_written(dn, blk);
        ascend_sim::note(ascend_sim::cur->pendingMte2, uint32_t(dst.addr_ + dn * sizeof(T)), blk * sizeof(T));
        dst.mte2_writes(dn * sizeof(T), blk * sizeof(T));
    }
}

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, int line = __builtin_LINE()) {
    if (dst.mem_ == 5 || src.mem_ == 5) {      // L1 -> BiasTable (the bias of Mmad): whole 32-byte blocks
        const char* api = "DataCopy(L1->BT)";
        if (!(std::is_same<T, float>::value || std::is_same<T, int32_t>::value))
            fail(api, line, std::string("a BiasTable tensor of ") + type_name<T>::get() + ": asc-sim emulates the "
                 "copy of float and int32_t (the half -> float conversion of the DataCopyParams form is not yet)");
        if (dst.mem_ != 5 || src.mem_ != 1)
            fail(api, line, "the BiasTable buffer (C2) is filled from L1 (C1 / A1 / B1) only");
        if (dst.addr_ % 64) fail(api, line, "the BiasTable destination is not 64-byte aligned");
        const uint32_t n = uint32_t(uint64_t(count) * sizeof(T) / 32 * 32 / sizeof(T));   // the docs: rounded down
        dst.use(api, n, line);
        src.use(api, n, line);
        src.check_written(api, 0, n, line);
        std::memmove(dst.ptr(), src.ptr(), size_t(n) * sizeof(T));
        dst.mark_written(0, n);
        return;
    }
    detail::check_len<T>("DataCopy", count, line);
    dst.use("DataCopy", count, line);
    src.use("DataCopy", count, line);
    src.check_written("DataCopy", 0, count, line);
    std::memmove(dst.ptr(), src.ptr(), size_t(count) * sizeof(T));
    dst.mark_written(0, count);
}

namespace detail {
// DataCopyPad GM -> UB, both overloads: blockCount blocks of blockLen bytes (GM stride in bytes, UB stride in 32-byte
// blocks); in UB each block is [leftPadding elements][the data][rightPadding elements][dummy up to 32 bytes]. With no
// left or right padding the dummy repeats the block's first element (isPad: the pad value); with either, the padding
// and the dummy are the pad value (isPad) or undefined (not isPad: left unwritten, so a read of them fails)
template <class T>
inline void data_copy_pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                             bool isPad, uint8_t left, uint8_t right, T value, int line) {
    const char* api = "DataCopyPad";
    if (p.blockLen % sizeof(T)) fail(api, line, "blockLen " + str(p.blockLen) + " B is not a multiple of the element size");
    if (p.blockLen > 2097151) fail(api, line, "blockLen " + str(p.blockLen) + " B exceeds 2097151");
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        fail(api, line, "leftPadding " + str(left) + " / rightPadding " + str(right) + " elements of " +
             str(sizeof(T)) + " B: each may span at most 32 B");
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint32_t n = p.blockLen / sizeof(T);
    const uint32_t lb = left * sizeof(T), rb = right * sizeof(T);
    const uint32_t padded = (lb + p.blockLen + rb + 31) / 32 * 32;   // UB side: each block padded to 32 B
    const uint64_t ubBytes = uint64_t(p.blockCount) * padded + uint64_t(p.blockCount - 1) * p.dstStride * 32;
    dst.use(api, ubBytes / sizeof(T), line);
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.base_);
    uint8_t* u = reinterpret_cast<uint8_t*>(dst.ptr());
    const bool edges = left || right;
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        uint64_t goff = uint64_t(b) * (p.blockLen + p.srcStride);
        src.check(api, goff / sizeof(T), n, line);
        gm_read_after_write(g + goff, p.blockLen, api, line);
        ascend_sim::read_after_cube(g + goff, p.blockLen, api, line);
        ascend_sim::aiv_access(g + goff, p.blockLen, false, api, line);
        uint64_t uoff = uint64_t(b) * (padded + p.dstStride * 32);
        std::memcpy(u + uoff + lb, g + goff, p.blockLen);
        std::memset(dst.shadow() + uoff, 1, padded);
        if (edges && !isPad) {                   // undefined filler: poisoned, unwritten
            std::memset(u + uoff, 0xFF, lb);
            std::memset(dst.shadow() + uoff, 0, lb);
            std::memset(u + uoff + lb + p.blockLen, 0xFF, padded - lb - p.blockLen);
            std::memset(dst.shadow() + uoff + lb + p.blockLen, 0, padded - lb - p.blockLen);
        } else {
            T fill = isPad ? value : reinterpret_cast<const T*>(g + goff)[0];
            for (uint32_t k = 0; k < lb; k += sizeof(T)) std::memcpy(u + uoff + k, &fill, sizeof(T));
            for (uint32_t k = lb + p.blockLen; k < padded; k += sizeof(T)) std::memcpy(u + uoff + k, &fill, sizeof(T));
        }
        ascend_sim::note(ascend_sim::cur->pendingMte2, uint32_t(dst.addr_ + uoff), padded);
        dst.mte2_writes(uoff, padded);
    }
}
}  // namespace detail

template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, int line = __builtin_LINE()) {
    detail::data_copy_pad_in(dst, src, p, pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue, line);
}

// the DataCopyParams overloads: the same copies (blockLen in bytes, GM strides in bytes, UB strides in 32-byte
// blocks), with 16-bit fields
template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, int line = __builtin_LINE()) {
    if (pad.paddingValue != 0)
        fail("DataCopyPad", line, "DataCopyPadParams paddingValue " + str(pad.paddingValue) + ": Ascend C documents "
             "0 as its only value (the hardware takes the uint64_t as raw bits, not as a value of the element type);"
             " use DataCopyExtParams with DataCopyPadExtParams<T> for a pad value");
    detail::data_copy_pad_in(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
                             pad.isPad, pad.leftPadding, pad.rightPadding, T(0), line);
}

template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                        int line = __builtin_LINE()) {
    const char* api = "DataCopyPad";
    if (p.blockLen % sizeof(T)) fail(api, line, "blockLen " + str(p.blockLen) + " B is not a multiple of the element size");
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint32_t n = p.blockLen / sizeof(T);
    const uint32_t padded = (p.blockLen + 31) / 32 * 32;
    const uint64_t ubBytes = uint64_t(p.blockCount - 1) * (padded + p.srcStride * 32) + p.blockLen;
    src.use(api, (ubBytes + sizeof(T) - 1) / sizeof(T), line);
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.base_);
    const uint8_t* u = reinterpret_cast<const uint8_t*>(src.ptr());
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        uint64_t uoff = uint64_t(b) * (padded + p.srcStride * 32);
        src.check_written(api, uoff / sizeof(T), n, line);
        src.mte3_reads(api, uoff, p.blockLen, line);
        uint64_t goff = uint64_t(b) * (p.blockLen + p.dstStride);
        dst.check(api, goff / sizeof(T), n, line);
        // only the blockLen valid bytes reach GM (the padding is dropped, as its docs say): unlike DataCopy, whose
        // whole 32-byte blocks are owned per core (detail::own), two cores may write the two halves of one block
        ascend_sim::gm_wrote(g + goff, p.blockLen);
        ascend_sim::aiv_access(g + goff, p.blockLen, true, api, line);
        std::memcpy(g + goff, u + uoff, p.blockLen);
    }
}

template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                        int line = __builtin_LINE()) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), line);
}

// ------------------------------------------------------------------ vector instructions (count form)

namespace detail {
// the arithmetic type of an element: integers exactly (int64_t, wrapped back to T on the store, as the vector unit
// wraps), half and float in float
template <class T> using acc_t = typename std::conditional<std::is_integral<T>::value, int64_t, float>::type;
template <class T> inline acc_t<T> ld(T v) { return acc_t<T>(v); }
template <class T, class A> inline T st(A v) { return T(v); }
template <class T> inline bool nan_of(T v) { return v != v; }

// the sum of v[0..n) as the vector unit's in-repeat reduction adds it (asc-devkit ReduceDataBlock.md, its key
// features: a binary tree, element 2i with element 2i+1, then those sums pairwise, and so on) over `width` lanes (a
// power of two, n <= width); a lane past n is inactive (masked off) and a pair with one active lane passes that
// lane's value on. Each addition rounds to float. v is overwritten.
inline float tree_sum(float* v, int32_t n, int32_t width) {
    if (n <= 0) return 0.0f;
    while (width > 1) {
        const int32_t half_w = width / 2;
        int32_t m = 0;
        for (int32_t i = 0; i < half_w; ++i) {
            if (2 * i + 1 < n) v[i] = v[2 * i] + v[2 * i + 1];
            else if (2 * i < n) v[i] = v[2 * i];
            else break;
            m = i + 1;
        }
        n = m;
        width = half_w;
    }
    return v[0];
}

// the element types an API takes on A2 (910B), as the asc-devkit headers' dtype checks list them: a kernel that
// instantiates an API for another type does not compile for the NPU, so it does not compile here either
template <class T, class... U> constexpr bool one_of() { return (std::is_same<T, U>::value || ...); }
#define ASC_SIM_TYPES_ARITH(T) detail::one_of<T, half, float, int16_t, int32_t>()
#define ASC_SIM_TYPES_FLOAT(T) detail::one_of<T, half, float>()
#define ASC_SIM_TYPES_RELU(T) detail::one_of<T, half, float, int32_t>()

template <class T> inline void vec_check(const char* api) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, int32_t>::value ||
                  std::is_same<T, int16_t>::value, "vector instructions take half, float, int16_t or int32_t on A2 "
                  "(bfloat16_t must be Cast to float first)");
    (void)api;
}

template <class T> inline void reading(const char* api, const LocalTensor<T>& t, int32_t count, int line) {
    if (count < 0) fail(api, line, "negative count");
    t.use(api, uint64_t(count), line);
    t.check_written(api, 0, uint64_t(count), line);
    t.vector_reads(api, 0, uint64_t(count) * sizeof(T), line);
    if (ascend_sim::cur->pendingS)
        fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
}
template <class T> inline void writing(const char* api, const LocalTensor<T>& t, int32_t count, int line) {
    if (count < 0) fail(api, line, "negative count");
    t.use(api, uint64_t(count), line);
}
template <class T> inline void done(const LocalTensor<T>& t, int32_t count) {
    t.mark_written(0, uint64_t(count));
    ascend_sim::note(ascend_sim::cur->pendingV, t.addr_, uint64_t(count) * sizeof(T));
    t.vector_writes(0, uint64_t(count) * sizeof(T));
}
template <class A, class B> inline void same_or_apart(const char* api, const LocalTensor<A>& d, int32_t dn,
                                                      const LocalTensor<B>& s, int32_t sn, int line) {
    uint64_t d0 = d.addr_, d1 = d0 + uint64_t(dn) * sizeof(A), s0 = s.addr_, s1 = s0 + uint64_t(sn) * sizeof(B);
    if (d0 != s0 && d0 < s1 && s0 < d1)
        fail(api, line, "dst and src overlap without being the same address (only 100% overlap is allowed)");
}

template <class T, class F>
inline void binary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                   int32_t count, int line, F f) {
    vec_check<T>(api);
    reading(api, a, count, line);
    reading(api, b, count, line);
    writing(api, dst, count, line);
    same_or_apart(api, dst, count, a, count, line);
    same_or_apart(api, dst, count, b, count, line);
    T* d = dst.ptr(); const T* x = a.ptr(); const T* y = b.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
    done(dst, count);
}

template <class T, class F>
inline void unary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, int line, F f) {
    vec_check<T>(api);
    reading(api, a, count, line);
    writing(api, dst, count, line);
    same_or_apart(api, dst, count, a, count, line);
    T* d = dst.ptr(); const T* x = a.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = f(x[i]);
    done(dst, count);
}

template <class T> inline T fl(T x, float (*g)(float)) { return st<T>(g(ld(x))); }
}  // namespace detail

#define ASC_SIM_BINARY(NAME, TYPES, EXPR)                                                                       \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::binary(#NAME, dst, src0, src1, count, line, [](T x0, T y0) {                                    \
            auto x = detail::ld(x0), y = detail::ld(y0); return detail::st<T>(EXPR); });                        \
    }
ASC_SIM_BINARY(Add, ASC_SIM_TYPES_ARITH, x + y)
ASC_SIM_BINARY(Sub, ASC_SIM_TYPES_ARITH, x - y)
ASC_SIM_BINARY(Mul, ASC_SIM_TYPES_ARITH, x * y)
ASC_SIM_BINARY(Div, ASC_SIM_TYPES_FLOAT, x / y)
ASC_SIM_BINARY(Max, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x > y ? x : y)
ASC_SIM_BINARY(Min, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x < y ? x : y)
#undef ASC_SIM_BINARY

#define ASC_SIM_SCALAR(NAME, EXPR)                                                                              \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(ASC_SIM_TYPES_ARITH(T), #NAME ": this element type is not one the API takes on A2");      \
        const auto s = detail::ld(scalarValue);                                                                 \
        detail::unary(#NAME, dst, src, count, line, [s](T x0) { auto x = detail::ld(x0); return detail::st<T>(EXPR); }); \
    }
ASC_SIM_SCALAR(Adds, x + s)
ASC_SIM_SCALAR(Muls, x * s)
ASC_SIM_SCALAR(Maxs, detail::nan_of(x) || x > s ? x : s)
ASC_SIM_SCALAR(Mins, detail::nan_of(x) || x < s ? x : s)
#undef ASC_SIM_SCALAR

// LeakyRelu (count form): x >= 0 ? x : x * scalarValue, of half or float
template <class T, bool isSetMask = true>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
                      const int32_t& count, int line = __builtin_LINE()) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "LeakyRelu: this element type is not one the API takes on A2 (half, float)");
    const auto s = detail::ld(scalarValue);
    detail::unary("LeakyRelu", dst, src, count, line, [s](T x0) {
        auto x = detail::ld(x0); return detail::st<T>(x >= 0 ? x : x * s); });
}

#define ASC_SIM_UNARY(NAME, TYPES, EXPR)                                                                        \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,                \
                     int line = __builtin_LINE()) {                                                             \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::unary(#NAME, dst, src, count, line, [](T x) { auto v = detail::ld(x); return detail::st<T>(EXPR); }); \
    }
ASC_SIM_UNARY(Exp, ASC_SIM_TYPES_FLOAT, std::exp(v))
ASC_SIM_UNARY(Ln, ASC_SIM_TYPES_FLOAT, std::log(v))
ASC_SIM_UNARY(Abs, ASC_SIM_TYPES_FLOAT, std::fabs(v))
ASC_SIM_UNARY(Reciprocal, ASC_SIM_TYPES_FLOAT, 1.0f / v)
ASC_SIM_UNARY(Sqrt, ASC_SIM_TYPES_FLOAT, std::sqrt(v))
ASC_SIM_UNARY(Rsqrt, ASC_SIM_TYPES_FLOAT, 1.0f / std::sqrt(v))
ASC_SIM_UNARY(Relu, ASC_SIM_TYPES_RELU, v > 0 ? v : (detail::nan_of(v) ? v : decltype(v)(0)))
#undef ASC_SIM_UNARY

template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count, int line = __builtin_LINE()) {
    detail::writing("Duplicate", dst, count, line);
    T* d = dst.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
    detail::done(dst, count);
}


// ------------------------------------------------------------------ vector instructions (repeat / mask form)
// One repeat reads 8 DataBlocks of 32 B (256 B: 128 16-bit or 64 32-bit elements). Element e of repeat r of an
// operand with (blkStride, repStride) in DataBlocks is at element (r * repStride + (e / epb) * blkStride) * epb +
// e % epb, epb = 32 / sizeof(T). The mask selects the elements of each repeat: bit mode (uint64_t mask[2], bit e;
// for 32-bit types only mask[0] counts on A2) or continuous mode (the first `mask` elements, at most one repeat's).
// Elements the mask leaves out keep their value in dst.

struct BinaryRepeatParams {
    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1, dstRepStride = 8, src0RepStride = 8,
            src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t d, uint8_t s0, uint8_t s1, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(d), src0BlkStride(s0), src1BlkStride(s1), dstRepStride(dr), src0RepStride(s0r),
          src1RepStride(s1r) {}
};

struct UnaryRepeatParams {
    uint32_t blockNumber = 8;
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false, halfBlock = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t d, uint16_t s, uint8_t dr, uint8_t sr)
        : dstBlkStride(d), srcBlkStride(s), dstRepStride(dr), srcRepStride(sr) {}
    UnaryRepeatParams(uint16_t d, uint16_t s, uint8_t dr, uint8_t sr, bool h)
        : dstBlkStride(d), srcBlkStride(s), dstRepStride(dr), srcRepStride(sr), halfBlock(h) {}
};

struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t d, uint16_t s, uint16_t dr, uint16_t sr)
        : dstStride(d), srcStride(s), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

namespace detail {
struct Stride { uint32_t blk, rep; };

// sets (isSetMask) or reads (!isSetMask) the block's mask register; the mask as (lo, hi, cont)
template <class T, bool isSetMask>
inline void mask_bits(const char* api, const uint64_t mask[], int line) {
    auto& c = ascend_sim::ctx(api, line);
    if (isSetMask) {
        c.maskLo = mask[0]; c.maskHi = sizeof(T) == 2 ? mask[1] : 0; c.maskCont = -1; c.maskSet = true;
    } else if (!c.maskSet) {
        fail(api, line, "isSetMask = false uses the mask register, which no earlier call set");
    }
}
template <class T, bool isSetMask>
inline void mask_cont(const char* api, uint64_t mask, int line) {
    auto& c = ascend_sim::ctx(api, line);
    const uint64_t per = 256 / sizeof(T);
    if (isSetMask) {
        if (mask > per)
            fail(api, line, "mask " + str(mask) + " is outside [0, " + str(per) + "]: one repeat of " +
                 str(sizeof(T) * 8) + "-bit elements has " + str(per));
        c.maskCont = int64_t(mask); c.maskLo = c.maskHi = 0; c.maskSet = true;
    } else if (!c.maskSet) {
        fail(api, line, "isSetMask = false uses the mask register, which no earlier call set");
    }
}
inline bool mask_on(const ascend_sim::BlockCtx& c, uint32_t e) {
    if (c.maskCont >= 0) return e < uint64_t(c.maskCont);
    return e < 64 ? ((c.maskLo >> e) & 1) : ((c.maskHi >> (e - 64)) & 1);
}
template <class T> inline uint64_t rep_at(uint32_t r, uint32_t e, Stride s) {
    const uint32_t epb = 32 / sizeof(T);
    return (uint64_t(r) * s.rep + uint64_t(e / epb) * s.blk) * epb + e % epb;
}

// dst[at(dst)] = f(src_0[at(src_0)], ..., src_{N-1}[...]) (and dst's own old value, if readsDst) for each element
// the mask selects, repeat by repeat; D is dst's element type, S the sources'.
template <class D, class S, int N, bool readsDst = false, class F>
inline void repeat_op(const char* api, const LocalTensor<D>& dst, Stride ds, const LocalTensor<S>* const* src,
                      const Stride* ss, uint32_t repeat, int line, F f) {
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    for (int i = 0; i < N; ++i) src[i]->use(api, 0, line);
    if (N > 0 && c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (ds.blk == 0) fail(api, line, "the dst block stride is 0 (undefined behaviour on the NPU)");
    const uint32_t per = 256 / uint32_t(std::max(sizeof(D), sizeof(S)));
    std::vector<std::pair<uint64_t, D>> out;
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    for (uint32_t r = 0; r < repeat; ++r) {
        out.clear();
        for (uint32_t e = 0; e < per; ++e) {
            if (!mask_on(c, e)) continue;
            S v[N > 0 ? N : 1];
            for (int i = 0; i < N; ++i) {
                const uint64_t at = rep_at<S>(r, e, ss[i]);
                if (at >= src[i]->size_)
                    fail(api, line, "repeat " + str(r) + ", element " + str(e) + " reads element " + str(at) +
                         " of a source LocalTensor<" + type_name<S>::get() + "> of " + str(src[i]->size_) +
                         " elements");
                src[i]->check_written(api, at, 1, line);
                v[i] = src[i]->ptr()[at];
            }
            const uint64_t d = rep_at<D>(r, e, ds);
            if (d >= dst.size_)
                fail(api, line, "repeat " + str(r) + ", element " + str(e) + " writes element " + str(d) +
                     " of a dst LocalTensor<" + type_name<D>::get() + "> of " + str(dst.size_) + " elements");
            D old{};
            if (readsDst) { dst.check_written(api, d, 1, line); old = dst.ptr()[d]; }
            out.emplace_back(d, f(v, old));
        }
        for (auto& w : out) {
            dst.ptr()[w.first] = w.second;
            dst.mark_written(w.first, 1);
            if (!runs.empty() && runs.back().second == w.first) runs.back().second++;
            else runs.emplace_back(w.first, w.first + 1);
        }
    }
    for (auto& rr : runs)
        ascend_sim::note(c.pendingV, uint32_t(dst.addr_ + rr.first * sizeof(D)), (rr.second - rr.first) * sizeof(D));
}
}  // namespace detail

// (dst, src0, src1, mask[] / mask, repeatTime, BinaryRepeatParams)
#define ASC_SIM_BINARY_REP(NAME, TYPES, EXPR)                                                                   \
    template <class T, bool isSetMask = true, class M>                                                          \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                           const uint8_t repeatTime, const BinaryRepeatParams& p, int line) {                   \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        detail::vec_check<T>(#NAME);                                                                            \
        const LocalTensor<T>* s[2] = {&src0, &src1};                                                            \
        const detail::Stride ss[2] = {{p.src0BlkStride, p.src0RepStride}, {p.src1BlkStride, p.src1RepStride}};  \
        detail::repeat_op<T, T, 2>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,       \
            [](const T* v, T) { auto x = detail::ld(v[0]), y = detail::ld(v[1]); return detail::st<T>(EXPR); }); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p,              \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask, int>(dst, src0, src1, repeatTime, p, line);                                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p,                      \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask, int>(dst, src0, src1, repeatTime, p, line);                                    \
    }
ASC_SIM_BINARY_REP(Add, ASC_SIM_TYPES_ARITH, x + y)
ASC_SIM_BINARY_REP(Sub, ASC_SIM_TYPES_ARITH, x - y)
ASC_SIM_BINARY_REP(Mul, ASC_SIM_TYPES_ARITH, x * y)
ASC_SIM_BINARY_REP(Div, ASC_SIM_TYPES_FLOAT, x / y)
ASC_SIM_BINARY_REP(Max, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x > y ? x : y)
ASC_SIM_BINARY_REP(Min, ASC_SIM_TYPES_ARITH, detail::nan_of(x) || x < y ? x : y)
#undef ASC_SIM_BINARY_REP

// (dst, src, mask[] / mask, repeatTime, UnaryRepeatParams) and the scalar form (dst, src, scalar, mask, ...)
#define ASC_SIM_UNARY_REP(NAME, TYPES, EXPR)                                                                    \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,      \
                           const UnaryRepeatParams& p, int line) {                                              \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        const LocalTensor<T>* s[1] = {&src};                                                                    \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,       \
            [](const T* x, T) { auto v = detail::ld(x[0]); return detail::st<T>(EXPR); });                      \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],               \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, repeatTime, p, line);                                                \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                       \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, repeatTime, p, line);                                                \
    }
ASC_SIM_UNARY_REP(Exp, ASC_SIM_TYPES_FLOAT, std::exp(v))
ASC_SIM_UNARY_REP(Ln, ASC_SIM_TYPES_FLOAT, std::log(v))
ASC_SIM_UNARY_REP(Abs, ASC_SIM_TYPES_FLOAT, std::fabs(v))
ASC_SIM_UNARY_REP(Reciprocal, ASC_SIM_TYPES_FLOAT, 1.0f / v)
ASC_SIM_UNARY_REP(Sqrt, ASC_SIM_TYPES_FLOAT, std::sqrt(v))
ASC_SIM_UNARY_REP(Rsqrt, ASC_SIM_TYPES_FLOAT, 1.0f / std::sqrt(v))
ASC_SIM_UNARY_REP(Relu, ASC_SIM_TYPES_RELU, v > 0 ? v : (detail::nan_of(v) ? v : decltype(v)(0)))
#undef ASC_SIM_UNARY_REP

#define ASC_SIM_SCALAR_REP(NAME, EXPR)                                                                          \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,          \
                           const uint8_t repeatTime, const UnaryRepeatParams& p, int line) {                    \
        static_assert(ASC_SIM_TYPES_ARITH(T), #NAME ": this element type is not one the API takes on A2");      \
        const auto s = detail::ld(scalarValue);                                                                 \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,      \
            [s](const T* v, T) { auto x = detail::ld(v[0]); return detail::st<T>(EXPR); });                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,               \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask, \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }
ASC_SIM_SCALAR_REP(Adds, x + s)
ASC_SIM_SCALAR_REP(Muls, x * s)
ASC_SIM_SCALAR_REP(Maxs, detail::nan_of(x) || x > s ? x : s)
ASC_SIM_SCALAR_REP(Mins, detail::nan_of(x) || x < s ? x : s)
ASC_SIM_SCALAR_REP(LeakyRelu, x >= 0 ? x : x * s)
#undef ASC_SIM_SCALAR_REP

// Duplicate(dst, scalar, mask[] / mask, repeatTime, dstBlockStride, dstRepeatStride)
template <class T, bool isSetMask = true>
inline void Duplicate_rep(const LocalTensor<T>& dst, const T& v, uint8_t repeatTime, uint16_t blk, uint8_t rep,
                          int line) {
    detail::vec_check<T>("Duplicate");
    detail::repeat_op<T, T, 0>("Duplicate", dst, {blk, rep}, nullptr, nullptr, repeatTime, line,
                               [v](const T*, T) { return v; });
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Duplicate", mask, line);
    Duplicate_rep<T, isSetMask>(dst, scalarValue, repeatTime, dstBlockStride, dstRepeatStride, line);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Duplicate", mask, line);
    Duplicate_rep<T, isSetMask>(dst, scalarValue, repeatTime, dstBlockStride, dstRepeatStride, line);
}

// Copy (UB -> UB, 16- and 32-bit elements): (dst, src, mask[] / mask, repeatTime, CopyRepeatParams)
template <class T, bool isSetMask = true>
inline void Copy_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint8_t repeatTime,
                     const CopyRepeatParams& p, int line) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy takes 16- or 32-bit elements");
    const LocalTensor<T>* s[1] = {&src};
    const detail::Stride ss[1] = {{p.srcStride, p.srcRepeatSize}};
    detail::repeat_op<T, T, 1>("Copy", dst, {p.dstStride, p.dstRepeatSize}, s, ss, repeatTime, line,
                               [](const T* v, T) { return v[0]; });
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Copy", mask, line);
    Copy_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Copy", mask, line);
    Copy_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}

// ------------------------------------------------------------------ AddRelu / SubRelu, And / Or / Not, ShiftLeft / ShiftRight
// Count and repeat forms. The A2 type lists of the asc-devkit docs: AddRelu / SubRelu int16_t, half, float (relu of
// the sum / difference); And / Or / Not int16_t, uint16_t; ShiftLeft / ShiftRight int16_t, uint16_t, int32_t, uint32_t
// with a shift in [0, 16] (16-bit) or [0, 32] (32-bit). Unsigned types shift logically; signed ones arithmetically:
// ShiftRight copies the sign bit in, ShiftLeft keeps the sign bit and drops the bit below it (the docs' example: the
// int16_t 1010101010101010 << 1 is 1101010101010100).
#define ASC_SIM_TYPES_ADDRELU(T) detail::one_of<T, half, float, int16_t>()
#define ASC_SIM_TYPES_BITS(T) detail::one_of<T, int16_t, uint16_t>()
#define ASC_SIM_TYPES_SHIFT(T) detail::one_of<T, int16_t, uint16_t, int32_t, uint32_t>()

namespace detail {
// dst[i] = f(src_0[i], ..., src_{N-1}[i]) for i < count (the count form; the element types are the API's to check)
template <class T, int N, class F>
inline void elementwise(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>* const* src, int32_t count,
                        int line, F f) {
    for (int i = 0; i < N; ++i) reading(api, *src[i], count, line);
    writing(api, dst, count, line);
    for (int i = 0; i < N; ++i) same_or_apart(api, dst, count, *src[i], count, line);
    T* d = dst.ptr();
    for (int32_t k = 0; k < count; ++k) {
        T v[N];
        for (int i = 0; i < N; ++i) v[i] = src[i]->ptr()[k];
        d[k] = f(v);
    }
    done(dst, count);
}
template <class T> inline T shift_left(T x, T s) {
    using U = typename std::make_unsigned<T>::type;
    const U r = U(uint64_t(U(x)) << uint64_t(s));
    if (!std::is_signed<T>::value) return T(r);
    const U sign = U(U(1) << (sizeof(T) * 8 - 1));
    return T(U((r & U(~sign)) | (U(x) & sign)));
}
template <class T> inline T shift_right(T x, T s) {
    if (std::is_signed<T>::value) return T(int64_t(x) >> int64_t(s));
    return T(uint64_t(x) >> uint64_t(s));
}
template <class T> inline void shift_range(const char* api, T s, int line) {
    if (int64_t(s) < 0 || int64_t(s) > int64_t(sizeof(T) * 8))
        fail(api, line, "the shift " + str(int64_t(s)) + " is outside [0, " + str(sizeof(T) * 8) + "] for " +
             str(sizeof(T) * 8) + "-bit elements");
}
}  // namespace detail

#define ASC_SIM_BIN2(NAME, TYPES, EXPR)                                                                         \
    template <class T>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        const LocalTensor<T>* s[2] = {&src0, &src1};                                                            \
        detail::elementwise<T, 2>(#NAME, dst, s, count, line, [](const T* v) {                                  \
            auto x = detail::ld(v[0]), y = detail::ld(v[1]); return detail::st<T>(EXPR); });                    \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                           const uint8_t repeatTime, const BinaryRepeatParams& p, int line) {                   \
        static_assert(TYPES(T), #NAME ": this element type is not one the API takes on A2 (asc-devkit's list)"); \
        const LocalTensor<T>* s[2] = {&src0, &src1};                                                            \
        const detail::Stride ss[2] = {{p.src0BlkStride, p.src0RepStride}, {p.src1BlkStride, p.src1RepStride}};  \
        detail::repeat_op<T, T, 2>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,       \
            [](const T* v, T) { auto x = detail::ld(v[0]), y = detail::ld(v[1]); return detail::st<T>(EXPR); }); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p,              \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src0, src1, repeatTime, p, line);                                         \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,         \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p,                      \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src0, src1, repeatTime, p, line);                                         \
    }
ASC_SIM_BIN2(AddRelu, ASC_SIM_TYPES_ADDRELU, (x + y) > 0 ? (x + y) : decltype(x + y)(0))
ASC_SIM_BIN2(SubRelu, ASC_SIM_TYPES_ADDRELU, (x - y) > 0 ? (x - y) : decltype(x - y)(0))
ASC_SIM_BIN2(And, ASC_SIM_TYPES_BITS, x & y)
ASC_SIM_BIN2(Or, ASC_SIM_TYPES_BITS, x | y)
#undef ASC_SIM_BIN2

template <class T>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, int line = __builtin_LINE()) {
    static_assert(ASC_SIM_TYPES_BITS(T), "Not: this element type is not one the API takes on A2 (asc-devkit's list)");
    const LocalTensor<T>* s[1] = {&src};
    detail::elementwise<T, 1>("Not", dst, s, count, line, [](const T* v) { return T(~v[0]); });
}
template <class T, bool isSetMask = true>
inline void Not_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                    const UnaryRepeatParams& p, int line) {
    static_assert(ASC_SIM_TYPES_BITS(T), "Not: this element type is not one the API takes on A2 (asc-devkit's list)");
    const LocalTensor<T>* s[1] = {&src};
    const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};
    detail::repeat_op<T, T, 1>("Not", dst, {p.dstBlkStride, p.dstRepStride}, s, ss, repeatTime, line,
                               [](const T* v, T) { return T(~v[0]); });
}
template <class T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Not", mask, line);
    Not_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}
template <class T, bool isSetMask = true>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Not", mask, line);
    Not_rep<T, isSetMask>(dst, src, repeatTime, p, line);
}

#define ASC_SIM_SHIFT(NAME, FN)                                                                                 \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const int32_t& count, int line = __builtin_LINE()) {                                       \
        static_assert(ASC_SIM_TYPES_SHIFT(T), #NAME ": this element type is not one the API takes on A2");     \
        detail::shift_range(#NAME, scalarValue, line);                                                          \
        const T s = scalarValue;                                                                                \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        detail::elementwise<T, 1>(#NAME, dst, sr, count, line, [s](const T* v) { return detail::FN(v[0], s); }); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME##_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,          \
                           const uint8_t repeatTime, const UnaryRepeatParams& p, int line) {                    \
        static_assert(ASC_SIM_TYPES_SHIFT(T), #NAME ": this element type is not one the API takes on A2");     \
        detail::shift_range(#NAME, scalarValue, line);                                                          \
        const T s = scalarValue;                                                                                \
        const LocalTensor<T>* sr[1] = {&src};                                                                   \
        const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};                                        \
        detail::repeat_op<T, T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,      \
                                   [s](const T* v, T) { return detail::FN(v[0], s); });                         \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                \
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p,               \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask, \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {       \
        detail::mask_cont<T, isSetMask>(#NAME, mask, line);                                                     \
        NAME##_rep<T, isSetMask>(dst, src, scalarValue, repeatTime, p, line);                                   \
    }
ASC_SIM_SHIFT(ShiftLeft, shift_left)
ASC_SIM_SHIFT(ShiftRight, shift_right)
#undef ASC_SIM_SHIFT

// ------------------------------------------------------------------ WholeReduceMax / Min / Sum, BlockReduceSum / Max / Min
// (A2: half and float; mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride). Per repeat, over the elements the
// mask selects (element e of repeat r at the repeat form's address): WholeReduceMax / Min give the extreme and its
// index inside the repeat (the first on ties), stored as ReduceOrder says: [value, index] (the default), [index,
// value], [value] or [index] (a uint32_t); the index is an integer in the bits of the element type (uint16_t for
// half, uint32_t for float). dstRepStride counts one repeat's result: 2 elements for value and index, 1 element for
// the value alone, 4 bytes for the index alone. WholeReduceSum gives the sum at dst[r * dstRepStride]. BlockReduce*
// give one result per DataBlock with an active element, the 8 results of a repeat at dst[r * dstRepStride * 8 + b];
// BlockReduceSum adds pairwise inside the block (a binary tree), a half partial sum saturating at +-65504. A repeat
// reads all its inputs before it writes.
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace detail {
// the (index in the repeat, value) of the elements of repeat r the mask selects
template <class T>
inline void rep_elems(const char* api, const LocalTensor<T>& src, uint32_t r, Stride s, int line,
                      std::vector<std::pair<uint32_t, float>>& out) {
    const auto& c = *ascend_sim::cur;
    out.clear();
    for (uint32_t e = 0; e < 256 / sizeof(T); ++e) {
        if (!mask_on(c, e)) continue;
        const uint64_t at = rep_at<T>(r, e, s);
        if (at >= src.size_)
            fail(api, line, "repeat " + str(r) + ", element " + str(e) + " reads element " + str(at) +
                 " of a source LocalTensor<" + type_name<T>::get() + "> of " + str(src.size_) + " elements");
        src.check_written(api, at, 1, line);
        out.emplace_back(e, float(src.ptr()[at]));
    }
}
template <class T> inline void put_bytes(const char* api, const LocalTensor<T>& dst, uint64_t byte, const void* v,
                                         uint64_t n, int line) {
    if (byte + n > uint64_t(dst.size_) * sizeof(T))
        fail(api, line, "writes bytes [" + str(byte) + ", " + str(byte + n) + ") of a dst LocalTensor<" +
             type_name<T>::get() + "> of " + str(uint64_t(dst.size_) * sizeof(T)) + " B");
    std::memcpy(reinterpret_cast<uint8_t*>(dst.ptr()) + byte, v, size_t(n));
    dst.mark_written(byte / sizeof(T), (n + sizeof(T) - 1) / sizeof(T));
    ascend_sim::note(ascend_sim::cur->pendingV, uint32_t(dst.addr_ + byte), n);
}
template <class T> inline T index_bits(uint32_t i) {
    typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type b = decltype(b)(i);
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> inline float add_sat(float a, float b) {
    float v = float(T(a + b));
    if (sizeof(T) == 2) v = std::min(65504.0f, std::max(-65504.0f, v));
    return v;
}

// kind 0: max, 1: min, 2: sum
template <class T>
inline void whole_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                         int32_t dstRep, int32_t srcBlk, int32_t srcRep, ReduceOrder order, int kind, int line) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "WholeReduce / BlockReduce take half or float on A2");
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (repeat < 0 || repeat > 255) fail(api, line, "repeatTime " + str(repeat) + " is outside [0, 255]");
    std::vector<std::pair<uint32_t, float>> el;
    for (int32_t r = 0; r < repeat; ++r) {
        rep_elems<T>(api, src, uint32_t(r), {uint32_t(srcBlk), uint32_t(srcRep)}, line, el);
        if (el.empty()) continue;
        if (kind == 2) {
            float acc = 0.0f;
            for (auto& p : el) acc += p.second;
            const T v = T(acc);
            put_bytes(api, dst, uint64_t(r) * dstRep * sizeof(T), &v, sizeof(T), line);
            continue;
        }
        uint32_t bi = el[0].first;
        float bv = el[0].second;
        for (auto& p : el)
            if (kind == 0 ? p.second > bv : p.second < bv) { bv = p.second; bi = p.first; }
        const T v = T(bv), ix = index_bits<T>(bi);
        const uint64_t pair = uint64_t(r) * dstRep * 2 * sizeof(T);
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: { T w[2] = {v, ix}; put_bytes(api, dst, pair, w, sizeof w, line); break; }
            case ReduceOrder::ORDER_INDEX_VALUE: { T w[2] = {ix, v}; put_bytes(api, dst, pair, w, sizeof w, line); break; }
            case ReduceOrder::ORDER_ONLY_VALUE: put_bytes(api, dst, uint64_t(r) * dstRep * sizeof(T), &v, sizeof v, line); break;
            default: { uint32_t u = bi; put_bytes(api, dst, uint64_t(r) * dstRep * 4, &u, 4, line); break; }
        }
    }
}

template <class T>
inline void block_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                         int32_t dstRep, int32_t srcBlk, int32_t srcRep, int kind, int line) {
    static_assert(ASC_SIM_TYPES_FLOAT(T), "WholeReduce / BlockReduce take half or float on A2");
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (repeat < 0 || repeat > 255) fail(api, line, "repeatTime " + str(repeat) + " is outside [0, 255]");
    const uint32_t epb = 32 / sizeof(T);
    std::vector<std::pair<uint32_t, float>> el;
    for (int32_t r = 0; r < repeat; ++r) {
        rep_elems<T>(api, src, uint32_t(r), {uint32_t(srcBlk), uint32_t(srcRep)}, line, el);
        float v[8][16];
        bool on[8][16] = {};
        for (auto& p : el) { v[p.first / epb][p.first % epb] = p.second; on[p.first / epb][p.first % epb] = true; }
        for (uint32_t b = 0; b < 8; ++b) {
            bool any = false;
            for (uint32_t e = 0; e < epb; ++e) any = any || on[b][e];
            if (!any) continue;
            float res = 0.0f;
            if (kind == 2) {
                float w[16];
                for (uint32_t e = 0; e < epb; ++e) w[e] = on[b][e] ? v[b][e] : 0.0f;
                for (uint32_t n = epb; n > 1; n /= 2)
                    for (uint32_t e = 0; e < n / 2; ++e) w[e] = add_sat<T>(w[2 * e], w[2 * e + 1]);
                res = w[0];
            } else {
                bool have = false;
                for (uint32_t e = 0; e < epb; ++e)
                    if (on[b][e] && (!have || (kind == 0 ? v[b][e] > res : v[b][e] < res))) { res = v[b][e]; have = true; }
            }
            const T t = T(res);
            put_bytes(api, dst, (uint64_t(r) * dstRep * 8 + b) * sizeof(T), &t, sizeof t, line);
        }
    }
}
}  // namespace detail

#define ASC_SIM_WHOLE(NAME, KIND)                                                                               \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],               \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,            \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        detail::whole_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, KIND, line); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                  \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,            \
                     int line = __builtin_LINE()) {                                                             \
        detail::mask_cont<T, isSetMask>(#NAME, uint64_t(mask), line);                                           \
        detail::whole_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, KIND, line); \
    }
ASC_SIM_WHOLE(WholeReduceMax, 0)
ASC_SIM_WHOLE(WholeReduceMin, 1)
#undef ASC_SIM_WHOLE

template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("WholeReduceSum", mask, line);
    detail::whole_reduce("WholeReduceSum", dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                         ReduceOrder::ORDER_ONLY_VALUE, 2, line);
}
template <class T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("WholeReduceSum", uint64_t(mask), line);
    detail::whole_reduce("WholeReduceSum", dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                         ReduceOrder::ORDER_ONLY_VALUE, 2, line);
}

#define ASC_SIM_BLOCKRED(NAME, KIND)                                                                            \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,            \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, int line = __builtin_LINE()) {                                 \
        detail::mask_bits<T, isSetMask>(#NAME, mask, line);                                                     \
        detail::block_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, line); \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,            \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride, int line = __builtin_LINE()) {                                 \
        detail::mask_cont<T, isSetMask>(#NAME, uint64_t(mask), line);                                           \
        detail::block_reduce(#NAME, dst, src, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, line); \
    }
ASC_SIM_BLOCKRED(BlockReduceMax, 0)
ASC_SIM_BLOCKRED(BlockReduceMin, 1)
ASC_SIM_BLOCKRED(BlockReduceSum, 2)
#undef ASC_SIM_BLOCKRED

// Brcb (A2: 16- and 32-bit elements): repeat i reads src[8 i .. 8 i + 7] and fills DataBlock j of the repeat
// (at block i * dstRepStride + j * dstBlkStride of dst) with src[8 i + j]. asc-devkit's rules: dst and src 32-byte
// aligned (LocalTensor::use), src holds at least 8 * repeatTime elements, src and dst are not the same memory,
// dstBlkStride 0 is undefined behaviour, repeatTime 0 is a NOP; the source reads contiguously (no stride).
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1, dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t d, uint16_t dr) : dstBlkStride(d), dstRepStride(dr) {}
};
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                 const BrcbRepeatParams& p, int line = __builtin_LINE()) {
    static_assert(detail::one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),
                  "Brcb: this element type is not one the API takes on A2 (asc-devkit's list)");
    const char* api = "Brcb";
    auto& c = ascend_sim::ctx(api, line);
    dst.use(api, 0, line);
    src.use(api, 0, line);
    if (repeatTime == 0) return;
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    if (p.dstBlkStride == 0) fail(api, line, "dstBlkStride is 0 (undefined behaviour on the NPU)");
    const uint64_t n = 8ull * repeatTime;
    if (n > src.size_)
        fail(api, line, "repeatTime " + str(uint32_t(repeatTime)) + " reads " + str(n) + " elements of a source "
             "LocalTensor<" + type_name<T>::get() + "> of " + str(src.size_) + " elements (8 per repeat)");
    const uint32_t epb = 32 / sizeof(T);
    const uint64_t last = (uint64_t(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride + 1) * epb;
    if (last > dst.size_)
        fail(api, line, "repeat " + str(uint32_t(repeatTime - 1)) + " writes up to element " + str(last) + " of a dst "
             "LocalTensor<" + type_name<T>::get() + "> of " + str(dst.size_) + " elements");
    const uint64_t s0 = src.addr_, s1 = src.addr_ + n * sizeof(T);
    for (uint32_t i = 0; i < repeatTime; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            const uint64_t d0 = dst.addr_ + (uint64_t(i) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * 32;
            if (src.mem_ == dst.mem_ && d0 < s1 && s0 < d0 + 32)
                fail(api, line, "the destination overlaps the source (UB bytes [" + str(s0) + ", " + str(s1) +
                     ")): asc-devkit forbids the same memory for both");
        }
    src.check_written(api, 0, n, line);
    src.vector_reads(api, 0, n * sizeof(T), line);
    for (uint32_t i = 0; i < repeatTime; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            const T v = src.ptr()[uint64_t(i) * 8 + j];
            const uint64_t b = (uint64_t(i) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * epb;
            for (uint32_t e = 0; e < epb; ++e) dst.ptr()[b + e] = v;
            dst.mark_written(b, epb);
            ascend_sim::note(c.pendingV, uint32_t(dst.addr_ + b * sizeof(T)), 32);
            dst.vector_writes(b * sizeof(T), 32);
        }
}

// Axpy: dst = scalar * src + dst, (half, half), (float, float), (half src -> float dst); count and repeat forms
namespace detail {
template <class T, class U> inline void axpy_types() {
    static_assert((std::is_same<T, U>::value && (std::is_same<T, half>::value || std::is_same<T, float>::value)) ||
                  (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy takes (dst, src) = (half, half), (float, float) or (float, half) on A2");
}
}  // namespace detail
template <class T, class U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
                 int line = __builtin_LINE()) {
    detail::axpy_types<T, U>();
    const char* api = "Axpy";
    detail::reading(api, src, count, line);
    detail::reading(api, dst, count, line);          // dst is an input too
    detail::same_or_apart(api, dst, count, src, count, line);
    const float s = float(scalarValue);
    T* d = dst.ptr();
    const U* x = src.ptr();
    for (int32_t i = 0; i < count; ++i) d[i] = T(s * float(x[i]) + float(d[i]));
    detail::done(dst, count);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy_rep(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint8_t repeatTime,
                     const UnaryRepeatParams& p, int line) {
    detail::axpy_types<T, U>();
    const float s = float(scalarValue);
    const LocalTensor<U>* sr[1] = {&src};
    const detail::Stride ss[1] = {{p.srcBlkStride, p.srcRepStride}};
    detail::repeat_op<T, U, 1, true>("Axpy", dst, {p.dstBlkStride, p.dstRepStride}, sr, ss, repeatTime, line,
                                     [s](const U* v, T old) { return T(s * float(v[0]) + float(old)); });
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_bits<T, isSetMask>("Axpy", mask, line);
    Axpy_rep<T, U, isSetMask>(dst, src, scalarValue, repeatTime, p, line);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p, int line = __builtin_LINE()) {
    detail::mask_cont<T, isSetMask>("Axpy", mask, line);
    Axpy_rep<T, U, isSetMask>(dst, src, scalarValue, repeatTime, p, line);
}


// Transpose: the 16 x 16 transpose of 2-byte elements, and the [N,C,H,W] <-> [N,H,W,C] conversions of
// TransposeParamsExt (with a sharedTmpBuffer that must be a UB tensor apart from src and dst; its size is not
// checked here)
enum class TransposeType : uint8_t { TRANSPOSE_TYPE_NONE = 0, TRANSPOSE_NZ2ND_0213, TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N, TRANSPOSE_NZ2ND_012_WITH_N, TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N, TRANSPOSE_ND2ND_ONLY, TRANSPOSE_ND_UB_GM, TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW };

struct TransposeParamsExt {
    uint16_t nSize = 0, cSize = 0, hSize = 0, wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
    TransposeParamsExt() = default;
    TransposeParamsExt(uint16_t n, uint16_t c, uint16_t h, uint16_t w, TransposeType t)
        : nSize(n), cSize(c), hSize(h), wSize(w), transposeType(t) {}
};

template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, int line = __builtin_LINE()) {
    static_assert(detail::one_of<T, half, int16_t, uint16_t>(), "Transpose (16 x 16) takes half, int16_t or "
                  "uint16_t on A2");
    detail::reading("Transpose", src, 256, line);
    detail::writing("Transpose", dst, 256, line);
    detail::same_or_apart("Transpose", dst, 256, src, 256, line);
    std::vector<T> t(src.ptr(), src.ptr() + 256);
    T* d = dst.ptr();
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) d[c * 16 + r] = t[r * 16 + c];
    detail::done(dst, 256);
}

template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                      const TransposeParamsExt& p, int line = __builtin_LINE()) {
    const char* api = "Transpose";
    if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
        if constexpr (std::is_same<T, uint16_t>::value) {
            Transpose(dst, src, line);
            return;
        }
        fail(api, line, "TRANSPOSE_ND2ND_B16 with TransposeParamsExt takes uint16_t on A2");
    }
    static_assert(detail::one_of<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>(),
                  "Transpose (NCHW <-> NHWC) takes int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t or "
                  "float on A2");
    const bool toNhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    if (!toNhwc && p.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW)
        fail(api, line, "this TransposeType is not emulated (ND2ND_B16, NCHW2NHWC, NHWC2NCHW are)");
    const uint32_t N = p.nSize, C = p.cSize, HW = uint32_t(p.hSize) * p.wSize;
    if (C > 4095) fail(api, line, "cSize " + str(C) + " is outside [0, 4095]");
    if (HW > 4095) fail(api, line, "hSize * wSize = " + str(HW) + " is outside [0, 4095]");
    if ((HW * sizeof(T)) % 32)
        fail(api, line, "hSize * wSize * sizeof(T) = " + str(HW * sizeof(T)) + " B is not 32-byte aligned");
    const uint32_t total = N * C * HW;
    tmp.use(api, 0, line);
    uint64_t t0 = tmp.addr_, t1 = t0 + tmp.size_;
    for (uint64_t a0 : {uint64_t(src.addr_), uint64_t(dst.addr_)})
        if (a0 < t1 && t0 < a0 + uint64_t(total) * sizeof(T)) fail(api, line, "sharedTmpBuffer overlaps src or dst");
    detail::reading(api, src, int32_t(total), line);
    detail::writing(api, dst, int32_t(total), line);
    detail::same_or_apart(api, dst, int32_t(total), src, int32_t(total), line);
    std::vector<T> s(src.ptr(), src.ptr() + total);
    T* d = dst.ptr();
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t c = 0; c < C; ++c)
            for (uint32_t k = 0; k < HW; ++k) {
                const uint64_t nchw = (uint64_t(n) * C + c) * HW + k, nhwc = (uint64_t(n) * HW + k) * C + c;
                if (toNhwc) d[nhwc] = s[nchw];
                else d[nchw] = s[nhwc];
            }
    detail::done(dst, int32_t(total));
    std::memset(tmp.ptr(), 0xFF, tmp.size_);       // scratch contents are undefined after
}


// TransDataTo5HD (16-bit elements): each repeat reads one 32-byte DataBlock (16 elements) at each of the 16 source
// addresses and writes the 16 x 16 transpose, dst block j element i = src block i element j, at each of the 16
// destination addresses. Repeat r starts srcRepStride / dstRepStride DataBlocks times r further on; with
// repeatTimes == 1 the one repeat starts one stride further on (set the strides to 0 to start at the lists);
// repeatTimes == 0 is a no-op. Three forms give the addresses: lists of 16 LocalTensors, two uint64_t[16] arrays
// of UB addresses (GetPhyAddr), and two LocalTensor<uint64_t> holding 16 such addresses each.
struct TransDataTo5HDParams {
    bool dstHighHalf = false, srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0, srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dh, bool sh, uint8_t rep, uint16_t ds, uint16_t ss)
        : dstHighHalf(dh), srcHighHalf(sh), repeatTimes(rep), dstRepStride(ds), srcRepStride(ss) {}
};

namespace detail {
// one DataBlock of the UB at byte address `a`, for TransDataTo5HD's address forms: 32-byte aligned and inside
// the UB; a source block must have been written, by a pipe synchronized with the vector pipe
inline void ub_block(const char* api, const char* which, int i, uint64_t a, bool read, int line) {
    if (a % ascend_sim::UB_BLOCK)
        fail(api, line, std::string(which) + "[" + str(i) + "] = UB address " + str(a) + " is not 32-byte aligned");
    if (a + 32 > ascend_sim::UB_SIZE)
        fail(api, line, std::string(which) + "[" + str(i) + "]: the DataBlock at UB address " + str(a) +
             " is not inside the " + str(ascend_sim::UB_SIZE) + " B Unified Buffer");
    if (!read) return;
    const uint8_t* w = ascend_sim::cur->written + a;
    for (int k = 0; k < 32; ++k)
        if (!w[k])
            fail(api, line, std::string(which) + "[" + str(i) + "]: reads UB byte " + str(a + k) +
                 ", which was never written (poisoned with NaN)");
    if (auto* p = ascend_sim::unsynced(ascend_sim::cur->mte2V, uint32_t(a), 32))
        fail(api, line, "vector read of UB bytes [" + str(p->a) + ", " + str(p->b) + ") written by a GM->UB copy "
             "(MTE2) without an MTE2_V sync between them: SetFlag<HardEvent::MTE2_V> / WaitFlag<HardEvent::MTE2_V>");
    for (auto& r : ascend_sim::cur->sWrites)
        if (r.first < a + 32 && a < r.second)
            fail(api, line, "vector read of UB byte " + str(r.first) + ", written by a scalar SetValue, without an "
                 "S_V sync (SetFlag<HardEvent::S_V> / WaitFlag<HardEvent::S_V>)");
}

// the size of each tensor of the list form: Huawei's check (asc-tools cpudebug api_check, TransDataTo5HD's tensor
// sizes, which its CPU-debug build runs on every call with repeatTimes > 0) asks each listed tensor for
// repeatTimes * repStride + 1 DataBlocks from its start: one stride more than the last repeat reaches by the docs'
// offsets (repeat r at r * repStride blocks, so (repeatTimes - 1) * repStride + 1 blocks). ascend-sim asks the same.
template <class T>
inline void trans_5hd_size(const char* api, const char* which, int i, const LocalTensor<T>& t, uint8_t repeatTimes,
                           uint16_t repStride, int line) {
    if (repeatTimes == 0) return;
    t.use(api, 0, line);
    const uint64_t blocks = uint64_t(repeatTimes) * repStride + 1;
    const uint64_t have = uint64_t(t.size_) * sizeof(T);
    if (have < blocks * 32)
        fail(api, line, std::string(which) + "[" + str(i) + "] is a LocalTensor<" + type_name<T>::get() + "> of " +
             str(t.size_) + " elements (" + str(have) + " B), but each listed tensor must hold repeatTimes * " +
             (which[0] == 's' ? "srcRepStride" : "dstRepStride") + " + 1 = " + str(repeatTimes) + " * " +
             str(repStride) + " + 1 = " + str(blocks) + " DataBlocks (" + str(blocks * 32) + " B) from its start: "
             "Huawei's TransDataTo5HD check (asc-tools api_check) asks one stride more than the last repeat reaches");
}

template <class T>
inline void trans_5hd_addrs(const char* api, const uint64_t (&dst)[16], const uint64_t (&src)[16],
                            const TransDataTo5HDParams& p, int line) {
    static_assert(sizeof(T) == 2, "ascend-sim emulates TransDataTo5HD for 16-bit elements (half, int16_t, "
                  "uint16_t); 8- and 32-bit layouts are not emulated yet");
    auto& c = ascend_sim::ctx(api, line);
    uint8_t* ub = c.ub;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t k = p.repeatTimes == 1 ? 1 : r;
        T blk[16][16];
        for (int i = 0; i < 16; ++i) {
            const uint64_t a = src[i] + k * p.srcRepStride * 32;
            ub_block(api, "srcList", i, a, true, line);
            std::memcpy(blk[i], ub + a, 32);
        }
        for (int j = 0; j < 16; ++j) {
            const uint64_t a = dst[j] + k * p.dstRepStride * 32;
            ub_block(api, "dstList", j, a, false, line);
            T* d = reinterpret_cast<T*>(ub + a);
            for (int i = 0; i < 16; ++i) d[i] = blk[i][j];
            std::memset(c.written + a, 1, 32);
            ascend_sim::note(c.pendingV, uint32_t(a), 32);
            ascend_sim::wrote(c.vMte3, c.seq, uint32_t(a), 32);
        }
    }
}
}  // namespace detail

template <class T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[16], const LocalTensor<T> (&srcList)[16],
                           const TransDataTo5HDParams& p, int line = __builtin_LINE()) {
    const char* api = "TransDataTo5HD";
    auto& c = ascend_sim::ctx(api, line);
    if (c.pendingS) fail(api, line, "vector read of UB after a scalar SetValue without an S_V sync");
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {      // in Huawei's order: srcList[i], then dstList[i]
        detail::trans_5hd_size(api, "srcList", i, srcList[i], p.repeatTimes, p.srcRepStride, line);
        detail::trans_5hd_size(api, "dstList", i, dstList[i], p.repeatTimes, p.dstRepStride, line);
        s[i] = srcList[i].addr_;
        d[i] = dstList[i].addr_;
    }
    detail::trans_5hd_addrs<T>(api, d, s, p, line);
}

template <class T>
inline void TransDataTo5HD(uint64_t dstList[16], uint64_t srcList[16], const TransDataTo5HDParams& p,
                           int line = __builtin_LINE()) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) { d[i] = dstList[i]; s[i] = srcList[i]; }
    detail::trans_5hd_addrs<T>("TransDataTo5HD", d, s, p, line);
}

// the address-tensor form: dst and src hold the 16 UB addresses each (read by the scalar unit, so their SetValue
// needs no S_V sync; the data blocks they point at do)
template <class T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                           const TransDataTo5HDParams& p, int line = __builtin_LINE()) {
    const char* api = "TransDataTo5HD";
    uint64_t d[16], s[16];
    for (const LocalTensor<uint64_t>* t : {&dst, &src}) {
        t->use(api, 16, line);
        t->check_written(api, 0, 16, line);
    }
    for (int i = 0; i < 16; ++i) { d[i] = dst.ptr()[i]; s[i] = src.ptr()[i]; }
    detail::trans_5hd_addrs<T>(api, d, s, p, line);
}


// AIPP (image pre-processing) configuration, as asc-devkit's kernel_struct_aipp.h. SetAippFunctions records it
// for LoadImageToLocal (not emulated yet) and checks what the docs state: the source tensor's element type T is the
// format's pixel type (uint8_t for all four formats), the output type U is uint8_t (no conversion), int8_t or
// half, YUV420SP takes its Y and UV planes as two GlobalTensors, paddingMode is in [0, 3] and cPaddingMode in
// [0, 1]. The configuration changes nothing else: DataCopy copies as always.
enum class AippInputFormat : uint8_t { YUV420SP_U8 = 0, XRGB8888_U8 = 1, RGB888_U8 = 4, YUV400_U8 = 9 };
template <typename T> struct AippPaddingParams {
    uint32_t paddingMode{0};
    T paddingValueCh0{0}, paddingValueCh1{0}, paddingValueCh2{0}, paddingValueCh3{0};
};
struct AippSwapParams { bool isSwapRB{false}, isSwapUV{false}, isSwapAX{false}; };
struct AippSingleLineParams { bool isSingleLineCopy{false}; };
struct AippDataTypeConvParams {
    uint8_t dtcMeanCh0{0}, dtcMeanCh1{0}, dtcMeanCh2{0};
    half dtcMinCh0{0.0f}, dtcMinCh1{0.0f}, dtcMinCh2{0.0f}, dtcVarCh0{1.0f}, dtcVarCh1{1.0f}, dtcVarCh2{1.0f};
    uint32_t dtcRoundMode{0};
};
template <typename T> struct AippChannelPaddingParams { uint32_t cPaddingMode; T cPaddingValue; };
struct AippColorSpaceConvParams {
    bool isEnableCsc{false};
    int16_t cscMatrixR0C0{0}, cscMatrixR0C1{0}, cscMatrixR0C2{0}, cscMatrixR1C0{0}, cscMatrixR1C1{0},
        cscMatrixR1C2{0}, cscMatrixR2C0{0}, cscMatrixR2C1{0}, cscMatrixR2C2{0};
    uint8_t cscBiasIn0{0}, cscBiasIn1{0}, cscBiasIn2{0}, cscBiasOut0{0}, cscBiasOut1{0}, cscBiasOut2{0};
};
template <typename T> struct AippParams {
    AippPaddingParams<T> paddingParams;
    AippSwapParams swapParams;
    AippSingleLineParams singleLineParams;
    AippDataTypeConvParams dtcParams;
    AippChannelPaddingParams<T> cPaddingParams;
    AippColorSpaceConvParams cscParams;
};

namespace detail {
inline const char* aipp_format_name(AippInputFormat f) {
    switch (f) {
        case AippInputFormat::YUV420SP_U8: return "YUV420SP_U8";
        case AippInputFormat::XRGB8888_U8: return "XRGB8888_U8";
        case AippInputFormat::RGB888_U8: return "RGB888_U8";
        case AippInputFormat::YUV400_U8: return "YUV400_U8";
    }
    return nullptr;
}
template <class T, class U>
inline void aipp_check(const char* api, int nsrc, AippInputFormat format, const AippParams<U>& config, int line) {
    ascend_sim::ctx(api, line);
    const char* fname = aipp_format_name(format);
    if (!fname) fail(api, line, "format " + str(uint64_t(format)) + " is not an AippInputFormat");
    if (!std::is_same<T, uint8_t>::value)
        fail(api, line, std::string("the source image is a GlobalTensor<") + type_name<T>::get() + ">: the template "
             "type T must be the pixel type of the format " + fname + ", uint8_t");
    static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, int8_t>::value || std::is_same<U, half>::value,
                  "AippParams<U>: the output type U is uint8_t, int8_t or half");
    if (format == AippInputFormat::YUV420SP_U8 && nsrc != 2)
        fail(api, line, "YUV420SP_U8 takes two GlobalTensors, the Y plane (src0) and the UV plane (src1)");
    if (config.paddingParams.paddingMode > 3)
        fail(api, line, "paddingMode " + str(config.paddingParams.paddingMode) + " is outside [0, 3]");
    if (config.cPaddingParams.cPaddingMode > 1)
        fail(api, line, "cPaddingMode " + str(config.cPaddingParams.cPaddingMode) + " is outside [0, 1]");
}
}  // namespace detail

template <class T, class U>
inline void SetAippFunctions(const GlobalTensor<T>& src0, AippInputFormat format, AippParams<U> config,
                             int line = __builtin_LINE()) {
    (void)src0;
    detail::aipp_check<T, U>("SetAippFunctions", 1, format, config, line);
}
template <class T, class U>
inline void SetAippFunctions(const GlobalTensor<T>& src0, const GlobalTensor<T>& src1, AippInputFormat format,
                             AippParams<U> config, int line = __builtin_LINE()) {
    (void)src0; (void)src1;
    detail::aipp_check<T, U>("SetAippFunctions", 2, format, config, line);
}


// SoftMax (the advanced API, last axis): for each of the M rows of K elements, max = max_k x, sum = sum_k
// exp(x - max) (added in the order of Huawei's implementation: detail::softmax_row_sum), dst = exp(x - max) / sum,
// computed in float; sumTensor and maxTensor hold each row's value repeated over one 32-byte block (8 floats / 16
// halves). The shape is softmaxShapeInfo's (srcM, srcK) or, where that is zero, the src tensor's ShapeInfo (the last
// axis is K). The SoftMaxTiling the host computes for the NPU's internal split is not used here (the result does not
// depend on it: rows are independent, and one row or several reduce their 64 lanes in the same tree). CANN declares
// it where its generated kernel_tiling.h does: AscendC::tiling::SoftMaxTiling, exported to the global scope
// (`SoftMaxTiling`, the name kernels use); `AscendC::SoftMaxTiling` is not a name there, so it is none here.
namespace tiling {
struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0,
             splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0,
             tailReduceSize = 0;
};
}  // namespace tiling
}  // namespace AscendC
using AscendC::tiling::SoftMaxTiling;
namespace AscendC {
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};

namespace detail {
// A row's sum of exponentials in the order Huawei's SoftMax adds it on A2 (asc-devkit NewReduceSumLastNDImpl, float
// lanes of 64 per repeat): a row shorter than 64 is one WholeReduceSum (a tree over its elements); otherwise 64 lane
// partials t[l], then the tail's elements into the first lanes (one masked Add), then a tree over the 64 lanes
// (BlockReduceSum twice, or WholeReduceSum for one row: the same tree). The partials: for K >= 512, t[l] the tree of
// elements 8l..8l+7 (BlockReduceSum over the first 512) and each further repeat of 64 added in order; for 128 <= K <
// 512, x[l] + x[64 + l] and the further repeats in order; for 64 <= K < 128, the first repeat itself.
inline float softmax_row_sum(const float* e, uint64_t K) {
    float t[64];
    if (K < 64) {
        for (uint64_t l = 0; l < K; ++l) t[l] = e[l];
        return tree_sum(t, int32_t(K), 64);
    }
    const uint64_t reps = K / 64, tail = K % 64;
    if (K >= 512) {
        float blk[8];
        for (uint64_t l = 0; l < 64; ++l) {
            for (int j = 0; j < 8; ++j) blk[j] = e[8 * l + j];
            t[l] = tree_sum(blk, 8, 8);
        }
        for (uint64_t r = 8; r < reps; ++r)
            for (uint64_t l = 0; l < 64; ++l) t[l] = e[64 * r + l] + t[l];
    } else if (K >= 128) {
        for (uint64_t l = 0; l < 64; ++l) t[l] = e[l] + e[64 + l];
        for (uint64_t r = 2; r < reps; ++r)
            for (uint64_t l = 0; l < 64; ++l) t[l] = t[l] + e[64 * r + l];
    } else {
        for (uint64_t l = 0; l < 64; ++l) t[l] = e[l];
    }
    for (uint64_t l = 0; l < tail; ++l) t[l] = t[l] + e[64 * reps + l];
    return tree_sum(t, 64, 64);
}
}  // namespace detail

template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& si = {},
                    int line = __builtin_LINE()) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "SoftMax takes half or float");
    static_assert(!isDataFormatNZ, "ascend-sim emulates SoftMax on ND data");
    (void)tiling;
    const char* api = "SoftMax";
    uint64_t M = si.srcM, K = si.srcK;
    if (M == 0 || K == 0) {
        const ShapeInfo& sh = src.shape_;
        if (sh.shapeDim == 0)
            fail(api, line, "the src tensor has no ShapeInfo (SetShapeInfo) and no SoftMaxShapeInfo was given: the "
                 "row length is unknown");
        K = sh.shape[sh.shapeDim - 1];
        M = 1;
        for (int i = 0; i + 1 < sh.shapeDim; ++i) M *= sh.shape[i];
    }
    if ((K * sizeof(T)) % 32)
        fail(api, line, "the last axis, " + str(K) + " x " + str(sizeof(T)) + " B, is not a multiple of 32 B");
    const uint64_t epb = 32 / sizeof(T);
    detail::reading(api, src, int32_t(M * K), line);
    detail::writing(api, dst, int32_t(M * K), line);
    detail::writing(api, sumTensor, int32_t(M * epb), line);
    detail::writing(api, maxTensor, int32_t(M * epb), line);
    detail::same_or_apart(api, dst, int32_t(M * K), src, int32_t(M * K), line);
    std::vector<float> row(K);
    for (uint64_t m = 0; m < M; ++m) {
        const T* x = src.ptr() + m * K;
        float mx = -INFINITY;
        for (uint64_t k = 0; k < K; ++k) {          // a NaN in the row makes the row NaN (as numpy.max)
            row[k] = float(x[k]);
            if (std::isnan(row[k]) || std::isnan(mx)) mx = NAN;
            else if (row[k] > mx) mx = row[k];
        }
        for (uint64_t k = 0; k < K; ++k) row[k] = std::exp(row[k] - mx);
        const float sum = detail::softmax_row_sum(row.data(), K);
        T* d = dst.ptr() + m * K;
        for (uint64_t k = 0; k < K; ++k) d[k] = T(row[k] / sum);
        for (uint64_t j = 0; j < epb; ++j) {
            sumTensor.ptr()[m * epb + j] = T(sum);
            maxTensor.ptr()[m * epb + j] = T(mx);
        }
    }
    detail::done(dst, int32_t(M * K));
    detail::done(sumTensor, int32_t(M * epb));
    detail::done(maxTensor, int32_t(M * epb));
}

// Advanced math APIs: (dst, src, sharedTmpBuffer, calCount). asc sizes the temporary buffer as
// ascend_sim::adv_tmp_bytes(count) (see docs/ascend.md); it must not overlap src or dst.
namespace detail {
// at least 3 * 32 floats: Huawei's Erf / Sin / Cos work in chunks of tmp / 4 / 3 floats rounded down to 32 and abort
// on none (asc/backends/ascend/soc.py ADV_MIN_BYTES)
inline uint64_t adv_tmp_bytes(uint32_t count, uint32_t typeSize) {
    const uint64_t b = uint64_t(count) * typeSize * 2 + 256;
    return b > 384 ? b : 384;
}

template <class T, class F>
inline void adv(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                uint32_t count, int line, F f) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value,
                  "advanced math APIs take half or float on A2");
    tmp.use(api, 0, line);
    const uint64_t need = adv_tmp_bytes(count, sizeof(T));
    if (tmp.size_ < need)
        fail(api, line, "sharedTmpBuffer has " + str(tmp.size_) + " B, " + str(need) + " B are needed for " +
             str(count) + " elements");
    // the Ascend C docs of every advanced API emulated here (Tanh, Sigmoid, Erf, Sin, Cos, Floor, Ceil): source and
    // destination must not overlap at all -- in place (dst == src) included, unlike the basic vector APIs
    {
        uint64_t d0 = dst.addr_, d1 = d0 + uint64_t(count) * sizeof(T), s0 = src.addr_, s1 = s0 + uint64_t(count) * sizeof(T);
        if (count && d0 < s1 && s0 < d1)
            fail(api, line, std::string(d0 == s0 ? "in place (dst == src): " : "dst and src overlap: ") + api +
                 " does not support a destination that overlaps its source (use a separate buffer)");
    }
    uint64_t t0 = tmp.addr_, t1 = t0 + tmp.size_;
    for (auto* r : {&src, &dst}) {
        uint64_t a0 = r->addr_, a1 = a0 + uint64_t(count) * sizeof(T);
        if (a0 < t1 && t0 < a1) fail(api, line, "sharedTmpBuffer overlaps src or dst");
    }
    unary(api, dst, src, int32_t(count), line, f);
    std::memset(tmp.ptr(), 0xFF, size_t(need));     // scratch contents are undefined after
}
}  // namespace detail

#define ASC_SIM_ADV(NAME, EXPR)                                                                                 \
    template <class T, bool isReuseSource = false>                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t calCount, int line = __builtin_LINE()) {                                    \
        detail::adv(#NAME, dst, src, sharedTmpBuffer, calCount, line,                                           \
                    [](T x) { float v = detail::ld(x); return detail::st<T>(EXPR); });                          \
    }
ASC_SIM_ADV(Tanh, std::tanh(v))
ASC_SIM_ADV(Sigmoid, 1.0f / (1.0f + std::exp(-v)))
ASC_SIM_ADV(Erf, std::erf(v))
ASC_SIM_ADV(Sin, std::sin(v))
ASC_SIM_ADV(Cos, std::cos(v))
ASC_SIM_ADV(Floor, std::floor(v))
ASC_SIM_ADV(Ceil, std::ceil(v))
ASC_SIM_ADV(Exp, std::exp(v))
#undef ASC_SIM_ADV

// printf / DumpTensor: the kernel's output on the host's stdout (flushed at each call, so that it stays in order with
// the host's own output). DumpTensor prints its desc, the element type, the position and dumpSize elements.
namespace detail {
template <class V> inline auto print_arg(V v) {
    if constexpr (std::is_same<V, half>::value || std::is_same<V, bfloat16_t>::value) return double(float(v));
    else if constexpr (std::is_floating_point<V>::value) return double(v);
    else if constexpr (std::is_same<V, bool>::value) return int(v);
    else return v;
}
}  // namespace detail
template <class... A> inline void printf(const char* fmt, A... args) {
    ascend_sim::ctx("printf", 0);
    std::printf(fmt, detail::print_arg(args)...);
    std::fflush(stdout);
}
template <class T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, int line = __builtin_LINE()) {
    t.use("DumpTensor", dumpSize, line);
    t.check_written("DumpTensor", 0, dumpSize, line);
    std::string out = "DumpTensor: desc=" + std::to_string(desc) + ", dtype=" + type_name<T>::get() +
                      ", position=" + std::to_string(int(t.pos_)) + ", size=" + std::to_string(dumpSize) + ": [";
    char buf[64];
    for (uint32_t i = 0; i < dumpSize; ++i) {
        std::snprintf(buf, sizeof buf, i ? ", %g" : "%g", double(detail::print_arg(t.ptr()[i])));
        out += buf;
    }
    std::printf("%s]\n", out.c_str());
    std::fflush(stdout);
}

// Cast: the (src -> dst, round mode) pairs accepted on A2 (Ascend C Cast doc, table 4).
namespace detail {
template <class T> struct tcode { static constexpr int v = -1; };
template <> struct tcode<float> { static constexpr int v = 0; };
template <> struct tcode<half> { static constexpr int v = 1; };
template <> struct tcode<bfloat16_t> { static constexpr int v = 2; };
template <> struct tcode<int32_t> { static constexpr int v = 3; };
template <> struct tcode<int8_t> { static constexpr int v = 4; };
template <> struct tcode<uint8_t> { static constexpr int v = 5; };
template <> struct tcode<int16_t> { static constexpr int v = 6; };

inline bool cast_ok(int src, int dst, RoundMode m) {
    const int mi = int(m);
    const bool rint_trunc = mi >= 1 && mi <= 5;
    if (src == 1 && dst == 0) return m == RoundMode::CAST_NONE;                      // half -> float
    if (src == 2 && dst == 0) return m == RoundMode::CAST_NONE;                      // bfloat16 -> float
    if (src == 0 && dst == 1) return rint_trunc || m == RoundMode::CAST_ODD || m == RoundMode::CAST_NONE;
    if (src == 0 && dst == 2) return rint_trunc;                                     // float -> bfloat16
    if (src == 0 && dst == 0) return rint_trunc;                                     // float -> float (integral)
    if (src == 0 && dst == 3) return rint_trunc;                                     // float -> int32
    if (src == 3 && dst == 0) return rint_trunc || m == RoundMode::CAST_NONE;        // int32 -> float
    if ((src == 4 || src == 5) && dst == 1) return m == RoundMode::CAST_NONE;        // int8 / uint8 -> half
    if (src == 1 && (dst == 4 || dst == 5)) return rint_trunc || m == RoundMode::CAST_NONE;  // half -> int8 / uint8
    if (src == 6 && dst == 1) return rint_trunc || m == RoundMode::CAST_NONE;        // int16 -> half
    if (src == 6 && dst == 0) return m == RoundMode::CAST_NONE;                      // int16 -> float
    if ((src == 1 || src == 0) && dst == 6) return rint_trunc;                       // half / float -> int16
    if (src == 1 && dst == 3) return rint_trunc;                                     // half -> int32
    if (src == 3 && dst == 6) return m == RoundMode::CAST_NONE;                      // int32 -> int16
    return false;
}

inline float round_integral(float v, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_RINT: return std::nearbyint(v);
        case RoundMode::CAST_FLOOR: return std::floor(v);
        case RoundMode::CAST_CEIL: return std::ceil(v);
        case RoundMode::CAST_ROUND: return std::round(v);
        case RoundMode::CAST_TRUNC: return std::trunc(v);
        default: return v;
    }
}

template <class D> inline D convert(float v, RoundMode m);
template <> inline float convert<float>(float v, RoundMode m) { return round_integral(v, m); }
template <> inline half convert<half>(float v, RoundMode m) { return half::raw(ascend_sim::to_bits(v, int(m), 10, 5)); }
template <> inline bfloat16_t convert<bfloat16_t>(float v, RoundMode m) {
    return bfloat16_t::raw(ascend_sim::to_bits(v, int(m), 7, 8));
}
// half -> int8 / uint8: rounded by the mode (CAST_NONE: rint), out-of-range results saturate (Cast doc), NaN is 0
template <class I> inline I convert_small(float v, RoundMode m) {
    float r = round_integral(v, m == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : m);
    if (std::isnan(r)) return 0;
    if (r > float(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    if (r < float(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    return I(r);
}
template <> inline int8_t convert<int8_t>(float v, RoundMode m) { return convert_small<int8_t>(v, m); }
template <> inline uint8_t convert<uint8_t>(float v, RoundMode m) { return convert_small<uint8_t>(v, m); }
// int16: as int8 (rounded by the mode, saturating; int32 -> int16 saturates too, its values exact in float there)
template <> inline int16_t convert<int16_t>(float v, RoundMode m) { return convert_small<int16_t>(v, m); }
template <> inline int32_t convert<int32_t>(float v, RoundMode m) {
    float r = round_integral(v, m);
    if (std::isnan(r)) return 0;
    if (r >= 2147483648.0f) return INT32_MAX;
    if (r < -2147483648.0f) return INT32_MIN;
    return int32_t(r);
}
}  // namespace detail

template <class T, class U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, int line = __builtin_LINE()) {
    static const char* names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD"};
    if (!detail::cast_ok(detail::tcode<U>::v, detail::tcode<T>::v, round_mode))
        fail("Cast", line, std::string("Cast ") + type_name<U>::get() + " -> " + type_name<T>::get() +
             " does not accept RoundMode::" + names[int(round_mode)] + " on Ascend910B (A2)");
    detail::reading("Cast", src, int32_t(count), line);
    detail::writing("Cast", dst, int32_t(count), line);
    detail::same_or_apart("Cast", dst, int32_t(count), src, int32_t(count), line);
    std::vector<float> tmp(count);
    const U* s = src.ptr();
    for (uint32_t i = 0; i < count; ++i) tmp[i] = float(s[i]);
    T* d = dst.ptr();
    for (uint32_t i = 0; i < count; ++i) d[i] = detail::convert<T>(tmp[i], round_mode);
    detail::done(dst, int32_t(count));
}

// Compare / Select: the mask is one bit per element, little-endian (element i -> byte i / 8, bit i % 8).
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace detail {
template <class A> inline bool cmp(A a, A b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

template <class T, class U, class F>
inline void compare(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, uint32_t count, int line,
                    F rhs, CMPMODE mode) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, int32_t>::value,
                  "Compare / CompareScalar take half, float or int32_t (CMPMODE::EQ only) on A2");
    if (std::is_same<T, int32_t>::value && mode != CMPMODE::EQ)
        fail(api, line, "int32_t takes CMPMODE::EQ only on A2");
    if ((uint64_t(count) * sizeof(T)) % 256)
        fail(api, line, "count " + str(count) + " x " + str(sizeof(T)) + " B is not a multiple of 256 B");
    reading(api, src0, int32_t(count), line);
    writing(api, dst, int32_t((count + 7) / 8 / sizeof(U)), line);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr());
    std::memset(d, 0, count / 8);
    const T* a = src0.ptr();
    for (uint32_t i = 0; i < count; ++i)
        if (cmp(ld(a[i]), rhs(i), mode)) d[i / 8] |= uint8_t(1u << (i % 8));
    dst.mark_written(0, count / 8 / sizeof(U));
    ascend_sim::note(ascend_sim::cur->pendingV, dst.addr_, count / 8);
    dst.vector_writes(0, count / 8);
}
}  // namespace detail

template <class T, class U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, int line = __builtin_LINE()) {
    detail::reading("Compare", src1, int32_t(count), line);
    const T* b = src1.ptr();
    detail::compare("Compare", dst, src0, count, line, [b](uint32_t i) { return detail::ld(b[i]); }, cmpMode);
}

template <class T, class U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count, int line = __builtin_LINE()) {
    const auto s = detail::ld(src1Scalar);
    detail::compare("CompareScalar", dst, src0, count, line, [s](uint32_t) { return s; }, cmpMode);
}

template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, int line = __builtin_LINE()) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "Select takes half or float");
    if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE) fail("Select", line, "only VSEL_TENSOR_TENSOR_MODE is emulated");
    {
        auto& c = ascend_sim::ctx("Select", line);
        if (c.usedMem[0] + ascend_sim::SELECT_SCRATCH > ascend_sim::UB_SIZE)
            fail("Select", line, "Select (VSEL_TENSOR_TENSOR_MODE) needs " + str(ascend_sim::SELECT_SCRATCH) +
                 " B of Unified Buffer reserved as its temporary space on A2, but InitBuffer has handed out " +
                 str(c.usedMem[0]) + " B of the " + str(ascend_sim::UB_SIZE) + " B (at most " +
                 str(ascend_sim::UB_SIZE - ascend_sim::SELECT_SCRATCH) + " B with Select)");
    }
    detail::reading("Select", src0, int32_t(count), line);
    detail::reading("Select", src1, int32_t(count), line);
    selMask.use("Select", (count + 7) / 8 / sizeof(U), line);
    selMask.check_written("Select", 0, (count + 7) / 8 / sizeof(U), line);
    selMask.vector_reads("Select", 0, (count + 7) / 8, line);
    detail::writing("Select", dst, int32_t(count), line);
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.ptr());
    const T* a = src0.ptr();
    const T* b = src1.ptr();
    std::vector<T> r(count);
    for (uint32_t i = 0; i < count; ++i) r[i] = ((m[i / 8] >> (i % 8)) & 1) ? a[i] : b[i];
    std::memcpy(dst.ptr(), r.data(), count * sizeof(T));
    detail::done(dst, int32_t(count));
}

// Reductions (count form) with a work tensor of the documented size.
namespace detail {
template <class T> inline uint32_t reduce_work_elems(int32_t count, bool isMax) {
    int32_t per = int32_t(256 / sizeof(T));
    int32_t first = std::max<int32_t>(1, count / per);
    int32_t blk = int32_t(32 / sizeof(T));
    uint32_t w = uint32_t((first + blk - 1) / blk * blk);
    return isMax ? 2 * w : w;
}

template <class T, class F>
inline void reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                   int32_t count, bool isMax, int line, F f) {
    vec_check<T>(api);
    if (count <= 0) fail(api, line, "count must be positive");
    reading(api, src, count, line);
    writing(api, dst, 1, line);
    const uint32_t need = reduce_work_elems<T>(count, isMax);
    work.use(api, 0, line);
    if (work.size_ < need)
        fail(api, line, "the work tensor has " + str(work.size_) + " elements, " + str(need) + " are needed for count " +
             str(count));
    const T* s = src.ptr();
    float acc = 0.0f;
    if (isMax) {                                   // the extreme value does not depend on the order
        acc = ld(s[0]);
        for (int32_t i = 1; i < count; ++i) acc = f(acc, ld(s[i]));
    } else {
        // A2's count-form ReduceSum (asc-devkit dav_c220 ReduceSumImpl: one vcadd in counter mode into the
        // accumulator; ReduceSum.md's key features: the first of its ways for the count interface on Atlas A2):
        // each repeat of 256 B summed as a binary tree of adjacent pairs, the repeats' sums added in repeat order
        const int32_t per = int32_t(256 / sizeof(T));
        float lanes[128];
        for (int32_t r = 0; r * per < count; ++r) {
            const int32_t n = std::min(per, count - r * per);
            for (int32_t i = 0; i < n; ++i) lanes[i] = ld(s[r * per + i]);
            const float part = tree_sum(lanes, n, per);
            acc = r == 0 ? part : acc + part;
        }
    }
    work.mark_written(0, need);
    dst.ptr()[0] = st<T>(acc);
    done(dst, 1);
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, int line = __builtin_LINE()) {
    // summed as the NPU adds it (detail::reduce): a binary tree inside each 256-byte repeat, the repeats in order;
    // each addition rounds to float (also for half: the docs do not say how the vector unit rounds half partials)
    detail::reduce("ReduceSum", dst, src, work, count, false, line, [](float a, float b) { return a + b; });
}

namespace detail {
// calIndex: dst[1] holds the index of the first element equal to the result dst[0], an integer in the bits of T
// (uint16_t for half, uint32_t for float; the docs: a half index is at most 65535)
template <class T>
inline void reduce_index(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count, int line) {
    if (sizeof(T) == 2 && count > 65536) fail(api, line, "calIndex with half: an index above 65535 has no uint16_t");
    writing(api, dst, 2, line);
    const float best = float(dst.ptr()[0]);
    int32_t at = 0;
    while (at < count - 1 && float(src.ptr()[at]) != best) ++at;
    dst.ptr()[1] = index_bits<T>(uint32_t(at));
    done(dst, 2);
}
}  // namespace detail

template <class T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, bool calIndex = false, int line = __builtin_LINE()) {
    detail::reduce("ReduceMax", dst, src, work, count, true, line,
                   [](float a, float b) { return (std::isnan(a) || a >= b) ? a : b; });
    if (calIndex) detail::reduce_index("ReduceMax", dst, src, count, line);
}

template <class T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                      const int32_t count, bool calIndex = false, int line = __builtin_LINE()) {
    detail::reduce("ReduceMin", dst, src, work, count, true, line,
                   [](float a, float b) { return (std::isnan(a) || a <= b) ? a : b; });
    if (calIndex) detail::reduce_index("ReduceMin", dst, src, count, line);
}

// ------------------------------------------------------------------ cube path (AIC): GM -> L1 (ND -> NZ) -> L0A / L0B -> Mmad -> L0C -> Fixpipe -> GM
// Fractals are 512 B: 16 x C0 elements with C0 = 32 B / sizeof(T) (16 for 16-bit data, 8 for float). NZ in L1:
// element (r, c) of a matrix with R (padded) rows at ((c / C0) * R + r) * C0 + c % C0; L0A "Zz": 16 x C0 fractals
// (rows of M, columns of K) row-major, inside row-major; L0B "Zn": C0 x 16 fractals (K x N) row-major, inside
// column-major (element (k, n) of a fractal at n * C0 + k); L0C "Nz": 16 x 16 float fractals column-major, inside
// row-major. The cube computes whole fractals: Mmad reads M and N rounded up to 16 and K rounded up to C0 (A2,
// kDirectionAlign = false), so the K padding must hold zeros; a result element is valid (written) only where every
// element it read was, and Fixpipe refuses to move an invalid one (so padding garbage may sit in rows and columns
// whose results are never written back).

struct Nd2NzParams {
    uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
             dstNzNStride = 1, dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t a, uint16_t n, uint16_t d, uint16_t sm, uint16_t sd, uint16_t c0, uint16_t ns, uint16_t dm)
        : ndNum(a), nValue(n), dValue(d), srcNdMatrixStride(sm), srcDValue(sd), dstNzC0Stride(c0), dstNzNStride(ns),
          dstNzMatrixStride(dm) {}
};

struct LoadData2DParams {
    uint16_t startIndex = 0, dstGap = 0, srcStride = 0;
    bool ifTranspose = false;
    uint8_t repeatTimes = 0, sid = 0, addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start, uint8_t rep, uint16_t srcS, uint8_t sid_, uint16_t gap, bool tr, uint8_t mode)
        : startIndex(start), dstGap(gap), srcStride(srcS), ifTranspose(tr), repeatTimes(rep), sid(sid_), addrMode(mode) {}
};

// LoadDataWithTranspose (A2): each repeat takes a 16 x 16 square (for float: two consecutive 16 x 8 fractals, side by
// side), transposes it and splits it into two 16 x 8 fractals; srcStride in squares, dstGap / dstFracGap in 512 B
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0, dstGap = 0, dstFracGap = 0;
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start, uint8_t rep, uint16_t srcS, uint16_t gap, uint16_t fracGap, uint8_t mode)
        : startIndex(start), repeatTimes(rep), srcStride(srcS), dstGap(gap), dstFracGap(fracGap), addrMode(mode) {}
};

// Fill (InitConstValue): repeatTimes x blockNum blocks of 32 B (L1) or 512 B (L0A / L0B), dstGap blocks apart
template <class T>
struct InitConstValueParams {
    uint16_t repeatTimes = 0, blockNum = 0, dstGap = 0;
    T initValue = T(0.0f);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t rep, uint16_t blocks, uint16_t gap, T value)
        : repeatTimes(rep), blockNum(blocks), dstGap(gap), initValue(value) {}
};

struct MmadParams {
    uint16_t m = 0, n = 0, k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false, enWinogradA = false, enWinogradB = false;
    uint8_t unitFlag = 0;
    bool cmatrixSource = false, cmatrixInitVal = true;
    MmadParams() = default;
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, uint8_t unit, bool src, bool init)
        : m(m_), n(n_), k(k_), unitFlag(unit), cmatrixSource(src), cmatrixInitVal(init) {}
    MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, bool bias, int32_t fmOff, bool ssparse, bool wa, bool wb)
        : m(m_), n(n_), k(k_), isBias(bias), fmOffset(fmOff), enSsparse(ssparse), enWinogradA(wa), enWinogradB(wb) {}
};

struct FixpipeParamsV220 {
    uint16_t nSize = 0, mSize = 0, srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t ss, uint32_t ds, bool relu)
        : nSize(n), mSize(m), srcStride(ss), dstStride(ds), reluEn(relu) {}
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t ss, uint32_t ds, bool relu, QuantMode_t q, int64_t deq,
                      uint16_t nd, uint16_t srcNd, uint16_t dstNd, uint8_t unit, bool split = false)
        : nSize(n), mSize(m), srcStride(ss), dstStride(ds), quantPre(q), deqScalar(uint64_t(deq)), ndNum(nd),
          srcNdStride(srcNd), dstNdStride(dstNd), reluEn(relu), unitFlag(unit), isChannelSplit(split) {}
};

struct FixpipeConfig { bool rowMajor; };
constexpr FixpipeConfig CFG_ROW_MAJOR = {true};
constexpr FixpipeConfig CFG_NZ = {false};

namespace detail {
// the cube operand types asc-sim emulates: 16-bit (half, bfloat16), float and int8_t (16 x 32 fractals)
template <class T> constexpr bool cube_type() {
    return sizeof(T) == 2 || std::is_same<T, float>::value || std::is_same<T, int8_t>::value;
}
template <class T> constexpr uint32_t cube_c0() { return 32 / sizeof(T); }
// element i of tensor t holds written data (the shadow marks every byte)
template <class T> inline bool elem_written(const LocalTensor<T>& t, uint64_t i) {
    const uint8_t* w = t.shadow() + i * sizeof(T);
    for (size_t b = 0; b < sizeof(T); ++b)
        if (!w[b]) return false;
    return true;
}
// dst[d] = src[s] with its written state (LoadData moves whole fractals, garbage included)
template <class T> inline void move_elem(const LocalTensor<T>& dst, uint64_t d, const LocalTensor<T>& src, uint64_t s) {
    dst.ptr()[d] = src.ptr()[s];
    std::memcpy(dst.shadow() + d * sizeof(T), src.shadow() + s * sizeof(T), sizeof(T));
}
}  // namespace detail

// the system workspace (the Matmul / cross-core workspace of a kernel): SetSysWorkspace keeps the first one given,
// as CANN's g_sysWorkspaceReserved; GetSysWorkspacePtr before any refuses (it would hand out a null pointer)
inline void SetSysWorkspace(GM_ADDR workspace, int line = __builtin_LINE()) {
    ascend_sim::BlockCtx& c = ascend_sim::ctx("SetSysWorkspace", line);
    if (workspace == nullptr) fail("SetSysWorkspace", line, "workspace can not be nullptr");
    if (c.sysWorkspace == nullptr) c.sysWorkspace = workspace;
}

inline GM_ADDR GetSysWorkspacePtr(int line = __builtin_LINE()) {
    ascend_sim::BlockCtx& c = ascend_sim::ctx("GetSysWorkspacePtr", line);
    if (c.sysWorkspace == nullptr)
        fail("GetSysWorkspacePtr", line, "no system workspace: call SetSysWorkspace(workspace) first");
    return c.sysWorkspace;
}

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p,
                     int line = __builtin_LINE()) {
    const char* api = "DataCopy(Nd2Nz)";
    static_assert(detail::cube_type<T>(), "asc-sim emulates ND->NZ copies of 16-bit data, float and int8_t");
    constexpr uint32_t C0 = detail::cube_c0<T>();
    if (dst.mem_ != 1) fail(api, line, "the destination of an ND->NZ copy must be in L1 (A1/B1)");
    if (p.ndNum != 1) fail(api, line, "ndNum != 1 is not emulated");
    if (p.dstNzNStride != 1) fail(api, line, "dstNzNStride != 1 is not emulated");
    if (p.dstNzC0Stride < p.nValue) fail(api, line, "dstNzC0Stride is smaller than nValue (strips would overlap)");
    const uint32_t strips = (p.dValue + C0 - 1) / C0;
    dst.use(api, uint64_t(strips) * p.dstNzC0Stride * C0, line);
    src.check(api, 0, p.nValue ? uint64_t(p.nValue - 1) * p.srcDValue + p.dValue : 0, line);
    T* d = dst.ptr();
    for (uint32_t r = 0; r < p.nValue; ++r)
        for (uint32_t c = 0; c < strips * C0; ++c) {
            uint64_t at = (uint64_t(c / C0) * p.dstNzC0Stride + r) * C0 + c % C0;
            d[at] = c < p.dValue ? src.base_[uint64_t(r) * p.srcDValue + c] : T(0);   // columns zero padded
            dst.mark_written(at, 1);
        }
}

template <class T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<T>& p, int line = __builtin_LINE()) {
    const char* api = "Fill";
    ascend_sim::ctx(api, line);
    if (dst.mem_ < 1 || dst.mem_ > 3) fail(api, line, "Fill initialises L1 (A1/B1), L0A (A2) or L0B (B2) tensors");
    const uint32_t block = dst.mem_ == 1 ? 32 : 512;
    if (dst.addr_ % block) fail(api, line, "the destination is not " + str(block) + "-byte aligned");
    const uint64_t per = block / sizeof(T);
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t at = uint64_t(i) * (uint64_t(p.blockNum) + p.dstGap) * per;
        dst.use(api, at + p.blockNum * per, line);
        for (uint64_t e = 0; e < p.blockNum * per; ++e) dst.ptr()[at + e] = p.initValue;
        dst.mark_written(at, p.blockNum * per);
    }
}

template <class T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p,
                     int line = __builtin_LINE()) {
    const char* api = "LoadData";
    static_assert(detail::cube_type<T>(), "asc-sim emulates LoadData of 16-bit, float and int8_t fractals");
    constexpr uint32_t FE = 512 / sizeof(T);       // elements of one fractal
    if (src.mem_ != 1 || (dst.mem_ != 2 && dst.mem_ != 3))
        fail(api, line, "LoadData2D moves fractals from L1 (A1/B1) to L0A/L0B (A2/B2)");
    if (p.repeatTimes == 0) fail(api, line, "repeatTimes must be in [1, 255]");
    if (dst.addr_ % 512) fail(api, line, "the L0 destination is not 512-byte aligned");
    if (p.ifTranspose && sizeof(T) != 2)
        fail(api, line, "ifTranspose transposes fractals of 16-bit data only (float: LoadDataWithTranspose)");
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t sf = uint64_t(p.startIndex) + uint64_t(i) * p.srcStride;
        const uint64_t df = uint64_t(i) * (1u + p.dstGap);
        src.use(api, (sf + 1) * FE, line);
        dst.use(api, (df + 1) * FE, line);
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < FE / 16; ++c)
                detail::move_elem(dst, df * FE + r * (FE / 16) + c, src,
                                  sf * FE + (p.ifTranspose ? c * 16 + r : r * (FE / 16) + c));
    }
}

template <class T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& p, int line = __builtin_LINE()) {
    const char* api = "LoadDataWithTranspose";
    static_assert(std::is_same<T, float>::value, "asc-sim emulates LoadDataWithTranspose of float");
    if (src.mem_ != 1 || (dst.mem_ != 2 && dst.mem_ != 3))
        fail(api, line, "LoadDataWithTranspose moves fractals from L1 (A1/B1) to L0A/L0B (A2/B2)");
    if (dst.addr_ % 512) fail(api, line, "the L0 destination is not 512-byte aligned");
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        const uint64_t sq = (uint64_t(p.startIndex) + uint64_t(i) * p.srcStride) * 256;   // 16 x 16 floats
        const uint64_t d0 = uint64_t(i) * (1u + p.dstGap) * 128;
        const uint64_t d1 = d0 + (1u + p.dstFracGap) * 128;
        src.use(api, sq + 256, line);
        dst.use(api, d1 + 128, line);
        // square element (r, c): fractal c / 8 of the pair, (r, c % 8) inside; the result is its transpose
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < 16; ++c) {
                const uint64_t from = sq + (c / 8) * 128 + r * 8 + c % 8;     // S(r, c)
                const uint64_t to = (r / 8 ? d1 : d0) + c * 8 + r % 8;       // T(c, r) = S(r, c)
                detail::move_elem(dst, to, src, from);
            }
    }
}

template <class T, class U, class S, class B>
inline void mmad_impl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                      const LocalTensor<B>* bias, const MmadParams& p, int line) {
    const char* api = "Mmad";
    constexpr bool int8 = std::is_same<U, int8_t>::value;
    static_assert(std::is_same<U, S>::value && detail::cube_type<U>() &&
                  (int8 ? std::is_same<T, int32_t>::value : std::is_same<T, float>::value),
                  "asc-sim emulates Mmad of half x half, bfloat16 x bfloat16 and float x float into float, and of "
                  "int8_t x int8_t into int32_t (the pairs of Mmad.md for Atlas A2/A3)");
    using Acc = typename std::conditional<int8, int32_t, float>::type;
    constexpr uint32_t C0 = detail::cube_c0<U>();
    if (ascend_sim::ctx(api, line).coreType == 2) fail(api, line, "Mmad runs on the cube core (AIC), not on an AIV");
    if (fm.mem_ != 2 || filter.mem_ != 3 || dst.mem_ != 4)
        fail(api, line, "Mmad takes the left matrix in L0A (A2), the right in L0B (B2), the result in L0C (CO1)");
    if (p.isBias) fail(api, line, "isBias is not emulated (accumulate into L0C with cmatrixInitVal = false)");
    static_assert(std::is_same<B, T>::value, "the bias of Mmad is of the L0C's type (float; int32_t for int8_t)");
    if (bias) {
        if (bias->mem_ != 5) fail(api, line, "the bias of Mmad is in the BiasTable buffer (C2)");
        if (bias->addr_ % 64) fail(api, line, "the bias is not 64-byte aligned");
        if (!p.cmatrixInitVal)
            fail(api, line, "cmatrixInitVal = false with a bias tensor: the bias form initializes C from the "
                 "BiasTable (accumulate without a bias)");
    }
    if (p.fmOffset || p.enSsparse || p.enWinogradA || p.enWinogradB)
        fail(api, line, "fmOffset, enSsparse and enWinogradA/B are not emulated");
    if (p.cmatrixSource) fail(api, line, "cmatrixSource = true (the initial C matrix from the bias table C2) is not "
                                         "emulated");
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    if (p.m == 1) fail(api, line, "m == 1 switches Mmad to GEMV (A read as ND): pad m to 16");
    // whole fractals: M and N up to 16, K up to C0 (16-bit: 16; float: 8, kDirectionAlign = false; int8_t: 32)
    const uint32_t M = (p.m + 15u) / 16u * 16u, N = (p.n + 15u) / 16u * 16u, K = (p.k + C0 - 1) / C0 * C0;
    const uint32_t KF = K / C0;
    fm.use(api, uint64_t(M) * K, line);
    filter.use(api, uint64_t(K) * N, line);
    dst.use(api, uint64_t(M) * N, line);
    if (bias) {
        bias->use(api, p.n, line);
        bias->check_written(api, 0, p.n, line);
    }
    const U* a = fm.ptr();
    const S* b = filter.ptr();
    T* c = dst.ptr();
    for (uint32_t mi = 0; mi < M; ++mi)
        for (uint32_t ni = 0; ni < N; ++ni) {
            const uint64_t at = (((ni / 16) * (M / 16) + mi / 16) * 16 + mi % 16) * 16 + ni % 16;
            bool ok = p.cmatrixInitVal || detail::elem_written(dst, at);
            // the bias form: C starts from the bias row (columns past n are invalid)
            if (bias && ni >= p.n) ok = false;
            Acc acc = bias && ok ? Acc(bias->ptr()[ni]) : Acc(0);
            for (uint32_t ki = 0; ki < K && ok; ++ki) {
                const uint64_t ai = ((uint64_t(mi / 16) * KF + ki / C0) * 16 + mi % 16) * C0 + ki % C0;
                const uint64_t bi = ((uint64_t(ki / C0) * (N / 16) + ni / 16) * 16 + ni % 16) * C0 + ki % C0;
                ok = detail::elem_written(fm, ai) && detail::elem_written(filter, bi);
                if (int8)        // int8_t products are exact in int32_t; the sum wraps as the int32_t accumulator
                    acc = Acc(uint32_t(acc) + uint32_t(int32_t(a[ai]) * int32_t(b[bi])));
                else
                    acc += Acc(float(a[ai]) * float(b[bi]));
            }
            if (ok) {
                if (int8)
                    c[at] = p.cmatrixInitVal ? T(acc) : T(uint32_t(c[at]) + uint32_t(acc));
                else
                    c[at] = p.cmatrixInitVal ? T(acc) : T(float(c[at]) + float(acc));
                dst.mark_written(at, 1);
            } else {                     // read padding garbage: an invalid result (Fixpipe refuses to move it)
                c[at] = int8 ? T(0) : T(std::numeric_limits<float>::quiet_NaN());
                std::memset(dst.shadow() + at * sizeof(T), 0, sizeof(T));
            }
        }
}

template <class T, class U, class S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p, int line = __builtin_LINE()) {
    mmad_impl<T, U, S, T>(dst, fm, filter, nullptr, p, line);
}

// the bias form: C = A B + the bias row (1 x n, in the BiasTable buffer: float, int32_t for int8_t operands)
template <class T, class U, class S, class B>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<B>& bias, const MmadParams& p, int line = __builtin_LINE()) {
    mmad_impl<T, U, S, B>(dst, fm, filter, &bias, p, line);
}

namespace detail {
// Fixpipe's quantization word (deqScalar, or one uint64_t of the cbufWorkspace per column), as the Fixpipe docs'
// "随路量化" table gives it for NPU architecture 2201: bits [31:0] a float of which the hardware uses only
// 1 sign + 8 exponent + 10 mantissa bits ([31:13]; the low 13 bits are cleared), [35:32] N (the right shift of
// (V)REQ8), bit 36 MCB (shift the int32_t by N into int16_t first), [45:37] Offset (a 9-bit integer added after the
// scaling; not used by (V)DEQF16), bit 46 Sign (1: an int8_t result, 0: uint8_t; (V)REQ8, (V)QF322B8_PRE).
// asc emulates MCB = 0 and Offset = 0 only: the docs give N two encodings (the table: b'0000 shifts by 1; the
// reference script: by 0) and do not say whether Offset is signed, so a word using either is refused.
struct QuantWord {
    float m1;
    bool sign;
};
inline QuantWord quant_word(uint64_t w, const char* api, int line, const std::string& which) {
    const uint32_t f = uint32_t(w) & 0xFFFFE000u;
    const uint32_t ex = (f >> 23) & 0xFF, man = (f >> 13) & 0x3FF;
    if (ex == 0xFF) fail(api, line, which + ": the scale (bits [31:13]) is inf or nan, which the docs forbid");
    if (ex == 0 && man != 0) fail(api, line, which + ": the scale (bits [31:13]) is a subnormal float, which the "
                                  "docs forbid");
    if ((w >> 36) & 1)
        fail(api, line, which + ": MCB (bit 36, shift the int32_t right by N first) is not emulated: the docs give "
             "N two encodings");
    if ((w >> 37) & 0x1FF)
        fail(api, line, which + ": a nonzero Offset (bits [45:37]) is not emulated: the docs do not say whether "
             "the 9-bit Offset is signed");
    float m1;
    std::memcpy(&m1, &f, sizeof(f));
    return {m1, bool((w >> 46) & 1)};
}
// one element through the pre-quantization stage: M1 for a value >= 0, M2 (= M1, or 0 with reluEn) below
template <class T, class U> inline T quantize(U v, float m1, bool relu) {
    const float x = float(v);                 // an int32_t L0C element converted to float (round to nearest even)
    const float y = x * (x >= 0.0f ? m1 : (relu ? 0.0f : m1));
    if constexpr (std::is_same<T, half>::value) {          // (V)DEQF16: to half, saturating (no inf)
        half h(y);
        if (std::isinf(float(h))) h = half(y > 0 ? 65504.0f : -65504.0f);
        return h;
    } else {                                                // (V)REQ8 / (V)QF322B8_PRE: rint, saturate
        constexpr float lo = std::is_same<T, int8_t>::value ? -128.0f : 0.0f;
        constexpr float hi = std::is_same<T, int8_t>::value ? 127.0f : 255.0f;
        float r = std::nearbyint(std::min(std::max(y, -256.0f), 255.0f));
        return T(std::min(std::max(r, lo), hi));
    }
}
inline bool vector_quant(QuantMode_t q) { return q == VDEQF16 || q == VQF322B8_PRE || q == VREQ8; }
inline const char* quant_name(QuantMode_t q) {
    static const char* names[] = {"NoQuant", "F322F16", "F322BF16", "DEQF16", "VDEQF16", "QF322B8_PRE",
                                  "VQF322B8_PRE", "REQ8", "VREQ8"};
    return unsigned(q) < 9 ? names[q] : "?";
}
}  // namespace detail

// Fixpipe from L0C: a float L0C (Mmad of half / bfloat16 / float) to float (NoQuant), half (F322F16), bfloat16_t
// (F322BF16), int8_t / uint8_t ((V)QF322B8_PRE); an int32_t L0C (Mmad of int8_t) to int32_t (NoQuant), half
// ((V)DEQF16), int8_t / uint8_t ((V)REQ8) -- the pairs the Fixpipe docs give for Atlas A2 / A3. The V modes take
// one quantization word per column (column j of the nSize moved) from cbufWorkspace (a uint64_t tensor in L1,
// 32-byte aligned); the scalar modes take deqScalar.
template <class T, class U, const FixpipeConfig& cfg, class S>
inline void fixpipe_impl(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>* cbuf,
                         const FixpipeParamsV220& p, int line) {
    const char* api = "Fixpipe";
    constexpr bool i32 = std::is_same<U, int32_t>::value;
    static_assert(std::is_same<U, float>::value || i32, "Fixpipe reads a float or int32_t L0C");
    static_assert(i32 ? (std::is_same<T, int32_t>::value || std::is_same<T, half>::value ||
                         std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value)
                      : (std::is_same<T, float>::value || std::is_same<T, half>::value ||
                         std::is_same<T, bfloat16_t>::value || std::is_same<T, int8_t>::value ||
                         std::is_same<T, uint8_t>::value),
                  "Fixpipe moves a float L0C to float, half, bfloat16_t, int8_t or uint8_t and an int32_t L0C to "
                  "int32_t, half, int8_t or uint8_t (Atlas A2 / A3)");
    if (!cfg.rowMajor) fail(api, line, "CFG_NZ output is not emulated");
    if (src.mem_ != 4) fail(api, line, "Fixpipe reads L0C (CO1)");
    const QuantMode_t q = p.quantPre;
    if (unsigned(q) > unsigned(VREQ8)) fail(api, line, "quantPre " + str(uint64_t(q)) + " is not a QuantMode_t");
    if (p.ndNum != 1) fail(api, line, "ndNum != 1 is not emulated");
    if (p.srcStride % 16 || p.srcStride < p.mSize) fail(api, line, "srcStride must be the row count padded to 16");
    const bool b8 = std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value;
    const std::string qn = detail::quant_name(q), src_t = type_name<U>::get(), dst_t = type_name<T>::get();
    // the dtype / quantPre pairs (the Fixpipe docs' quantPre list)
    if (std::is_same<T, half>::value && !i32 && q != F322F16) fail(api, line, "a half output needs quantPre = F322F16");
    if (std::is_same<T, bfloat16_t>::value && q != F322BF16)
        fail(api, line, "a bfloat16 output needs quantPre = F322BF16");
    if ((std::is_same<T, float>::value || std::is_same<T, int32_t>::value) && q != NoQuant)
        fail(api, line, (dst_t[0] == 'i' ? "an " : "a ") + dst_t + " output needs NoQuant, not " + qn);
    QuantMode_t need_s, need_v = NoQuant;
    if (std::is_same<T, half>::value) need_s = i32 ? DEQF16 : F322F16, need_v = i32 ? VDEQF16 : NoQuant;
    else if (std::is_same<T, bfloat16_t>::value) need_s = F322BF16;
    else if (b8) need_s = i32 ? REQ8 : QF322B8_PRE, need_v = i32 ? VREQ8 : VQF322B8_PRE;
    else need_s = NoQuant;
    if (q != need_s && (need_v == NoQuant || q != need_v)) {
        std::string want = detail::quant_name(need_s);
        if (need_v != NoQuant) want += std::string(" or ") + detail::quant_name(need_v);
        fail(api, line, (i32 ? "an " : "a ") + src_t + " L0C to " + (dst_t[0] == 'i' ? "an " : "a ") + dst_t +
             " output needs quantPre = " + want + ", not " + qn);
    }
    const bool vec = detail::vector_quant(q);
    if (vec && cbuf == nullptr)
        fail(api, line, "quantPre = " + qn + " takes its per-column scales from a cbufWorkspace: call "
             "Fixpipe(dst, src, cbufWorkspace, params)");
    if (!vec && cbuf != nullptr)
        fail(api, line, "a cbufWorkspace is used with quantPre VDEQF16, VQF322B8_PRE or VREQ8 only, not " + qn);
    const uint32_t strips = (p.nSize + 15) / 16;
    src.use(api, uint64_t(strips) * p.srcStride * 16, line);
    dst.check(api, 0, p.mSize ? uint64_t(p.mSize - 1) * p.dstStride + p.nSize : 0, line);
    if (ascend_sim::ctx(api, line).coreType == 2) fail(api, line, "Fixpipe runs on the cube core (AIC), not on an AIV");
    // the scales: one word for every column (deqScalar repeated, or the cbufWorkspace's)
    const bool quant = q == DEQF16 || q == VDEQF16 || q == QF322B8_PRE || q == VQF322B8_PRE || q == REQ8 ||
                       q == VREQ8;
    std::vector<detail::QuantWord> words;
    if (quant) {
        if (vec) {
            if (cbuf->mem_ != 1) fail(api, line, "the cbufWorkspace must be in L1 (A1/B1/C1)");
            if (cbuf->addr_ % 32) fail(api, line, "the cbufWorkspace is not 32-byte aligned");
            cbuf->use(api, p.nSize, line);
            cbuf->check_written(api, 0, p.nSize, line);
        }
        for (uint32_t j = 0; j < p.nSize; ++j) {
            const uint64_t w = vec ? uint64_t(cbuf->ptr()[j]) : p.deqScalar;
            const std::string which = vec ? "cbufWorkspace[" + str(j) + "]" : std::string("deqScalar");
            words.push_back(detail::quant_word(w, api, line, which));
            if (b8 && words.back().sign != std::is_same<T, int8_t>::value)
                fail(api, line, which + ": the Sign bit (46) is " + str(uint64_t(words.back().sign)) + " but the "
                     "output is " + dst_t + " (1: int8_t, 0: uint8_t)");
            if (!vec) break;
        }
    }
    const U* c = src.ptr();
    ascend_sim::Launch* L = ascend_sim::launch;
    for (uint32_t mi = 0; mi < p.mSize; ++mi)
        for (uint32_t ni = 0; ni < p.nSize; ++ni) {
            uint64_t at = (uint64_t(ni / 16) * p.srcStride + mi) * 16 + ni % 16;
            src.check_written(api, at, 1, line);
            T* o = &dst.base_[uint64_t(mi) * p.dstStride + ni];
            if (quant) {
                const detail::QuantWord& w = words[vec ? ni : 0];
                if constexpr (std::is_same<T, half>::value || std::is_same<T, int8_t>::value ||
                              std::is_same<T, uint8_t>::value)
                    *o = detail::quantize<T>(c[at], w.m1, p.reluEn);
            } else {
                U v = c[at];
                if (p.reluEn && v < U(0)) v = U(0);
                if constexpr (std::is_same<T, int32_t>::value) *o = T(v);
                else *o = T(float(v));
            }
            if (L && L->mix) ascend_sim::cube_write(o, sizeof(T), api, line);
        }
}

template <class T, class U, const FixpipeConfig& cfg = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p,
                    int line = __builtin_LINE()) {
    fixpipe_impl<T, U, cfg, uint64_t>(dst, src, nullptr, p, line);
}

// the per-column (tensor) quantization: cbufWorkspace holds one uint64_t word per column
template <class T, class U, const FixpipeConfig& cfg = CFG_ROW_MAJOR, class S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p, int line = __builtin_LINE()) {
    fixpipe_impl<T, U, cfg, S>(dst, src, &cbufWorkspace, p, line);
}

}  // namespace AscendC

// ------------------------------------------------------------------ the launcher used by asc's generated wrapper

namespace ascend_sim {

// Runs body(blockIdx) for every block on up to `threads` worker threads; the first violation stops the launch and
// is written to err (message) / *errLine (kernel source line) / *errBlock. Returns 0 or 1. coreType: 0 for the
// blocks of an AIV-only launch, 1 for those of an AIC-only one (KERNEL_TYPE_AIC_ONLY: ASCEND_IS_AIC holds).
template <class F>
inline int run_blocks(uint32_t blockDim, unsigned threads, F body, char* err, int errLen, int* errLine, int* errBlock,
                      int coreType = 0) {
    Launch L;
    launch = &L;
    std::mutex mu;
    bool failed = false;
    std::string msg;
    int line = 0, blk = -1;
    std::atomic<uint32_t> next{0};
    auto worker = [&]() {
        BlockCtx* c = new BlockCtx();
        for (;;) {
            uint32_t b = next.fetch_add(1);
            if (b >= blockDim) break;
            {
                std::lock_guard<std::mutex> g(mu);
                if (failed) break;
            }
            c->reset(b, blockDim, coreType);
            cur = c;
            try {
                body(b);
                if (!c->leaks.empty()) fail("kernel end", 0, c->leaks.front());
            } catch (const Violation& v) {
                std::lock_guard<std::mutex> g(mu);
                if (!failed) {
                    failed = true;
                    msg = v.api + ": " + v.msg;
                    line = v.line;
                    blk = int(b);
                }
            }
            cur = nullptr;
        }
        delete c;
    };
    unsigned n = std::max(1u, std::min<unsigned>(threads, blockDim));
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < n; ++i) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    launch = nullptr;
    gm_extents.clear();          // they were this launch's
    if (!failed && L.raced) {
        failed = true;
        msg = L.raceApi + ": " + L.raceMsg;
        line = L.raceLine;
        blk = int(L.raceBlock);
    }
    if (failed) {
        std::snprintf(err, size_t(errLen), "%s", msg.c_str());
        *errLine = line;
        *errBlock = blk;
        return 1;
    }
    return 0;
}


// A KERNEL_TYPE_MIX_AIC_1_2 launch of blockDim logical cores: blockDim AICs (GetBlockIdx in [0, blockDim)) and
// 2 * blockDim AIVs (GetBlockIdx in [0, 2 * blockDim)), GetBlockNum() = blockDim on both; all of them run at once
// (one thread each) so that SyncAll<false>() can hold them at its barrier.
// aivOnly: a KERNEL_TYPE_MIX_AIV_1_0 launch instead, blockDim AIVs all at once (SyncAll<true>() holds them).
template <class F>
inline int run_mix_blocks(uint32_t blockDim, F body, char* err, int errLen, int* errLine, int* errBlock,
                          bool aivOnly = false) {
    Launch L;
    L.mix = !aivOnly;
    L.aivSync = aivOnly;
    L.cores = aivOnly ? blockDim : 3 * blockDim;
    launch = &L;
    std::string msg;
    int line = 0, blk = -1;
    bool failed = false;
    auto worker = [&](uint32_t i) {
        BlockCtx* c = new BlockCtx();
        const bool aic = !aivOnly && i < blockDim;
        if (aivOnly) c->reset(i, blockDim, 0);
        else c->reset(aic ? i : i - blockDim, blockDim, aic ? 1 : 2);
        cur = c;
        try {
            body(i);
            if (!c->leaks.empty()) fail("kernel end", 0, c->leaks.front());
        } catch (const Violation& v) {
            std::lock_guard<std::mutex> g(L.mu);
            if (!failed) {
                failed = true;
                msg = v.api + ": " + v.msg + (aivOnly ? "" : (aic ? " (on AIC " : " (on AIV ") + std::to_string(c->idx) + ")");
                line = v.line;
                blk = int(c->idx);
            }
            L.aborted = true;
            L.cv.notify_all();
        }
        {
            std::lock_guard<std::mutex> g(L.mu);
            ++L.ended;
            if (L.arrived && L.arrived + L.ended == L.cores) {   // the others wait at a SyncAll this core never reached
                L.aborted = true;
                L.cv.notify_all();
            }
        }
        cur = nullptr;
        delete c;
    };
    std::vector<std::thread> pool;
    for (uint32_t i = 1; i < L.cores; ++i) pool.emplace_back(worker, i);
    worker(0);
    for (auto& t : pool) t.join();
    launch = nullptr;
    gm_extents.clear();          // they were this launch's
    if (!failed && L.raced) {
        failed = true;
        msg = L.raceApi + ": " + L.raceMsg;
        line = L.raceLine;
        blk = int(L.raceBlock);
    }
    if (failed) {
        std::snprintf(err, size_t(errLen), "%s", msg.c_str());
        *errLine = line;
        *errBlock = blk;
        return 1;
    }
    return 0;
}

}  // namespace ascend_sim

// the advanced APIs CANN declares through kernel_operator.h, each in its own header here
#include "lib/ascend_quant.h"
