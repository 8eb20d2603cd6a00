"""The pass inline_calls (what autodiff runs first): straight-line scalar device functions become expressions,
with the argument and return conversions of the call; everything else stays a call."""
from __future__ import annotations

import numpy as np

import asc
import asc.language as lang
from asc import compiler, ir
from asc.passes.inline_calls import inline_calls


@lang.func
def scaled(v: lang.float32, k: lang.float64) -> lang.float32:
    t = v * v
    t = t * k
    return t + 1.0


@lang.func
def clipped(v: lang.float32) -> lang.float32:
    if v > 1.0:
        return lang.float32(1.0)
    return v


@lang.kernel
def calls(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = scaled(x[i], 0.5) + clipped(x[i])
    return out


def _ir(kern, *args):
    from asc.runtime import binding
    bound, symbols = binding.bind(kern.__name__, kern.specs, args, {})
    types, syms = binding.arg_types(kern.specs, bound, symbols, False)
    return compiler.element_ir(compiler.frontend(kern.pyfunc, types, syms, False, kern.return_spec))


def test_straight_line_inlined_branchy_kept():
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    k = inline_calls(_ir(calls, x))
    called = {e.func for s in ir.walk_stmts(k.entry.body) for e in ir.stmt_exprs(s) if isinstance(e, ir.FuncCall)}
    assert [f.pyname for f in k.funcs] == ["clipped"]
    assert called == {k.funcs[0].name}


def test_row_kernel_with_device_function_differentiates():
    @lang.kernel
    def rowsum_scaled(x: lang.float32[R, C]) -> lang.float32[R]:
        out = lang.empty((R,), dtype=lang.float32)
        for i in range(R):
            s = 0.0
            for j in range(C):
                s += scaled(x[i, j], 0.5)
            out[i] = s
        return out
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    g = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_allclose(asc.grad(rowsum_scaled)(x, g), g[:, None] * x, rtol=1e-6)
