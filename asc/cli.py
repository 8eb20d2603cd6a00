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


def _example_args(kernel, shapes: dict, dtypes: dict):
    """Zero arrays shaped by the annotations, with sizes from --shape and dtypes from --dtype."""
    import numpy as np
    from .dtypes import as_dtype
    args = []
    for spec in kernel.specs:
        dt = dtypes.get(spec.name) or (spec.dtype.np_name if spec.dtype is not None else "float32")
        h = as_dtype(dt if dt != "bfloat16" else "bfloat16")
        if spec.kind == "scalar":
            args.append(h.np.type(0))
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


def _kv(items, conv):
    out = {}
    for it in items or ():
        k, _, v = it.partition("=")
        out[k] = conv(v)
    return out


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
    c.add_argument("--dtype", action="append", help="a parameter's dtype, e.g. x=float16")
    c.add_argument("-o", "--output", help="write to this file instead of printing (ascend: the project directory)")
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
        args = _example_args(k, _kv(a.shape, int), _kv(a.dtype, str))
        if a.target == "ascend" and a.output:
            # glue: lead rewires (the backend's write_project takes the rendered source; binding is done here)
            from . import passes
            from .backends import ascend
            from .runtime import binding
            bound, symbols = binding.bind(k.__name__, k.specs, tuple(args), {})
            key = binding.spec_key(bound, k.options.dynamic_shape) + (k.options.checked(),)
            spec = k._cache.get(key) or k._specialize(key, bound, symbols, k.options.checked())
            scalars = {p.var.name: (float(x.value) if p.var.type.dtype.kind == "f" else int(x.value))
                       for p, x in zip(spec.ir.entry.params, bound) if x.kind == "scalar"}
            src = ascend.render(passes.for_cpu(spec.ir))
            for path in ascend.write_project(src, symbols, scalars, a.output, a.soc):
                print(path)
            return 0
        src = k.source(a.target, *args)
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
