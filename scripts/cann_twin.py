"""Runs Ascend kernels emitted by asc through the CANN twin (Huawei's open Ascend C API implementation on the CPU,
with a model of the hardware intrinsics: the twin's own README) and compares each result with asc's interpreter.

    ASC_CANN_TWIN=<folder of run_twin.sh> TWIN_DEVKIT_GIT=... TWIN_TOOLS_GIT=... TWIN_SECUREC_GIT=... \
        python scripts/cann_twin.py [NAME ...]

Prints one row per kernel: blockDim, the APIs the kernel calls, the largest difference from the interpreter (in
units of the output dtype's ulp at the largest output), pass/fail, and each of Huawei's checks that fired (their
[ERROR] / [WARN] lines, and the twin's sync warnings). Exits 1 when a kernel fails, 0 with a notice when ASC_CANN_TWIN
is not set (the twin is a development-time check, not part of CI).

Each kernel runs through an entry file of our own (NAME_twin.cpp): the kernel .cpp, then scripts/twin_extra_model.cpp
(bodies for the intrinsics the twin's model lacks: the cube path, the cross-core flags of SyncAll, more conversions;
see its header), then `asc_twin_entry`, which calls the kernel and takes an int64_t scalar as a GM buffer of its 8
bytes (the twin's driver passes gm/f32/i32/u32). A cube kernel (KERNEL_TYPE_AIC_ONLY) runs as TWIN_KERNEL_MODE=aic, a
phased one (KERNEL_TYPE_MIX_AIC_1_2) as mix: blockDim AICs and 2 * blockDim AIVs, each a process of Huawei's
ICPU_RUN_KF, with its GM workspaces (poisoned with 0xFF, as asc's launcher does) passed where the kernel takes them;
the sys workspace is ICPU_RUN_KF's own. A vector kernel with the hard SyncAll (KERNEL_TYPE_MIX_AIV_1_0) runs as aiv:
blockDim AIVs, each made a block of its own by the entry (twin_extra::LaunchMixAiv10)."""
from __future__ import annotations

import atexit
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

import asc.environment
import asc.language as lang
from asc import compiler, ir
from asc.backends import ascend
from asc.backends.ascend import emitted_api as ascend_api
from asc.backends.ascend.host_scalars import words as host_words
from asc.examples import seed as sk

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "backends"))


def _row_kernel(fn: str):
    """A row kernel whose per-row scalar goes through `fn` (sin, cos, floor, ceil: row kernels take them since
    the Ascend op table became one table)."""
    src = (f"import asc.language as lang\n\n\n@lang.kernel\ndef row_{fn}(x, w):\n    out = lang.empty_like(x)\n"
           f"    R, C = x.shape\n    for i in range(R):\n        s = 0.0\n        for j in range(C):\n"
           f"            s += x[i, j]\n        r = lang.{fn}(s / C + 1.5)\n        for j in range(C):\n"
           f"            out[i, j] = x[i, j] * r + w[j]\n    return out\n")
    path = os.path.join(tempfile.mkdtemp(prefix="asc-twin-"), f"row_{fn}.py")
    with open(path, "w") as f:
        f.write(src)
    ns: dict = {}
    exec(compile(src, path, "exec"), ns)
    return ns[f"row_{fn}"]


# the compute APIs worth naming in the table (the rest is copies, queues and pipe bookkeeping)
MATH = {"Add", "Adds", "Mul", "Muls", "Div", "Exp", "Erf", "Sin", "Cos", "Floor", "Ceil", "Rsqrt", "ReduceSum",
        "ReduceMax", "Duplicate", "Tanh", "Sigmoid", "Select", "Compare", "Cast", "Maxs", "Mins", "Abs", "Ln", "Sqrt",
        "Mmad", "LoadData", "Fixpipe", "SyncAll"}


def corpus() -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(np.float32)                  # not a multiple of a tile or of 32 bytes
    m = rng.standard_normal((37, 301)).astype(np.float32)
    w, b = rng.standard_normal(301).astype(np.float32), rng.standard_normal(301).astype(np.float32)
    out = {f"row_{fn}": (_row_kernel(fn), (m[:5, :37].copy(), w[:37].copy())) for fn in ("sin", "cos", "floor", "ceil")}
    out.update({"gelu_naive": (sk.gelu_naive, (x,)), "saxpy": (sk.saxpy, (np.float32(1.5), x, x[::-1].copy())),
                "layernorm": (sk.layernorm, (m, w, b, 1e-5)), "softmax": (sk.softmax, (m,))})
    import test_ascend_names as names                  # parameters and locals named like the renderers' own names
    out.update({"map_names": (names.map_names, (x, 2.0, 1.0, 0.5, 3.0, 0.25)),
                "row_names": (names.row_names, (m[:20, :15].copy(), np.float32(0.5)))})
    import test_ascend_select_nan as sel                # Compare + Select, and a selection of scalars
    import test_ascend_dynamic_scalar as dyn            # sizes known at run time in scalar code
    q, k = rng.standard_normal((3, 17)).astype(np.float32), rng.standard_normal((29, 17)).astype(np.float32)
    out.update({"relu_ternary": (sel.relu_ternary, (x,)), "relu_where": (sel.relu_where, (x,)),
                "relu_max": (sel.relu_max, (x,)),
                "select_scalars": (sel.scaled_by_choice, (x, np.float32(2.0), np.float32(-0.5))),
                "dyn_scores": (dyn.scores, (q, k))})
    import test_ascend_carried as carried               # values carried across iterations: scalar code
    import test_ascend_scalar_math as smath             # math on the vector unit from scalar code, integer helpers
    ia = np.array([7, -7, 7, -7, 0, -2 ** 31, 5, -5, 123456, 3, 2, 1], np.int32)
    ib = np.array([2, 2, -2, -2, 3, -1, 0, 0, 7, 31, 32, -1], np.int32)
    out.update({"recurrence": (carried.recurrence, (x[:301].copy(),)),
                "across_rows": (carried.across_rows, (m[:, :40].copy(),)),
                "scalar_math": (smath.mixed_math, (x[:101].copy(),)),
                "int_ops": (smath.int_ops, (ia, ib))})
    import test_ascend_adv_tmp as adv                   # advanced math over rows of 8: the tmp buffer's floor
    out["row_erf8"] = (adv.row_erf, (m[:5, :8].copy(),))
    import test_ascend_core_split as split              # rows of 7 floats over cores: whole 32-byte blocks each
    import test_ascend_adv_apart as apart               # advanced math never in place
    full = rng.standard_normal(48 * 256).astype(np.float32)         # every tile exactly full (padding guarded)
    out.update({"relu_full": (sel.relu_ternary, (full,)), "rows7": (split.row_scale, (m[:, :7].copy(),)),
                "tanh_stored": (lang.kernel(apart.stored_then_tanh), (x,)),
                "twice_rows": (lang.kernel(apart.twice_rows), (m[:9, :33].copy(),))})
    import test_ascend_scalar_temporaries as temps      # temporaries in UB from scalar code
    import test_ascend_device_funcs as funcs            # device functions inlined into vector code
    rq, rk, rv = (rng.standard_normal(sh).astype(np.float32) for sh in ((17,), (29, 17), (29, 17)))
    out.update({"attention_row": (temps.attention_row, (rq, rk, rv)),
                "histogram": (temps.histogram, (rng.integers(-50, 50, 1001).astype(np.int32),)),
                "bias_gelu_func": (funcs.bias_gelu, (x, x[::-1].copy()))})
    import test_ascend_uniform_pow as upow              # uniform conditions, float powers of scalars
    fx, fy = x[:4099].copy(), x[::-1][:4099].copy()
    out.update({"uniform_map": (upow.uniform_map, (fx, fy, False, 3, -0.25)),
                "uniform_row": (upow.uniform_row, (m[:, :37].copy(), True)),
                "pow_before_loop": (upow.scaled_by_power, (x[:1000].copy(), 0.999, 1000.0)),
                "pow_elementwise": (lang.kernel(upow._pow_elementwise), upow._pairs()),
                "uniform_map_floats": (upow.uniform_map_floats, (fx, fy, 0.0, 3.0, -0.25)),
                "sgd_out": (upow.sgd_out, (fx, fy, fx * 0.1, True)),
                "sgd_out_plain": (upow.sgd_out, (fx, fy, fx * 0.1, False)),
                "adam_out": (upow.adam_out, (fx, fy, fx * 0.1, np.abs(fy) * 0.1, 3.0))})
    from ascend_corpus import CORPUS                    # the Ascend operator corpus at its awkward sizes
    for name, (kernel, factory) in CORPUS.items():
        args = factory("awkward")
        if args is not None:
            out[f"corpus/{name}"] = (kernel, args)
    return out


def run(name, kernel, args, twin_dir, work) -> tuple:
    if hasattr(kernel, "kernel_for"):                   # a @lang.vectorize: the element kernel made for these args
        kernel = kernel.kernel_for(*args)
    spec, bound, symbols = kernel.specialization(args, {}, latest=False)
    src = compiler.render(spec.ir, "ascend", warn=False)
    scalars = {p.var.name: a.value for p, a in zip(spec.ir.entry.params, bound) if a.kind == "scalar"}
    block_dim, values = ascend.tiling(src, symbols, scalars=scalars)      # host scalars: host_scalars.py
    words = host_words([values[f] for f, _ in src.tiling_fields], src.tiling_fields)
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{src.name}.cpp"), "w") as f:
        f.write(src.text)
    words.tofile(os.path.join(d, "tiling.bin"))
    # each run gets its own copies: a kernel that writes a parameter in place must see the same inputs everywhere
    def fresh():
        return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    ref_args, sim_args = fresh(), fresh()
    ref = lang.kernel(target="interpret", precision=kernel.options.precision)(kernel.pyfunc)(*ref_args)
    refs = ref if isinstance(ref, tuple) else (ref,)
    sim = lang.kernel(target="ascend-sim", precision=kernel.options.precision)(kernel.pyfunc)(*sim_args)      # asc's own emulation, the CI check
    sims = sim if isinstance(sim, tuple) else (sim,)
    params = {p.var.name: b.value for p, b in zip(spec.ir.entry.params, bound)}   # defaults included
    names = [p.var.name for p in spec.ir.entry.params]
    in_place = {n: (r, s) for n, r, s in zip(names, ref_args, sim_args)           # written parameters: after the runs
                if n in ir.written_params(spec.ir)[spec.ir.entry.name] and isinstance(r, np.ndarray)}
    outputs = {s.var.name: s.output for s in ir.walk_stmts(spec.ir.entry.body)      # name -> index among returns
               if isinstance(s, ir.Alloc) and s.output is not None}
    workspaces = dict(getattr(src, "workspaces", ()))         # name -> bytes: GM between the phases of a kernel
    types, argv, outs = [], [], []
    for kind, pname, ct in src.entry_params:
        if kind == "tiling":
            types.append("gm")
            argv.append(f"in:{d}/tiling.bin")
        elif kind == "scalar":
            if ct == "int64_t":                           # 8 bytes in GM, read by the entry
                np.array([int(params[pname])], np.int64).tofile(f"{d}/{pname}.i64")
                types.append("gm")
                argv.append(f"in:{d}/{pname}.i64")
            elif ct == "bool":
                # the driver passes int32 (gen_driver.py knows gm/f32/i32/u32): a bool reads the low byte of it
                types.append("i32")
                argv.append(str(int(params[pname])))
            else:
                types.append({"float": "f32", "int32_t": "i32", "uint32_t": "u32"}[ct])
                argv.append(repr(float(params[pname])) if ct == "float" else str(int(params[pname])))
        elif pname in workspaces:                                 # a GM workspace: its bytes (or their tiling value)
            nbytes = workspaces[pname]
            nbytes = int(values[nbytes]) if isinstance(nbytes, str) else int(nbytes)
            types.append("gm")
            argv.append(f"out:{max(nbytes, 32)}:{d}/{pname}.ws")
        elif pname in params:
            types.append("gm")
            np.ascontiguousarray(params[pname]).tofile(f"{d}/{pname}.bin")
            argv.append(f"in:{d}/{pname}.bin")
            if pname in in_place:                        # and a GM buffer the entry copies it into, read back
                r, s = in_place[pname]
                types.append("gm")
                argv.append(f"out:{max(r.nbytes, 32)}:{d}/{pname}.out")
                outs.append((pname, r, s))
        else:
            r = refs[outputs[pname]]
            types.append("gm")
            argv.append(f"out:{r.nbytes}:{d}/{pname}.out")
            outs.append((pname, r, sims[outputs[pname]]))
    cmd = ["bash", os.path.join(twin_dir, "run_twin.sh"), entry_file(src, d, set(in_place)), "asc_twin_entry",
           ",".join(types),
           str(block_dim)] + argv
    env = twin_env(kernel_mode(src.text))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(f"{d}/twin.log", "w") as f:          # the whole build and run log, beside the kernel
        f.write(p.stdout + p.stderr)
    apis = sorted(set(re.findall(r"\b(DataCopyPad|DataCopy|[A-Z][a-z]+[A-Za-z]*)(?:<[^;()]*>)?\(", src.text)) &
                  set(ascend_api.API))
    fired = checks_fired(p.stdout + p.stderr)
    if p.returncode != 0:
        return block_dim, apis, None, None, f"{(p.stderr or p.stdout)[-600:]}\n(whole log: {d}/twin.log)", fired
    worst = worst_sim = 0.0
    for pname, r, s in outs:
        got = np.fromfile(f"{d}/{pname}.out", dtype=r.dtype)[:r.size].reshape(r.shape)
        worst = max(worst, _diff(got, r))
        worst_sim = max(worst_sim, _diff(got, s))
    return block_dim, apis, worst, worst_sim, None, fired


EXTRA_MODEL = os.path.join(ROOT, "scripts", "twin_extra_model.cpp")


# a kernel's KERNEL_TASK_TYPE_DEFAULT -> (TWIN_KERNEL_MODE of the twin's driver, the call the entry makes in each
# process before the kernel, or None). KERNEL_TYPE_MIX_AIV_1_0 (a vector kernel with the hard SyncAll): the driver's
# AIV mode, blockDim processes, each made a block of its own by twin_extra::LaunchMixAiv10 (no sub-blocks); its
# SyncAll lowers to ffts_cross_core_sync / wait_flag_dev, which twin_extra_model.cpp models over shared memory.
LAUNCH = {"KERNEL_TYPE_AIV_ONLY": ("aiv", None), "KERNEL_TYPE_AIC_ONLY": ("aic", None),
          "KERNEL_TYPE_MIX_AIC_1_2": ("mix", None),
          "KERNEL_TYPE_MIX_AIV_1_0": ("aiv", "twin_extra::LaunchMixAiv10();")}


# CANN installs the high-level API headers as lib/... (`#include "lib/matmul_intf.h"`, what a kernel with a Matmul
# writes); asc-devkit's source tree has them under include/adv_api/<module>/. One forwarding header per module a
# kernel of asc includes, in a folder of its own on the twin's include path.
LIB_HEADERS = {"lib/matmul_intf.h": "adv_api/matmul/matmul_intf.h"}


def lib_shim() -> str:
    """A folder holding lib/NAME.h -> the devkit's header for each of LIB_HEADERS (made once per process)."""
    global _LIB_SHIM
    if _LIB_SHIM is None:
        _LIB_SHIM = tempfile.mkdtemp(prefix="asc-twin-lib-")
        atexit.register(shutil.rmtree, _LIB_SHIM, True)
        for name, target in LIB_HEADERS.items():
            os.makedirs(os.path.join(_LIB_SHIM, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(_LIB_SHIM, name), "w") as f:
                f.write(f'#include "{target}"  // CANN\'s installed name for asc-devkit\'s header\n')
    return _LIB_SHIM


_LIB_SHIM = None


def twin_env(mode: str) -> dict:
    """The environment of one run_twin.sh call: the launch mode, and the lib/ headers on the include path (before
    any TWIN_CXXFLAGS of the caller's)."""
    flags = f"-I{lib_shim()} {os.environ.get('TWIN_CXXFLAGS', '')}".strip()
    return dict(os.environ, TWIN_KERNEL_MODE=mode, TWIN_CXXFLAGS=flags)


def launch(text: str) -> tuple:
    """(TWIN_KERNEL_MODE, the entry's launch call or None) for a kernel .cpp: from its KERNEL_TASK_TYPE_DEFAULT
    (vector kernels declare none)."""
    m = re.search(r"KERNEL_TASK_TYPE_DEFAULT\((\w+)\)", text)
    kind = m.group(1) if m else "KERNEL_TYPE_AIV_ONLY"
    if kind not in LAUNCH:
        raise ValueError(f"the twin's driver has no launch mode for {kind}")
    return LAUNCH[kind]


def kernel_mode(text: str) -> str:
    """TWIN_KERNEL_MODE for a kernel .cpp."""
    return launch(text)[0]


INOUT = os.path.join(ROOT, "scripts", "twin_inout.cpp")


def write_entry(path: str, kernel_cpp: str, kernel: str, params: list, call: list, inout=(), pre: str = "") -> str:
    """Writes the entry file `path`: the kernel .cpp, the extra intrinsic model, and `asc_twin_entry(params)` (the
    driver launches it), which calls `kernel(call)`. Each of `inout`, (OUT, IN, BYTES), names two of the entry's
    GM parameters: before the kernel runs, OUT (an `out:` buffer) gets IN's bytes, once per launch
    (scripts/twin_inout.cpp), for a buffer the kernel reads and writes; `pre`, statements run before the kernel.
    Returns path."""
    pre = pre + "".join(f"    twin_inout::CopyInOnce({k}, {o}, {i}, {n}u);\n" for k, (o, i, n) in enumerate(inout))
    text = (f'#include "{kernel_cpp}"\n#include "{EXTRA_MODEL}"\n' + (f'#include "{INOUT}"\n' if inout else "") +
            f'\nextern "C" __global__ __aicore__ void asc_twin_entry({", ".join(params)})\n{{\n{pre}'
            f'    {kernel}({", ".join(call)});\n}}\n')
    with open(path, "w") as f:
        f.write(text)
    return path


def entry_file(src, d: str, in_place=frozenset()) -> str:
    """NAME_twin.cpp: the kernel, the extra intrinsic model, and the entry `asc_twin_entry` the driver launches: the
    kernel's parameters, an int64_t scalar as a GM buffer of its bytes, a parameter the kernel writes (`in_place`)
    as two GM buffers, its input and the buffer the kernel gets, which the first core to arrive fills from the input
    before any core runs the kernel (the driver reads back only its outputs)."""
    params, call, copies = [], [], []
    for i, (kind, pname, ct) in enumerate(src.entry_params):
        if kind == "scalar" and ct == "int64_t":
            params.append(f"GM_ADDR a{i}")
            call.append(f"*reinterpret_cast<__gm__ const int64_t*>(a{i})")
        elif kind == "gm" and pname in in_place:
            params += [f"GM_ADDR a{i}", f"GM_ADDR a{i}_out"]
            call.append(f"a{i}_out")
            copies.append(f"{{a{i}_out, a{i}, {os.path.getsize(os.path.join(d, pname + '.bin'))}}}")
        else:
            params.append(f"{ct if kind == 'scalar' else 'GM_ADDR'} a{i}")
            call.append(f"a{i}")
    start = launch(src.text)[1]
    first = f"    {start}\n" if start else ""
    first += f"    twin_extra::CopyOnce({{{', '.join(copies)}}});\n" if copies else ""
    return write_entry(os.path.join(d, f"{src.name}_twin.cpp"), f"{d}/{src.name}.cpp", src.name, params, call,
                       pre=first)


def checks_fired(log: str) -> list:
    """Huawei's checks that fired ([ERROR] / [WARN] lines of KERNEL_LOG, NPUCHECK) and the twin's sync reports, each
    once (block, core and pid left out)."""
    out = []
    for ln in log.splitlines():
        m = re.match(r"\[(ERROR|WARN)\]\[[^\]]*\]\[[^\]]*\]\[([^\]]*)\]\[.*?\]\[\d+\] ?(.*)", ln.strip())
        m2 = re.match(r"\[(ERROR|WARN)\]\s*(.*)", ln.strip())
        if m:                       # KERNEL_LOG: [LEVEL][block][core type][file:line][function][pid] message
            msg = f"{m.group(1)} {os.path.basename(m.group(2))}: {m.group(3)}"
        elif m2:
            msg = f"{m2.group(1)} {m2.group(2)}"
        elif "[NPUCHECK" in ln or "[TWIN SYNC" in ln:
            msg = re.sub(r"\[(block|AIC|AIV)[^\]]*\]", "", ln.strip())
        else:
            continue
        if msg not in out:
            out.append(msg)
    return out


def _diff(got, ref) -> float:
    """The largest |got - ref| in ulp of ref's dtype at ref's largest finite magnitude; NaN and infinities must be
    where ref has them (else the difference is infinite); integers in units of 1."""
    g, r = np.asarray(got).astype(np.float64), np.asarray(ref).astype(np.float64)
    same = (g == r) | (np.isnan(g) & np.isnan(r))
    if not np.all(same | (np.isfinite(g) & np.isfinite(r))):
        return math.inf
    finite = np.isfinite(r)
    kind_float = np.asarray(ref).dtype.kind == "f" or np.asarray(ref).dtype == ml_dtypes.bfloat16
    eps = float(ml_dtypes.finfo(np.asarray(ref).dtype).eps) if kind_float else 1.0
    unit = (float(np.max(np.abs(r[finite]), initial=0.0)) or 1.0) * eps
    d = np.where(same, 0.0, np.abs(g - r))
    return float(np.max(d, initial=0.0)) / unit


def main(names) -> int:
    twin_dir = asc.environment.config.cann_twin
    if not twin_dir:
        print("ASC_CANN_TWIN is not set: the CANN twin check is skipped")
        return 0
    work = tempfile.mkdtemp(prefix="asc-twin-")
    failed = 0
    print(f"{'kernel':14s} {'blockDim':>8s} {'|twin - interpreter|':>22s} {'|twin - ascend-sim|':>20s}  math APIs")
    for name, (kernel, args) in corpus().items():
        if names and name not in names:
            continue
        try:
            block_dim, apis, worst, worst_sim, err, fired = run(name, kernel, args, twin_dir, work)
        except Exception as e:          # a kernel asc refuses for Ascend, or one the twin's driver cannot pass
            print(f"{name:14s} not run: {type(e).__name__}: {str(e).splitlines()[0][:160]}", flush=True)
            continue
        ok = err is None and worst <= 8 and not fired
        failed += not ok
        diff = f"{worst:.2f} ulp of max" if worst is not None else "did not run"
        dsim = f"{worst_sim:.2f} ulp of max" if worst_sim is not None else ""
        print(f"{name:14s} {block_dim:8d} {diff:>22s} {dsim:>20s}  {', '.join(a for a in apis if a in MATH)}  "
              f"{'ok' if ok else 'FAIL'}", flush=True)
        for msg in fired:
            print(f"   Huawei check fired: {msg[:300]}")
        if err:
            print("   " + err.replace("\n", "\n   "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
