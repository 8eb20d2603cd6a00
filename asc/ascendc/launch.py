"""Running a pyasc kernel: on the CPU twin (Backend.CPU, and Backend.Model with a one-time notice) the translated
source is compiled with the system C++ compiler against ascend-sim and its blocks run on the CPU; Backend.NPU
needs an NPU. Tensor arguments are copied into device buffers (512-byte aligned, as aclrtMalloc gives, with
poisoned guard zones around them) and copied back only when the run succeeds: a kernel that breaks a rule leaves
the caller's data unchanged."""
from __future__ import annotations

import ctypes
import itertools
import json
import os
import warnings

import numpy as np

from .. import environment as asc_config
from ..errors import ArgumentError, MemoryCheckError, UnsupportedError
from ..runtime import ascend_sim
from ..runtime import config as rconfig
from . import kernel_source as source

GUARD = 64 * 1024          # poisoned bytes before and after each tensor argument
GM_ALIGN = 512


class ModelNotice(UserWarning):
    """Backend.Model (CANN's simulator) runs on asc's CPU twin."""


def _notice_model():
    if rconfig.state.model_noticed:
        return
    rconfig.state.model_noticed = True
    warnings.warn("config.Backend.Model selects CANN's cycle simulator, which is not here: asc runs the kernel on "
                  "its CPU twin (the same Ascend C compiled against ascend-sim, every Ascend rule checked; no "
                  "cycle figures). Select config.Backend.CPU to run there without this notice.", ModelNotice,
                  stacklevel=4)


def _host_view(name, value):
    """A writable NumPy view of a tensor argument's memory (torch tensors share theirs)."""
    if isinstance(value, np.ndarray):
        if not value.flags.c_contiguous:
            raise ArgumentError(f"argument {name} is not C-contiguous (pass np.ascontiguousarray(...))")
        return value
    t = value
    if getattr(t, "device", None) is not None and t.device.type != "cpu":
        raise ArgumentError(f"argument {name} is on {t.device}; the CPU twin takes CPU tensors (.cpu())")
    if not t.is_contiguous():
        raise ArgumentError(f"argument {name} is not contiguous (pass .contiguous())")
    if t.is_neg():          # torch._neg_view(t), t.conj().imag: the memory holds the values without their sign
        raise ArgumentError(f"argument {name} is a torch tensor with the negative bit set (a lazily negated view); "
                            f"its memory holds the values without their sign: pass {name}.resolve_neg() (a copy)")
    import torch
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy()
    return t.numpy()


class _Device:
    def __init__(self, name, host: np.ndarray):
        self.name, self.host = name, host
        self.nbytes = host.nbytes
        raw = np.empty(self.nbytes + 2 * GUARD + GM_ALIGN, np.uint8)
        start = GUARD + (-(raw.ctypes.data + GUARD)) % GM_ALIGN
        self.raw, self.start = raw, start
        raw[:] = 0xA5
        self.data = raw[start:start + self.nbytes]
        if self.nbytes:
            self.data[:] = host.reshape(-1).view(np.uint8)
        self.ptr = self.data.ctypes.data

    def guards_intact(self):
        lo = self.raw[:self.start]
        hi = self.raw[self.start + self.nbytes:]
        return bool((lo == 0xA5).all() and (hi == 0xA5).all())

    def copy_back(self):
        if not self.nbytes:
            return
        host = self.host.reshape(-1).view(np.uint8)
        if not self.host.flags.writeable:
            # a read-only array is fine as an input; the kernel writing it is an error (checked before any
            # argument is written back, so that the caller's data stay unchanged)
            if not np.array_equal(host, self.data):
                raise ArgumentError(f"the kernel wrote argument {self.name}, which is a read-only array: pass a "
                                    f"writable one (e.g. {self.name}.copy())")
            return
        host[:] = self.data


_captures = itertools.count()


def _scalar_bytes(a) -> np.ndarray:
    """A scalar argument as the kernel parameter's C type holds it."""
    np_t = {"int64": np.int64, "float32": np.float32, "bool": np.bool_}.get(a.dtype.name) or a.dtype.np
    return np.array(a.value, dtype=np_t)


def _capture(folder, k, core_num, bound, devs, before):
    """ASC_PYASC_CAPTURE: one folder per successful launch, with the emitted source (kernel.cpp), each GM argument
    before (NAME.in) and after (NAME.asc) the run on the CPU twin, each scalar or struct argument's bytes
    (NAME.scalar), and meta.json (the kernel's name, the block
    count, its parameters in order with their kinds, C types, dtypes and scalar values, and the pytest test that
    ran it). scripts/pyasc_twin.py --captured FOLDER runs them through the CANN twin."""
    d = os.path.join(folder, f"{os.getpid()}_{next(_captures):04d}_{k.name}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.cpp"), "w") as f:
        f.write(k.text)
    by_dev = iter(zip(devs, before))
    params = []
    for (kind, cname, ctype), a in zip(k.params, [a for a in bound if a.kind != "const"]):
        p = {"kind": kind, "name": cname, "ctype": ctype}
        if kind == "gm":
            dev, pre = next(by_dev)
            p["dtype"] = str(dev.host.dtype)
            p["changed"] = bool(not np.array_equal(pre, dev.data))
            pre.tofile(os.path.join(d, f"{cname}.in"))
            dev.data.tofile(os.path.join(d, f"{cname}.asc"))
        elif a.kind == "scalar":
            p["value"] = a.value.item() if hasattr(a.value, "item") else a.value
            _scalar_bytes(a).tofile(os.path.join(d, f"{cname}.scalar"))
        elif a.kind == "struct":
            c = a.value.to_ctypes()
            with open(os.path.join(d, f"{cname}.scalar"), "wb") as f:
                f.write(bytes(c))
        params.append(p)
    meta = {"kernel": k.name, "blocks": int(core_num), "params": params,
            "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


def run(jf, core_num, stream, args, kwargs):
    if asc_config.config.debug:
        raise UnsupportedError(f"kernel {jf.fn.__name__!r}: ASC_DEBUG=1 runs @lang.kernel kernels in the "
                               f"interpreter; pyasc (@asc.jit) kernels have no interpreter yet: unset ASC_DEBUG to "
                               f"run this one on the CPU twin")
    backend = rconfig.state.backend
    if backend == rconfig.Backend.NPU:
        if not rconfig.npu_available():
            raise rconfig.NoDeviceError(
                f"kernel {jf.fn.__name__!r}: config.Backend.NPU is selected, and this machine has no Ascend NPU "
                f"and CANN runtime. Run on the CPU twin (config.set_platform(config.Backend.CPU)), or build for "
                f"an NPU with `asc compile FILE.py::{jf.fn.__name__} --target ascend -o DIR`.")
        raise rconfig.NoDeviceError("launching on a real NPU from asc is not supported yet: build the CANN "
                                    "project with `asc compile ... --target ascend` and run it there")
    if backend == rconfig.Backend.Model:
        _notice_model()
    bound = source.bind(jf, args, kwargs)
    k = source.specialize_bound(jf, bound)
    if k.lib is None:
        k.lib, k.so, _ = ascend_sim.build(k.text, k.name, k.params)
    devs, ptrs, keep, names = [], [], [], {}
    for a in bound:
        if a.kind == "gm":
            d = _Device(a.name, _host_view(a.name, a.value))
            devs.append(d)
            ptrs.append(d.ptr if d.nbytes else 0)
            names[d.ptr] = (a.name, tuple(np.shape(a.value)))
        elif a.kind == "scalar":
            buf = _scalar_bytes(a)
            keep.append(buf)
            ptrs.append(buf.ctypes.data)
        elif a.kind == "struct":
            c = a.value.to_ctypes()
            keep.append(c)
            ptrs.append(ctypes.addressof(c))
    before = [d.data.copy() for d in devs] if asc_config.config.pyasc_capture else None
    ascend_sim.launch(k.lib, ptrs, np.zeros(1, np.uint32), core_num, k, k.name, names,
                      [(d.ptr, d.nbytes, GUARD) for d in devs if d.nbytes])
    for d in devs:
        if not d.guards_intact():
            raise MemoryCheckError(f"kernel {k.name!r} wrote global memory outside argument {d.name!r} "
                                   f"({d.nbytes} bytes): a GM write out of bounds (ascend-sim)")
    if before is not None:
        _capture(asc_config.config.pyasc_capture, k, core_num, bound, devs, before)
    for d in devs:
        if not d.host.flags.writeable:
            d.copy_back()          # raises before anything is written back when a read-only argument was written
    for d in devs:
        if d.host.flags.writeable:
            d.copy_back()
    return None

