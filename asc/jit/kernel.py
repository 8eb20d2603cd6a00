"""`@lang.kernel` and `@lang.func`: specialization on first call per signature, compile, cache, launch."""
from __future__ import annotations

import ctypes
import functools
import time
import weakref

import numpy as np

from .. import config as _config
from .. import ir
from ..marks import DeviceCallable
from ..errors import AscError, ArgumentError, CompileError, MemoryCheckError, NumericCheckError
from ..runtime import binding, launcher

TARGETS = ("cpu", "interpret", "ascend", "ascend-sim")
AVAILABLE_TARGETS = ("cpu", "interpret", "ascend-sim")
PRECISIONS = ("default", "mixed")


_memory_check = [None]          # lang.enable_memory_check() / disable: overrides ASC_MEMORY_CHECK when set
_numeric_check = [None]         # lang.enable_numeric_check(): None (ASC_NUMERIC_CHECK), False, "outputs", "intermediates"
_observer = [None]              # the active profiler: sees every call and compile (calls then take the Python path)
_kernels: "weakref.WeakSet" = weakref.WeakSet()
_funcs: "weakref.WeakSet" = weakref.WeakSet()


def _python_path_only() -> bool:
    return numeric_check_mode() is not None


def _refresh_launchers():
    """Empties every launcher when calls must take the Python path (profiling, numeric checks), refills otherwise."""
    for k in list(_kernels):
        if k._launcher is None:
            continue
        k._launcher.clear()
        k._rows = []
        if not _python_path_only():
            for spec in k._cache.values():
                if spec.entry is not None and spec.key[-1] == k.options.checked():
                    k._add_row(spec)


def set_observer(obs):
    """Installs (or with None removes) the call observer: obs.on_call(kernel, spec, bound, symbols, target, seconds)
    and obs.on_compile(kernel, spec, seconds, from_disk, reason). Launchers report their calls to it too."""
    _observer[0] = obs
    for k in list(_kernels):
        if k._launcher is not None:
            k._launcher.observer = k._observed if obs is not None else None


def set_numeric_check(mode):
    """mode: None/False (off), "outputs" (check outputs after each call), "intermediates" (also every store)."""
    _numeric_check[0] = mode if mode else False
    _refresh_launchers()


def numeric_check_mode():
    mode = _numeric_check[0]
    if mode is None:
        return "outputs" if _config.config.numeric_check else None
    return mode or None


def set_memory_check(on: bool):
    """Turns bounds-checked code on or off for every kernel without its own memory_check option."""
    _memory_check[0] = bool(on)
    _refresh_launchers()               # their launchers hold rows of the other mode


def memory_check_enabled() -> bool:
    return _config.config.memory_check if _memory_check[0] is None else _memory_check[0]


class Options:
    __slots__ = ("target", "dynamic_shape", "precision", "fastmath", "num_threads", "memory_check", "numeric_check")

    def __init__(self, target="cpu", dynamic_shape=False, precision="default", fastmath=False, num_threads=None,
                 memory_check=None, numeric_check=None):
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if target not in AVAILABLE_TARGETS:
            hint = ("; kernels for an NPU are generated with kernel.source(\"ascend\", ...) or `asc compile --target "
                    "ascend`, and run on the CPU with target=\"ascend-sim\"") if target == "ascend" else ""
            raise ValueError(f"target {target!r} is not available in this version of asc yet; "
                             f"available: {', '.join(AVAILABLE_TARGETS)}{hint}")
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
        if num_threads is not None and (not isinstance(num_threads, int) or isinstance(num_threads, bool)
                                        or num_threads < 1):
            raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")
        self.target, self.dynamic_shape, self.precision = target, bool(dynamic_shape), precision
        self.fastmath, self.num_threads = bool(fastmath), num_threads
        self.memory_check = None if memory_check is None else bool(memory_check)
        if numeric_check not in (None, True, False, "outputs", "intermediates"):
            raise ValueError(f"numeric_check must be True, False, 'outputs' or 'intermediates', got {numeric_check!r}")
        self.numeric_check = "outputs" if numeric_check is True else numeric_check

    def numeric(self):
        if self.numeric_check is None:
            return numeric_check_mode()
        return self.numeric_check or None

    def checked(self):
        """What the compiled code checks: (memory check, finite intermediates) -- part of the specialization."""
        return (memory_check_enabled() if self.memory_check is None else self.memory_check,
                self.numeric() == "intermediates")

    def build_options(self, checked=(False, False)) -> dict:
        opts = {"fastmath": self.fastmath, "num_threads": self.num_threads or _config.config.num_threads}
        if checked[0]:
            opts["memory_check"] = True
        if checked[1]:
            opts["finite_check"] = True
        return opts


def _hide_internals(fn):
    """Errors that asc raises on purpose surface without asc's frames."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AscError as e:
            raise e.with_traceback(None) from None
    return wrapper


class Specialization:
    """One compiled signature of a kernel."""

    def __init__(self, kernel, key, ir_kernel: ir.Kernel, symbols_order, checked=(False, False)):
        self.kernel, self.key, self.ir = kernel, key, ir_kernel
        self.opts = kernel.options.build_options(checked)
        self.symbols_order = symbols_order
        self.entry = None
        self.lib = None
        self.path = None
        self.compile_seconds = 0.0
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
                self.param_np.append(_np_dtype(ir.int64 if (t.weak and t.dtype.kind == "u") else t.dtype))
            else:
                self.param_np.append(None)

    # ---- build
    def ensure_compiled(self, reason: str):
        if self.entry is not None:
            return
        if self.kernel.options.target == "ascend-sim":
            from ..runtime import ascend_sim
            return ascend_sim.compile_spec(self, reason)
        t0 = time.perf_counter()
        # every compiled call needs the launcher next (Kernel._install, _empty): when it is not built yet, it
        # compiles in the background meanwhile, and launcher.module() waits for it
        launcher.start()
        try:
            from .. import passes
            from ..runtime import cache
            lowered = passes.for_native(self.ir, checked=len(self.opts) > 2)
            self.lowered = lowered
            opts = self.opts
            normalized = ir.format_kernel(lowered, locs=False)

            def render():            # only on a cache miss: a warm first call never imports the renderer
                from ..backends import cpu
                return cpu.render(lowered, opts)
            lib, path, compiled, reason = cache.load_or_build(self.ir.entry.name, normalized, render, opts, reason,
                                                              self.describe())
            fn = lib.asc_entry
        except BaseException:
            try:
                launcher.cancel()    # the user's error comes at once and unchanged; no compiler is left behind
            except Exception:
                pass
            raise
        self.reason = reason
        fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
        fn.restype = ctypes.c_int
        self.lib, self.path, self.entry = lib, path, fn
        self.from_disk = not compiled
        self.compile_seconds = time.perf_counter() - t0
        self._slots = (ctypes.c_void_p * max(self.nslots, 1))()

    def describe(self) -> str:
        """The signature, as `x: float32[1024], a: float`."""
        return ", ".join(f"{p.var.name}: {p.var.type!r}" for p in self.ir.entry.params)

    def source(self, target: str) -> str:
        from .. import passes
        if target == "ir":
            return ir.format_kernel(self.ir)
        if target == "cpu":
            from ..backends import cpu
            return cpu.render(passes.for_native(self.ir, checked=len(self.opts) > 2), self.opts)
        if target in ("ascend", "ascend-sim"):
            from ..backends import ascend
            return ascend.render(passes.for_cpu(self.ir)).text
        raise ValueError(f"no source for target {target!r}; choose 'ir', 'cpu' or 'ascend'")

    # ---- run
    def run_compiled(self, bound, symbols):
        if self.kernel.options.target == "ascend-sim":
            from ..runtime import ascend_sim
            return ascend_sim.run_spec(self, bound, symbols)
        slots = self._slots
        keep = []
        for i, a in enumerate(bound):
            if a.kind == "scalar":
                try:
                    with np.errstate(over="ignore"):   # float64 -> float32 overflow is inf, as on the fast path
                        buf = np.array(a.value, dtype=self.param_np[i])
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
            arr = _empty(shape, o.type.dtype, use_torch)
            outs.append(arr)
            slots[self.nparams + k] = _ptr(arr)
        sbufs = []
        for k, o in enumerate(self.scalars_out):
            b = np.zeros((), _np_dtype(o.type.dtype))
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
            from ..backends import cpu
            info = (ctypes.c_int64 * 4)()
            self.lib.asc_error_info(info)
            site, axis, index = info[0], info[1], info[2]
            value = np.array([info[3]], np.int64).view(np.float64)[0]
            loc, tensor, shape = cpu.memory_check_sites(self.lowered, self.opts)[site]
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


def _np_dtype(d: ir.DType):
    from ..dtypes import HANDLES
    return HANDLES[d].np


def _empty(shape, dtype: ir.DType, use_torch: bool):
    """An output array (from the launcher's output cache when it is built), as NumPy or torch."""
    from ..dtypes import HANDLES
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


def _ptr(arr) -> int:
    if isinstance(arr, np.ndarray):
        return arr.ctypes.data if arr.size else 0
    return arr.data_ptr()


class Kernel(DeviceCallable):
    """A compiled kernel. Call it like the Python function; it compiles once per argument signature."""

    def __init__(self, pyfunc, mode="kernel", **options):
        self.pyfunc = pyfunc
        self.mode = mode              # "kernel", "cube" (@lang.cube_kernel) or "fused" (@lang.fused_kernel)
        self.options = Options(**options)
        self.__name__ = pyfunc.__name__
        self.__qualname__ = pyfunc.__qualname__
        self.__doc__ = pyfunc.__doc__
        self.__module__ = pyfunc.__module__
        self.__wrapped__ = pyfunc
        self._specs = None
        self._ret = None
        self._cache: dict = {}
        self._last = None
        self._launcher = None
        self._by_entry: dict = {}
        self._rows: list = []
        self.compile_log: list = []
        self.stats = {"compiles": 0, "disk_hits": 0, "calls": 0}
        _kernels.add(self)

    @property
    def specs(self):
        if self._specs is None:
            from ..frontend.signature import read_signature
            self._specs, self._ret = read_signature(self.pyfunc)
        return self._specs

    def __repr__(self) -> str:
        return f"<asc kernel {self.__qualname__} target={self.options.target}>"

    @_hide_internals
    def _call(self, *args, **kwargs):
        """The Python path of a call: binding with full checks and errors, specialization, compilation. Once a
        specialization is compiled, the compiled launcher serves matching calls without coming here."""
        specs = self.specs
        bound, symbols = binding.bind(self.__name__, specs, args, kwargs)
        dynamic = self.options.dynamic_shape
        checked = self.options.checked()
        key = binding.spec_key(bound, dynamic) + (checked,)
        spec = self._cache.get(key)
        if spec is None:
            spec = self._specialize(key, bound, symbols, checked)
        self._last = spec
        self.stats["calls"] += 1
        binding.check_writes(self.__name__, specs, bound, spec.written)
        obs = _observer[0]
        interpret = self.options.target == "interpret" or _config.config.debug
        if not interpret and spec.entry is None:
            reason = self._compile_reason(key)
            spec.ensure_compiled(reason)
            reason = spec.reason
            self.compile_log.append({"signature": spec.describe(), "reason": reason,
                                     "seconds": spec.compile_seconds, "from_disk_cache": spec.from_disk})
            self.stats["disk_hits" if spec.from_disk else "compiles"] += 1
            if obs is not None:
                obs.on_compile(self, spec, spec.compile_seconds, spec.from_disk, reason)
            self._install(spec)
        t0 = time.perf_counter()
        if interpret:
            from ..runtime.interpreter import run
            result = run(spec, bound, symbols)
        else:
            result = spec.run_compiled(bound, symbols)
            if self._launcher is not None and not _python_path_only():
                if spec.key not in self._rows:
                    self._add_row(spec)  # a signature the table had pushed out: it serves the next calls again
                elif any(a.kind == "torch" for a in bound):
                    launcher.share_torch(launcher.module())  # torch imported since the row was added
        if obs is not None:
            obs.on_call(self, spec, bound, symbols, "interpret" if interpret else self.options.target,
                        time.perf_counter() - t0)
        if self.options.numeric() is not None:
            from ..runtime.numeric import check_outputs
            check_outputs(self, spec, bound, result)
        return result

    __call__ = _call

    def _compile_reason(self, key) -> str:
        """Why this specialization compiles: what differs from the ones this kernel already has."""
        others = [k for k, s in self._cache.items() if k != key]
        if not others:
            return "first call"
        names = [s.name for s in self.specs]
        prev = others[-1]
        for name, a, b in zip(names, prev, key):
            if a[1] != b[1]:
                return f"new dtype for {name!r} ({a[1]!r} -> {b[1]!r})"
        for name, a, b in zip(names, prev, key):
            if a != b:
                return f"new static shape for {name!r} ({a[2]} -> {b[2]})"
        return "changed options (memory or numeric check)"

    def _install(self, spec):
        """Adds a compiled specialization to this kernel's launcher (built on first use)."""
        if self.options.target == "ascend-sim":        # (its calls run the emulator, from Python)
            return
        mod = launcher.module()
        if mod is None:
            return
        if self._launcher is None:
            self._launcher = mod.Launcher(self._call, self._on_error)
            if _observer[0] is not None:
                self._launcher.observer = self._observed
            # calls now go straight to the launcher: a class of this kernel's own whose __call__ it is
            self.__class__ = type(type(self).__name__, (type(self),), {"__call__": self._launcher})
        if not _python_path_only():
            self._add_row(spec)

    def _add_row(self, spec):
        mod = launcher.module()
        launcher.share_torch(mod)
        address = ctypes.cast(spec.entry, ctypes.c_void_p).value
        self._by_entry[address] = spec
        self._launcher.add(*launcher.row(spec, address))
        # mirror of the launcher's table (newest first), so that a signature pushed out comes back when used
        # (keyed by specialization: several can share one compiled entry, e.g. made for np.float32 and np.float64)
        self._rows = ([spec.key] + [k for k in self._rows if k != spec.key])[:mod.TABLE_ROWS]

    def _observed(self, address: int, seconds: float, sizes: tuple):
        """A call the launcher served, reported to the active profiler."""
        obs = _observer[0]
        if obs is not None:
            spec = self._by_entry[address]
            obs.on_call(self, spec, None, dict(zip(spec.ir.symbols, sizes)), self.options.target, seconds)

    def _on_error(self, address: int, rc: int):
        """The launcher's report of a failed call: raise its error."""
        _hide_internals(self._by_entry[address].fail)(rc)

    def _specialize(self, key, bound, symbols, checked=(False, False)):
        from .. import passes  # glue: lead rewires
        from ..frontend import build_kernel_ir  # glue: lead rewires
        types, syms = binding.arg_types(self.specs, bound, symbols, self.options.dynamic_shape)
        k = build_kernel_ir(self.pyfunc, types, syms, self.options.dynamic_shape, self._ret, fused=self.mode == "fused",
                            cube=self.mode == "cube")
        k = passes.tensor_lowering(k)  # glue: lead rewires
        spec = Specialization(self, key, k, k.symbols, checked)
        self._cache[key] = spec
        return spec

    def source(self, target: str = "cpu", *args, **kwargs) -> str:
        """The generated code for `target` ("ir", "cpu" or "ascend": the Ascend C kernel .cpp) of the
        specialization for these example arguments, or of the latest call when none are given."""
        return _hide_internals(self._source)(target, *args, **kwargs)

    def _source(self, target, *args, **kwargs):
        if args or kwargs:
            bound, symbols = binding.bind(self.__name__, self.specs, args, kwargs)
            checked = self.options.checked()
            key = binding.spec_key(bound, self.options.dynamic_shape) + (checked,)
            spec = self._cache.get(key) or self._specialize(key, bound, symbols, checked)
        else:
            spec = self._last
            if spec is None:
                raise CompileError(f"{self.__name__}.source(): call the kernel first, or pass example arguments")
        return spec.source(target)

    def estimate(self, target: str = "ascend", *args, soc: str = "Ascend910B1", **kwargs):
        """Estimated NPU time of this kernel for `target` "ascend" on `soc`, for these example arguments (or the
        latest call): an estimate from asc's documented cost model (docs/ascend.md), with what bounds it."""
        if target not in ("ascend", "ascend-sim"):
            raise ValueError(f"estimate() models the ascend target, not {target!r}")
        from ..backends.ascend_cost import estimate_kernel
        return _hide_internals(estimate_kernel)(self, args, kwargs, soc)

    def cache_info(self) -> dict:
        """Specializations in memory, compiles and disk-cache hits in this process, and the library paths."""
        fast = self._launcher.calls if self._launcher is not None else 0
        return {"specializations": len(self._cache), **self.stats, "calls": self.stats["calls"] + fast,
                "compilations": list(self.compile_log),
                "libraries": [s.path for s in self._cache.values() if s.path]}


class Func(DeviceCallable):
    """A device function (`@lang.func`): callable from kernels (compiled inline per argument types, recursion
    allowed), and from Python (runs the function itself)."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        functools.update_wrapper(self, pyfunc)
        _funcs.add(self)

    def __call__(self, *args, **kwargs):
        return self.pyfunc(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<asc func {self.pyfunc.__qualname__}>"


def kernel(fn=None, **options):
    """Decorator: `@lang.kernel` or `@lang.kernel(target="cpu", dynamic_shape=False, precision="default",
    fastmath=False, num_threads=None)`."""
    if fn is not None and callable(fn):
        return Kernel(fn, **options)
    if fn is not None:
        raise TypeError("use @lang.kernel or @lang.kernel(option=...)")
    Options(**options)  # validate now, at the decorator's line
    return lambda f: Kernel(f, **options)


def func(fn):
    """Decorator: a device function callable from kernels."""
    return Func(fn)


def _kernel_of_mode(mode, fn, options):
    if fn is not None and callable(fn):
        return Kernel(fn, mode, **options)
    if fn is not None:
        raise TypeError("use the decorator bare or with options: @lang.cube_kernel or @lang.cube_kernel(option=...)")
    Options(**options)
    return lambda f: Kernel(f, mode, **options)


def cube_kernel(fn=None, **options):
    """Decorator for tensor-level matrix kernels (`return A @ B`, tile loops around `@`): the products run on the
    matrix unit (on the cpu target, asc's packed, register-blocked, multi-threaded GEMM; float32 accumulation for
    16-bit inputs), and an elementwise expression of a product (`lang.relu(A @ B + bias)`) runs as its epilogue,
    on each tile in cache. The output dtype follows the return annotation. Options as @lang.kernel."""
    return _kernel_of_mode("cube", fn, options)


def fused_kernel(fn=None, **options):
    """Decorator for tensor-level kernels whose operations fuse (`h = lang.matmul(x, w1); h = lang.gelu(h);
    return lang.matmul(h, w2)`): tensor expressions are inlined where they are used, and a 2-D expression around
    matrix products is computed by blocks of rows, each product followed at once by its elementwise epilogue
    (bias, activation, residual, scaling) and by the product that consumes it, so intermediates never make a pass
    over memory. `kernel.source("ir")` shows what was fused. Options as @lang.kernel."""
    return _kernel_of_mode("fused", fn, options)
