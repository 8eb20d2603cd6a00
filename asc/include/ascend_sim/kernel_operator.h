// ascend-sim: a header-only CPU emulation of the subset of the Ascend C API (kernel_operator.h) that asc emits.
//
// A kernel .cpp written for the NPU compiles unchanged with g++ against this header and runs on the CPU, one
// worker thread per block at a time (blocks as parallel workers). Instead of hiding the documented rules of the
// hardware, the emulation enforces them and reports a violation as an error naming the API call and the line of
// the kernel source (the caller's line, through __builtin_LINE()):
//   - Unified Buffer capacity (asc/chip.py's UB_BYTES) at TPipe::InitBuffer, at most 8 queue buffers per position;
//   - 32-byte alignment of UB operands, DataCopy lengths that are not a multiple of 32 B (the hardware silently
//     rounds them down: use DataCopyPad), GM accesses outside the GlobalTensor;
//   - two blocks writing the same 32-byte block of GM with DataCopy or DataCopyPad (UB->GM);
//   - the 8 KB of Unified Buffer that Select (modes 1 and 2) takes as scratch on A2: Select refuses to run when
//     InitBuffer has handed out more than UB_SIZE - SELECT_SCRATCH;
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
// The chip's sizes come from asc/chip.py as -D flags (asc.runtime.ascend_sim.chip_flags()); this header and its
// parts (impl/) write none. See docs/ascend.md. This header is part of asc; the API names and parameter lists
// follow the Ascend C docs.
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

// the parts, by area as CANN's own headers are (asc/include/ascend_sim/impl/)
#include "impl/context.h"
#include "impl/types.h"
#include "impl/sys_var.h"
#include "impl/tensor.h"
#include "impl/tpipe.h"
#include "impl/data_copy.h"
#include "impl/vector_count.h"
#include "impl/vector_repeat.h"
#include "impl/vector_bits.h"
#include "impl/vector_reduce.h"
#include "impl/vector_layout.h"
#include "impl/aipp.h"
#include "impl/adv.h"
#include "impl/vector_convert.h"
#include "impl/cube.h"
#include "impl/launch.h"

// the advanced APIs CANN declares through kernel_operator.h, each in its own header here
#include "lib/ascend_quant.h"
