// ascend-sim (kernel_operator.h): the emulator's state: each block's memories and the pipes' pending writes, the
// launch, the GM extents, and the helpers every check uses (fail, ctx, the cross-core and MIX rules).
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace ascend_sim {

// The chip's sizes are asc's (asc/chip.py, declared there once): asc.runtime.ascend_sim passes them as -D flags
// (ascend_sim.chip_flags()). They are not written here, so that the emulation cannot drift from the planner.
#if !defined(ASC_CHIP_UB_BYTES) || !defined(ASC_CHIP_UB_BLOCK) || !defined(ASC_CHIP_SELECT_SCRATCH) || \
    !defined(ASC_CHIP_L1_BYTES) || !defined(ASC_CHIP_L1_RESERVED) || !defined(ASC_CHIP_L0A_BYTES) || \
    !defined(ASC_CHIP_L0B_BYTES) || !defined(ASC_CHIP_L0C_BYTES) || !defined(ASC_CHIP_BT_BYTES)
#error "ascend-sim takes the chip's sizes as -DASC_CHIP_...=N flags from asc (asc.runtime.ascend_sim.chip_flags())"
#endif
constexpr uint32_t UB_SIZE = ASC_CHIP_UB_BYTES;        // the Unified Buffer of a vector core
constexpr uint32_t UB_BLOCK = ASC_CHIP_UB_BLOCK;       // a DataBlock
constexpr uint32_t SELECT_SCRATCH = ASC_CHIP_SELECT_SCRATCH;   // Select modes 1/2 on A2: UB kept as its scratch
constexpr int MAX_QUE_BUFFERS_PER_POS = 8;
constexpr uint32_t L1_SIZE = ASC_CHIP_L1_BYTES, L0A_SIZE = ASC_CHIP_L0A_BYTES, L0B_SIZE = ASC_CHIP_L0B_BYTES,
                   L0C_SIZE = ASC_CHIP_L0C_BYTES;
constexpr uint32_t BT_SIZE = ASC_CHIP_BT_BYTES;        // the BiasTable buffer (C2) of the Atlas A2 / A3
constexpr uint32_t L1_RESERVED = ASC_CHIP_L1_RESERVED; // the top of L1 is not the kernel's
constexpr uint32_t MEM_SIZE[6] = {UB_SIZE, L1_SIZE - L1_RESERVED, L0A_SIZE, L0B_SIZE, L0C_SIZE, BT_SIZE};
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

}  // namespace ascend_sim
