// twin_inout.cpp -- a GM buffer that a kernel both reads and writes, for the CANN twin's driver (which passes a GM
// buffer either filled from a file, `in:`, or poisoned and written back, `out:`): the entry file
// (cann_twin.write_entry) takes both, and before the kernel runs, the first core of the launch copies the input's
// bytes into the output buffer while every other core waits for the copy (the cores are fork()ed processes sharing
// GM; the state lives in shared memory mapped before the fork). Not Huawei code.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <sched.h>
#include <sys/mman.h>

namespace twin_inout {
struct State {
    std::atomic<int32_t> slot[64];  // per in-out buffer: 0 not copied, 1 copying, 2 copied
};
static State* g_state = nullptr;
static struct StateInit {
    StateInit()
    {
        void* p = mmap(nullptr, sizeof(State), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            std::memset(p, 0, sizeof(State));
            g_state = static_cast<State*>(p);
        }
    }
} g_stateInit;

// dst (the written-back buffer) gets src's `bytes` once per launch; returns when the copy is complete
inline void CopyInOnce(int slot, uint8_t* dst, const uint8_t* src, uint64_t bytes)
{
    int32_t idle = 0;
    if (g_state->slot[slot].compare_exchange_strong(idle, 1)) {
        std::memcpy(dst, src, bytes);
        g_state->slot[slot].store(2);
        return;
    }
    while (g_state->slot[slot].load() != 2) sched_yield();
}
}  // namespace twin_inout
