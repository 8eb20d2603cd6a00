// ascend-sim (kernel_operator.h): SetFlag / WaitFlag / PipeBarrier, and the data movement between GM and UB
// (DataCopy, DataCopyPad).
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

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
// left or right padding the dummy repeats the block's first element, isPad or not (the DataCopyPad docs; Huawei's
// DataCopyPadGm2UBImpl passes the intrinsic only the paddings, isPad just loads the pad register); with either, the
// padding and the dummy are the pad value (isPad) or undefined (not isPad: left unwritten, so a read of them fails)
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
            T fill = edges ? value : reinterpret_cast<const T*>(g + goff)[0];
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

}  // namespace AscendC
