"""asc kernels as torch custom operators: forward, user backward (gradcheck), opcheck, torch.compile(fullgraph)
with no graph break, torch.export."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import asc  # noqa: E402
import asc.language as lang  # noqa: E402
import asc.torch as asct  # noqa: E402
from asc.math import erf, exp, pi, sqrt  # noqa: E402


@lang.kernel
def gelu(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


@lang.kernel
def gelu_backward(x: lang.float64[N], g: lang.float64[N]) -> lang.float64[N]:
    dx = lang.empty_like(x)
    for i in range(N):
        cdf = 0.5 * (1.0 + erf(x[i] / sqrt(2.0)))
        pdf = exp(-0.5 * x[i] * x[i]) / sqrt(2.0 * pi)
        dx[i] = g[i] * (cdf + x[i] * pdf)
    return dx


gelu_op = asct.op(gelu, name="asc_tests::gelu", backward=gelu_backward)


@asct.op(name="asc_tests::swiglu")
@lang.kernel
def swiglu(a: lang.float64[N, D], b: lang.float64[N, D]) -> lang.float64[N, D]:
    out = lang.empty_like(a)
    for i in range(N):
        for j in range(D):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]
    return out


@swiglu.register_backward
@lang.kernel
def swiglu_backward(a: lang.float64[N, D], b: lang.float64[N, D], g: lang.float64[N, D]):
    da = lang.empty_like(a)
    db = lang.empty_like(b)
    for i in range(N):
        for j in range(D):
            s = lang.sigmoid(a[i, j])
            da[i, j] = g[i, j] * b[i, j] * s * (1.0 + a[i, j] * (1.0 - s))
            db[i, j] = g[i, j] * a[i, j] * s
    return da, db


def test_forward_and_gradcheck():
    x = torch.randn(37, dtype=torch.float64, requires_grad=True)
    torch.testing.assert_close(gelu_op(x), torch.nn.functional.gelu(x))
    assert torch.autograd.gradcheck(gelu_op, (x,))
    a = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    torch.testing.assert_close(swiglu(a, b), torch.nn.functional.silu(a) * b)
    assert torch.autograd.gradcheck(swiglu, (a, b))


def test_opcheck():
    torch.library.opcheck(gelu_op.op, (torch.randn(8, dtype=torch.float64),))
    torch.library.opcheck(swiglu.op, (torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)))


def test_compile_fullgraph_two_ops_no_graph_break():
    import torch._dynamo
    torch._dynamo.reset()

    def f(a, b):
        return gelu_op(swiglu(a, b).reshape(-1)) * 2.0

    a, b = torch.randn(4, 6, dtype=torch.float64), torch.randn(4, 6, dtype=torch.float64)
    explanation = torch._dynamo.explain(f)(a, b)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(a, b), f(a, b))


def test_export():
    class M(torch.nn.Module):
        def forward(self, x):
            return gelu_op(x) + 1.0

    ep = torch.export.export(M(), (torch.randn(16, dtype=torch.float64),))
    assert "asc_tests.gelu" in str(ep.graph)
    x = torch.randn(16, dtype=torch.float64)
    torch.testing.assert_close(ep.module()(x), torch.nn.functional.gelu(x) + 1.0)


def test_no_grad_inference_accepts_requires_grad():
    x = torch.randn(8, dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        torch.testing.assert_close(gelu(x), torch.nn.functional.gelu(x))


def test_kernel_without_output_annotation_is_refused():
    @lang.kernel
    def twice(x):
        out = lang.empty_like(x)
        for i in range(len(x)):
            out[i] = x[i] * 2.0
        return out
    with pytest.raises(asct.OpError, match="return annotation"):
        asct.op(twice, name="asc_tests::twice")
    assert issubclass(asct.OpError, asc.AscError)


@lang.kernel
def fma16(x: lang.float16[N], y: lang.float16[N]) -> lang.float16[N]:
    return x * y + 0.1 - x / (y + 3.0)


fma16_mixed = asct.op(fma16, name="asc_tests::fma16_mixed", precision="mixed")


def test_op_precision_mixed_is_float16_arithmetic():
    x = torch.tensor([1.037109375, 2.46484375, 0.9912109375], dtype=torch.float16)
    y = torch.tensor([0.96240234375, -2.455078125, 2.1953125], dtype=torch.float16)
    want = x * y + 0.1 - x / (y + 3.0)             # torch's float16 arithmetic on CPU: each operation rounded
    assert torch.equal(fma16_mixed(x, y), want)
    assert not torch.equal(fma16(x, y), want)        # the kernel's own precision (float32) is left as it was
    with pytest.raises(ValueError, match="unknown precision"):
        asct.op(fma16, name="asc_tests::fma16_bad", precision="half")
