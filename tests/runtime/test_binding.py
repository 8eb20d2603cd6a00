"""Argument binding: bad arguments are refused with a clear ArgumentError / ShapeError before anything runs (the
arguments are left unchanged), and good ones (NumPy arrays, torch CPU tensors, defaults) bind without copies."""
import os
import traceback

import numpy as np
import pytest
import torch

import asc.language as lang
from asc.errors import AscError, ArgumentError, ShapeError

N = lang.dim("N")

INTERNAL_DIRS = tuple(os.sep + os.path.join("asc", d) + os.sep for d in ("frontend", "backends", "passes"))


@lang.kernel
def double_inplace(x: lang.float32[N]):
    for i in range(N):
        x[i] = 2.0 * x[i]


@lang.kernel
def add_into(a: lang.float32[N], b: lang.float32[N]):
    """b += a (writes its second argument)."""
    for i in range(N):
        b[i] = b[i] + a[i]


@lang.kernel
def fixed16(x: lang.float32[16]):
    for i in range(16):
        x[i] = 0.0


@lang.kernel
def fill_n(x: lang.float32[N], n: int):
    for i in range(n):
        x[i] = 1.0


@lang.kernel
def scale(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = 3.0 * x[i]
    return out


@lang.kernel
def scale_inplace_ret(x: lang.float32[N]) -> lang.float32[N]:
    for i in range(N):
        x[i] = 3.0 * x[i]
    return x


@lang.kernel
def copy_2d(a: lang.float32[N, N], b: lang.float32[N, N]):
    for i in range(N):
        for j in range(N):
            b[i, j] = a[i, j]


@lang.kernel
def axpb(x: lang.float32[N], beta: lang.float16 = 1.0) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + beta
    return out


@lang.kernel
def half_and_double(x: lang.Tensor) -> lang.Tensor:
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0 + 0.5
    return out


def vec(n=8, dtype=np.float32):
    return np.arange(n, dtype=dtype) + 1


def refused(excinfo, cls, *parts):
    """The exception is exactly `cls`, its message contains every part, and the traceback is clean."""
    e = excinfo.value
    assert type(e) is cls, f"expected {cls.__name__}, got {type(e).__name__}: {e}"
    for p in parts:
        assert p in str(e), f"{p!r} not in {str(e)!r}"
    frames = traceback.extract_tb(e.__traceback__)
    assert not [f for f in frames if any(d in f.filename for d in INTERNAL_DIRS)]
    return e


def assert_unchanged(*pairs):
    for arr, copy in pairs:
        if isinstance(arr, torch.Tensor):
            assert torch.equal(arr, copy)
        else:
            np.testing.assert_array_equal(arr, copy)
            assert arr.dtype == copy.dtype


# ---------------------------------------------------------------------------------------------- dtype, rank, shape


def test_wrong_dtype():
    x = vec(dtype=np.float64)
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        double_inplace(x)
    e = refused(ei, ArgumentError, "double_inplace()", "'x'", "float32", "float64", "astype(np.float32)")
    assert isinstance(e, TypeError)
    assert_unchanged((x, keep))


def test_wrong_dtype_torch():
    t = torch.arange(8, dtype=torch.float64)
    keep = t.clone()
    with pytest.raises(ArgumentError) as ei:
        double_inplace(t)
    refused(ei, ArgumentError, "'x'", "float32", "float64", ".to(torch.float32)")
    assert_unchanged((t, keep))


def test_wrong_rank():
    x = np.ones((4, 2), np.float32)
    keep = x.copy()
    with pytest.raises(ShapeError) as ei:
        double_inplace(x)
    e = refused(ei, ShapeError, "'x'", "must have 1 dimension(s)", "(4, 2)")
    assert isinstance(e, ValueError)
    assert_unchanged((x, keep))


def test_wrong_rank_0d():
    x = np.array(1.0, np.float32)
    keep = x.copy()
    with pytest.raises(ShapeError) as ei:
        double_inplace(x)
    refused(ei, ShapeError, "'x'", "must have 1 dimension(s)", "got shape ()")
    assert_unchanged((x, keep))


def test_wrong_fixed_size():
    x = vec(15)
    keep = x.copy()
    with pytest.raises(ShapeError) as ei:
        fixed16(x)
    refused(ei, ShapeError, "fixed16()", "'x'", "[16]", "(15,)", "axis 0 is 15, expected 16")
    assert_unchanged((x, keep))


def test_symbol_mismatch():
    a, b = vec(16), vec(15)
    ka, kb = a.copy(), b.copy()
    with pytest.raises(ShapeError) as ei:
        add_into(a, b)
    refused(ei, ShapeError, "N is 16 for 'a' but 15 for 'b'")
    assert_unchanged((a, ka), (b, kb))


def test_symbol_mismatch_within_one_argument():
    a, b = np.ones((3, 4), np.float32), np.zeros((3, 3), np.float32)
    ka, kb = a.copy(), b.copy()
    with pytest.raises(ShapeError) as ei:
        copy_2d(a, b)
    refused(ei, ShapeError, "N is 3 for 'a' but 4 for 'a'")
    assert_unchanged((a, ka), (b, kb))


def test_unsupported_dtype():
    x = np.ones(4, np.complex64)
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        double_inplace(x)
    refused(ei, ArgumentError, "'x'", "complex64", "not support")
    assert_unchanged((x, keep))


# ---------------------------------------------------------------------------------------------- layout and kind


def test_non_contiguous_numpy():
    base = vec(16)
    keep = base.copy()
    x = base[::2]
    with pytest.raises(ArgumentError) as ei:
        double_inplace(x)
    refused(ei, ArgumentError, "'x'", "C-contiguous", "np.ascontiguousarray(x)")
    assert_unchanged((base, keep))


def test_fortran_order_numpy():
    a = np.asfortranarray(np.arange(16, dtype=np.float32).reshape(4, 4))
    b = np.zeros((4, 4), np.float32)
    ka, kb = a.copy(order="K"), b.copy()
    with pytest.raises(ArgumentError) as ei:
        copy_2d(a, b)
    refused(ei, ArgumentError, "'a'", "C-contiguous")
    assert_unchanged((a, ka), (b, kb))


def test_non_contiguous_torch():
    a = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    b = torch.zeros(4, 4)
    ka, kb = a.clone(), b.clone()
    with pytest.raises(ArgumentError) as ei:
        copy_2d(a.t(), b)
    refused(ei, ArgumentError, "'a'", "not contiguous", ".contiguous()")
    assert_unchanged((a, ka), (b, kb))


def test_list_instead_of_array():
    with pytest.raises(ArgumentError) as ei:
        double_inplace([1.0, 2.0, 3.0])
    refused(ei, ArgumentError, "'x'", "must be a NumPy array or a torch tensor", "got list")


def test_scalar_instead_of_array():
    with pytest.raises(ArgumentError) as ei:
        double_inplace(2.0)
    refused(ei, ArgumentError, "'x'", "must be a NumPy array or a torch tensor", "got float")


def test_array_instead_of_scalar():
    x = vec()
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        fill_n(x, np.array([3, 4]))
    refused(ei, ArgumentError, "'n'", "must be a scalar", "ndarray")
    assert_unchanged((x, keep))


def test_float_for_int_parameter():
    x = vec()
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        fill_n(x, 2.5)
    refused(ei, ArgumentError, "fill_n()", "'n'", "must be int", "2.5")
    assert_unchanged((x, keep))


def test_numpy_float_for_int_parameter():
    x = vec()
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        fill_n(x, np.float32(2.0))
    refused(ei, ArgumentError, "'n'", "must be int")
    assert_unchanged((x, keep))


def _fill_int32(target):
    @lang.kernel(target=target)
    def fill_int32(x: lang.float32[N], n: lang.int32):
        for i in range(N):
            x[i] = n
    return fill_int32


@pytest.mark.parametrize("target", [
    "cpu",
    "interpret",
])
def test_scalar_out_of_range_for_its_dtype(target):
    kern = _fill_int32(target)
    x = vec()
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        kern(x, 2 ** 40)
    refused(ei, ArgumentError, "fill_int32()", "'n'", "int32")
    assert_unchanged((x, keep))


def _kwonly(target):
    @lang.kernel(target=target)
    def fill_kwonly(x: lang.float32[N], *, beta: float = 1.0):
        for i in range(N):
            x[i] = beta
    return fill_kwonly


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_keyword_only_parameter_given_positionally(target):
    kern = _kwonly(target)
    x = np.zeros(4, np.float32)
    with pytest.raises(ArgumentError) as ei:
        kern(x, 5.0)
    refused(ei, ArgumentError, "fill_kwonly()", "1 positional argument")
    assert_unchanged((x, np.zeros(4, np.float32)))


def test_keyword_only_parameter_given_by_keyword():
    kern = _kwonly("cpu")
    x = np.zeros(4, np.float32)
    kern(x, beta=5.0)
    np.testing.assert_array_equal(x, np.full(4, 5.0, np.float32))
    kern(x)
    np.testing.assert_array_equal(x, np.ones(4, np.float32))


# ---------------------------------------------------------------------------------------------- arity


def test_missing_argument():
    a = vec()
    keep = a.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into(a)
    refused(ei, ArgumentError, "add_into() missing argument 'b'")
    assert_unchanged((a, keep))


def test_too_many_arguments():
    a, b, c = vec(), vec(), vec()
    keeps = (a.copy(), b.copy(), c.copy())
    with pytest.raises(ArgumentError) as ei:
        add_into(a, b, c)
    refused(ei, ArgumentError, "add_into() takes 2 positional argument(s) but 3 were given")
    assert_unchanged(*zip((a, b, c), keeps))


def test_unknown_keyword():
    a, b = vec(), vec()
    ka, kb = a.copy(), b.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into(a, b, c=a)
    refused(ei, ArgumentError, "add_into() got an unexpected keyword argument 'c'")
    assert_unchanged((a, ka), (b, kb))


def test_multiple_values_for_argument():
    a, b = vec(), vec()
    ka, kb = a.copy(), b.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into(a, b, a=a)
    refused(ei, ArgumentError, "multiple values for argument 'a'")
    assert_unchanged((a, ka), (b, kb))


def test_keyword_arguments_bind():
    a, b = vec(), np.zeros(8, np.float32)
    add_into(b=b, a=a)
    np.testing.assert_array_equal(b, vec())


# ---------------------------------------------------------------------------------------------- torch


def test_torch_in_torch_out():
    t = torch.arange(8, dtype=torch.float32)
    keep = t.clone()
    y = scale(t)
    assert isinstance(y, torch.Tensor)
    assert y.dtype == torch.float32 and tuple(y.shape) == (8,)
    assert torch.equal(y, 3.0 * keep)
    assert_unchanged((t, keep))


def test_numpy_in_numpy_out():
    x = vec()
    y = scale(x)
    assert type(y) is np.ndarray and y.dtype == np.float32
    np.testing.assert_array_equal(y, 3.0 * vec())


def test_torch_inplace_is_zero_copy():
    t = torch.arange(8, dtype=torch.float32)
    ptr = t.data_ptr()
    r = scale_inplace_ret(t)
    assert r is t
    assert t.data_ptr() == ptr
    assert torch.equal(t, 3.0 * torch.arange(8, dtype=torch.float32))


def test_torch_inplace_into_view_of_larger_tensor():
    base = torch.arange(16, dtype=torch.float32)
    view = base[4:12]                    # contiguous, with a storage offset
    double_inplace(view)
    expected = torch.arange(16, dtype=torch.float32)
    expected[4:12] *= 2
    assert torch.equal(base, expected)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bfloat16", "float16"])
def test_torch_16bit_floats(dtype):
    t = torch.arange(8).to(dtype)
    keep = t.clone()
    y = half_and_double(t)
    assert isinstance(y, torch.Tensor)
    assert y.dtype == dtype
    assert torch.equal(y, (keep.float() * 2.0 + 0.5).to(dtype))
    assert_unchanged((t, keep))


def test_torch_meta_device():
    t = torch.empty(8, device="meta")
    with pytest.raises(ArgumentError) as ei:
        double_inplace(t)
    refused(ei, ArgumentError, "'x'", "meta", "CPU tensor")


def test_torch_0d_tensor_as_scalar():
    x = vec()
    fill_n(x, torch.tensor(3))
    np.testing.assert_array_equal(x, np.array([1, 1, 1, 4, 5, 6, 7, 8], np.float32))


# ---------------------------------------------------------------------------------------------- memory sharing


def test_arguments_sharing_memory_when_written():
    a = vec()
    keep = a.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into(a, a)
    refused(ei, ArgumentError, "'a'", "'b'", "share memory", "writes 'b'")
    assert_unchanged((a, keep))


def test_arguments_partially_overlapping_when_written():
    buf = vec(12)
    keep = buf.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into(buf[0:8], buf[4:12])
    refused(ei, ArgumentError, "share memory")
    assert_unchanged((buf, keep))


def test_torch_arguments_sharing_memory_when_written():
    t = torch.arange(8, dtype=torch.float32)
    keep = t.clone()
    with pytest.raises(ArgumentError) as ei:
        add_into(t, t.view(8))
    refused(ei, ArgumentError, "share memory")
    assert_unchanged((t, keep))


def test_adjacent_slices_do_not_share_memory():
    buf = vec(16)
    add_into(buf[0:8], buf[8:16])
    np.testing.assert_array_equal(buf[8:], vec(8) + vec(16)[8:])
    np.testing.assert_array_equal(buf[:8], vec(8))


@lang.kernel
def read_twice(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(a)
    for i in range(N):
        out[i] = a[i] + b[i]
    return out


def test_read_only_arguments_may_share_memory():
    a = vec()
    np.testing.assert_array_equal(read_twice(a, a), 2 * vec())


@lang.func
def store_at(t, i, v):
    t[i] = v


@lang.kernel
def add_into_via_func(a: lang.float32[N], b: lang.float32[N]):
    for i in range(N):
        store_at(b, i, b[i] + a[i])


def test_kernel_writing_through_func():
    a, b = vec(), np.zeros(8, np.float32)
    add_into_via_func(a, b)
    np.testing.assert_array_equal(b, vec())


def test_sharing_memory_written_through_func():
    a = vec()
    keep = a.copy()
    with pytest.raises(ArgumentError) as ei:
        add_into_via_func(a, a)
    refused(ei, ArgumentError, "share memory")
    assert_unchanged((a, keep))


def test_read_only_numpy_array_written():
    x = vec()
    x.flags.writeable = False
    keep = x.copy()
    with pytest.raises(ArgumentError) as ei:
        double_inplace(x)
    refused(ei, ArgumentError, "'x'", "read-only")
    assert_unchanged((x, keep))


# ---------------------------------------------------------------------------------------------- defaults, options


def test_default_scalar_argument():
    x = vec()
    keep = x.copy()
    np.testing.assert_array_equal(axpb(x), vec() + 1.0)
    np.testing.assert_array_equal(axpb(x, 2.5), vec() + 2.5)
    np.testing.assert_array_equal(axpb(x, beta=-0.5), vec() - 0.5)
    np.testing.assert_array_equal(axpb(x), vec() + 1.0)
    assert_unchanged((x, keep))


def test_default_scalar_argument_is_rounded_to_float16():
    x = np.zeros(4, np.float32)
    # 0.1 is not a float16: the kernel sees float16(0.1)
    np.testing.assert_array_equal(axpb(x, 0.1), np.full(4, np.float32(np.float16(0.1))))


@pytest.mark.parametrize("options, text", [
    ({"target": "nope"}, "unknown target 'nope'"),
    ({"target": "ascend"}, "not available"),
    ({"precision": "fp8"}, "unknown precision 'fp8'"),
    ({"precision": "default"}, 'choose "float32" (the default'),
    ({"num_threads": 0}, "num_threads must be a positive int"),
    ({"num_threads": "4"}, "num_threads must be a positive int"),
], ids=["target", "unavailable-target", "precision", "precision-default", "threads-zero", "threads-str"])
def test_bad_kernel_options_at_decoration(options, text):
    with pytest.raises(ValueError) as ei:
        lang.kernel(**options)
    assert text in str(ei.value)
    with pytest.raises(ValueError):
        lang.kernel(lambda x: x, **options)


def test_bad_kernel_option_in_decorator_syntax():
    with pytest.raises(ValueError, match="unknown target 'nope'"):
        @lang.kernel(target="nope")
        def k(x: lang.float32[N]):
            x[0] = 1.0


def test_unknown_kernel_option():
    with pytest.raises(TypeError, match="foo"):
        lang.kernel(foo=1)


def test_bool_num_threads_refused():
    with pytest.raises(ValueError, match="num_threads"):
        lang.kernel(num_threads=True)


def test_errors_are_asc_errors():
    with pytest.raises(AscError):
        double_inplace([1.0])
    with pytest.raises(TypeError):
        double_inplace([1.0])
    with pytest.raises(ValueError):
        fixed16(vec(15))


def test_dynamic_kernel_with_unannotated_and_starred_axes():
    """Axes the annotation leaves free are run-time sizes of a dynamic kernel: the first call (the Python path) and
    later ones (the compiled launcher) bind them, for every size."""
    @lang.kernel(dynamic_shape=True)
    def scale(x, y: lang.float32[None, N]):
        out = lang.empty_like(x)
        for i in range(len(x)):
            out[i] = x[i] * 2.0 + y[0, 0]
        return out

    for n in (5, 0, 1, 1000, 7):
        x = np.arange(n, dtype=np.float32)
        y = np.ones((3, 2), np.float32)
        np.testing.assert_array_equal(scale(x, y), x * 2.0 + 1.0)
    assert scale.cache_info()["specializations"] == 1
