"""Runs the Ascend C that asc emits for pyasc (@asc.jit) kernels through the CANN twin (Huawei's open Ascend C API
implementation on the CPU, with a model of the hardware intrinsics: the twin's own README) and compares each result
with asc's CPU twin (the same source against ascend-sim) and with NumPy.

    ASC_CANN_TWIN=<folder of run_twin.sh> TWIN_DEVKIT_GIT=... TWIN_TOOLS_GIT=... TWIN_SECUREC_GIT=... \
        python scripts/pyasc_twin.py [NAME ...]

The kernels are those of tests/ascendc/pyasc_kernels.py (the vector API families, the queue and the insert_sync
vadd) over float16/float32/int16/int32, with 37 elements per block (not a multiple of 32 bytes) on 4 blocks.
Prints one row per kernel: blocks, the largest difference of the twin from ascend-sim and from NumPy (in units of
the output dtype's eps times the largest |output|; 0 for integers means bit-equal), and pass/fail. Exits 1 when a
kernel fails, 0 with a notice when ASC_CANN_TWIN is not set (the twin is a development-time check, not CI).

    python scripts/pyasc_twin.py --captured FOLDER [--all]

runs the kernels asc saved while other programs ran (ASC_PYASC_CAPTURE=FOLDER: scripts/pyasc_conformance.sh sets
it for pyasc's own tests when ASC_CANN_TWIN is set): each captured source with its inputs through the twin, and
compares every GM argument the kernel changed on asc's CPU twin with the twin's (floats within 8 eps of the
largest |value|, NaN where asc has NaN; integers bit-equal). One run per distinct source (the first launch of it)
unless --all. Prints a table: kernel, the test that launched it, blocks, |twin - asc|, pass/fail, reason, and
Huawei's checks that fired (a fired check fails the row); --markdown prints it as a Markdown table (docs/pyasc.md).

Every kernel runs through cann_twin.py's entry file (cann_twin.write_entry): the kernel .cpp, then
scripts/twin_extra_model.cpp (asc's own bodies for the intrinsics the twin's shared model lacks; its vector part is
scripts/twin_extra_vector.cpp), then `asc_twin_entry`, which takes every parameter as a GM buffer and passes each
scalar or struct to the kernel by value from its bytes; the launch mode is cann_twin.kernel_mode's."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import asc.environment
import asc.runtime.config as rconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "ascendc"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import cann_twin  # noqa: E402  -- the entry file, the extra intrinsic model, the launch mode, Huawei's fired checks
import pyasc_kernels as K  # noqa: E402

N, BLOCKS, CAP = 37, 4, 64
SCALAR_NP = {"float": np.float32, "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "bool": np.bool_,
             "int16_t": np.int16, "uint16_t": np.uint16, "half": np.float16, "uint64_t": np.uint64}


def _f32(a):
    return a.astype(np.float32)


def corpus() -> dict:
    """name -> (kernel, blocks, args, {output name: NumPy reference}, outputs)."""
    rng = np.random.default_rng(0)
    out = {}
    total = N * BLOCKS
    for d in (np.float32, np.float16, np.int32, np.int16):
        name = np.dtype(d).name
        x = rng.uniform(-50, 50, total).astype(d)
        y = rng.uniform(1, 50, total).astype(d)
        ops = 6 if np.dtype(d).kind == "f" else 5
        refs = [_f32(x) + _f32(y), _f32(x) - _f32(y), _f32(x) * _f32(y), np.maximum(x, y), np.minimum(x, y),
                _f32(x) / _f32(y)][:ops]
        out[f"binary_{name}"] = (K.binary_all, BLOCKS, (x, y, np.zeros(ops * total, d), N, ops, CAP),
                                 {"o": np.concatenate([r.astype(d) for r in refs])})
        s = 3.0 if np.dtype(d).kind == "i" else 2.5
        sv = np.float32(s)
        refs = [_f32(x) + sv, _f32(x) * sv, np.maximum(_f32(x), sv), np.minimum(_f32(x), sv), np.full(total, sv)]
        out[f"scalar_{name}"] = (K.unary_all, BLOCKS, (x, np.zeros(5 * total, d), N, s, 0, 5, CAP),
                                 {"o": np.concatenate([r.astype(d) for r in refs])})
        if np.dtype(d).kind == "f":
            u = rng.uniform(0.5, 4, total).astype(d)
            a = _f32(u)
            refs = [np.abs(a), np.maximum(a, 0), np.exp(a), np.log(a), np.sqrt(a), 1 / np.sqrt(a), 1 / a]
            out[f"unary_{name}"] = (K.unary_all, BLOCKS, (u, np.zeros(7 * total, d), N, 0.0, 5, 12, CAP),
                                    {"o": np.concatenate([r.astype(d) for r in refs])})
        xi = rng.integers(-100, 100, 256 * 2).astype(d)
        yi = rng.integers(-100, 100, 256 * 2).astype(d)
        out[f"vadd_queues_{name}"] = (K.vadd_queues, 2, (xi, yi, np.zeros_like(xi), 256, 64),
                                      {"z": (_f32(xi) + _f32(yi)).astype(d)})
        xa = rng.integers(-100, 100, 512 * 2).astype(d)
        ya = rng.integers(-100, 100, 512 * 2).astype(d)
        first = _f32(xa).reshape(-1, 128)[:, :1]
        ref = (_f32(ya).reshape(-1, 128) + first + _f32(xa).reshape(-1, 128)).reshape(-1).astype(d)
        out[f"vadd_auto_{name}"] = (K.vadd_auto, 2, (xa, ya, np.zeros_like(xa), 512, 128), {"z": ref})
    return out


def _diff(got: np.ndarray, ref: np.ndarray) -> float:
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if np.dtype(ref.dtype).kind != "f":
        return float(np.max(np.abs(g - r))) if g.size else 0.0
    unit = (float(np.max(np.abs(r))) or 1.0) * float(np.finfo(ref.dtype).eps)
    return float(np.max(np.abs(g - r))) / unit


def launch(d: str, kernel_cpp: str, kernel: str, args: list, blocks: int, twin_dir: str) -> tuple:
    """Runs `kernel` (defined in kernel_cpp) on `blocks` cores of the CANN twin through cann_twin.py's entry file
    (the kernel, scripts/twin_extra_model.cpp, asc_twin_entry), in the launch mode of its task type. Each of `args`
    is ("in", FILE) or ("out", BYTES, FILE): a GM buffer; ("inout", BYTES, FILE, IN_FILE): a GM buffer the kernel
    reads and writes, holding IN_FILE's bytes when the kernel starts; or ("scalar", CTYPE, FILE): a scalar or struct
    parameter, handed to the entry as a GM buffer of its bytes and passed to the kernel by value. Returns (the exit
    status, the whole log, Huawei's checks that fired); the log is also saved as d/twin.log."""
    params, call, argv, inout = [], [], [], []
    for i, a in enumerate(args):
        params.append(f"GM_ADDR a{i}")
        if a[0] == "scalar":
            call.append(f"*reinterpret_cast<__gm__ const {a[1]}*>(a{i})")
            argv.append(f"in:{a[2]}")
        else:
            call.append(f"a{i}")
            argv.append(f"in:{a[1]}" if a[0] == "in" else f"out:{a[1]}:{a[2]}")
            if a[0] == "inout":                 # the kernel reads it too: its initial bytes from a[3]
                params.append(f"GM_ADDR a{i}_in")
                argv.append(f"in:{a[3]}")
                inout.append((f"a{i}", f"a{i}_in", a[1]))
    # one entry file name per folder: run_twin.sh builds in a folder named after it (runs side by side never share)
    entry = cann_twin.write_entry(os.path.join(d, f"{os.path.basename(os.path.normpath(d))}_twin.cpp"), kernel_cpp,
                                  kernel, params, call, inout)
    with open(kernel_cpp) as f:
        mode = cann_twin.kernel_mode(f.read())
    cmd = ["bash", os.path.join(twin_dir, "run_twin.sh"), entry, "asc_twin_entry", ",".join(["gm"] * len(params)),
           str(blocks)] + argv
    p = subprocess.run(cmd, capture_output=True, text=True, env=cann_twin.twin_env(mode))
    log = p.stdout + p.stderr
    with open(os.path.join(d, "twin.log"), "w") as f:
        f.write(log)
    return p.returncode, log, cann_twin.checks_fired(log)


def failure(rc: int, log: str, d: str) -> str:
    """Why a twin run failed: the intrinsics its model lacks (a link error), or the log's last lines."""
    undef = sorted(set(re.findall(r"undefined reference to `([^']+)'", log)))
    if undef:
        return "the twin's model lacks: " + ", ".join(u.replace("AscendC::", "") for u in undef)
    lines = [x for x in log.strip().splitlines() if x.strip()]
    errors = [x for x in lines if " error: " in x]
    if errors:                  # a compile error: the first one, and the assertion of Huawei's that raised it if any
        cause = [x.strip() for x in lines if "in expansion of macro" in x and "ASSERT" in x][:1]
        src = [lines[i + 1].strip() for i, x in enumerate(lines[:-1]) if x in cause or x.strip() in cause][:1]
        why = (f"does not compile against Huawei's headers: {errors[0].strip()[:200]}"
               + (f" ({cause[0].split(': note')[0]}: {src[0][:80]})" if cause and src else ""))
        return re.sub(r"\S*/src/devkit/", "devkit/", why) + f" (log: {d}/twin.log)"
    return f"the twin failed (rc {rc}): {' | '.join(lines[-3:])[-300:]} (log: {d}/twin.log)"


def run(name, kernel, blocks, args, refs, twin_dir, work):
    k = kernel.specialize(args, {})
    names = list(kernel.signature.parameters)
    by_name = dict(zip(names, args))
    sim_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    rconfig.set_platform(rconfig.Backend.CPU)
    kernel[blocks](*sim_args)                                     # asc's CPU twin: the source against ascend-sim
    sim = dict(zip(names, sim_args))
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{k.name}.cpp"), "w") as f:
        f.write(k.text)
    targs = []
    for kind, pname, ct in k.params:
        if kind == "gm":
            a = np.ascontiguousarray(by_name[pname])
            if pname in refs:
                targs.append(("out", a.nbytes, f"{d}/{pname}.out"))
            else:
                a.tofile(f"{d}/{pname}.bin")
                targs.append(("in", f"{d}/{pname}.bin"))
        elif kind == "scalar" and ct in SCALAR_NP:
            np.array(by_name[pname], SCALAR_NP[ct]).tofile(f"{d}/{pname}.scalar")
            targs.append(("scalar", ct, f"{d}/{pname}.scalar"))
        else:
            return None, None, f"parameter {pname} ({kind} {ct}) has no CANN-twin driver type", []
    rc, log, fired = launch(d, f"{d}/{k.name}.cpp", k.name, targs, blocks, twin_dir)
    if rc != 0:
        return None, None, failure(rc, log, d), fired
    worst_sim = worst_ref = 0.0
    for pname, ref in refs.items():
        a = by_name[pname]
        got = np.fromfile(f"{d}/{pname}.out", dtype=a.dtype).reshape(a.shape)
        worst_sim = max(worst_sim, _diff(got, sim[pname]))
        worst_ref = max(worst_ref, _diff(got, ref))
    return worst_sim, worst_ref, None, fired


def _diff_captured(got: np.ndarray, ref: np.ndarray) -> tuple:
    """(the difference in the unit of the table, the number of elements that differ, the first such index)."""
    if np.dtype(ref.dtype).kind != "f":
        bad = np.flatnonzero(got != ref)
        return (float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) if bad.size else 0.0,
                int(bad.size), int(bad[0]) if bad.size else None)
    g, r = got.astype(np.float64), ref.astype(np.float64)
    same = (g == r) | (np.isnan(g) & np.isnan(r))
    finite = np.isfinite(r)
    unit = (float(np.max(np.abs(r[finite]), initial=0.0)) or 1.0) * float(np.finfo(ref.dtype).eps)
    d = np.where(same, 0.0, np.abs(np.nan_to_num(g - r, nan=np.inf)))
    worst = float(np.max(d, initial=0.0)) / unit
    bad = np.flatnonzero(d > 8 * unit)
    return worst, int(bad.size), int(bad[0]) if bad.size else None


def run_captured(cap: str, twin_dir: str) -> tuple:
    """(blocks, worst difference or None, reason or None) of one captured launch run through the twin."""
    import json
    with open(os.path.join(cap, "meta.json")) as f:
        meta = json.load(f)
    targs, outs = [], []
    for p in meta["params"]:
        if p["kind"] == "gm":
            if p["changed"]:                    # as on asc: its bytes before the launch, read back after it
                nbytes = os.path.getsize(os.path.join(cap, f"{p['name']}.asc"))
                targs.append(("inout", nbytes, f"{cap}/{p['name']}.twin", f"{cap}/{p['name']}.in"))
                outs.append(p)
            else:
                targs.append(("in", f"{cap}/{p['name']}.in"))
        elif os.path.exists(os.path.join(cap, f"{p['name']}.scalar")):
            targs.append(("scalar", p["ctype"], f"{cap}/{p['name']}.scalar"))
        else:
            return meta["blocks"], None, f"parameter {p['name']} ({p['kind']} {p['ctype']}) was not captured", []
    if not outs:
        return meta["blocks"], None, "the kernel changed no GM argument on asc (nothing to compare)", []
    rc, log, fired = launch(cap, f"{cap}/kernel.cpp", meta["kernel"], targs, meta["blocks"], twin_dir)
    if rc != 0:
        return meta["blocks"], None, failure(rc, log, cap), fired
    worst, reasons = 0.0, []
    for q in outs:
        dt = np.dtype(q["dtype"])
        asc_out = np.fromfile(f"{cap}/{q['name']}.asc", dtype=dt)
        twin_out = np.fromfile(f"{cap}/{q['name']}.twin", dtype=dt)
        w, nbad, first = _diff_captured(twin_out, asc_out)
        worst = max(worst, w)
        if nbad:
            reasons.append(f"{q['name']}: {nbad} of {asc_out.size} elements differ, first at {first} "
                           f"(twin {twin_out[first]!r}, asc {asc_out[first]!r})")
    return meta["blocks"], worst, "; ".join(reasons) or None, fired


def main_captured(folder: str, every: bool, markdown: bool = False) -> int:
    import hashlib
    import json
    twin_dir = asc.environment.config.cann_twin
    if not twin_dir:
        print("ASC_CANN_TWIN is not set: the CANN twin check is skipped")
        return 0
    caps, seen = [], {}
    for name in sorted(os.listdir(folder)):
        cap = os.path.join(folder, name)
        if not os.path.isfile(os.path.join(cap, "meta.json")):
            continue
        with open(os.path.join(cap, "kernel.cpp"), "rb") as f:
            h = hashlib.sha1(f.read()).hexdigest()
        if h in seen and not every:
            seen[h][1] += 1
            continue
        seen[h] = [cap, 1]
        caps.append((cap, h))
    failed = 0
    if markdown:
        print("| kernel | test | blockDim | launches | max \\|twin - asc\\| (ulp) | result | Huawei checks fired | reason |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'kernel':28s} {'test':58s} {'blocks':>6s} {'launches':>8s} {'|twin - asc|':>13s}  result  reason")
    for cap, h in caps:
        with open(os.path.join(cap, "meta.json")) as f:
            meta = json.load(f)
        try:
            blocks, worst, why, fired = run_captured(cap, twin_dir)
        except Exception as e:   # noqa: BLE001 -- one row per kernel, whatever goes wrong
            blocks, worst, why, fired = meta["blocks"], None, f"{type(e).__name__}: {e}", []
        ok = worst is not None and why is None and not fired
        failed += not ok
        test = meta["test"].split("::", 1)[-1] if meta["test"] else os.path.basename(cap)
        file = meta["test"].split("::", 1)[0].rsplit("/", 1)[-1] if meta["test"] else ""
        diff = "did not run" if worst is None else f"{worst:.2f}"
        if markdown:
            cell = (lambda t: t.replace("|", "\\|"))
            print(f"| {meta['kernel']} | {cell(file + '::' + test)} | {blocks} | {seen[h][1]} | {diff} | "
                  f"{'pass' if ok else 'FAIL'} | {cell('; '.join(fired)) or 'none'} | {cell(why or '')} |", flush=True)
            continue
        print(f"{meta['kernel'][:28]:28s} {(file + '::' + test)[:58]:58s} {blocks:6d} {seen[h][1]:8d} {diff:>13s}  "
              f"{'PASS' if ok else 'FAIL'}    {why or ''}", flush=True)
        for msg in fired:
            print(f"   Huawei check fired: {msg[:300]}")
    print(f"{len(caps) - failed} of {len(caps)} distinct kernel sources agree with asc on the CANN twin")
    return 1 if failed else 0


def main(names) -> int:
    if names and names[0] == "--captured":
        return main_captured(names[1], "--all" in names[2:], "--markdown" in names[2:])
    twin_dir = asc.environment.config.cann_twin
    if not twin_dir:
        print("ASC_CANN_TWIN is not set: the CANN twin check is skipped")
        return 0
    work = tempfile.mkdtemp(prefix="asc-pyasc-twin-")
    failed = 0
    print(f"{'kernel':22s} {'blocks':>6s} {'|twin - ascend-sim|':>20s} {'|twin - NumPy|':>16s}")
    for name, (kernel, blocks, args, refs) in corpus().items():
        if names and name not in names:
            continue
        worst_sim, worst_ref, err, fired = run(name, kernel, blocks, args, refs, twin_dir, work)
        # float outputs: within 8 eps of the largest |output| of NumPy; integers: equal; no Huawei check fired
        bound = 0 if "int" in name else 8
        ok = err is None and worst_ref <= bound and worst_sim <= bound and not fired
        failed += not ok
        fmt = (lambda v: "did not run" if v is None else f"{v:.2f}")
        print(f"{name:22s} {blocks:6d} {fmt(worst_sim):>20s} {fmt(worst_ref):>16s}  {'ok' if ok else 'FAIL'}",
              flush=True)
        for msg in fired:
            print(f"   Huawei check fired: {msg[:300]}")
        if err:
            print("   " + err.replace("\n", "\n   "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
