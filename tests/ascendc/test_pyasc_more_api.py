"""The APIs added to ascend-sim for pyasc programs, against NumPy on the CPU twin, over float16/float32/int16/int32,
per-block lengths that are and are not a multiple of 32 bytes, on 1 and many blocks; and their rules, each naming
the API call and the Python line (tests/ascendc/pyasc_api_kernels.py)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.runtime.ascend_sim import AscendSimError

import pyasc_api_kernels as K

DTYPES = [np.float16, np.float32, np.int16, np.int32]


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def _line(text):
    return next(i for i, s in enumerate(open(K.__file__), 1) if text in s)


def _rand(d, n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-100, 100, n).astype(d)


@pytest.mark.parametrize("n,blocks", [(64, 1), (37, 4), (128, 8)])
@pytest.mark.parametrize("d", DTYPES, ids=lambda d: np.dtype(d).name)
def test_local_tensor_at_address(d, n, blocks):
    x, y = _rand(d, n * blocks, 1), _rand(d, n * blocks, 2)
    z = np.zeros_like(x)
    K.at_address[blocks](x, y, z, n, 128, 64)
    np.testing.assert_array_equal(z, (x.astype(np.float64) + y).astype(d))


@pytest.mark.parametrize("pos,addr,tile,rule", [
    (asc.TPosition.VECCALC, 16, 64, "addr 16 is not 32-byte aligned"),
    (asc.TPosition.VECCALC, 0, 0, r"tileSize 0 must be in \(0, 49152\] elements"),
    (asc.TPosition.VECCALC, 0, 49153, r"tileSize 49153 must be in \(0, 49152\]"),
    (asc.TPosition.VECIN, 0, 7, "tileSize 7 x 4 B = 28 B is not a multiple of 32 B"),
    (asc.TPosition.VECOUT, 196608 - 32, 16, "addr 196576 \\+ 64 B = 196640 B exceeds the 196608 B of the Unified"),
    (asc.TPosition.A1, 524288 - 128, 64, "exceeds the 524160 B of the L1 buffer"),
])
def test_local_tensor_at_address_rules(pos, addr, tile, rule):
    with pytest.raises(AscendSimError, match=rule) as e:
        K.bad_address[1](np.zeros(8, np.float32), pos, addr, tile)
    msg = str(e.value)
    assert f"pyasc_api_kernels.py:{_line('t = asc.LocalTensor(x.dtype, pos')}" in msg, msg
    assert "LocalTensor(pos, addr, tileSize)" in msg, msg
