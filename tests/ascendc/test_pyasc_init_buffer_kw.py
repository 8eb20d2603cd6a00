"""TPipe.init_buffer's TBuf form as pyasc spells it, (buf, num) with num the length in bytes, by keyword and by
position: the TBuf's tensor carries an intermediate of a vector computation (against NumPy, on 1 and many blocks).
pyasc has no `len` keyword on the TBuf form; asc refuses it at the call."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import KernelTypeError


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def through_tbuf(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], keyword: asc.ConstExpr[bool]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(que=qi, num=1, len=n * x.dtype.sizeof())
    pipe.init_buffer(que=qo, num=1, len=n * x.dtype.sizeof())
    if keyword:
        pipe.init_buffer(buf=tmp, num=n * x.dtype.sizeof())
    else:
        pipe.init_buffer(tmp, n * x.dtype.sizeof())
    xl = qi.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, count=n)
    qi.enque(xl)
    xl = qi.deque(x.dtype)
    t = tmp.get(x.dtype)
    asc.muls(t, xl, 3.0, count=n)
    zl = qo.alloc_tensor(x.dtype)
    asc.adds(zl, t, 1.5, count=n)
    qi.free_tensor(xl)
    qo.enque(zl)
    zl = qo.deque(x.dtype)
    asc.data_copy(zg, zl, count=n)
    qo.free_tensor(zl)


@asc.jit
def len_keyword(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf=tmp, len=256)


@pytest.mark.parametrize("keyword", [True, False])
@pytest.mark.parametrize("blocks", [1, 4])
def test_tbuf_init_buffer_forms(keyword, blocks):
    n = 256
    x = np.random.default_rng(3).standard_normal(blocks * n).astype(np.float32)
    z = np.zeros_like(x)
    through_tbuf[blocks](x, z, n, keyword)
    np.testing.assert_array_equal(z, x * np.float32(3.0) + np.float32(1.5))


def test_tbuf_init_buffer_len_keyword_refused():
    line = next(i for i, s in enumerate(open(__file__), 1) if "pipe.init_buffer(buf=tmp, len=256)" in s)
    with pytest.raises(KernelTypeError, match=rf"test_pyasc_init_buffer_kw.py:{line}:.*init_buffer.*no parameter 'len'"):
        len_keyword[1](np.zeros(8, np.float32))
