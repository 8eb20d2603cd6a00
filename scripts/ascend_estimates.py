"""The cost model's estimate of every kernel of the Ascend corpus against its modeled bound (issue 16, "Done when").

    PYTHONPATH=$PWD python scripts/ascend_estimates.py [--soc Ascend910B1] [--markdown] [--only NAME ...]

For each kernel of tests/backends/ascend_corpus.py (imported by path: whatever kernels it holds when it runs), at a
size large enough that the launch does not dominate (16M elements for vectors, 4096 x 4096 rows, 1024^3 products),
it prints the plan the ascend target takes, `kernel.estimate("ascend", ..., soc=SOC)` and the bound:

- GM bytes / HBM bandwidth: every tensor parameter read once, every written parameter and returned tensor written
  once (temporaries and re-reads are not counted: they are the plan's cost, not the operator's);
- for a kernel with matrix products, the larger of that and the products' FLOPs (2 M N K each) over the SoC's cube
  peak (one 16 x 16 x 16 fractal per cycle on every AI core, the cost model's figure, asc/backends/ascend/cost_model.py;
  float32 operands at half that rate, the float K fractal being 8).

ratio = estimate / bound (1.0 is the bound; the Done-when asks for at most 2). The SoC figures are soc.py's.
A kernel whose large arguments cannot be made (a new kernel of an unknown shape) or whose plan fails shows the
error in the table instead of stopping it."""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS_PATH = os.path.join(ROOT, "tests", "backends", "ascend_corpus.py")

VEC = 1 << 24            # elements of a vector kernel
ROWS = COLS = 4096       # a row kernel's [R, C]
MM = 1024                # a product's M = N = K

# the awkward case's dimensions -> the large ones, per kernel, where the default rule (below) does not fit: a
# dimension that is a fixed block size (q8_0's 32) or half of another (RoPE's tables) keeps its relation
LARGE_DIMS = {
    "cross_entropy_fwd_bwd": {29: ROWS, 97: COLS},
    "dequant_q8_0": {61: VEC // 32, 32: 32},
    "quant_q8_0": {61: VEC // 32, 32: 32},
    "wave_2d": {37: ROWS, 41: COLS},
    "rope_neox": {13: ROWS, 38: COLS, 19: COLS // 2},
    "rope_llama2c": {11: ROWS, 38: COLS},
    "topk_softmax": {19: VEC // 64, 13: 64},              # tokens x 64 experts
    "attention_llama2c": {23: 1024, 13: 64},              # 1024 positions, heads of 64
    "attention_tensor_f16": {48: 1024, 64: 1024, 32: 64, 16: 64},
    "matmul_f16": {48: MM, 80: MM, 32: MM},
    "matmul_tail": {17: MM - 1, 23: MM - 1, 19: MM - 1},  # tails: 1023^3
    "matmul_bias_relu_f16": {32: MM, 48: MM, 64: MM},
    "matmul_bt_gelu": {7: MM - 1, 29: MM - 1, 11: MM - 1},
    "matmul_batched_f16": {3: 8, 32: 512, 16: 512, 48: 512},
}


def load_corpus():
    tests = os.path.join(ROOT, "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)          # ascend_corpus imports tests/helpers.py
    spec = importlib.util.spec_from_file_location("ascend_corpus", CORPUS_PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CORPUS


def _default_dims(arrays) -> dict:
    """All 1-D of one length: VEC; otherwise the first 2-D shape's rows and columns: ROWS, COLS."""
    shapes = [a.shape for a in arrays]
    if all(len(s) == 1 for s in shapes) and len({s[0] for s in shapes}) == 1:
        return {shapes[0][0]: VEC}
    two = next((s for s in shapes if len(s) == 2), None)
    if two is None:
        raise ValueError(f"no large size known for shapes {shapes}: add the kernel to LARGE_DIMS")
    if two[0] == two[1]:
        return {two[0]: ROWS}
    return {two[0]: ROWS, two[1]: COLS}


def large_args(name, factory, shrink: int = 0):
    """The kernel's awkward example arguments with every array dimension mapped to its large size (zeros: the cost
    model reads the shapes only); `shrink` halves the rows' length that many times (a row longer than the Unified
    Buffer has no row plan yet: the table takes the longest that fits, and shows the shapes)."""
    args = factory("awkward")
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    dims = dict(LARGE_DIMS.get(name) or _default_dims(arrays))
    two = next((a.shape for a in arrays if a.ndim == 2), None)
    if shrink and two is not None:
        dims[two[1]] = max(16, dims[two[1]] >> shrink)
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            shape = tuple(dims[d] if d in dims else _missing(name, d) for d in a.shape)
            out.append(np.zeros(shape, a.dtype))
        else:
            out.append(a)
    return tuple(out)


def _missing(name, d):
    raise ValueError(f"no large size for the dimension {d} of {name}: add it to LARGE_DIMS")


def _dim(d, symbols):
    return d if isinstance(d, int) else symbols[d.name]


def modeled_bound(kernel, args, soc: str):
    """(seconds, what bounds it, GM bytes, FLOPs) of the operator: its GM traffic at the HBM bandwidth, or its
    products at the cube peak, whichever is larger."""
    from asc import compiler, ir
    from asc.backends.ascend.soc import soc_info
    info = soc_info(soc)
    spec, _, symbols = kernel.specialization(args, {}, "estimate")
    k = spec.ir
    fn = k.entry
    written = ir.written_params(k)[fn.name]
    nbytes = 0
    for p in fn.params:
        t = p.var.type
        if isinstance(t, ir.TensorType):
            size = math.prod(_dim(d, symbols) for d in t.shape) * t.dtype.itemsize
            nbytes += size * (2 if p.var.name in written else 1)
    flops = 0
    for s in ir.walk_stmts(compiler.element_ir(k).entry.body):
        if isinstance(s, ir.Alloc) and s.output is not None:
            nbytes += math.prod(_dim(d, symbols) for d in s.var.type.shape) * s.var.type.dtype.itemsize
        if isinstance(s, ir.MatMul):
            a = [_dim(d, symbols) for d in s.a.type.shape]
            b = [_dim(d, symbols) for d in s.b.type.shape]
            batch = a[0] if len(a) == 3 else 1
            # float32 operands: the cube's K fractal is 8 for float, half the float16 rate (ASCEND_C_REFERENCE §6)
            flops += 2 * batch * a[-2] * a[-1] * b[-1] * (2 if s.a.type.dtype.itemsize == 4 else 1)
    t_gm = nbytes / (info["hbm_gbs"] * 1e9)
    peak = info["aic"] * 16 * 16 * 16 * 2 * info["clock_ghz"] * 1e9
    t_cube = flops / peak
    return (max(t_gm, t_cube), "cube" if t_cube > t_gm else "GM", nbytes, flops)


def rows_for(names, soc: str):
    from asc.backends.ascend.rendering import AscendFallbackWarning
    from asc.dispatch.vectorize import Vectorized
    from asc.errors import CompileError
    corpus = load_corpus()
    for name in names or corpus:
        kernel, factory = corpus[name]
        try:
            for shrink in range(6):
                args = large_args(name, factory, shrink)
                k = kernel.kernel_for(*args) if isinstance(kernel, Vectorized) else kernel
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", AscendFallbackWarning)
                        est = k.estimate("ascend", *args, soc=soc)
                    break
                except CompileError as e:
                    if "a row of" not in str(e) or shrink == 5:
                        raise
            bound, what, nbytes, flops = modeled_bound(k, args, soc)
            shapes = " ".join("x".join(map(str, a.shape)) for a in args if isinstance(a, np.ndarray))
            yield dict(kernel=name, plan=est.kind, shapes=shapes, estimate=est.seconds, est_bound=est.bound,
                       bound=bound, bound_by=what, ratio=est.seconds / bound if bound else float("inf"),
                       mb=nbytes / 1e6, gflop=flops / 1e9)
        except Exception as e:                     # noqa: BLE001 -- one kernel's failure is a row of the table
            msg = str(e).splitlines()[0]
            msg = msg.split("ascend target: ", 1)[-1]          # (the message without its file position)
            yield dict(kernel=name, error=f"{type(e).__name__}: {msg[:110]}")


def _us(s):
    return f"{s * 1e6:,.0f}" if s >= 1e-4 else f"{s * 1e6:.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--soc", default="Ascend910B1")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (docs/ascend.md)")
    ap.add_argument("--only", nargs="*", help="these corpus kernels only")
    a = ap.parse_args(argv)
    head = ["kernel", "plan", "shapes", "estimate (us)", "estimate bound by", "bound (us)", "bound", "ratio"]
    lines = []
    for r in rows_for(a.only, a.soc):
        if "error" in r:
            lines.append([r["kernel"], "-", "-", "-", "-", "-", "-", r["error"]])
            continue
        by = r["bound_by"] + (f" {r['mb']:.0f} MB" if r["bound_by"] == "GM" else f" {r['gflop']:.1f} GFLOP")
        lines.append([r["kernel"], r["plan"], r["shapes"], _us(r["estimate"]), r["est_bound"], _us(r["bound"]), by,
                      f"{r['ratio']:.2f}" + ("" if r["ratio"] <= 2 else " *")])
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for ln in lines:
            print("| " + " | ".join(ln) + " |")
    else:
        widths = [max(len(str(x[i])) for x in [head] + lines) for i in range(len(head))]
        for ln in [head] + lines:
            print("  ".join(str(x).ljust(w) for x, w in zip(ln, widths)))
    print(f"\n{a.soc}; ratio = estimate / bound, * = more than 2x (an estimate of asc's cost model, not a measurement)")


if __name__ == "__main__":
    main()
