// ascend-sim (kernel_operator.h): TPipe, TQue, TQueBind and TBuf: InitBuffer's capacities, the queue protocol;
// GetTPipePtr.
// Part of asc's emulation of the Ascend C API; kernel_operator.h includes the parts in order.
#pragma once

namespace AscendC {

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
