"""torch arguments that cannot be run: a tensor with no memory behind it (freed storage, as FSDP leaves a sharded
parameter; a FakeTensor used outside its mode) is an ArgumentError on every path, never a crash; a tensor that
requires grad in a plain kernel call gives a result detached from autograd, and the kernel says so once."""
from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest

import asc
import asc.language as lang

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: the launcher cannot be built")


@lang.kernel
def double(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * 2.0
    return out


def _freed(n=8):
    t = torch.ones(n)
    t.untyped_storage().resize_(0)
    assert t.data_ptr() == 0 and t.numel() == n
    return t


def _fake(n=8):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        return torch.empty(n)


@pytest.mark.parametrize("make", [_freed, _fake], ids=["freed_storage", "fake_tensor"])
def test_a_tensor_without_memory_is_an_argument_error_on_every_path(make):
    live = torch.arange(8, dtype=torch.float32)
    for _ in range(3):                       # the first call (Python path), then with the row in the launcher
        with pytest.raises(asc.ArgumentError, match=r"argument 'x' is a \w+ of shape \(8,\) with no memory behind it"):
            double(make())
        assert torch.equal(double(live), live * 2)
    assert double._launcher.calls >= 2      # the launcher served the live tensor, and refused the empty one


def test_an_empty_tensor_is_still_accepted():
    out = double(torch.ones(0))
    assert isinstance(out, torch.Tensor) and out.shape == (0,)


@lang.kernel
def triple(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * 3.0
    return out


def test_requires_grad_in_a_plain_call_warns_once_per_kernel():
    g = torch.ones(4, requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        outs = [triple(g) for _ in range(3)]
        with torch.no_grad():
            triple(g)
        triple(g.detach())
    grad_warnings = [w for w in seen if issubclass(w.category, asc.GradDetachedWarning)]
    assert len(grad_warnings) == 1
    msg = str(grad_warnings[0].message)
    assert "triple(): a torch argument requires grad" in msg and "asc.torch.op(triple, backward=...)" in msg
    assert grad_warnings[0].filename == __file__      # points at the caller's line
    for out in outs:
        assert torch.equal(out, torch.full((4,), 3.0)) and not out.requires_grad


@lang.kernel
def square(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * x[i]
    return out


@lang.kernel
def square_backward(x, grad):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = 2.0 * x[i] * grad[i]
    return out


def test_the_differentiable_operator_does_not_warn():
    import asc.torch
    op = asc.torch.op(square, name="asc_test_args::square", backward=square_backward)
    x = torch.arange(4, dtype=torch.float32, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", asc.GradDetachedWarning)
        y = op(x)
        y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.arange(4, dtype=np.float32))
