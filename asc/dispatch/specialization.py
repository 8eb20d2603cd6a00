"""One compiled signature of a kernel: its IR, its build (through asc.compiler), and running it from Python."""
from __future__ import annotations

import ctypes
import time

import numpy as np

from .. import compiler, ir
from ..dtypes import HANDLES, is_bfloat16, to_bfloat16
from ..errors import (AscError, ArgumentError, IntegerOverflowError, MemoryCheckError, NumericCheckError,
                      overflow_message)
from ..runtime import launcher

def np_dtype(d: ir.DType):
    return HANDLES[d].np


def empty(shape, dtype: ir.DType, use_torch: bool):
    """An output array (from the launcher's output cache when it is built), as NumPy or torch."""
    mod = launcher.module()
    npdt = HANDLES[dtype].np
    if use_torch:
        import torch
        if mod is None:
            return torch.empty(shape, dtype=getattr(torch, dtype.name))
        if dtype == ir.bfloat16:
            return torch.from_numpy(mod.empty(tuple(shape), np.dtype(np.int16).num)).view(torch.bfloat16)
        return torch.from_numpy(mod.empty(tuple(shape), npdt.num))
    return mod.empty(tuple(shape), npdt.num) if mod is not None else np.empty(shape, npdt)


def data_ptr(arr) -> int:
    if isinstance(arr, np.ndarray):
        return arr.ctypes.data if arr.size else 0
    return arr.data_ptr()


class Specialization:
    """One compiled signature of a kernel."""

    def __init__(self, kernel, key, tensor_ir: ir.Kernel, ir_kernel: ir.Kernel, checked=(False, False)):
        self.kernel, self.key = kernel, key
        self.tensor_ir = tensor_ir    # the frontend's typed, tensor-level IR (stage "frontend")
        self.ir = ir_kernel           # its element-level IR (after the tensor passes): what targets and runs take
        self.options: compiler.BuildOptions = kernel.options.build_options(checked)
        self.symbols_order = ir_kernel.symbols
        self.entry = None
        self.lib = None
        self.path = None
        self.lowered = None
        self.ascend = None            # the rendered Ascend C source (target ascend-sim)
        self.reason = ""
        self.compile_seconds = 0.0
        self.size_params: dict = {}   # index of an int parameter used as a size -> its value, or its size symbol
        self.from_disk = False
        entry = ir_kernel.entry
        self.written = ir.written_params(ir_kernel)[entry.name]
        self.nparams = len(entry.params)
        self.allocs = [o for o in ir_kernel.outputs if o.kind == "alloc"]
        self.scalars_out = [o for o in ir_kernel.outputs if o.kind == "scalar"]
        self.nslots = self.nparams + len(self.allocs) + len(self.scalars_out)
        self.param_np = []   # for scalar params: the NumPy dtype the C code reads
        for p in entry.params:
            t = p.var.type
            if isinstance(t, ir.ScalarType):
                self.param_np.append(np_dtype(ir.int64 if (t.weak and t.dtype.kind == "u") else t.dtype))
            else:
                self.param_np.append(None)

    @property
    def target(self) -> str:
        return self.kernel.options.target

    # ---- build
    def ensure_compiled(self, reason: str):
        if self.entry is not None:
            return
        t0 = time.perf_counter()
        native = self.target == "cpu"
        if native:
            # every compiled call needs the launcher next (Kernel._install, empty()): when it is not built yet, it
            # compiles in the background meanwhile, and launcher.module() waits for it
            launcher.start()
        try:
            b = compiler.build(self.ir, self.target, self.options, reason, self.describe())
        except BaseException:
            if native:
                try:
                    launcher.cancel()    # the user's error comes at once and unchanged; no compiler is left behind
                except Exception:
                    pass
            raise
        if native:
            b.entry.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
            b.entry.restype = ctypes.c_int
            self.slots_type = ctypes.c_void_p * max(self.nslots, 1)
        self.lowered, self.lib, self.path, self.ascend = b.lowered, b.lib, b.path, b.source
        self.reason, self.from_disk = b.reason, not b.compiled
        self.compile_seconds = time.perf_counter() - t0
        self.entry = b.entry

    def describe(self) -> str:
        """The signature, as `x: float32[1024], a: float`."""
        return ", ".join(f"{p.var.name}: {p.var.type!r}" for p in self.ir.entry.params)

    def source(self, target: str, stage: str = compiler.SOURCE) -> str:
        if target == "ir":
            if stage != compiler.SOURCE:
                raise ValueError(f"target 'ir' has no stages; give a compiled target ({', '.join(compiler.TARGETS)})"
                                 f" to see stage {stage!r}")
            return ir.format_kernel(self.ir)
        if target not in compiler.TARGETS:
            raise ValueError(f"no source for target {target!r}; choose 'ir', 'cpu' or 'ascend'")
        return compiler.show(self.tensor_ir, target, self.options, stage)

    # ---- run
    def run_compiled(self, bound, symbols):
        if self.target == "ascend-sim":
            from ..runtime import ascend_sim
            return ascend_sim.run_spec(self, bound, symbols)
        slots = self.slots_type()     # this call's own: other threads call this specialization at the same time
        keep = []
        for i, a in enumerate(bound):
            if a.kind == "scalar":
                try:
                    with np.errstate(over="ignore"):   # float64 -> float32 overflow is inf, as on the fast path
                        buf = np.array(to_bfloat16(a.value) if is_bfloat16(self.param_np[i]) else a.value,
                                       dtype=self.param_np[i])
                except (OverflowError, ValueError, TypeError) as e:
                    raise ArgumentError(f"{self.kernel.__name__}(): argument {self.kernel.specs[i].name!r}: {e}") \
                        from None
                keep.append(buf)
                slots[i] = buf.ctypes.data
            else:
                slots[i] = a.ptr
        use_torch = any(a.kind == "torch" for a in bound)
        outs = []
        for k, o in enumerate(self.allocs):
            shape = tuple(d if isinstance(d, int) else symbols[d.name] for d in o.type.shape)
            arr = empty(shape, o.type.dtype, use_torch)
            outs.append(arr)
            slots[self.nparams + k] = data_ptr(arr)
        sbufs = []
        for k, o in enumerate(self.scalars_out):
            b = np.zeros((), np_dtype(o.type.dtype))
            sbufs.append(b)
            slots[self.nparams + len(self.allocs) + k] = b.ctypes.data
        dims = None
        if self.symbols_order:
            dims = np.array([symbols[n] for n in self.symbols_order], dtype=np.int64)
        rc = self.entry(slots, dims.ctypes.data if dims is not None else None)
        if rc != 0:
            self.fail(rc)
        return self.collect(bound, outs, [b[()] for b in sbufs])

    def fail(self, rc: int):
        """Raises the error a kernel reported through its return code."""
        name = self.kernel.__name__
        if rc in (2, 3) and hasattr(self.lib, "asc_error_info"):
            info = (ctypes.c_int64 * 4)()
            self.lib.asc_error_info(info)
            site, axis, index = info[0], info[1], info[2]
            value = np.array([info[3]], np.int64).view(np.float64)[0]
            loc, tensor, shape = compiler.memory_check_sites(self.lowered, self.options)[site]
            where = f"{loc!r}: " if loc is not None else ""
            dims = tuple(d if isinstance(d, int) else d.name for d in shape)
            if rc == 2:
                raise MemoryCheckError(f"{where}kernel {name!r}: index {index} is out of bounds for axis {axis} of "
                                       f"{tensor!r} with shape {dims} (memory check: the access was skipped)")
            concrete = tuple(d if isinstance(d, int) else 1 for d in shape)
            at = tuple(int(i) for i in np.unravel_index(index, concrete)) if all(isinstance(d, int) for d in shape) \
                else (int(index),)
            raise NumericCheckError(f"{where}kernel {name!r}: this line first produced {value} (stored to {tensor!r} "
                                    f"at index {at})")
        if rc == 4 and hasattr(self.lib, "asc_overflow_info"):
            info = (ctypes.c_int64 * 2)()
            self.lib.asc_overflow_info(info)
            loc, dtype = compiler.overflow_sites(self.lowered, self.options)[info[0]]
            where = f"{loc!r}: " if loc is not None else ""
            if dtype == "negative power":           # asc_ipow_checked: NumPy's ValueError
                raise ValueError(f"{where}kernel {name!r}: Integers to negative integer powers are not allowed. "
                                 f"(the exponent was {info[1]})")
            raise IntegerOverflowError(f"{where}kernel {name!r}: {overflow_message(info[1], dtype)}")
        raise AscError(f"kernel {name!r} failed with code {rc}")

    def collect(self, bound, outs, scalars):
        res = []
        for o in self.ir.outputs:
            if o.kind == "param":
                res.append(bound[o.index].value)
            elif o.kind == "alloc":
                res.append(outs[o.index])
            else:
                res.append(scalars[o.index])
        if self.ir.returns_tuple:
            return tuple(res)
        return res[0] if res else None
