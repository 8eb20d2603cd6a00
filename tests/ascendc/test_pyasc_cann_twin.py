"""pyasc (@asc.jit) kernels through the CANN twin (Huawei's Ascend C API implementation on the CPU, with the twin's
intrinsic model plus scripts/twin_extra_model.cpp and twin_extra_vector.cpp): scripts/pyasc_twin.py runs the source
asc emits, and the result must equal asc's ascend-sim run and NumPy (integers bit-equal; floats within 8 eps of the
largest output) with none of Huawei's checks fired. Skipped where ASC_CANN_TWIN is not set (a development-time
check: the twin's README, shared/cann_twin); each kernel takes about half a minute there.

The kernels reach the intrinsics twin_extra_vector.cpp adds: integer Add/Sub/Mul/Max/Min and their scalar forms,
integer Duplicate (binary_all / unary_all over int32 and int16), SoftMax's BlockReduceMax/Sum and Brcb, Axpy, and
TransDataTo5HD's VA registers."""
from __future__ import annotations

import dataclasses
import importlib.util
import os

import numpy as np
import pytest

import asc.environment
import asc.runtime.config as rconfig

import pyasc_api_kernels as A

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_twin = pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is "
                                "a development-time check: shared/cann_twin/README.md)")


def _script():
    spec = importlib.util.spec_from_file_location("pyasc_twin_script", os.path.join(ROOT, "scripts", "pyasc_twin.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_twin
@pytest.mark.parametrize("name", ["binary_int32", "scalar_int16"])
def test_integer_kernels_equal_ascend_sim_and_numpy(name, tmp_path):
    twin = _script()
    kernel, blocks, args, refs = twin.corpus()[name]
    worst_sim, worst_ref, err, fired = twin.run(name, kernel, blocks, args, refs, asc.environment.config.cann_twin,
                                                str(tmp_path))
    assert err is None, err
    assert fired == []
    assert worst_sim == 0 and worst_ref == 0          # integers: bit-equal to ascend-sim and to NumPy


def _captured(tmp_path, monkeypatch, launch):
    """Runs `launch` on asc with ASC_PYASC_CAPTURE set; the one capture folder it made."""
    rconfig.set_platform(rconfig.Backend.CPU)
    cap = tmp_path / "cap"
    cap.mkdir()
    monkeypatch.setattr(asc.environment, "config", dataclasses.replace(asc.environment.config, pyasc_capture=str(cap)))
    launch()
    (d,) = [cap / n for n in os.listdir(cap)]
    return str(d)


@needs_twin
def test_softmax_rows_equals_ascend_sim(tmp_path, monkeypatch):
    twin = _script()
    twin_dir = asc.environment.config.cann_twin
    rng = np.random.default_rng(12)
    m, k, blocks = 4, 64, 2
    x = rng.uniform(-4, 4, m * k * blocks).astype(np.float32)
    z, sums, maxes = np.zeros_like(x), np.zeros(m * 8 * blocks, np.float32), np.zeros(m * 8 * blocks, np.float32)
    d = _captured(tmp_path, monkeypatch, lambda: A.softmax_rows[blocks](x, z, sums, maxes, m, k, 1))
    got_blocks, worst, why, fired = twin.run_captured(d, twin_dir)
    assert got_blocks == blocks and why is None and fired == [], (why, fired)
    assert worst <= 8
    twin_z = np.fromfile(os.path.join(d, "z.twin"), np.float32).reshape(-1, k)
    r = x.astype(np.float64).reshape(-1, k)
    e = np.exp(r - r.max(axis=1, keepdims=True))
    np.testing.assert_allclose(twin_z, e / e.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(np.fromfile(os.path.join(d, "maxes.twin"), np.float32).reshape(-1, 8),
                                  np.repeat(r.max(axis=1, keepdims=True), 8, axis=1).astype(np.float32))


@needs_twin
@pytest.mark.parametrize("d", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
def test_axpy_equals_ascend_sim(d, tmp_path, monkeypatch):
    twin = _script()
    rng = np.random.default_rng(5)
    n, blocks = 37, 4
    x = rng.uniform(-4, 4, n * blocks).astype(d)
    z = rng.uniform(-4, 4, n * blocks).astype(d)
    cap = _captured(tmp_path, monkeypatch, lambda: A.axpy_count[blocks](x, z, n, 256, 1.5))
    got_blocks, worst, why, fired = twin.run_captured(cap, asc.environment.config.cann_twin)
    assert got_blocks == blocks and why is None and fired == [], (why, fired)
    assert worst <= 8


@needs_twin
def test_trans_data_to_5hd_equals_ascend_sim(tmp_path, monkeypatch):
    """16 x 16 halves in one repeat, the strides 0 (the repeat starts at the lists, as the docs advise). Huawei's
    api_check requires each listed tensor to hold repeatTimes * RepStride + 1 blocks, one stride more than the last
    repeat reaches (kernel_vec_transpose_check.cpp), so the multi-repeat form of test_pyasc_more_api fires it."""
    twin = _script()
    hw = 16
    x = np.arange(16 * hw, dtype=np.float16)
    z = np.zeros_like(x)
    cap = _captured(tmp_path, monkeypatch, lambda: A.to_5hd[1](x, z, hw, 1, 0, 0, 0))
    got_blocks, worst, why, fired = twin.run_captured(cap, asc.environment.config.cann_twin)
    assert why is None and fired == [], (why, fired)
    assert worst == 0                                  # a permutation: bit-equal
    np.testing.assert_array_equal(np.fromfile(os.path.join(cap, "z.twin"), np.float16),
                                  x.reshape(16, hw).T.reshape(-1))


def test_a_buffer_read_and_written_starts_with_its_bytes(tmp_path, monkeypatch):
    """Without the twin (run_twin.sh intercepted): Axpy's z is read and written, so the entry gets it twice, as the
    `out:` buffer read back and as an `in:` copy of its bytes before the launch, and copies one into the other once
    before the kernel runs; each capture gets its own entry file name (run_twin.sh builds in a folder named after
    it)."""
    twin = _script()
    x, z = np.ones(37, np.float32), np.full(37, 2.0, np.float32)
    cap = _captured(tmp_path, monkeypatch, lambda: A.axpy_count[1](x, z, 37, 256, 1.5))
    seen = {}

    def fake(cmd, capture_output, text, env):
        seen["cmd"] = cmd
        return twin.subprocess.CompletedProcess(cmd, 1, "", "")
    monkeypatch.setattr(twin.subprocess, "run", fake)
    twin.run_captured(cap, "/nonexistent-twin")
    entry, name, types, blocks, *argv = seen["cmd"][2:]
    assert os.path.basename(entry) == os.path.basename(cap) + "_twin.cpp" and name == "asc_twin_entry"
    assert blocks == "1" and types == ",".join(["gm"] * len(argv))
    z_out = [i for i, a in enumerate(argv) if a.startswith("out:") and a.endswith("/z.twin")]
    assert len(z_out) == 1 and argv[z_out[0] + 1] == f"in:{cap}/z.in"
    np.testing.assert_array_equal(np.fromfile(os.path.join(cap, "z.in"), np.float32), np.full(37, 2.0, np.float32))
    text = open(entry).read()
    assert "twin_inout.cpp" in text and "twin_extra_model.cpp" in text
    assert f"twin_inout::CopyInOnce(0, a{z_out[0]}, a{z_out[0]}_in, {37 * 4}u);" in text


# ------------------------------------------------------------------ the Matmul high-level API through Huawei's Matmul
# The twin compiles CANN's own Matmul (asc-devkit's lib/matmul_intf.h: its tiling walk, L1 caching, Load3Dv2 and
# LoadDataWithTranspose into L0A / L0B, Mmad with the bias table, Fixpipe, and in a MIX launch the AIVs' messages to
# their AIC through the workspace), so these compare asc's own emulation of the Matmul (ascend-sim's
# lib/matmul_intf.h) with Huawei's implementation, and both with NumPy.


def _twin_equals_asc(cap):
    """Runs the capture through the twin: it must finish with none of Huawei's checks fired, within 8 ulp of asc.
    Returns the blocks it ran."""
    got_blocks, worst, why, fired = _script().run_captured(cap, asc.environment.config.cann_twin)
    assert why is None and fired == [], (why, fired)
    assert worst <= 8
    return got_blocks


def _matmul_case(tmp_path, monkeypatch, kernel, m, n, k, c_dt, with_bias, ta, tb, dim):
    import pyasc_matmul_kernels as MK
    import test_pyasc_matmul as TM
    got = {}
    cap = _captured(tmp_path, monkeypatch, lambda: got.update(
        r=TM.launch_gm(getattr(MK, kernel), m, n, k, dim, c_dt, with_bias, ta, tb, seed=3)))
    tl, c, a, b, bias = got["r"]
    TM.check(c, a, b, bias if with_bias else None)                   # asc against NumPy
    assert _twin_equals_asc(cap) == (tl.used_core_num if kernel == "mm_cube" else -(-tl.used_core_num // 2))
    twin_c = np.fromfile(os.path.join(cap, "c.twin"), c_dt).reshape(m, n)
    TM.check(twin_c, a, b, bias if with_bias else None)               # the twin against NumPy


@needs_twin
@pytest.mark.parametrize("kernel, m, n, k, c_dt, with_bias, ta, tb, dim", [
    ("mm_cube", 96, 80, 64, np.float32, True, False, False, None),     # cube only, one core, bias
    ("mm_cube", 200, 136, 72, np.float32, False, True, False, 4),      # tails in M, N, K; A transposed (Load3Dv2's transpose)
    ("mm_gm", 128, 96, 160, np.float16, True, False, True, 2),         # MIX, a float16 C, bias, B transposed
], ids=["cube-bias", "cube-tails-ta", "mix-f16-bias-tb"])
def test_matmul_equals_huaweis_matmul(kernel, m, n, k, c_dt, with_bias, ta, tb, dim, tmp_path, monkeypatch):
    _matmul_case(tmp_path, monkeypatch, kernel, m, n, k, c_dt, with_bias, ta, tb, dim)


@needs_twin
@pytest.mark.parametrize("c_dt, tb", [(np.float32, False), (np.float16, True)], ids=["f32-c", "f16-c-tb"])
def test_cube_basic_api_equals_ascend_sim(c_dt, tb, tmp_path, monkeypatch):
    """The cube basic API (DataCopy Nd2Nz, LoadData, Mmad, Fixpipe with QuantMode_t::F322F16, a global enum in CANN)
    compiled against Huawei's headers and run on the twin, against asc and NumPy."""
    import test_pyasc_cube_basic as TC
    m, n, k = 32, 48, 64
    ops = {}
    cap = _captured(tmp_path, monkeypatch, lambda: TC.run(m, n, k, steps=2, c_dt=c_dt, tb=tb, seed=7, operands=ops))
    a, b = ops["a"], ops["b"]                                          # TC.run checked asc against NumPy
    _twin_equals_asc(cap)
    TC.check(np.fromfile(os.path.join(cap, "c.twin"), c_dt).reshape(m, n), a, b)


@needs_twin
@pytest.mark.parametrize("ba, bb, cores", [(4, 4, 2), (1, 4, 1)], ids=["equal-2-cores", "broadcast-a"])
def test_iterate_batch_equals_huaweis_matmul(ba, bb, cores, tmp_path, monkeypatch):
    """IterateBatch (NORMAL layout) with each core holding whole matrices, the form ascend-sim accepts: Huawei's
    batch copies and C offsets put every batch where asc does."""
    import test_pyasc_matmul_batch as TB
    got = {}
    cap = _captured(tmp_path, monkeypatch, lambda: got.update(r=TB.launch(32, 48, 40, ba, bb, cores=cores, seed=11)))
    tl, c, a, b = got["r"]
    TB.check_batches(c, a, b, ba, bb)                                  # asc against NumPy
    _twin_equals_asc(cap)
    TB.check_batches(np.fromfile(os.path.join(cap, "c.twin"), np.float32).reshape(c.shape), a, b, ba, bb)


@needs_twin
def test_iterate_block_order_equals_huaweis_matmul(tmp_path, monkeypatch):
    """Iterate with step_m = 2, step_n = 3: the base blocks come in Huawei's windowed order (each written at its
    count), on the twin as on asc."""
    import test_pyasc_matmul as TM
    cap = _captured(tmp_path, monkeypatch,
                    lambda: TM.test_iterate_gives_the_blocks_in_canns_stepped_order(TM.host.MatrixTraverse.FIRSTM))
    _twin_equals_asc(cap)


@needs_twin
@pytest.mark.parametrize("first", [2.0, -2.0])
def test_branch_on_a_read_equals_ascend_sim(first, tmp_path, monkeypatch):
    """The kernel whose if condition reads a LocalTensor the copy just wrote (its MTE2 -> S pair before the if):
    on the twin, Huawei's own SetFlag/WaitFlag and the branch taken give ascend-sim's numbers."""
    import pyasc_kernels as K
    twin = _script()
    x = np.arange(64, dtype=np.float32) - 10
    x[0] = first
    z = np.zeros_like(x)
    cap = _captured(tmp_path, monkeypatch, lambda: K.branch_on_read[1](x, z, 64))
    np.testing.assert_array_equal(z, x + np.float32(1.0 if first > 0 else -1.0))
    got_blocks, worst, why, fired = twin.run_captured(cap, asc.environment.config.cann_twin)
    assert got_blocks == 1 and why is None and fired == [], (why, fired)
    assert worst == 0
