"""scripts/cann_twin.py: how a kernel is handed to the CANN twin -- the launch mode read from the kernel's task type,
a phased kernel's GM workspaces passed where its entry takes them, an int64_t scalar through the entry file's GM
bytes, parameters written in place read back, Huawei's fired checks read from the log -- checked without the twin (its run_twin.sh call is intercepted);
and, where ASC_CANN_TWIN is set, the cube, phased, int8 and int64 kernels of the corpus run through it and equal the
interpreter."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import asc.environment
from asc import compiler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ascend_corpus import CORPUS  # noqa: E402


def _script():
    spec = importlib.util.spec_from_file_location("cann_twin_script", os.path.join(ROOT, "scripts", "cann_twin.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _src(name: str, case: str = "awkward"):
    kernel, factory = CORPUS[name]
    args = factory(case)
    spec = kernel.specialization(args, {}, latest=False)[0]
    return kernel, args, compiler.render(spec.ir, "ascend", warn=False)


def test_launch_mode_follows_the_kernel_task_type():
    twin = _script()
    assert twin.kernel_mode(_src("matmul_f16")[2].text) == "aic"
    assert twin.kernel_mode(_src("matmul_bias_relu_f16")[2].text) == "mix"
    assert twin.kernel_mode(_src("vector_add")[2].text) == "aiv"
    # a vector kernel with the hard SyncAll: the driver's AIV mode, each process made a block of its own by the entry
    assert twin.launch(_src("mse_loss")[2].text) == ("aiv", "twin_extra::LaunchMixAiv10();")
    assert twin.launch(_src("vector_add")[2].text) == ("aiv", None)
    with pytest.raises(ValueError, match="KERNEL_TYPE_MIX_AIC_1_1"):
        twin.kernel_mode("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);")


def _intercepted_run(monkeypatch, tmp_path, name, log=""):
    """cann_twin.run for corpus kernel `name` with run_twin.sh replaced: (the command, its environment, run's result)."""
    twin = _script()
    seen = {}

    def fake(cmd, capture_output, text, env):
        seen["cmd"], seen["env"] = cmd, env
        return subprocess.CompletedProcess(cmd, 1, log, "")
    monkeypatch.setattr(twin.subprocess, "run", fake)
    kernel, args = CORPUS[name][0], CORPUS[name][1]("awkward")
    result = twin.run(name, kernel, args, "/nonexistent-twin", str(tmp_path))
    return twin, seen["cmd"], seen["env"], result


def test_phased_kernel_gets_its_workspaces_and_the_mix_mode(monkeypatch, tmp_path):
    log = ("[ERROR][Block_0][AIV][kernel_tensor_impl.h:361][operator[]][77] offset is 4096, which can not be larger "
           "than data len 4096\n[ERROR][Block_1][AIV][kernel_tensor_impl.h:361][operator[]][78] offset is 4096, which "
           "can not be larger than data len 4096\n")
    twin, cmd, env, result = _intercepted_run(monkeypatch, tmp_path, "matmul_bias_relu_f16", log)
    src = _src("matmul_bias_relu_f16")[2]
    ws = dict(src.workspaces)
    assert ws and env["TWIN_KERNEL_MODE"] == "mix"
    entry, name, types, block_dim = cmd[2:6]
    argv = cmd[6:]
    assert name == "asc_twin_entry" and types == ",".join(["gm"] * len(src.entry_params))
    assert len(argv) == len(src.entry_params)
    for (kind, pname, _), arg in zip(src.entry_params, argv):
        if pname in ws:                                     # at the entry's position, as large as asc's launcher makes it
            assert arg.startswith(f"out:{max(ws[pname], 32)}:") and arg.endswith(f"{pname}.ws")
    text = open(entry).read()
    assert f'#include "{os.path.dirname(entry)}/{src.name}.cpp"' in text and "twin_extra_model.cpp" in text
    assert f"    {src.name}({', '.join(f'a{i}' for i in range(len(src.entry_params)))});" in text
    block, apis, worst, worst_sim, err, fired = result
    assert worst is None and err                            # the twin failed: no numbers
    # once, without the block, core type and pid
    assert fired == ["ERROR kernel_tensor_impl.h:361: offset is 4096, which can not be larger than data len 4096"]


def test_hard_syncall_kernel_runs_as_blocks_of_aivs(monkeypatch, tmp_path):
    twin, cmd, env, _ = _intercepted_run(monkeypatch, tmp_path, "mse_loss")
    src = _src("mse_loss")[2]
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)" in src.text and env["TWIN_KERNEL_MODE"] == "aiv"
    ws = dict(src.workspaces)
    assert ws and all(a.endswith(f"{p}.ws") for (_, p, _), a in zip(src.entry_params, cmd[6:]) if p in ws)
    entry = open(cmd[2]).read()
    # every process becomes a block of its own before the kernel runs
    call = f"    {src.name}({', '.join(f'a{i}' for i in range(len(src.entry_params)))});"
    assert f"{{\n    twin_extra::LaunchMixAiv10();\n{call}\n}}" in entry
    _, cmd, env, _ = _intercepted_run(monkeypatch, tmp_path, "vector_add")
    assert "LaunchMixAiv10" not in open(cmd[2]).read() and env["TWIN_KERNEL_MODE"] == "aiv"


def test_int64_scalar_goes_through_gm_bytes(monkeypatch, tmp_path):
    twin, cmd, env, _ = _intercepted_run(monkeypatch, tmp_path, "adam_step")
    src = _src("adam_step")[2]
    i = next(i for i, (k, _, ct) in enumerate(src.entry_params) if k == "scalar" and ct == "int64_t")
    pname = src.entry_params[i][1]
    j = next(j for j, a in enumerate(cmd[6:]) if a.endswith(f"/{pname}.i64"))   # (in-place buffers shift it)
    assert env["TWIN_KERNEL_MODE"] == "aiv" and cmd[4].split(",")[j] == "gm"
    path = cmd[6 + j]
    assert path.startswith("in:")
    kernel, args = CORPUS["adam_step"][0], CORPUS["adam_step"][1]("awkward")
    spec, bound, _ = kernel.specialization(args, {}, latest=False)
    step = {p.var.name: b.value for p, b in zip(spec.ir.entry.params, bound)}[pname]
    assert np.fromfile(path[3:], np.int64).tolist() == [int(step)]
    assert f"*reinterpret_cast<__gm__ const int64_t*>(a{i})" in open(cmd[2]).read()


def test_parameters_written_in_place_are_read_back(monkeypatch, tmp_path):
    twin, cmd, env, _ = _intercepted_run(monkeypatch, tmp_path, "sgd_momentum")
    kernel, args = CORPUS["sgd_momentum"][0], CORPUS["sgd_momentum"][1]("awkward")
    spec = kernel.specialization(args, {}, latest=False)[0]
    from asc import ir
    written = [p.var.name for p, a in zip(spec.ir.entry.params, args)
               if p.var.name in ir.written_params(spec.ir)[spec.ir.entry.name] and isinstance(a, np.ndarray)]
    assert written                                            # sgd_momentum updates p and its momentum buffer
    argv = cmd[6:]
    for name in written:                                      # its input, then a buffer of its size read back
        i = next(i for i, a in enumerate(argv) if a == f"in:{tmp_path}/sgd_momentum/{name}.bin")
        assert argv[i + 1] == f"out:{max(args[[p.var.name for p in spec.ir.entry.params].index(name)].nbytes, 32)}:" \
                              f"{tmp_path}/sgd_momentum/{name}.out"
    entry = open(cmd[2]).read()
    assert entry.count("twin_extra::CopyOnce(") == 1 and len(argv) == len(cmd[4].split(","))
    # the inputs written for the twin are the caller's, untouched by the interpreter's and ascend-sim's runs
    for name in written:
        a = args[[p.var.name for p in spec.ir.entry.params].index(name)]
        assert np.array_equal(np.fromfile(f"{tmp_path}/sgd_momentum/{name}.bin", a.dtype), a.ravel())


@pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is a "
                                                             "development-time tool)")
@pytest.mark.parametrize("name", ["matmul_f16", "matmul_batched_f16", "matmul_bias_relu_f16", "quant_q8_0",
                                  "dequant_q8_0", "adam_step", "sgd_momentum", "swiglu_ffn_bf16"])
def test_corpus_kernel_through_the_twin(tmp_path, name):
    twin = _script()
    kernel, args = CORPUS[name][0], CORPUS[name][1]("awkward")
    block_dim, apis, worst, worst_sim, err, fired = twin.run(name, kernel, args, asc.environment.config.cann_twin,
                                                             str(tmp_path))
    assert err is None and not fired, (err, fired)
    # bit-equal to ascend-sim; within 1 ulp of the interpreter (adam_step's p, m, v: 0.27)
    assert worst_sim == 0 and worst <= 1, (worst, worst_sim)


XCORE = """#include "kernel_operator.h"
using namespace AscendC;
// blockDim AICs each write a value; each of the two AIVs of its group waits for the AIC's flag (mode 2), then reads it
extern "C" __global__ __aicore__ void xcore(GM_ADDR out)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    __gm__ volatile int32_t* o = reinterpret_cast<__gm__ volatile int32_t*>(out);
    if ASCEND_IS_AIC {
        for (volatile int spin = 0; spin < 20000000; ++spin) {}   // the AIVs reach their wait first
        o[GetBlockIdx()] = 1000 + static_cast<int32_t>(GetBlockIdx());
        CrossCoreSetFlag<2, PIPE_FIX>(FLAG_SET);
    }
    if ASCEND_IS_AIV {
        CrossCoreWaitFlag(FLAG_WAITED);
        o[8 + GetBlockIdx()] = o[GetBlockIdx() / 2] + 1;
    }
}
"""


@pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is a "
                                                             "development-time tool)")
def test_cross_core_flags_order_the_cores_and_a_lost_flag_is_reported(tmp_path):
    twin = _script()
    runs = {}
    for case, (set_id, wait_id) in {"paired": (3, 3), "lost": (3, 5)}.items():
        d = tmp_path / case
        d.mkdir()
        (d / "xcore.cpp").write_text(f"#define FLAG_SET {set_id}\n#define FLAG_WAITED {wait_id}\n" + XCORE)
        (d / "entry.cpp").write_text(f'#include "{d}/xcore.cpp"\n#include "{twin.EXTRA_MODEL}"\n')
        env = dict(os.environ, TWIN_KERNEL_MODE="mix", TWIN_FLAG_TIMEOUT_S="3")
        runs[case] = subprocess.run(["bash", os.path.join(asc.environment.config.cann_twin, "run_twin.sh"),
                                     str(d / "entry.cpp"), "xcore", "gm", "2", f"out:64:{d}/out.bin"],
                                    capture_output=True, text=True, env=env)
    p = runs["paired"]
    assert p.returncode == 0, p.stdout + p.stderr
    out = np.fromfile(tmp_path / "paired" / "out.bin", np.int32)
    assert out[:2].tolist() == [1000, 1001] and out[8:12].tolist() == [1001, 1001, 1002, 1002]
    lost = runs["lost"]
    assert lost.returncode != 0
    assert "wait_flag_dev(5) was never released: the NPU would hang here" in lost.stdout + lost.stderr


@pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is a "
                                                             "development-time tool)")
def test_phased_kernel_on_several_groups_through_the_twin(tmp_path):
    """relu(a @ b + bias) tiled over 6 AICs and 12 AIVs: SyncAll<false>() across groups, every workspace tile written
    by some AIC and read by some AIV."""
    twin = _script()
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((256, 64)).astype(np.float16), rng.standard_normal((64, 384)).astype(np.float16)
    bias = rng.standard_normal(384).astype(np.float16)
    block_dim, apis, worst, worst_sim, err, fired = twin.run("mbr_groups", CORPUS["matmul_bias_relu_f16"][0],
                                                             (a, b, bias), asc.environment.config.cann_twin, str(tmp_path))
    assert err is None and not fired, (err, fired)
    assert block_dim > 1 and {"Mmad", "Fixpipe", "SyncAll"} <= set(apis)
    assert worst_sim == 0 and worst <= 1, (worst, worst_sim)    # ascend-sim's numbers; the interpreter's within 1 ulp


_TWIN = pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is a "
                                                                  "development-time tool)")


# (largest |twin - interpreter|, largest |twin - ascend-sim|) in ulp of the output's largest element
@_TWIN
@pytest.mark.parametrize("name, bound, bound_sim", [
    # ascend-sim's ReduceSum adds as A2's count form does (a tree per 256-byte repeat, the repeats in order), the
    # twin's counter-mode vcadd in double: the mean within 1.5 ulp
    ("mse_loss", 8, 1.5),
    ("attention_tensor_f16", 1, 0.5),
    ("matmul_tail", 2, 0),                     # float32 B through LoadDataWithTranspose: ascend-sim's bits
])
def test_syncall_transposed_and_filled_kernels_through_the_twin(tmp_path, name, bound, bound_sim):
    twin = _script()
    kernel, args = CORPUS[name][0], CORPUS[name][1]("awkward")
    block_dim, apis, worst, worst_sim, err, fired = twin.run(name, kernel, args, asc.environment.config.cann_twin,
                                                             str(tmp_path))
    assert err is None and not fired, (err, fired)
    assert worst <= bound and worst_sim <= bound_sim, (worst, worst_sim)


SYNCALL = """#include "kernel_operator.h"
using namespace AscendC;
// each block writes its value late (the higher blocks wait less), then after the hard SyncAll reads its neighbour's
extern "C" __global__ __aicore__ void syncall_k(GM_ADDR out)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    __gm__ volatile int32_t* o = reinterpret_cast<__gm__ volatile int32_t*>(out);
    const int32_t b = static_cast<int32_t>(GetBlockIdx()), n = static_cast<int32_t>(GetBlockNum());
    for (volatile int spin = 0; spin < 5000000 * (n - b); ++spin) {}
    o[b] = 100 + b;
    o[16 + b] = static_cast<int32_t>(GetSubBlockIdx() * 10 + GetTaskRatio());
    SyncAll();
    o[8 + b] = o[(b + 1) % n];
}
"""


@_TWIN
def test_hard_syncall_orders_the_aiv_blocks_and_is_refused_in_an_aiv_only_kernel(tmp_path):
    import types
    twin = _script()
    runs = {}
    for case, text in {"mix_aiv": SYNCALL, "aiv_only": SYNCALL.replace("KERNEL_TYPE_MIX_AIV_1_0",
                                                                       "KERNEL_TYPE_AIV_ONLY")}.items():
        d = tmp_path / case
        d.mkdir()
        (d / "syncall_k.cpp").write_text(text)
        src = types.SimpleNamespace(name="syncall_k", text=text, entry_params=[("gm", "out", "GM_ADDR")])
        entry = twin.entry_file(src, str(d))
        env = dict(os.environ, TWIN_KERNEL_MODE=twin.kernel_mode(text), TWIN_FLAG_TIMEOUT_S="3")
        runs[case] = subprocess.run(["bash", os.path.join(asc.environment.config.cann_twin, "run_twin.sh"), entry,
                                     "asc_twin_entry", "gm", "4", f"out:96:{d}/out.bin"],
                                    capture_output=True, text=True, env=env)
    p = runs["mix_aiv"]
    assert p.returncode == 0, p.stdout + p.stderr
    out = np.fromfile(tmp_path / "mix_aiv" / "out.bin", np.int32)
    assert out[:4].tolist() == [100, 101, 102, 103] and out[8:12].tolist() == [101, 102, 103, 100]
    assert out[16:20].tolist() == [1, 1, 1, 1]                  # no sub-blocks, task ratio 1
    bad = runs["aiv_only"]
    assert bad.returncode != 0
    assert "in a KERNEL_TYPE_AIV_ONLY kernel: a vector kernel needs KERNEL_TYPE_MIX_AIV_1_0" in bad.stdout + bad.stderr
