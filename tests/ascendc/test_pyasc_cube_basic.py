"""pyasc's cube basic API on the CPU twin (ascend-sim's cube path): GM -> A1/B1 (data_copy with Nd2NzParams), A1/B1 ->
A2/B2 (load_data with LoadData2DParams, if_transpose), mmad into CO1 (accumulating K steps with cmatrix_init_val),
fixpipe to GM (FixpipeParamsV220, float32 and float16 out), compared with NumPy; the translation to CANN's C++
names; and each rule firing on a broken kernel with the call and the Python line."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import CompileError, MemoryCheckError
from asc.runtime.ascend_sim import AscendSimError

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


def run(m, n, k, steps=1, dt=np.float16, c_dt=np.float32, tb=False, seed=0, operands=None):
    """mm_basic on random operands, checked against NumPy; c. `operands`, a dict, receives a and b."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    c = np.zeros((m, n), c_dt)
    quant = asc.QuantModes.F322F16 if c_dt == np.float16 else asc.QuantModes.NoQuant
    K.mm_basic[1, rt.current_stream()](a, np.ascontiguousarray(b.T) if tb else b, c, m, n, k, steps, quant, tb)
    check(c, a, b)
    if operands is not None:
        operands.update(a=a, b=b)
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


@pytest.mark.parametrize("m,n,k,steps", [(32, 32, 32, 1), (16, 48, 64, 2)])
def test_float32_b_through_load_data_with_transpose(m, n, k, steps):
    run(m, n, k, steps=steps, dt=np.float32)


# ------------------------------------------------------------------ the rules

def line_of(rule):
    src, first = inspect.getsourcelines(K)
    hits = [(first or 1) + i for i, s in enumerate(src) if s.rstrip().endswith(f"# RULE: {rule}")]
    assert len(hits) == 1, rule
    return f"pyasc_cube_basic_kernels.py:{hits[0]}"


def broken(case, c_dt=np.float32, raises=(AscendSimError, MemoryCheckError)):
    a = np.arange(32 * 32).reshape(32, 32).astype(np.float16) / 1024
    b = np.ones((32, 32), np.float16)
    c = np.zeros((32, 32), c_dt)
    with pytest.raises(raises) as e:
        K.broken[1, rt.current_stream()](a, b, c, case)
    return str(e.value)


@pytest.mark.parametrize("c_dt", [np.float32, np.float16])
def test_the_broken_kernel_runs_when_nothing_is_broken(c_dt):
    a = np.arange(32 * 32).reshape(32, 32).astype(np.float16) / 1024
    b = (np.arange(32 * 32).reshape(32, 32) % 7).astype(np.float16)
    c = np.zeros((32, 32), c_dt)
    K.broken[1, rt.current_stream()](a, b, c, "ok")
    check(c, a, np.ascontiguousarray(b.T))


@pytest.mark.parametrize("case,words", [
    ("is_bias", "Mmad: isBias is not emulated"),
    ("fm_offset", "Mmad: fmOffset, enSsparse and enWinogradA/B are not emulated"),
    ("cmatrix_source", "Mmad: cmatrixSource = true"),
    ("nd_num", "Fixpipe: ndNum != 1 is not emulated"),
    ("nz", "Fixpipe: CFG_NZ output is not emulated"),
    ("stride", "Fixpipe: srcStride must be the row count padded to 16"),
    ("unaligned", "LoadData: the L0 destination is not 512-byte aligned"),
    ("deq", "Fixpipe: a float output needs NoQuant, not DEQF16"),
])
def test_sim_rules(case, words):
    msg = broken(case)
    assert line_of(case) in msg and words in msg, msg


def test_a_float16_output_needs_f322f16():
    msg = broken("half_noquant", c_dt=np.float16)
    assert line_of("half_noquant") in msg and "a half output needs quantPre = F322F16" in msg, msg


@pytest.mark.parametrize("case,words", [
    ("from_gm", "asc.load_data from a GlobalTensor"),
    ("mixed", "asc.MmadParams: give m, n, k and either all of (is_bias"),
    ("mmad_bias", "asc.mmad: the bias holds float16: the bias of float16 operands is float32"),
    ("b_type", "asc.mmad: fm holds float16, filter float32"),
    ("lwt_half", "asc.load_data_with_transpose of float16 is not supported by asc"),
    ("wrong_params", "asc.load_data: asc takes LoadData2DParams"),
    ("c_half", "asc.mmad: dst (L0C) holds float16"),
    ("cbuf", "asc.fixpipe: cbuf_workspace holds float16: the quantization words are uint64"),
    ("bad_config", "asc.fixpipe: config must be an asc.FixpipeConfig"),
])
def test_translator_rules(case, words):
    msg = broken(case, raises=CompileError)
    assert line_of(case) in msg and words in msg, msg


def test_the_source_is_canns_cube_api():
    a = np.zeros((32, 32), np.float16)
    src = K.mm_basic.source(a, a, np.zeros((32, 32), np.float16), 32, 32, 32, 2, asc.QuantModes.F322F16, False)
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY)" in src
    for call in ("AscendC::DataCopy(a1, ga[(s * 16)], AscendC::Nd2NzParams(1, 32, 16, 0, 32, 32, 1, 0));",
                 "AscendC::LoadData(b2[((i * 32) * 16)], b1, AscendC::LoadData2DParams(i, 2, 1, 0, 0, true, 0));",
                 "AscendC::Mmad(c1, a2, b2, AscendC::MmadParams(32, 32, 16, 0, false, ((s == 0))));",
                 "AscendC::Fixpipe(gc, c1, AscendC::FixpipeParamsV220(32, 32, 32, 32, false, "
                 "QuantMode_t::F322F16, 0, 1, 0, 0, 0, false));"):
        assert call in src, call
    c = np.zeros((32, 32), np.float32)
    nz = K.broken.source(a, a, c, "nz")
    assert "AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(gc, c1, AscendC::FixpipeParamsV220(32, 32, 32, 32, " \
           "false, QuantMode_t::NoQuant, 0, 1, 0, 0, 0, false));" in nz
    bias = K.broken.source(a, a, c, "is_bias")
    assert "AscendC::MmadParams(32, 32, 32, true, 0, false, false, false)" in bias


def test_sys_workspace_set_then_got():
    ws = np.zeros(64, np.uint8)
    out = np.zeros(4, np.uint8)
    K.sys_workspace[1, rt.current_stream()](ws, out, True)
    assert list(ws[:4]) == [1, 2, 3, 4] and list(out) == [1, 2, 3, 4]
    src = K.sys_workspace.source(ws, out, True)
    assert "AscendC::SetSysWorkspace((GM_ADDR)((__gm__ uint8_t*)workspace));" in src
    assert "((__gm__ uint8_t*)AscendC::GetSysWorkspacePtr())" in src


def test_get_sys_workspace_before_set():
    with pytest.raises(AscendSimError) as e:
        K.sys_workspace[1, rt.current_stream()](np.zeros(64, np.uint8), np.zeros(4, np.uint8), False)
    msg = str(e.value)
    assert line_of("no_sys_workspace") in msg and "GetSysWorkspacePtr: no system workspace" in msg, msg


def test_set_sys_workspace_with_a_null_workspace():
    with pytest.raises(AscendSimError) as e:
        K.sys_workspace[1, rt.current_stream()](np.zeros(0, np.uint8), np.zeros(4, np.uint8), True)
    msg = str(e.value)
    assert line_of("null_sys_workspace") in msg and "SetSysWorkspace: workspace can not be nullptr" in msg, msg


def test_a_cube_call_in_a_kernel_of_the_default_type():
    with pytest.raises(CompileError) as e:
        K.mmad_default_type[1, rt.current_stream()](np.zeros(256, np.float32))
    msg = str(e.value)
    assert line_of("default_type") in msg and "asc.mmad runs on the cube core (AIC), and this kernel is AIV_ONLY" \
        in msg and "kernel_type=config.KernelType.AIC_ONLY" in msg, msg
