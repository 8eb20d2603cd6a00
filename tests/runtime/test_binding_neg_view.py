"""torch tensors with the negative bit (issue 38, item 5): `torch._neg_view(t)`, and the `.imag` of a complex
tensor's `conj()` view, are tensors whose memory holds the values without their sign (torch applies it lazily).
asc reads and writes memory, so such a tensor is refused, as an input and as an argument the kernel writes, with
an ArgumentError naming the argument and the fix (`resolve_neg()`, a copy: asc never copies silently), on every
target and on the compiled launcher's fast path too (a row the launcher already serves declines it). Nothing is
written. The pyasc front door refuses it the same way."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.errors import ArgumentError

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler")

N = lang.dim("N")

# (target, memory_check): the cpu target with and without memory checks, the interpreter, ascend-sim
TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]
IDS = ["cpu", "cpu-checked", "interpret", "ascend-sim"]
_made: dict = {}


def _kernels(target, checked):
    """scale (x read, a new output) and axpy (y written in place), for one target."""
    key = (target, checked)
    if key not in _made:
        opts = dict(target=target, memory_check=checked)

        @lang.kernel(**opts)
        def scale(x: lang.Tensor) -> lang.Tensor:
            out = lang.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = x[i] * 2
            return out

        @lang.kernel(**opts)
        def axpy(x: lang.float32[N], y: lang.float32[N]):
            for i in range(N):
                y[i] = y[i] + x[i] * 3.0

        _made[key] = scale, axpy
    return _made[key]


def _refused(ei, kernel, arg):
    msg = str(ei.value)
    assert f"{kernel}()" in msg and f"argument {arg!r}" in msg and "negative bit" in msg, msg
    assert f"{arg}.resolve_neg()" in msg, msg


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=["float32", "bfloat16", "int32"])
def test_an_input_with_the_negative_bit_is_refused(target, checked, dtype):
    scale, _ = _kernels(target, checked)
    base = torch.arange(1, 9).to(dtype)
    neg = torch._neg_view(base)
    assert neg.is_neg() and neg.is_contiguous()
    expect = (neg.resolve_neg() * 2).to(dtype)
    for _ in range(2):                   # the first call, then with the plain tensor's row in the launcher
        got = scale(base.clone())
        assert torch.equal(got, (base * 2).to(dtype))
        with pytest.raises(ArgumentError) as ei:
            scale(neg)
        _refused(ei, "scale", "x")
        assert torch.equal(base, torch.arange(1, 9).to(dtype))        # nothing written
    assert torch.equal(scale(neg.resolve_neg()), expect)             # the fix the message names: the signed values
    assert float(scale(neg.resolve_neg())[0]) == -2.0


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_a_written_argument_with_the_negative_bit_is_refused_and_left_unchanged(target, checked):
    _, axpy = _kernels(target, checked)
    x = torch.arange(8, dtype=torch.float32)
    ybase = torch.ones(8)
    y = torch._neg_view(ybase)
    for _ in range(2):
        plain = torch.ones(8)
        axpy(x, plain)
        assert torch.equal(plain, 1 + x * 3)
        with pytest.raises(ArgumentError) as ei:
            axpy(x, y)
        _refused(ei, "axpy", "y")
        assert torch.equal(ybase, torch.ones(8)) and torch.equal(y, -torch.ones(8))
        with pytest.raises(ArgumentError) as ei:        # an input with the bit beside a written plain tensor
            axpy(torch._neg_view(x), plain)
        _refused(ei, "axpy", "x")
        assert torch.equal(plain, 1 + x * 3)
    # the fix for a written argument: write into the resolved copy, copy it back
    r = y.resolve_neg()
    axpy(x, r)
    assert torch.equal(r, -1 + x * 3)


@pytest.mark.parametrize("target, checked", TARGETS, ids=IDS)
def test_the_imaginary_part_of_a_conj_view_is_refused(target, checked):
    scale, _ = _kernels(target, checked)
    c = torch.complex(torch.arange(4.0), torch.arange(1.0, 5.0))
    im = c[:1].conj().imag               # a float32 view of c's memory, negated lazily (contiguous: one element)
    assert im.dtype == torch.float32 and im.is_neg() and im.is_contiguous()
    with pytest.raises(ArgumentError) as ei:
        scale(im)
    _refused(ei, "scale", "x")
    assert torch.equal(scale(im.resolve_neg()), torch.tensor([-2.0]))
    # longer, it is strided: refused as not contiguous, and .contiguous() resolves the sign (torch's copy)
    with pytest.raises(ArgumentError, match="argument 'x' is not contiguous"):
        scale(c.conj().imag)
    assert torch.equal(scale(c.conj().imag.contiguous()), -2 * torch.arange(1.0, 5.0))
    with pytest.raises(ArgumentError, match="complex64"):        # a conj view itself is complex: refused by dtype
        scale(c.conj())


@asc.jit
def pyasc_double(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qi, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, n * x.dtype.sizeof())
    t = qi.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    qi.enque(t)
    t = qi.deque(x.dtype)
    o = qo.alloc_tensor(x.dtype)
    asc.muls(o, t, 2.0, n)
    qi.free_tensor(t)
    qo.enque(o)
    o = qo.deque(x.dtype)
    asc.data_copy(zg, o, n)
    qo.free_tensor(o)


@pytest.mark.parametrize("which", ["input", "written"])
def test_pyasc_refuses_the_negative_bit(which):
    import asc.runtime.config as config
    config.set_platform(config.Backend.CPU)
    x, z = torch.arange(64, dtype=torch.float32), torch.zeros(64)
    pyasc_double[1](x, z, 64)
    assert torch.equal(z, 2 * x)
    z = torch.zeros(64)
    args = (torch._neg_view(x), z) if which == "input" else (x, torch._neg_view(z))
    with pytest.raises(ArgumentError, match=r"argument (x|z) is a torch tensor with the negative bit set.*"
                                            r"resolve_neg\(\)"):
        pyasc_double[1](*args, 64)
    assert torch.equal(z, torch.zeros(64))
