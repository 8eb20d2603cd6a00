"""Assigning a field of a pyasc parameter struct (`p.block_len = n`, asc.DataCopyParams and the others of
asc/ascendc/objects.py) emits the field's Ascend C name (blockLen, isPad, rightPadding), as the asc-devkit headers
declare it; the Python name (block_len) did not compile. Run on ascend-sim and checked in the emitted source; a field
the struct lacks, and a read of a field, are refused at the user's line."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import CompileError, UnsupportedError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def set_fields(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], right: asc.ConstExpr[int]):
    """n elements in, padded on the right with `right` elements of -1 (is_pad set by assignment), the whole 32-byte
    block out; the copy's sizes set field by field."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 64)
    t = q.alloc_tensor(x.dtype)
    copy = asc.DataCopyExtParams()
    copy.block_count = 1
    copy.block_len = n * x.dtype.sizeof()
    pad = asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0.0)
    pad.is_pad = True
    pad.right_padding = right
    pad.padding_value = -1.0
    asc.data_copy_pad(t, xg, copy, pad)
    q.enque(t)
    t = q.deque(x.dtype)
    out = asc.DataCopyParams(1, 0, 0, 0)
    out.block_len = 32
    asc.data_copy_pad(zg, t, out)
    q.free_tensor(t)


@asc.jit
def bad_field(x: asc.GlobalAddress):
    copy = asc.DataCopyParams()
    copy.blockLen = 32


@asc.jit
def read_field(x: asc.GlobalAddress):
    copy = asc.DataCopyParams()
    n = copy.block_len


@pytest.mark.parametrize("dt,n,right", [(np.float32, 5, 3), (np.float16, 13, 3)])
def test_assigned_fields_take_their_ascend_c_names(dt, n, right):
    x = np.arange(1, n + 1, dtype=dt)
    z = np.zeros(32 // x.itemsize, dt)
    set_fields[1](x, z, n, right)
    want = np.full_like(z, -1)
    want[:n] = x
    np.testing.assert_array_equal(z, want)
    src = set_fields.source(x, z, n, right)
    for field in ("copy.blockCount = ", "copy.blockLen = ", "pad.isPad = ", "pad.rightPadding = ",
                  "pad.paddingValue = ", "out.blockLen = "):
        assert field in src, field
    code = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("//", "#line")))   # not comments
    assert "block_len" not in code and "is_pad" not in code and "right_padding" not in code


def test_a_field_the_struct_lacks_is_refused_at_the_line():
    with pytest.raises(CompileError, match=r"asc.DataCopyParams has no field 'blockLen'.*block_len") as e:
        bad_field[1](np.zeros(8, np.float32))
    assert "copy.blockLen = 32" in str(e.value)


def test_a_read_of_a_field_is_refused_at_the_line():
    with pytest.raises(UnsupportedError, match=r"reading the field 'block_len' of asc.DataCopyParams") as e:
        read_field[1](np.zeros(8, np.float32))
    assert "n = copy.block_len" in str(e.value)
