"""The pipeline in one place.

    Python function --frontend--> typed IR --passes (named stages)--> target IR --render--> source --build--> library

`TARGETS` is the table of compiled targets: for each, its passes (in order, each a named stage that can be printed),
its renderer, its plans (printable stages of what the renderer decides) and whether its kernels run here (`build`). Every caller (the dispatch layer, the profiler, the cost model, the project writer,
autodiff, the CLI) goes through the functions of this module; none of them strings passes and renderers together.

    compiler.frontend(...)                  the typed, tensor-level IR of a kernel (the "frontend" stage)
    compiler.element_ir(t)                  its element-level IR (after the tensor passes: what every target takes)
    compiler.lower(k, "cpu", options)       the element-level IR after the target's passes
    compiler.show(t, "cpu", options, stage) any stage as text ("frontend", a pass's name, or "source")
    compiler.render(k, "ascend", options)   the target's source
    compiler.build(k, "cpu", options, ...)  the loaded library (from the disk cache, else compiled)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import ir, passes
from .errors import CompileError

FRONTEND = "frontend"        # the first stage: the typed IR as the frontend built it
SOURCE = "source"            # the last stage: the rendered source


@dataclass(frozen=True)
class BuildOptions:
    """What the compiled code of a specialization depends on besides its IR."""
    fastmath: bool = False
    num_threads: int | None = None
    memory_check: bool = False       # every index checked (asc.MemoryCheckError)
    finite_check: bool = False       # every stored float checked (asc.NumericCheckError, intermediates)

    def as_dict(self) -> dict:
        """The renderer's and the toolchain's view (only the checks that are on appear: the cache key)."""
        d = {"fastmath": self.fastmath, "num_threads": self.num_threads}
        if self.memory_check:
            d["memory_check"] = True
        if self.finite_check:
            d["finite_check"] = True
        return d


def _render_cpu(k: ir.Kernel, options: BuildOptions, warn: bool = True) -> str:
    from .backends import cpu                  # only on a cache miss: a warm first call never imports it
    return cpu.render(k, options.as_dict())


def _render_ascend(k: ir.Kernel, options: BuildOptions, warn: bool = True):
    from .backends import ascend
    return ascend.render(k, warn=warn)


def _build_cpu(t, k: ir.Kernel, lowered: ir.Kernel, options: BuildOptions, reason: str, signature: str):
    """The library from the disk cache, keyed by the lowered IR, or rendered and compiled."""
    from .runtime import cache, forking
    normalized = ir.format_kernel(lowered, locs=False)
    lib, path, compiled, reason = cache.load_or_build(k.entry.name, normalized, lambda: t.render(lowered, options),
                                                      options.as_dict(), reason, signature)
    forking.adopt(lib)
    return Build(lowered, lib, path, lib.asc_entry, compiled, reason, None)


def _build_ascend_sim(t, k: ir.Kernel, lowered: ir.Kernel, options: BuildOptions, reason: str, signature: str):
    """The Ascend C kernel compiled against ascend-sim (cached by its text)."""
    from .runtime import ascend_sim
    src = t.render(lowered, options)
    lib, path, compiled = ascend_sim.build(src.text, src.name, src.entry_params)
    return Build(lowered, lib, path, lib.asc_sim_run, compiled, reason, src)


def _ascend_plan(k: ir.Kernel) -> str:
    from .backends import ascend
    return ascend.format_plan(ascend.plan(k))


@dataclass(frozen=True)
class Target:
    name: str
    passes: tuple                     # ((stage name, fn(k, options: dict) -> k), ...), run in order (asc/passes)
    render: Callable                  # (lowered k, options, warn) -> source (str, or the backend's source object)
    build: Callable | None            # (target, k, lowered k, options, reason, signature) -> Build; None: not here
    plans: tuple = ()                 # ((stage name, fn(lowered k) -> text), ...): what the renderer decides, shown

    @property
    def runs_here(self) -> bool:
        """Whether kernels of this target run in this process."""
        return self.build is not None


ASCEND_PLANS = (("ascend_plan", _ascend_plan),)
TARGETS = {
    "cpu": Target("cpu", passes.CPU_PASSES, _render_cpu, _build_cpu),
    "ascend": Target("ascend", passes.ASCEND_PASSES, _render_ascend, None, ASCEND_PLANS),
    "ascend-sim": Target("ascend-sim", passes.ASCEND_PASSES, _render_ascend, _build_ascend_sim, ASCEND_PLANS),
}


def target(name: str) -> Target:
    t = TARGETS.get(name)
    if t is None:
        raise ValueError(f"unknown target {name!r}; compiled targets: {', '.join(TARGETS)}")
    return t


TENSOR_STAGES = tuple(n for n, _ in passes.TENSOR_PASSES)      # every target's first passes


def stages(target_name: str) -> tuple:
    """The names of the stages of a target, in order: the frontend, the tensor passes, the target's passes, its
    plans, the source."""
    t = target(target_name)
    return (FRONTEND,) + TENSOR_STAGES + tuple(n for n, _ in t.passes) + tuple(n for n, _ in t.plans) + (SOURCE,)


def frontend(pyfunc, arg_types: list, symbols: dict, dynamic: bool, ret_spec=None, mode: str = "kernel",
             precision: str = "float32") -> ir.Kernel:
    """The typed, tensor-level IR of `pyfunc` for these argument types (mode: "kernel", "fused" or "cube";
    precision: "float32" or "mixed")."""
    from .frontend import build_kernel_ir
    return build_kernel_ir(pyfunc, arg_types, symbols, dynamic, ret_spec, fused=mode == "fused", cube=mode == "cube",
                           precision=precision)


def element_ir(t: ir.Kernel, until: str | None = None) -> ir.Kernel:
    """The element-level IR of a tensor-level kernel: the tensor passes run (or up to stage `until`)."""
    return passes.run(passes.TENSOR_PASSES, t, {}, until)


def lower(k: ir.Kernel, target_name: str, options: BuildOptions = BuildOptions(), until: str | None = None):
    """The element-level IR `k` after the target's passes (or after stage `until`)."""
    if until is not None and until not in tuple(n for n, _ in target(target_name).passes):
        raise ValueError(f"no stage {until!r} among the passes of target {target_name!r}; stages: "
                         f"{', '.join(stages(target_name))}")
    return passes.run(target(target_name).passes, k, options.as_dict(), until)


def render(k: ir.Kernel, target_name: str, options: BuildOptions = BuildOptions(), warn: bool = True):
    """The target's source of an element-level IR kernel (the target's passes run first)."""
    return target(target_name).render(lower(k, target_name, options), options, warn)


def show(t: ir.Kernel, target_name: str, options: BuildOptions = BuildOptions(), stage: str = SOURCE) -> str:
    """Stage `stage` of a kernel (its tensor-level IR `t`, from `frontend`) for a target, as text: the IR after
    that stage, a plan, or the source."""
    if stage not in stages(target_name):
        raise ValueError(f"no stage {stage!r} for target {target_name!r}; stages: {', '.join(stages(target_name))}")
    if stage == FRONTEND:
        return ir.format_kernel(t)
    if stage in TENSOR_STAGES:
        return ir.format_kernel(element_ir(t, until=stage))
    k = element_ir(t)
    if stage == SOURCE:
        src = render(k, target_name, options)
        return src if isinstance(src, str) else src.text
    plans = dict(target(target_name).plans)
    if stage in plans:
        return plans[stage](lower(k, target_name, options))
    return ir.format_kernel(lower(k, target_name, options, until=stage))


def build(k: ir.Kernel, target_name: str, options: BuildOptions, reason: str, signature: str):
    """The compiled library of an element-level IR kernel for a target that runs here, from the disk cache or
    compiled.
    Returns a Build (what the dispatch layer keeps of a specialization)."""
    t = target(target_name)
    if not t.runs_here:
        raise CompileError(f"kernels of target {target_name!r} do not run here")
    return t.build(t, k, lower(k, target_name, options), options, reason, signature)


@dataclass(frozen=True)
class Build:
    lowered: ir.Kernel        # the IR the source was rendered from
    lib: object               # the loaded library (ctypes.CDLL)
    path: str
    entry: object             # the library's entry point
    compiled: bool            # False: loaded from the disk cache
    reason: str               # why it was built (or looked up)
    source: object            # the rendered source object, where the target keeps one (ascend-sim)


def overflow_sites(lowered: ir.Kernel, options: BuildOptions) -> list:
    """(loc, dtype name) of each checked conversion of a Python int of a cpu kernel, by the site its error reports."""
    from .backends import cpu
    return cpu.overflow_sites(lowered, options.as_dict())


def memory_check_sites(lowered: ir.Kernel, options: BuildOptions) -> list:
    """(loc, tensor, shape) of each checked access of a cpu kernel, by the site number its error reports."""
    from .backends import cpu
    return cpu.memory_check_sites(lowered, options.as_dict())


def ascend_estimate(k: ir.Kernel, symbols: dict, soc: str):
    """The cost model's estimate of the ascend kernel of an IR kernel (docs/ascend.md)."""
    from .backends import ascend
    return ascend.estimate(render(k, "ascend", warn=False), symbols, soc)


def ascend_project(k: ir.Kernel, symbols: dict, scalars: dict, out_dir: str, soc: str) -> list:
    """Writes the CANN project of the ascend kernel of an IR kernel; returns the files written."""
    from .backends import ascend
    return ascend.write_project(render(k, "ascend"), symbols, scalars, out_dir, soc)
