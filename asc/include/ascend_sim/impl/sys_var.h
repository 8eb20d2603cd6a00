// ascend-sim (kernel_operator.h): system variables (GetBlockIdx, GetBlockNum, GetSubBlockIdx, ...) and the hard
// SyncAll.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

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
inline constexpr int16_t GetDataBlockSizeInBytes() { return int16_t(ascend_sim::UB_BLOCK); }

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

}  // namespace AscendC
