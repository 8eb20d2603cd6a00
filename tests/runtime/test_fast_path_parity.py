"""The compiled launcher (fast path) and the Python path accept exactly the same arguments: random combinations of
odd arrays, tensors and scalars (byte order, strides, dtype, read-only, rank, size 0, subclasses, alignment, aliasing,
tensors without memory, ...) run through both, and both give the same result, or the same named error, and leave
the arguments in the same state."""
from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest

import asc
import asc.language as lang

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: the launcher cannot be built")

N0 = 6


@lang.kernel(dynamic_shape=True)
def axpy_d(a: lang.float32, x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = a * x[i] + y[i]
    return out


@lang.kernel(dynamic_shape=True)
def add_into(x: lang.int32[N], y: lang.int32[N]):
    for i in range(N):
        x[i] += y[i]


class Sub(np.ndarray):
    pass


def _unaligned(b):
    buf = bytearray(b.nbytes + 1)
    a = np.frombuffer(buf, b.dtype, count=b.size, offset=1)
    a[...] = b
    return a


def _read_only(b):
    b = b.copy()
    b.flags.writeable = False
    return b


ARRAYS = {
    "plain": lambda b: b.copy(),
    "big_endian": lambda b: b.astype(b.dtype.newbyteorder(">")),
    "little_endian": lambda b: b.astype(b.dtype.newbyteorder("<")),
    "strided": lambda b: np.repeat(b, 2)[::2],
    "reversed": lambda b: b[::-1].copy()[::-1],
    "float64": lambda b: b.astype(np.float64),
    "int64": lambda b: b.astype(np.int64),
    "int32": lambda b: b.astype(np.int32),
    "read_only": _read_only,
    "two_d": lambda b: b.copy().reshape(1, -1),
    "empty": lambda b: b[:0].copy(),
    "short": lambda b: b[:-1].copy(),
    "subclass": lambda b: b.copy().view(Sub),
    "unaligned": _unaligned,
    "zero_d": lambda b: np.array(b[0]),
    "list": lambda b: b.tolist(),
    "fortran_column": lambda b: np.asfortranarray(np.stack([b, b], 1))[:, 0],
}


def _torch_variants():
    try:
        import torch
    except ImportError:
        return {}

    def freed(b):
        t = torch.tensor(b)
        t.untyped_storage().resize_(0)            # as FSDP frees a parameter's storage: data_ptr() is 0
        return t

    def fake(b):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            return torch.empty(b.shape, dtype=getattr(torch, b.dtype.name))

    def grad(b):
        t = torch.from_numpy(b.copy())
        return t.float().requires_grad_() if t.dtype == torch.float32 else t

    return {
        "torch": lambda b: torch.from_numpy(b.copy()),
        "torch_strided": lambda b: torch.from_numpy(np.repeat(b, 2))[::2],
        "torch_float64": lambda b: torch.from_numpy(b.astype(np.float64)),
        "torch_freed": freed,
        "torch_fake": fake,
        "torch_requires_grad": grad,
        "torch_parameter": lambda b: torch.nn.Parameter(torch.from_numpy(b.copy()), requires_grad=False),
        "torch_empty": lambda b: torch.from_numpy(b[:0].copy()),
    }


ARRAYS.update(_torch_variants())

SCALARS = {
    "float": lambda: 2.5, "int": lambda: 3, "bool": lambda: True, "np.float32": lambda: np.float32(1.5),
    "np.float64": lambda: np.float64(0.1), "np.float16": lambda: np.float16(0.5), "np.int64": lambda: np.int64(-7),
    "np.uint64": lambda: np.uint64(3), "zero_d": lambda: np.array(2.0), "zero_d_big_endian": lambda: np.array(2.0, ">f8"),
    "huge_int": lambda: 2 ** 70, "str": lambda: "2", "none": lambda: None, "array": lambda: np.ones(2, np.float32),
}


def _base(dtype):
    return (np.arange(N0) * 3 - 5).astype(dtype)


def _outcome(fn, args):
    """What a call gives: ("ok", result, arguments after) or ("error", type, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", asc.GradDetachedWarning)
            r = fn(*args)
    except asc.AscError as e:
        return ("error", type(e).__name__, str(e))
    return ("ok", _plain(r), [_plain(a) for a in args])


def _plain(v):
    """A comparable form: the type, dtype and values (a tensor without memory is compared by what it is)."""
    if isinstance(v, np.ndarray):
        return (type(v).__name__, v.dtype.str, v.shape, v.tolist())
    if type(v).__module__.startswith("torch"):
        if v.untyped_storage().nbytes() == 0 and v.numel():
            return (type(v).__name__, str(v.dtype), tuple(v.shape), "no memory")
        return (type(v).__name__, str(v.dtype), tuple(v.shape), v.detach().tolist())
    return (type(v).__name__, v)


def _compare(kernel, case, make):
    fast = _outcome(kernel, make())                   # the launcher serves it, or hands it to the Python path
    before = kernel._launcher.calls
    slow = _outcome(kernel._call, make())            # the Python path itself
    assert kernel._launcher.calls == before
    assert fast == slow, f"{kernel.__name__}{case}: fast path {fast[:2]}, Python path {slow[:2]}"
    return fast[0]


@pytest.mark.parametrize("kernel, dtypes", [(axpy_d, (np.float32, np.float32)), (add_into, (np.int32, np.int32))])
def test_fast_path_and_python_path_accept_the_same_arguments(kernel, dtypes):
    rng = np.random.default_rng(14)
    names = sorted(ARRAYS)
    outcomes = {"ok": 0, "error": 0}
    served = 0
    for _ in range(150):
        kinds = [names[i] for i in rng.integers(0, len(names), 2)]
        alias = rng.random() < 0.1
        scalar = sorted(SCALARS)[rng.integers(0, len(SCALARS))] if rng.random() < 0.3 else "float"

        def make():
            arrays = [ARRAYS[k](_base(d)) for k, d in zip(kinds, dtypes)]
            if alias:
                arrays[1] = arrays[0]
            return ([SCALARS[scalar]()] if kernel is axpy_d else []) + arrays

        good = [_base(d) for d in dtypes]
        kernel(*(([1.0] if kernel is axpy_d else []) + good))   # the native row is in the launcher's table
        before = kernel._launcher.calls
        outcomes[_compare(kernel, (scalar, *kinds, "aliased" if alias else ""), make)] += 1
        served += kernel._launcher.calls - before
    assert outcomes["ok"] > 10 and outcomes["error"] > 10 and served > 10, (outcomes, served)


@pytest.mark.parametrize("kind", ["big_endian", "strided", "float64", "read_only", "two_d", "short"])
def test_each_refused_array_is_refused_on_both_paths(kind):
    x = _base(np.int32)
    add_into(x.copy(), x)                            # a row for int32 is in the table
    assert _compare(add_into, (kind,), lambda: [ARRAYS[kind](_base(np.int32)), _base(np.int32)]) == "error"


def test_a_big_endian_array_is_an_argument_error_naming_its_byte_order():
    x, y = _base(np.float32), _base(np.float32)
    axpy_d(1.0, x, y)
    axpy_d(1.0, x, y)                                # the float32 row now serves calls
    big = x.astype(">f4")
    keep = big.copy()
    for _ in range(2):
        with pytest.raises(asc.ArgumentError, match=r"'x' has dtype >f4, whose byte order is not this machine's.*"
                                                    r"x.astype\(x.dtype.newbyteorder\('='\)\)"):
            axpy_d(1.0, big, y)
    out = np.zeros(N0, np.int32).astype(">i4")
    with pytest.raises(asc.ArgumentError, match="byte order"):
        add_into(out, _base(np.int32))
    assert (out == 0).all() and (big == keep).all()  # a written argument is left as it was
    np.testing.assert_array_equal(axpy_d(1.0, big.astype(big.dtype.newbyteorder("=")), y), x + y)
