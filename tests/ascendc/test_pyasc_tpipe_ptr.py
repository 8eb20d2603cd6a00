"""`asc.get_tpipe_ptr()` is emitted as `::GetTPipePtr()`: CANN declares GetTPipePtr at global scope (asc-devkit
include/basic_api/kernel_common.h), not in namespace AscendC, and ascend-sim declares it the same way, so
`AscendC::GetTPipePtr()` compiles in neither."""
import numpy as np
import pytest

import asc
from asc.errors import ToolchainError
from asc.runtime import ascend_sim


@asc.jit
def twice_via_pipe_ptr(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    p = asc.get_tpipe_ptr()
    p.init_buffer(qx, 1, n * x.dtype.sizeof())
    p.init_buffer(qz, 1, n * x.dtype.sizeof())
    xl = qx.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, n)
    qx.enque(xl)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(x.dtype)
    asc.muls(zl, xl, 2.0, n)
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(x.dtype)
    asc.data_copy(zg, zl, n)
    qz.free_tensor(zl)


def test_get_tpipe_ptr_is_the_global_function():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    text = twice_via_pipe_ptr.source(x, z, 64)
    assert "::GetTPipePtr()" in text and "AscendC::GetTPipePtr" not in text
    twice_via_pipe_ptr[1](x, z, 64)
    np.testing.assert_array_equal(z, 2 * x)


GM = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]
KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{{
  TPipe pipe;
  TPipe* p = {call};
  (void)p;
}}
"""


def test_ascend_sim_declares_it_at_global_scope():
    for call in ("GetTPipePtr()", "::GetTPipePtr()"):
        ascend_sim.build(KERNEL.format(name="tpipe_global", call=call), "tpipe_global", GM)
    with pytest.raises(ToolchainError, match="GetTPipePtr"):
        ascend_sim.build(KERNEL.format(name="tpipe_in_ascendc", call="AscendC::GetTPipePtr()"), "tpipe_in_ascendc",
                         GM)
