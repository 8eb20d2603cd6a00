// ascend-sim (kernel_operator.h): the launcher of asc's generated wrapper: blocks on worker threads, MIX launches,
// the violations reported.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

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
