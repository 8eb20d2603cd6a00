"""The `asc` command: `asc demo`, `asc compile FILE.py::KERNEL ...`, `asc bench`."""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys


def _load_kernel(ref: str):
    if "::" not in ref:
        raise SystemExit(f"asc compile: expected FILE.py::KERNEL, got {ref!r}")
    path, name = ref.split("::", 1)
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    if spec is None:
        raise SystemExit(f"asc compile: cannot load {path!r}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    k = getattr(mod, name, None)
    if k is None:
        raise SystemExit(f"asc compile: {path} has no {name!r}")
    return k


def _dtypes(kernel, items) -> dict:
    """--dtype NAME=DTYPE items: {name: DTypeHandle}, each naming a parameter of the kernel and a dtype of asc."""
    from .dtypes import HANDLES, as_dtype
    out = {}
    names = [s.name for s in kernel.specs]
    for name, text in _kv(items, str).items():
        if name not in names:
            raise SystemExit(f"asc compile: --dtype {name}={text}: {kernel.__name__} has no parameter {name!r} (its "
                             f"parameters: {', '.join(names) or 'none'})")
        h = as_dtype(text) if text.isidentifier() else None
        if h is None:
            raise SystemExit(f"asc compile: --dtype {name}={text}: not a dtype of asc (one of "
                             f"{', '.join(d.name for d in HANDLES)})")
        out[name] = h
    return out


def _retype(kernel, dtypes: dict):
    """The kernel with the annotated dtypes of the --dtype parameters replaced (`--dtype x=float16` on `x:
    lang.float32[N]`), saying on stderr what changed; the kernel itself where nothing does."""
    from .errors import AscError
    from .frontend.signature import retyped
    try:
        fn, changed = retyped(kernel.pyfunc, dtypes)
    except AscError as e:
        raise SystemExit(f"asc compile: {e}") from None
    if not changed:
        return kernel
    print(f"asc compile: {kernel.__name__} retyped by --dtype: {'; '.join(changed)}", file=sys.stderr)
    options = {n: getattr(kernel.options, n) for n in type(kernel.options).__slots__}
    return type(kernel)(fn, kernel.mode, **options)


def _example_args(kernel, shapes: dict, dtypes: dict, scalars: dict, need_scalars: bool = False):
    """Zero arrays shaped by the annotations, with sizes from --shape and dtypes from --dtype; each scalar from
    --scalar NAME=VALUE, else the kernel's Python default. `need_scalars` (a project's host program runs the
    kernel with these values): a scalar with neither starts at 0, with a warning naming it."""
    import numpy as np
    from .dtypes import as_dtype
    from .frontend.signature import NO_DEFAULT
    unknown = sorted(set(scalars) - {s.name for s in kernel.specs if s.kind == "scalar"})
    if unknown:
        raise SystemExit(f"asc compile: --scalar {unknown[0]}: {kernel.__name__} has no scalar parameter of that "
                         f"name (its scalars: {', '.join(s.name for s in kernel.specs if s.kind == 'scalar') or 'none'})")
    args = []
    for spec in kernel.specs:
        h = dtypes.get(spec.name) or as_dtype(spec.dtype.np_name if spec.dtype is not None else "float32")
        if spec.kind == "scalar":
            if spec.name in scalars:
                value = _scalar_value(spec.name, scalars[spec.name], h.np)
            elif spec.default is not NO_DEFAULT:
                value = spec.default
            elif need_scalars:
                print(f"asc compile: scalar parameter {spec.name!r} of {kernel.__name__} has no default: the host "
                      f"program starts it at 0; pass --scalar {spec.name}=VALUE, or {spec.name}=VALUE when running it",
                      file=sys.stderr)
                value = 0
            else:
                value = 0
            args.append(value if spec.weak else h.np.type(value))
            continue
        if spec.dims is None:
            raise SystemExit(f"asc compile: parameter {spec.name!r} has no shape annotation; give one")
        dims = []
        for d in spec.dims:
            if isinstance(d, int):
                dims.append(d)
            elif d in shapes:
                dims.append(shapes[d])
            else:
                raise SystemExit(f"asc compile: size {d} of {spec.name!r} is not given; pass --shape {d}=...")
        args.append(np.zeros(dims, h.np))
    return args


def _scalar_value(name: str, text: str, np_dtype):
    """The value of `--scalar NAME=TEXT` for a scalar of NumPy dtype `np_dtype`; SystemExit naming the argument for
    text that is not a number, a fraction for an integer, or a value outside the dtype's range (never silently
    truncated, wrapped or made infinite)."""
    import math
    import numpy as np
    where = f"asc compile: --scalar {name}={text}"
    t = text.strip()
    if np_dtype.kind == "b":
        if t.lower() in ("true", "1"):
            return True
        if t.lower() in ("false", "0"):
            return False
        raise SystemExit(f"{where}: not a bool (true, false, 1 or 0)")
    try:
        f = float(t)
    except ValueError:
        raise SystemExit(f"{where}: not a number") from None
    if np_dtype.kind in "iu":
        try:
            v = int(t)
        except ValueError:
            if not (math.isfinite(f) and f.is_integer()):
                raise SystemExit(f"{where}: not an integer (the parameter is {np_dtype.name})") from None
            v = int(f)
        lim = np.iinfo(np_dtype)
        if not lim.min <= v <= lim.max:
            raise SystemExit(f"{where}: outside the range of {np_dtype.name} [{lim.min}, {lim.max}]")
        return v
    fmax = float(np.finfo(np_dtype).max) if np_dtype.kind == "f" else float(np.finfo(np.float64).max)
    if math.isfinite(f) and abs(f) > fmax or not math.isfinite(f) and t.lower().lstrip("+-") not in (
            "inf", "infinity", "nan"):
        raise SystemExit(f"{where}: outside the range of {np_dtype.name} (at most {fmax:g} in magnitude)")
    return f


def _kv(items, conv):
    out = {}
    for it in items or ():
        k, _, v = it.partition("=")
        out[k] = conv(v)
    return out


def _compile_pyasc(k, a) -> int:
    """asc compile for an @asc.jit (pyasc) kernel: its Ascend C, or with -o DIR a CANN project."""
    from .ascendc import cann_project as project
    from .errors import AscError
    if a.target != "ascend":
        raise SystemExit(f"asc compile: {a.kernel} is a pyasc (@asc.jit) kernel: it compiles to Ascend C "
                         f"(--target ascend); the CPU twin runs that source")
    try:
        tensors = dict(project.parse_tensor(t) for t in a.tensor or ())
        args = project.example_args(k, tensors, _kv(a.scalar, str))
        if a.output:
            for path in project.write_project(k, args, a.blocks, a.output, a.soc):
                print(path)
            return 0
        sys.stdout.write(k.source(*args))
    except AscError as e:
        raise SystemExit(f"asc compile: {e}") from None
    return 0


BENCH_SUITES = {"elementwise": "run.py", "tensor": "tensor.py", "gemm": "matmul.py", "torch": "torch_ops.py",
                "checks": "checks.py"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="asc", description="asc: Python kernels compiled for your CPU and for Ascend")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("demo", help="compile the seed's kernels, check them, and time them against NumPy and torch")
    c = sub.add_parser("compile", help="print or write the generated code of a kernel")
    c.add_argument("kernel", help="FILE.py::KERNEL")
    c.add_argument("--target", default="cpu", choices=["cpu", "ir", "ascend"])
    c.add_argument("--soc", default="Ascend910B1", help="ascend target: the SoC (SOC_VERSION) to tile for")
    c.add_argument("--shape", action="append", help="a size, e.g. N=4096")
    c.add_argument("--dtype", action="append",
                   help="a parameter's dtype, e.g. x=float16; for a parameter annotated with another dtype, the "
                        "kernel compiled for this one (a return annotation of the same dtype follows when no other "
                        "tensor parameter keeps it)")
    c.add_argument("--scalar", action="append",
                   help="a scalar parameter's value for the ascend project's host program, e.g. eps=1e-5 (default: "
                        "the kernel's Python default)")
    c.add_argument("--stage", default="source",
                   help="print this stage of the pipeline instead of the source: frontend, a pass's name (see "
                        "asc.compiler.stages(target)), or source")
    c.add_argument("-o", "--output", help="write to this file instead of printing (ascend: the project directory)")
    c.add_argument("--tensor", action="append",
                   help="@asc.jit kernels: a GlobalAddress argument, NAME=DTYPE:SIZE (e.g. x=float32:16384); "
                        "ConstExpr values and scalars are given with --scalar NAME=VALUE")
    c.add_argument("--blocks", type=int, default=8, help="@asc.jit kernels: the core_num of the project's launch")
    b = sub.add_parser("bench", help="run the benchmarks in benchmarks/ (from a checkout of asc)")
    b.add_argument("suite", nargs="?", default="elementwise", choices=sorted(BENCH_SUITES),
                   help="elementwise (GELU, SwiGLU, SAXPY, softmax, layernorm, parallel_sum, compile and load "
                        "times), tensor (cube matmul, fused MLP), gemm (the GEMM library), torch (forward+backward "
                        "of asc torch ops), checks (the cost of the debugging switches)")
    b.add_argument("args", nargs=argparse.REMAINDER, help="passed to the suite's script (e.g. --quick)")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and (len(argv) == 1 or argv[1] not in BENCH_SUITES and argv[1] not in ("-h", "--help")):
        argv.insert(1, "elementwise")          # `asc bench --quick`: the default suite with its options
    a = p.parse_args(argv)
    if a.cmd == "demo":
        from . import demo
        return 0 if demo.run() else 1
    if a.cmd == "compile":
        k = _load_kernel(a.kernel)
        if getattr(k, "_asc_jit", False):
            return _compile_pyasc(k, a)
        project = a.target == "ascend" and bool(a.output)
        dtypes = _dtypes(k, a.dtype)
        k = _retype(k, dtypes)
        args = _example_args(k, _kv(a.shape, int), dtypes, _kv(a.scalar, str), need_scalars=project)
        if project:
            for path in k.write_project(tuple(args), a.output, a.soc):
                print(path)
            return 0
        if a.stage != "source" and a.target == "ir":
            raise SystemExit("asc compile: --stage needs a compiled target (--target cpu or ascend)")
        try:
            src = k.source(a.target, *args, stage=a.stage)
        except ValueError as e:
            raise SystemExit(f"asc compile: {e}")
        if a.output:
            with open(a.output, "w") as f:
                f.write(src)
        else:
            sys.stdout.write(src)
        return 0
    if a.cmd == "bench":
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        name = BENCH_SUITES[a.suite]
        script = os.path.join(root, "benchmarks", name)
        if not os.path.exists(script):
            script = os.path.join(os.getcwd(), "benchmarks", name)
        if not os.path.exists(script):
            raise SystemExit(f"asc bench: benchmarks/{name} not found (run it from a checkout of asc)")
        os.execv(sys.executable, [sys.executable, script, *a.args])
    return 0


if __name__ == "__main__":      # python -m asc.cli, as python -m asc
    sys.exit(main())
