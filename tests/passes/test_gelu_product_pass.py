"""The pass `gelu_product`: which spellings of GELU's product become one gelu_erf_scaled call (and which stay as
written), and that compiled kernels give the same bits either way (float32 over a sample with the specials and NaNs,
float16 over all 2^16 values), for both of GELU's scales. (Compiled GELU against the interpreter: tests/language, which now runs the fused call.)"""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc import compiler, ir, passes
from asc.math import erf, sqrt

F32 = ir.TensorType(ir.float32, (1000,))


def lowered(kernel, *types):
    k = compiler.element_ir(compiler.frontend(kernel.pyfunc, list(types), {}, False))
    return ir.format_kernel(passes.run(passes.CPU_PASSES, k, {}))


@lang.kernel
def gelu_sqrt2(x, out):
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))


@lang.kernel
def gelu_half(x, out):
    for i in range(len(x)):
        out[i] = (erf(x[i] * 0.7071067811865476) + 1.0) * (x[i] * 0.5)


@lang.kernel
def gelu_builtin(x, out):
    for i in range(len(x)):
        out[i] = lang.gelu(x[i])


@lang.kernel
def gelu_by_parts_sqrt2(x, out):       # the same arithmetic through a variable: the pass does not see the product
    for i in range(len(x)):
        h = 0.5 * x[i]
        out[i] = h * (1.0 + erf(x[i] / sqrt(2.0)))


@lang.kernel
def gelu_by_parts_half(x, out):
    for i in range(len(x)):
        h = x[i] * 0.5
        out[i] = (erf(x[i] * 0.7071067811865476) + 1.0) * h


@lang.kernel
def other_argument(x, y, out):
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(y[i] / sqrt(2.0)))


@lang.kernel
def other_constant(x, out):
    for i in range(len(x)):
        out[i] = 0.25 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))


@lang.kernel
def half_last(x, out):                   # (x (1 + erf)) 0.5 rounds x (1 + erf) first: not the same bits
    for i in range(len(x)):
        out[i] = x[i] * (1.0 + erf(x[i] / sqrt(2.0))) * 0.5


@lang.kernel
def unmeasured_scale(x, out):
    for i in range(len(x)):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / 3.0))


@pytest.mark.parametrize("kernel", [gelu_sqrt2, gelu_half, gelu_builtin], ids=lambda k: k.pyfunc.__name__)
def test_gelu_products_become_one_call(kernel):
    text = lowered(kernel, F32, F32)
    assert "out[i] = gelu_erf_scaled(x[i], 0.70710" in text, text
    assert " erf_scaled(" not in text and "0.5:" not in text


@pytest.mark.parametrize("kernel, n", [(gelu_by_parts_sqrt2, 2), (other_argument, 3), (other_constant, 2),
                                       (half_last, 2), (unmeasured_scale, 2)], ids=lambda v: getattr(
                                           getattr(v, "pyfunc", None), "__name__", str(v)))
def test_other_products_stay_as_written(kernel, n):
    text = lowered(kernel, *[F32] * n)
    assert "gelu_erf_scaled" not in text, text


def sample():
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(1 << 16) * 3, np.linspace(-8, 8, 1 << 16),
                        (rng.standard_normal(4096) * 10.0 ** rng.integers(-40, 39, 4096))])
    x = x.astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38], np.float32)
    nans = np.array([0x7fc00000, 0xffc00000, 0x7fc00123, 0x7f800001], np.uint32).view(np.float32)
    return np.concatenate([x, special, nans])


@pytest.mark.parametrize("fused, parts", [(gelu_sqrt2, gelu_by_parts_sqrt2), (gelu_half, gelu_by_parts_half)],
                         ids=["sqrt2", "sqrt_half"])
@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=["f32", "f16"])
def test_compiled_bits_are_the_products(fused, parts, dt):
    x = sample().astype(dt) if dt == np.float32 else np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    a, b = np.empty_like(x), np.empty_like(x)
    assert "asc_gelu_erf_scaled_f32" in fused.source("cpu", x, a)
    assert "asc_gelu_erf_scaled_f32" not in parts.source("cpu", x, b)
    fused(x, a)
    parts(x, b)
    u = np.uint32 if dt == np.float32 else np.uint16
    differ = np.flatnonzero(a.view(u) != b.view(u))
    assert differ.size == 0, f"{differ.size} differ, e.g. x = {x[differ[:4]]!r}: {a[differ[:4]]!r} {b[differ[:4]]!r}"
