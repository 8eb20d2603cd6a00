"""The cpu target's loop decisions as passes: the schedules they set (asc/ir/schedule.py), how the IR prints them,
which options turn them off, the scaled-math rewrite, and the pipelines. Nothing here compiles C++."""
from __future__ import annotations

import asc.language as lang
from asc import compiler, ir, passes
from asc.examples import seed

from asc.passes import scaled_math


def built(kernel, *types):
    return compiler.element_ir(compiler.frontend(kernel.pyfunc, list(types), {"R": 4096, "C": 1000}, False))


def lowered(kernel, *types, **options):
    return passes.run(passes.CPU_PASSES, built(kernel, *types), options)


def loops(k):
    return [s for f in k.funcs + (k.entry,) for s in ir.walk_stmts(f.body) if isinstance(s, ir.For)]


F16 = ir.TensorType(ir.float16, (100_000,))
F32_ROWS = ir.TensorType(ir.float32, (4096, 1000))
F32_ROW = ir.TensorType(ir.float32, (1000,))


def test_pipelines_name_their_stages():
    assert [n for n, _ in passes.CPU_PASSES] == ["promote", "classify", "scaled_math", "gelu_product", "cpu_blocks",
                                                 "cpu_prefetch", "reduce_split", "reduce_lanes", "prefetch_ahead"]
    assert [n for n, _ in passes.ASCEND_PASSES] == ["inline_calls", "classify", "scaled_math"]
    k = built(seed.layernorm, F32_ROWS, F32_ROW, F32_ROW, ir.ScalarType(ir.float64, True))
    assert compiler.lower(k, "cpu") == passes.run(passes.CPU_PASSES, k, {"fastmath": False, "num_threads": None})
    checked = compiler.BuildOptions(memory_check=True)
    assert compiler.lower(k, "cpu", checked) == passes.run(passes.CPU_PASSES, k, checked.as_dict())
    assert compiler.lower(k, "ascend") == passes.run(passes.ASCEND_PASSES, k, {})


def test_float16_gelu_is_blocked_its_erf_scaled_and_its_product_fused():
    k = lowered(seed.gelu_any, F16)
    (loop,) = loops(k)
    b = loop.schedule.blocked
    assert b.size == passes.cpu_blocks.BLOCK
    assert [(a.tensor.name, a.store, a.half, a.stream) for a in b.accesses] == [("x", False, True, False),
                                                                                ("out", True, True, True)]
    assert [(t.name, idx) for t, idx in loop.schedule.ahead.loads] == [("x", (loop.var,))]
    text = ir.format_kernel(k)
    assert "[parallel; blocked 128 (load x[i] f16, store out[i] f16 may stream); ahead 1024: x[i]]" in text
    assert "out[i] = gelu_erf_scaled(x[i], 0.7071067932881648:float64):float16" in text
    for opt in ("memory_check", "finite_check"):           # checked builds: loops as written
        (plain,) = loops(lowered(seed.gelu_any, F16, **{opt: True}))
        assert plain.schedule is None


def test_row_kernel_prefetches_in_its_last_pass_only():
    k = lowered(seed.layernorm, F32_ROWS, F32_ROW, F32_ROW, ir.ScalarType(ir.float64, True))
    row, *passes_ = loops(k)
    assert row.kind == "parallel" and row.schedule is None
    assert [p.schedule is not None and p.schedule.prefetch is not None for p in passes_] == [False, False, True]
    assert [p.schedule.lanes for p in passes_] == [32, 32, None]       # the mean's and the variance's sums
    assert [[t.name for t, _ in p.schedule.ahead.loads] for p in passes_] == [["x"], ["x"], ["x", "w", "b"]]
    pf = passes_[-1].schedule.prefetch
    assert pf.chunk == passes.cpu_prefetch.CHUNK and pf.row.name == "i" and [t.name for t, _ in pf.loads] == ["x"]
    assert passes_[-1].schedule.blocked.accesses[0].stream             # out: written only, a cheap body
    assert ("chunked 512, prefetch x[i + 1, j] while i + 1 < 4096:int; ahead 1024: x[i, j], w[j], b[j]]"
            in ir.format_kernel(k))
    # a checked build: no blocks, no prefetch; its sums keep their lanes (the same bits as the unchecked build)
    checked = loops(lowered(seed.layernorm, F32_ROWS, F32_ROW, F32_ROW, ir.ScalarType(ir.float64, True),
                            memory_check=True))
    assert [s.schedule and s.schedule.lanes for s in checked] == [None, 32, 32, None]
    assert all(s.schedule is None or s.schedule.blocked is None and s.schedule.prefetch is None for s in checked)


@lang.kernel
def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s += x[i, j]
    return s


def x_var(loop):
    return next(e.tensor for e in ir.walk_expr(loop.body[0].value) if isinstance(e, ir.Load))


def test_parallel_reductions_are_split_in_every_build():
    for options in ({}, {"memory_check": True}):
        outer, inner = loops(lowered(total, F32_ROWS, **options))
        assert outer.kind == "parallel" and outer.schedule == ir.Schedule(split=4)    # 4096 // 1000 iterations
        assert inner.schedule.lanes == 32                                       # and each row's sum in lanes
        assert inner.schedule.ahead.loads == ((x_var(inner), (outer.var, inner.var)),)
    assert "[parallel add:s; partials of 4]" in ir.format_kernel(lowered(total, F32_ROWS))


def test_scaled_math_rewrites_only_measured_constants():
    k = built(seed.gelu_any, ir.TensorType(ir.float32, (64,)))
    def calls(until):
        return [(e.fn, e.args[1].value) for s in ir.walk_stmts(passes.run(passes.CPU_PASSES, k, until=until).entry.body)
                for e in ir.stmt_exprs(s) if isinstance(e, ir.Call)]
    assert calls("scaled_math") == [("erf_scaled", 1 / 1.4142135381698608)]
    assert calls(None) == [("gelu_erf_scaled", 1 / 1.4142135381698608)]    # and then GELU's product: gelu_product
    # Ascend has no scaled Erf, and x * float32(1/c) in place of x / c rounds differently from the interpreter's
    # quotient (41% of float32 inputs, up to 1.07 ulp): the ascend variant rewrites nothing
    assert scaled_math.scaled_math_ascend(k, {}) is k
    k64 = built(seed.gelu_any, ir.TensorType(ir.float64, (64,)))
    assert scaled_math.scaled_math_cpu(k64, {}) is k64                 # no measured float64 form
