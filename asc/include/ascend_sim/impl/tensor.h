// ascend-sim (kernel_operator.h): GlobalTensor and LocalTensor: bounds, alignment, the written shadow, the pipes'
// hazards.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

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

}  // namespace AscendC
