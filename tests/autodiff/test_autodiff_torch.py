"""asc kernels as torch operators with gradients, for GELU (erf, tanh), SiLU, SwiGLU, softmax, layernorm, RMSNorm and
matmul: with a hand-written backward and with autodiff=True, gradcheck in float64, float32 against torch's own ops,
torch.library.opcheck, and torch.compile(fullgraph=True) with no graph break."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import asc.torch as asct  # noqa: E402
import torch_kernels  # noqa: E402

F = torch.nn.functional
K64 = torch_kernels.load("float64")
K32 = torch_kernels.load("float32")


def ref(name, *a):
    if name == "gelu":
        return F.gelu(a[0])
    if name == "gelu_tanh":
        return F.gelu(a[0], approximate="tanh")
    if name == "silu":
        return F.silu(a[0])
    if name == "swiglu":
        return F.silu(a[0]) * a[1]
    if name == "softmax":
        return torch.softmax(a[0], -1)
    if name == "layernorm":
        return F.layer_norm(a[0], (a[0].shape[-1],), a[1], a[2], 1e-5)
    if name == "rmsnorm":
        return a[0] * torch.rsqrt(a[0].pow(2).mean(-1, keepdim=True) + 1e-6) * a[1]
    return a[0] @ a[1]


def inputs(name, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, dtype=dtype, generator=g, requires_grad=True)  # noqa: E731
    if name in ("gelu", "gelu_tanh", "silu"):
        return (r(37),)
    if name == "swiglu":
        return r(5, 7), r(5, 7)
    if name == "softmax":
        return (r(4, 9),)
    if name == "layernorm":
        return r(4, 9), r(9), r(9)
    if name == "rmsnorm":
        return r(4, 9), r(9)
    return r(5, 3), r(3, 4)


_ops: dict = {}


def make(mod, name, mode):
    key = (mod.__name__, name, mode)
    if key not in _ops:
        tag = f"asc_autodiff_torch::{name}_{mod.__name__[-7:]}_{mode}"
        kernel = getattr(mod, name)
        if mode == "auto":
            _ops[key] = asct.op(kernel, name=tag, autodiff=True)
        else:
            _ops[key] = asct.op(kernel, name=tag, backward=getattr(mod, f"{name}_bwd"))
    return _ops[key]


@pytest.mark.parametrize("mode", ["auto", "user"])
@pytest.mark.parametrize("name", torch_kernels.NAMES)
def test_gradcheck_float64(name, mode):
    op = make(K64, name, mode)
    assert torch.autograd.gradcheck(op, inputs(name, torch.float64))


@pytest.mark.parametrize("mode", ["auto", "user"])
@pytest.mark.parametrize("name", torch_kernels.NAMES)
def test_float32_against_torch_ops(name, mode):
    op = make(K32, name, mode)
    xs = inputs(name, torch.float32, seed=1)
    out = op(*xs)
    want = ref(name, *xs)
    torch.testing.assert_close(out, want, rtol=2e-5, atol=2e-5)
    g = torch.randn_like(out)
    got = torch.autograd.grad(out, xs, g)
    exp = torch.autograd.grad(want, xs, g)
    for a, b in zip(got, exp):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["auto", "user"])
@pytest.mark.parametrize("name", ["gelu", "softmax", "layernorm", "matmul"])
def test_opcheck(name, mode):
    op = make(K64, name, mode)
    torch.library.opcheck(op.op, inputs(name, torch.float64, seed=2))


def test_compile_fullgraph_autodiff_ops_no_graph_break():
    norm, act = make(K32, "rmsnorm", "auto"), make(K32, "swiglu", "auto")

    def block(x, w, u):
        h = norm(x, w)
        return act(h, u).sum()

    x, w = torch.randn(6, 8, requires_grad=True), torch.randn(8, requires_grad=True)
    u = torch.randn(6, 8, requires_grad=True)
    explain = torch._dynamo.explain(block)(x, w, u)
    assert explain.graph_break_count == 0 and explain.graph_count == 1
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    got = compiled(x, w, u)
    got.backward()
    grads = [t.grad.clone() for t in (x, w, u)]
    for t in (x, w, u):
        t.grad = None
    want = block(x, w, u)
    want.backward()
    torch.testing.assert_close(got, want)
    for a, t in zip(grads, (x, w, u)):
        torch.testing.assert_close(a, t.grad)
