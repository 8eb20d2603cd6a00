"""`Kernel` (what `@lang.kernel` makes): binding a call, specializing on first call per signature, compiling through
asc.compiler, and handing compiled signatures to the launcher. `Func` (what `@lang.func` makes)."""
from __future__ import annotations

import ctypes
import functools
import time
import warnings

import numpy as np

from .. import environment as _config
from ..errors import ArgumentError, CompileError, GradDetachedWarning
from ..marks import DeviceCallable
from ..runtime import forking  # noqa: F401  (its fork hook is in place before the user's first fork)
from .options import Options, hide_internals
from .state import STATE

# The compiler (frontend, passes), the binding and the launcher are imported at a kernel's first call, not by
# `import asc.language` (docs/architecture.md, "Import time"): each method below imports what it uses.
SOURCE = "source"      # asc.compiler.SOURCE, the default stage of Kernel.source (tests/test_import.py checks)


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
        self._size_params: tuple = ()  # int parameters used as sizes of allocations (learned from the frontend)
        self._cache: dict = {}         # specialization key -> Specialization
        self._last = None              # the specialization of the latest call
        self._launcher = None
        self._by_entry: dict = {}
        self._rows: list = []
        self.compile_log: list = []
        self._grad_warned = False      # GradDetachedWarning given (once per kernel)
        self.stats = {"compiles": 0, "disk_hits": 0, "calls": 0}
        STATE.kernels.add(self)

    @property
    def specs(self):
        if self._specs is None:
            from ..frontend.signature import read_signature
            self._specs, self._ret = read_signature(self.pyfunc)
        return self._specs

    @property
    def return_spec(self):
        self.specs
        return self._ret

    def __repr__(self) -> str:
        return f"<asc kernel {self.__qualname__} target={self.options.target}>"

    @hide_internals
    def _call(self, *args, **kwargs):
        """The Python path of a call: binding with full checks and errors, specialization, compilation. Once a
        specialization is compiled, the compiled launcher serves matching calls without coming here."""
        from ..runtime import binding, launcher
        specs = self.specs
        bound, symbols = binding.bind(self.__name__, specs, args, kwargs)
        if not self._grad_warned and binding.requires_grad(bound):
            self._grad_warned = True
            warnings.warn(GradDetachedWarning(
                f"{self.__name__}(): a torch argument requires grad, and a plain kernel call is not part of the "
                f"autograd graph (its result does not require grad). To differentiate through the kernel, make it "
                f"an operator with a backward: asc.torch.op({self.__name__}, backward=...); to silence this, pass "
                f"tensor.detach() or call it under torch.no_grad(). (Said once per kernel.)"), stacklevel=3)
        checked = self.options.checked()
        key = self._key(bound, symbols, checked)
        spec = self._cache.get(key)
        if spec is None:
            spec = self._specialize_new(bound, symbols, checked)
        if spec.ir.sizes:
            from ..runtime import size_defs as sizes
            sizes.derive(self.__name__, spec.ir, symbols)
        self._last = spec
        self.stats["calls"] += 1
        binding.check_writes(self.__name__, specs, bound, spec.written)
        obs = STATE.observer
        interpret = self.options.target == "interpret" or _config.config.debug
        if not interpret and spec.entry is None:
            spec.ensure_compiled(self._compile_reason(key))
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
            if self._launcher is not None and not STATE.python_path_only():
                if spec.key not in self._rows:
                    self._add_row(spec)  # a signature the table had pushed out: it serves the next calls again
                elif any(a.kind == "torch" for a in bound):
                    launcher.share_torch(launcher.module())  # torch imported since the row was added
        if obs is not None:
            obs.on_call(self, spec, bound, symbols, "interpret" if interpret else self.options.target,
                        time.perf_counter() - t0)
        if self.options.numeric() is not None:
            from ..runtime.nan_check import check_outputs
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

    # ---- the launcher
    def _install(self, spec):
        """Adds a compiled specialization to this kernel's launcher (built on first use)."""
        if self.options.target == "ascend-sim":        # (its calls run the emulator, from Python)
            return
        from ..runtime import launcher
        mod = launcher.module()
        if mod is None:
            return
        if self._launcher is None:
            self._launcher = mod.Launcher(self._call, self._on_error)
            if STATE.observer is not None:
                self._launcher.observer = self._observed
            # calls now go straight to the launcher: a class of this kernel's own whose __call__ it is
            self.__class__ = type(type(self).__name__, (type(self),), {"__call__": self._launcher})
        if not STATE.python_path_only():
            self._add_row(spec)

    def _add_row(self, spec):
        from ..runtime import launcher
        mod = launcher.module()
        address = ctypes.cast(spec.entry, ctypes.c_void_p).value
        row = launcher.row(spec, address)
        launcher.share_torch(mod)       # after the row: a bfloat16 row has imported ml_dtypes, whose type torch maps
        self._by_entry[address] = spec
        self._launcher.add(*row)
        # mirror of the launcher's table (newest first), so that a signature pushed out comes back when used
        # (keyed by specialization: several can share one compiled entry, e.g. made for np.float32 and np.float64)
        self._rows = ([spec.key] + [k for k in self._rows if k != spec.key])[:mod.TABLE_ROWS]

    def refresh_launcher(self):
        """Empties the launcher when calls must take the Python path (numeric checks), refills it otherwise."""
        if self._launcher is None:
            return
        self._launcher.clear()
        self._rows = []
        if not STATE.python_path_only():
            for spec in self._cache.values():
                if spec.entry is not None and spec.key[-1] == self.options.checked():
                    self._add_row(spec)

    def observe_launcher(self, on: bool):
        """The launcher reports its calls to the active observer (or stops)."""
        if self._launcher is not None:
            self._launcher.observer = self._observed if on else None

    def _observed(self, address: int, seconds: float, sizes: tuple):
        """A call the launcher served, reported to the active profiler."""
        obs = STATE.observer
        if obs is not None:
            spec = self._by_entry[address]
            obs.on_call(self, spec, None, dict(zip(spec.ir.symbols, sizes)), self.options.target, seconds)

    def _on_error(self, address: int, rc: int):
        """The launcher's report of a failed call: raise its error."""
        hide_internals(self._by_entry[address].fail)(rc)

    # ---- specializations
    def _key(self, bound, symbols, checked) -> tuple:
        """The specialization key of a bound call: the signature, the values of the int arguments used as sizes of
        allocations when shapes are specialized, and the check switches (last). Binds those arguments' size
        symbols in `symbols` (frontend.size_param_symbol)."""
        from ..frontend.context import size_param_symbol
        from ..runtime import binding
        sizes = []
        for name in self._size_params:
            i = next(k for k, sp in enumerate(self.specs) if sp.name == name)
            a = bound[i]
            v = a.value
            if a.kind != "scalar" or isinstance(v, (float, np.floating)) or not isinstance(v, (int, np.integer)):
                raise ArgumentError(f"{self.__name__}(): argument {name!r} is a size of an allocation: pass an int, "
                                    f"got {type(v).__name__}")
            if v < 0:
                raise ArgumentError(f"{self.__name__}(): argument {name!r} is a size of an allocation and must not "
                                    f"be negative, got {int(v)}")
            symbols[size_param_symbol(name)] = int(v)
            sizes.append(int(v))
        extra = ((("sizes",) + tuple(sizes)),) if sizes and not self.options.dynamic_shape else ()
        return binding.spec_key(bound, self.options.dynamic_shape) + extra + (checked,)

    def _specialize_new(self, bound, symbols, checked):
        """The specialization of a call whose key is not in the cache: built, after learning which int arguments
        are sizes of allocations (the frontend names one at a time; the key then takes its value)."""
        from ..frontend.context import SizeParamNeeded
        while True:
            key = self._key(bound, symbols, checked)
            spec = self._cache.get(key)
            if spec is not None:
                return spec
            try:
                return self._specialize(key, bound, symbols, checked)
            except SizeParamNeeded as e:
                if e.param is None or e.param in self._size_params:
                    raise
                self._size_params += (e.param,)

    def _specialize(self, key, bound, symbols, checked=(False, False)):
        from ..frontend.context import size_param_symbol
        from .. import compiler
        from ..runtime import binding
        from .specialization import Specialization
        types, syms = binding.arg_types(self.specs, bound, symbols, self.options.dynamic_shape)
        t = compiler.frontend(self.pyfunc, types, syms, self.options.dynamic_shape, self._ret, self.mode,
                              self.options.precision)
        spec = Specialization(self, key, t, compiler.element_ir(t), checked)
        index = {sp.name: k for k, sp in enumerate(self.specs)}
        spec.size_params = {index[n]: (syms[size_param_symbol(n)] if not self.options.dynamic_shape
                                       else size_param_symbol(n)) for n in self._size_params}
        self._cache[key] = spec
        return spec

    def specialization(self, args: tuple, kwargs: dict, what: str = "source", latest: bool = True):
        """The specialization for these example arguments (made, not compiled, if new), or, with none and
        `latest`, that of the latest call."""
        if args or kwargs or not latest:
            from ..runtime import binding
            bound, symbols = binding.bind(self.__name__, self.specs, args, kwargs)
            checked = self.options.checked()
            key = self._key(bound, symbols, checked)
            spec = self._cache.get(key) or self._specialize_new(bound, symbols, checked)
            if spec.ir.sizes:
                from ..runtime import size_defs as sizes
                sizes.derive(self.__name__, spec.ir, symbols)
            return spec, bound, symbols
        if self._last is None:
            raise CompileError(f"{self.__name__}.{what}(): call the kernel first, or pass example arguments")
        return self._last, None, {}

    def source(self, target: str = "cpu", *args, stage: str = SOURCE, **kwargs) -> str:
        """The generated code for `target` ("ir", "cpu" or "ascend": the Ascend C kernel .cpp) of the
        specialization for these example arguments, or of the latest call when none are given. `stage` shows
        an earlier stage of the pipeline instead (asc.compiler.stages(target) lists them); a kernel parameter
        named `stage` is then given positionally."""
        return hide_internals(self._source)(target, args, kwargs, stage)

    def _source(self, target, args, kwargs, stage):
        spec, _, _ = self.specialization(args, kwargs)
        return spec.source(target, stage)

    def estimate(self, target: str = "ascend", *args, soc: str = "Ascend910B1", **kwargs):
        """Estimated NPU time of this kernel for `target` "ascend" on `soc`, for these example arguments (or the
        latest call): an estimate from asc's documented cost model (docs/ascend.md), with what bounds it."""
        if target not in ("ascend", "ascend-sim"):
            raise ValueError(f"estimate() models the ascend target, not {target!r}")
        return hide_internals(self._estimate)(args, kwargs, soc)

    def _estimate(self, args, kwargs, soc):
        spec, _, symbols = self.specialization(args, kwargs, "estimate")
        if not (args or kwargs) and spec.ir.symbols:
            raise CompileError(f"{self.__name__}.estimate(): a dynamic-shape kernel needs example arguments")
        from .. import compiler
        return compiler.ascend_estimate(spec.ir, symbols, soc)

    def write_project(self, args: tuple, out_dir: str, soc: str = "Ascend910B1") -> list:
        """Writes the CANN project of the ascend kernel for these example arguments; returns the files."""
        spec, bound, symbols = self.specialization(args, {}, "write_project", latest=False)
        scalars = {p.var.name: (float(a.value) if p.var.type.dtype.kind == "f" else int(a.value))
                   for p, a in zip(spec.ir.entry.params, bound) if a.kind == "scalar"}
        from .. import compiler
        return compiler.ascend_project(spec.ir, symbols, scalars, out_dir, soc)

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
        STATE.funcs.add(self)

    def __call__(self, *args, **kwargs):
        from ..runtime import interpreter
        if interpreter.interpreting():     # from an interpreted kernel: with the kernel language's builtins (round)
            return interpreter.call_device(self.pyfunc, args, kwargs)
        return self.pyfunc(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<asc func {self.pyfunc.__qualname__}>"
