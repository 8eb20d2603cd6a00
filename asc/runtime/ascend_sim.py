"""The ascend-sim target: the kernel .cpp of the ascend target, compiled unchanged with the system C++ compiler
against asc's header-only emulation of the Ascend C API (asc/include/ascend_sim/kernel_operator.h and the parts it
includes; the chip's sizes come from asc/chip.py as -D flags, chip_flags()), and run on the CPU with the blocks as
parallel workers. A violation of a documented rule raises AscendSimError naming the API call
and the Python line."""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import shlex
import tempfile

import numpy as np

from .. import chip, ir
from ..errors import AscError, MemoryCheckError, ToolchainError
from . import cache, seal, sim_pch, toolchain

SIM_DIR = os.path.join(toolchain.INCLUDE_DIR, "ascend_sim")
HEADER = os.path.join(SIM_DIR, "kernel_operator.h")
# -Og: with kernel_operator.h precompiled (sim_pch.py) a kernel's compile is mostly code generation; -Og compiles
# the ascend-sim-heavy test files in 75% of -O1's time (216 vs 289 s; -O0 234 s: more code to assemble) and runs a
# 2M-element GELU in 1.36x -O1's time (89 vs 66 ms). ascend-sim is a checker: its kernels are compiled far more often
# than they run long. The same IEEE arithmetic at every level (ISO C++: no contraction, no fast-math).
FLAGS = ("-Og", "-std=c++17", "-fPIC", "-shared", "-pthread", "-w")


def chip_flags() -> tuple:
    """The chip facts ascend-sim's headers read (UB, L1, L0 and BiasTable sizes, ...), as -D flags: asc/chip.py
    declares them once; the headers declare none and refuse to compile without them."""
    return tuple(f"-D{k}={v}" for k, v in chip.sim_defines().items())


# knobs for tests and experiments: vector cores to split over (None: the SoC's), a cap on the tile (elements), and
# worker threads (None: the machine's)
_settings = {"cores": None, "tile_cap": None, "threads": None, "soc": "Ascend910B1"}


class AscendSimError(AscError, RuntimeError):
    """ascend-sim found a kernel breaking a rule of the Ascend C API (or of the 910B hardware)."""


@contextlib.contextmanager
def configured(**kw):
    """with configured(cores=4, tile_cap=256): ... -- the tiling of later calls uses these."""
    old = dict(_settings)
    for k in kw:
        if k not in _settings:
            raise ValueError(f"unknown ascend-sim setting {k!r}")
    _settings.update(kw)
    try:
        yield
    finally:
        _settings.clear()
        _settings.update(old)


def _header_hash() -> str:
    """The hash of ascend-sim's headers (kernel_operator.h and the headers beside and below it: impl/*.h,
    lib/matmul_intf.h, ...)."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(SIM_DIR):
        dirs.sort()
        for fn in sorted(files):
            if fn.endswith(".h"):
                path = os.path.join(root, fn)
                h.update(os.path.relpath(path, SIM_DIR).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _arg_ctype(kind: str, ct: str) -> str:
    if kind != "scalar":
        return "(GM_ADDR)"
    return f"*(const {ct}*)"


def wrapper_source(kernel_path: str, name: str, params: list, mix: bool = False, aiv_sync: bool = False,
                   aic: bool = False) -> str:
    """The extern "C" runner of a kernel: its blocks on worker threads (aic: a KERNEL_TYPE_AIC_ONLY kernel, whose
    blocks are cube cores), or (mix: a KERNEL_TYPE_MIX_AIC_1_2 kernel) blockDim AICs and 2 * blockDim AIVs all at
    once, or (aiv_sync: a KERNEL_TYPE_MIX_AIV_1_0 kernel, a vector kernel with the hard SyncAll) its blockDim AIVs
    all at once."""
    args = []
    k = 0
    for kind, pname, ct in params:
        if kind == "tiling":
            args.append("(GM_ADDR)tiling")
        else:
            args.append(f"{_arg_ctype(kind, ct)}args[{k}]")
            k += 1
    return (f'#include "kernel_operator.h"\n#include "{os.path.basename(kernel_path)}"\n'
            f'extern "C" void asc_sim_gm_extents(const uint64_t* v, int n) {{ ascend_sim::set_gm_extents(v, n); }}\n'
            f'extern "C" int asc_sim_run(void* const* args, const uint8_t* tiling, uint32_t blockDim, '
            f'unsigned threads, char* err, int errLen, int* errLine, int* errBlock) {{\n'
            f'  (void)args;\n' +
            (f'  (void)threads;\n  return ascend_sim::run_mix_blocks(blockDim, [&](uint32_t) {{ {name}({", ".join(args)}); }}, '
             f'err, errLen, errLine, errBlock);\n}}\n' if mix else
             f'  (void)threads;\n  return ascend_sim::run_mix_blocks(blockDim, [&](uint32_t) {{ {name}({", ".join(args)}); }}, '
             f'err, errLen, errLine, errBlock, true);\n}}\n' if aiv_sync else
             f'  return ascend_sim::run_blocks(blockDim, threads, [&](uint32_t) {{ {name}({", ".join(args)}); }}, '
             f'err, errLen, errLine, errBlock{", 1" if aic else ""});\n}}\n'))


def build(kernel_text: str, name: str, params: list):
    """Compiles a kernel .cpp against ascend-sim (cached by content, under the cache's rules: asc/runtime/cache.py)
    -> (ctypes library, path, compiled: bool)."""
    cxx = toolchain.compiler()
    h = hashlib.sha256()
    header_hash = _header_hash()
    for part in (kernel_text, name, repr(params), header_hash, " ".join(FLAGS + chip_flags()),
                 toolchain.identity({})):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()

    def compile_(so: str, reason: str) -> None:
        d = os.path.dirname(so)
        base = so[:-3]
        kpath, wpath = base + ".cpp", base + "_sim.cpp"
        seal.write_atomic(kpath, kernel_text.encode())
        mix = "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)" in kernel_text
        aiv_sync = "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)" in kernel_text
        aic = "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY)" in kernel_text
        seal.write_atomic(wpath, wrapper_source(kpath, name, params, mix, aiv_sync, aic).encode())
        fd, tmp_so = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=d)
        os.close(fd)
        flags = list(FLAGS) + list(chip_flags())
        pch = sim_pch.include_dir(shlex.split(cxx), flags, SIM_DIR, HEADER, header_hash)
        cmd = shlex.split(cxx) + flags + (["-I", pch] if pch else []) + ["-I", SIM_DIR, "-I", d, wpath, "-o", tmp_so]
        cache.log(f"compiling {name} for ascend-sim ({reason}) -> {so}")
        try:
            proc = toolchain.run(cmd, f"kernel {name!r} for ascend-sim")
            if proc.returncode != 0:
                raise ToolchainError(f"the kernel .cpp of {name!r} does not compile against ascend-sim.\n"
                                     f"Repro command: {shlex.join(cmd)}\nKernel source: {kpath}\n"
                                     f"{proc.stderr[-4000:]}")
            toolchain.finish(tmp_so, so, key, f"kernel {name!r} for ascend-sim", cmd)
        finally:
            seal.unlink(tmp_so)

    lib, so, compiled, _ = cache.library(("ascend-sim", key[:2], f"{name}-{key[:32]}.so"), key, compile_,
                                         f"the ascend-sim kernel {name!r}", "")
    return lib, so, compiled


def launch(lib, args: list, tiling_words: np.ndarray, block_dim: int, src=None, kernel_name: str = "kernel",
           tensors: dict | None = None, extents: list | None = None):
    """Runs the kernel; args are pointers (ints) in kernel parameter order without the tiling. Raises
    AscendSimError on a violation, and MemoryCheckError (an IndexError) for a GM access outside a tensor, naming
    the tensor and its shape when `tensors` (device address -> (name, shape)) knows it. `extents`, (address,
    bytes, guard bytes after it) of each tensor argument, bounds the GlobalTensors a kernel sets without a size
    (pyasc's)."""
    lohi = np.array([v for a, n, g in (extents or []) for v in (a, a + n, a + n + g)] or [0], np.uint64)
    lib.asc_sim_gm_extents(ctypes.c_void_p(lohi.ctypes.data), ctypes.c_int(len(extents or [])))
    fn = lib.asc_sim_run
    fn.restype = ctypes.c_int
    arr = (ctypes.c_void_p * max(len(args), 1))(*args)
    err = ctypes.create_string_buffer(2048)
    line, blk = ctypes.c_int(0), ctypes.c_int(-1)
    threads = _settings["threads"] or os.cpu_count() or 1
    rc = fn(arr, ctypes.c_void_p(tiling_words.ctypes.data), ctypes.c_uint32(block_dim), ctypes.c_uint(threads),
            err, ctypes.c_int(len(err)), ctypes.byref(line), ctypes.byref(blk))
    if rc != 0:
        msg = err.value.decode(errors="replace")
        loc = src.python_loc(line.value) if src is not None and line.value > 0 else None
        at = f"{loc!r}: " if loc is not None else ""
        cpp_line = line.value and not getattr(src, "lines_are_python", False)   # pyasc: #line gives the Python
        where = f" (block {blk.value} of {block_dim}" + (f", kernel .cpp line {line.value})" if cpp_line else ")")
        gm = re.search(r" \[gm (\d+) (-?\d+)\]", msg)
        if gm:
            msg = msg[:gm.start()] + msg[gm.end():]
            name, shape = (tensors or {}).get(int(gm.group(1)), (None, None))
            if name is not None:
                index = int(gm.group(2))
                what = f"index {index} is out of bounds for axis 0 of" if len(shape) == 1 else \
                    f"flat element {index} is out of bounds for"
                raise MemoryCheckError(f"{at}kernel {kernel_name!r}: {what} {name!r} with shape {shape} "
                                       f"(ascend-sim: {msg}{where})")
            raise MemoryCheckError(f"{at}ascend-sim: kernel {kernel_name!r}: {msg}{where}")
        raise AscendSimError(f"{at}ascend-sim: kernel {kernel_name!r}: {msg}{where}")


# ------------------------------------------------------------------ kernels called from Python

def tiling_words(src, symbols: dict, scalars=None):
    """(blockDim, {field: value}, the tiling's uint32 words) for these sizes and scalar parameters."""
    from ..backends import ascend
    from ..backends.ascend.host_scalars import words as pack
    block_dim, values = ascend.tiling(src, symbols, _settings["soc"], _settings["cores"], _settings["tile_cap"],
                                      scalars)
    words = pack([values[f] for f, _ in src.tiling_fields], src.tiling_fields)
    return block_dim, values, words


def _poison(arr):
    if arr.dtype.kind == "f" or arr.dtype.name == "bfloat16":
        arr.view(np.uint8)[...] = 0xFF          # NaN: an element the kernel does not write shows up
    else:
        arr.view(np.uint8)[...] = 0xA5


GM_ALIGN = 512          # aclrtMalloc returns (at least) 512-byte aligned device memory


def device_empty(nbytes: int) -> np.ndarray:
    """nbytes of uint8 at a GM_ALIGN-aligned address."""
    raw = np.empty(nbytes + GM_ALIGN, np.uint8)
    off = (-raw.ctypes.data) % GM_ALIGN
    return raw[off:off + nbytes]


def run_spec(spec, bound, symbols):
    from ..dtypes import HANDLES
    src = spec.ascend
    k: ir.Kernel = spec.ir
    keep, ptrs, back = [], [], []
    for p, a in zip(k.entry.params, bound):
        t = p.var.type
        if a.kind == "scalar":
            np_t = np.float32 if t.dtype.kind == "f" else (np.bool_ if t.dtype.kind == "b" else np.int64)
            buf = np.array(a.value, dtype=np_t)
            keep.append(buf)
            ptrs.append(buf.ctypes.data)
        else:
            # device memory: a copy in an aligned allocation, as aclrtMalloc + aclrtMemcpy give the NPU kernel
            host = np.frombuffer((ctypes.c_char * a.nbytes).from_address(a.ptr), np.uint8) if a.nbytes else None
            dev = device_empty(a.nbytes)
            if a.nbytes:
                dev[:] = host
                if p.var.name in spec.written:
                    back.append((host, dev))
            keep.append(dev)
            ptrs.append(dev.ctypes.data if a.nbytes else 0)
    use_torch = any(a.kind == "torch" for a in bound)
    outs = []
    for o in spec.allocs:
        shape = tuple(d if isinstance(d, int) else symbols[d.name] for d in o.type.shape)
        npdt = np.dtype(HANDLES[o.type.dtype].np)
        n = int(np.prod(shape)) if shape else 1
        arr = device_empty(n * npdt.itemsize).view(npdt).reshape(shape)
        _poison(arr)
        outs.append(arr)
        ptrs.append(arr.ctypes.data if arr.size else 0)
    scalars = {p.var.name: a.value for p, a in zip(k.entry.params, bound) if a.kind == "scalar"}
    block_dim, values, words = tiling_words(src, symbols, scalars)
    for _name, nbytes in getattr(src, "workspaces", ()):     # GM workspaces (between the phases of a kernel, a sum's
        if isinstance(nbytes, str):                          # partials: their bytes a tiling value of that name)
            nbytes = int(values[nbytes])
        ws = device_empty(nbytes)
        ws[:] = 0xFF                                            # NaN in every float type, as outputs are poisoned
        keep.append(ws)
        ptrs.append(ws.ctypes.data)
    names = {}
    for p, a, ptr in zip(k.entry.params, bound, ptrs):
        if a.kind != "scalar" and ptr:
            names[ptr] = (p.var.name, tuple(d if isinstance(d, int) else symbols[d.name] for d in p.var.type.shape))
    out_names = {s.output: s.var.name for s in ir.walk_stmts(k.entry.body)
                 if isinstance(s, ir.Alloc) and s.output is not None}
    for o, arr, ptr in zip(spec.allocs, outs, ptrs[len(k.entry.params):]):
        if ptr:
            names[ptr] = (out_names.get(o.index, f"output {o.index}"), arr.shape)
    launch(spec.lib, ptrs, words, block_dim, src, spec.kernel.__name__, names)
    for host, dev in back:
        host[:] = dev
    if use_torch:
        import torch
        outs = [torch.from_numpy(o) if o.dtype.name != "bfloat16" else
                torch.from_numpy(o.view(np.int16)).view(torch.bfloat16) for o in outs]
    return spec.collect(bound, outs, [])
