"""The examples run and check themselves."""
from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_mlp_losses_match_pytorch():
    pytest.importorskip("torch")
    m = load("train_mlp")
    a, t = m.train(True, steps=4), m.train(False, steps=4)
    assert a[-1] < a[0]
    for x, y in zip(a, t):
        assert abs(x - y) <= 1e-5 * max(1.0, abs(y))


def test_rmsnorm_backward_matches_autograd():
    torch = pytest.importorskip("torch")
    m = load("train_mlp")
    x = torch.randn(6, 10, dtype=torch.float32, requires_grad=True)
    w = torch.randn(10, dtype=torch.float32, requires_grad=True)
    g = torch.randn(6, 10)
    m.rmsnorm_op(x, w).backward(g)
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = None
    w.grad = None
    (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w).backward(g)
    torch.testing.assert_close(gx, x.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gw, w.grad, rtol=1e-5, atol=1e-5)
