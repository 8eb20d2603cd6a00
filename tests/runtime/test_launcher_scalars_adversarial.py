"""Adversarial cases for NumPy scalar arguments on the compiled launcher's fast path (launch.c numpy_scalar_in,
launcher.row): every call it serves must give exactly what the Python path gives (binding._scalar_arg,
_check_scalar, _check_range, then np.array(value, dtype=parameter dtype) in run_compiled), and whatever it cannot
serve must reach the Python path and its error. The Python path of a call is `kernel._call(...)`."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.language as lang

BF16 = ml_dtypes.bfloat16


def fresh(annotation, name="ident"):
    """A new identity kernel `name` (its own launcher table) for a parameter annotated `annotation` (None:
    unannotated): the result is the value the kernel received."""
    if annotation is None:
        def ident(s):
            return s
    else:
        def ident(s: annotation):
            return s
    ident.__name__ = ident.__qualname__ = name
    return lang.kernel(ident)


# one identity kernel per kind of scalar parameter
p_f64, p_f32, p_f16, p_bf16, p_i64, p_i32, p_i16, p_i8, p_u8, p_b, w_float, w_int, w_bool, p_any = (
    fresh(t, n) for n, t in (
        ("p_f64", lang.float64), ("p_f32", lang.float32), ("p_f16", lang.float16), ("p_bf16", lang.bfloat16),
        ("p_i64", lang.int64), ("p_i32", lang.int32), ("p_i16", lang.int16), ("p_i8", lang.int8),
        ("p_u8", lang.uint8), ("p_b", lang.bool_), ("w_float", float), ("w_int", int), ("w_bool", bool),
        ("p_any", None)))


ANNOTATED = {p_f64: np.float64, p_f32: np.float32, p_f16: np.float16, p_bf16: BF16, p_i64: np.int64,
             p_i32: np.int32, p_i16: np.int16, p_i8: np.int8, p_u8: np.uint8, p_b: np.bool_,
             w_float: np.float64, w_int: np.int64, w_bool: np.bool_}

BIG = 2 ** 60 + 2 ** 36 + 1      # float32 rounds it up directly, down through float64 (NumPy: int64 direct, int via double)
ARGS = [
    1.5, 0.1, -0.0, 2, -3, True, False, BIG, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 300, -129, 255, 256, 1e300, float("inf"),
    float("nan"),
    np.float64(0.1), np.float64(-0.0), np.float64(1e300), np.float64(np.nan), np.float64(3.4028235677973366e38),
    np.float64(2.5), np.float32(0.1), np.float32(-2.0), np.float32(np.inf), np.float16(1.5), np.float16(np.nan),
    BF16(1.5), np.int64(BIG), np.int64(2 ** 63 - 1), np.int64(-2 ** 31), np.int64(2 ** 31), np.int64(-129),
    np.int64(255), np.int64(256), np.int32(-7), np.int32(2 ** 31 - 1), np.int16(-300), np.int16(200),
    np.int8(-128), np.int8(-1), np.uint8(0), np.uint8(200), np.uint8(255), np.bool_(True), np.bool_(False),
    np.uint16(3), np.longlong(5), np.intc(6), np.array(2.5, np.float32), np.array(-4, np.int16), np.array(True),
]


def outcome(fn, arg):
    """('ok', type, bits) or ('err', type, message): the call's observable result."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            r = fn(arg)
        except Exception as e:                        # (asc's errors, and anything else either path raises)
            return ("err", type(e), str(e))
    a = np.asarray(r)
    return ("ok", type(r), a.dtype, a.tobytes())


def expected(param_np, arg):
    """The Python path's conversion, written out: np.array(value, dtype=the parameter's dtype)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        v = arg[()] if isinstance(arg, np.ndarray) else arg
        return np.array(v, dtype=param_np)


def fast_calls(k):
    return k._launcher.calls if k._launcher is not None else 0


@pytest.mark.parametrize("kernel", list(ANNOTATED) + [p_any], ids=lambda k: k.__name__)
def test_fast_path_gives_what_the_python_path_gives(kernel):
    served = 0
    for arg in ARGS:
        slow = outcome(kernel._call, arg)
        first = outcome(kernel, arg)                  # may compile, and adds the row
        before = fast_calls(kernel)
        again = outcome(kernel, arg)
        served += fast_calls(kernel) - before
        assert first == slow, (kernel.__name__, repr(arg), first, slow)
        assert again == slow, (kernel.__name__, repr(arg), again, slow)
        if slow[0] == "ok" and kernel in ANNOTATED:
            want = expected(ANNOTATED[kernel], arg)
            assert slow[2] == want.dtype and slow[3] == want.tobytes(), (kernel.__name__, repr(arg), slow, want)
    assert served > 0                                 # the fast path did serve some of them


def test_which_scalars_the_fast_path_serves():
    """NumPy scalars of the supported integer, float32/64 and bool types are served; float16 / bfloat16 scalars for
    a float32 parameter, 0-d arrays and torch 0-d tensors take the Python path (and still work)."""
    f32, f64, i32, i8, u8, b = lang.float32, lang.float64, lang.int32, lang.int8, lang.uint8, lang.bool_
    cases = [(f32, np.float64(0.1), True), (f32, np.int64(BIG), True), (f32, np.uint8(7), True),
             (f32, np.bool_(True), True), (f64, np.float32(0.1), True), (i32, np.int16(-5), True),
             (u8, np.int64(255), True), (b, np.bool_(False), True), (float, np.int8(-3), True),
             (int, np.uint8(250), True), (None, np.float32(2.5), True), (None, np.uint8(9), True),
             (f32, np.float16(1.5), False), (f32, BF16(1.5), False), (f32, np.array(2.5, np.float32), False),
             (i32, np.int64(2 ** 31), False), (i8, np.uint8(200), False), (b, np.int64(1), False),
             (i32, np.float32(1.0), False)]
    for ann, arg, fast in cases:
        k = fresh(ann)
        outcome(k, arg)
        before = fast_calls(k)
        outcome(k, arg)
        assert (fast_calls(k) - before == 1) == fast, (k.__name__, repr(arg))


def test_errors_are_the_python_paths():
    for k, arg, msg in [(p_i32, np.int64(2 ** 31), "out of range for int32"), (p_i8, np.uint8(200), "out of range"),
                        (p_u8, np.int8(-1), "out of range for uint8"), (p_u8, np.int64(256), "out of range"),
                        (p_i32, np.float32(1.0), "must be int32"), (p_b, np.int64(1), "must be bool"),
                        (p_b, 1, "must be bool"), (w_int, np.float64(2.0), "must be int"),
                        (w_int, 2 ** 63, "out of range for int64"), (p_f32, np.uint16(3), "unsupported"),
                        (p_any, np.uint16(3), "unsupported")]:
        for _ in range(3):
            with pytest.raises(asc.errors.ArgumentError, match=msg):
                k(arg)


def test_rows_for_different_scalar_types_do_not_serve_each_other():
    """An unannotated scalar is typed by the call (NEP 50: a Python float is weak, np.float32 / np.float64 are
    not): the float16 product's type says which specialization ran, through many rows (more than the table holds),
    interleaved."""
    @lang.kernel
    def mul(x: lang.float16[4], s):
        return x[1] * s

    x = np.full(4, 1.5, np.float16)
    cases = [0.1, np.float32(0.1), np.float64(0.1), 3, np.int8(3), np.int32(3), np.int64(3), True, np.uint8(3),
             np.int16(3)]
    for _ in range(3):
        for s in cases:
            t = type(np.float16(1.5) * s)                 # NumPy 2's promotion
            r = mul(x, s)
            assert type(r) is t, (repr(s), type(r), t)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert r == mul._call(x, s), repr(s)
    assert mul.cache_info()["specializations"] == len(cases)


def test_torch_zero_dim_tensors_take_the_python_path():
    torch = pytest.importorskip("torch")
    for k, t in [(p_f32, torch.tensor(0.1, dtype=torch.float64)), (p_i32, torch.tensor(-5, dtype=torch.int64)),
                 (p_b, torch.tensor(True)), (p_f32, torch.tensor(1.5, dtype=torch.bfloat16))]:
        for _ in range(3):
            assert outcome(k, t) == outcome(k._call, t)
    with pytest.raises(asc.errors.ArgumentError, match="out of range for int32"):
        p_i32(torch.tensor(2 ** 40))


def test_scalars_beside_tensors_on_the_fast_path():
    """The realistic call: arrays and NumPy scalars together, the scalar slots converted per parameter."""
    @lang.kernel
    def affine(x: lang.float32[8], a: lang.float32, b: lang.int16, c: lang.float64, d) -> lang.float64[8]:
        out = lang.empty((8,), dtype=lang.float64)
        for i in range(8):
            out[i] = x[i] * a + b * c + d
        return out

    x = np.linspace(-1, 1, 8).astype(np.float32)
    for args in [(np.float64(0.1), np.int8(-3), np.float32(0.2), np.uint8(5)),
                 (0.1, -3, 0.2, 5), (np.int64(BIG), np.uint8(200), np.int64(-7), np.float32(0.5))]:
        ref = affine._call(x, *args)
        before = fast_calls(affine)
        for _ in range(2):
            np.testing.assert_array_equal(affine(x, *args), ref)
        assert fast_calls(affine) == before + 2
        np.testing.assert_array_equal(ref, lang.kernel(target="interpret")(affine.pyfunc)(x, *args))


def test_rows_pushed_out_of_the_table_come_back():
    k = fresh(lang.float32)
    kinds = [np.float32(1), np.float64(1), np.int64(1), np.int32(1), np.int16(1), np.int8(1), np.uint8(1),
             np.bool_(True)]                          # 8 specializations, one compiled entry, a table of 6 rows
    for a in kinds:
        k(a)
    for a in kinds:                                   # each call adds back the row it missed, if it missed it
        k(a)
    before = fast_calls(k)
    for a in kinds[-4:]:                              # the 4 newest rows are in the table
        k(a)
    assert fast_calls(k) == before + 4
    before = fast_calls(k)
    k(kinds[0]), k(kinds[0])                          # pushed out, added back by the first call: the second is fast
    assert fast_calls(k) == before + 1


def test_huge_python_int_into_bfloat16_parameter():
    r = outcome(p_bf16, 2 ** 63)
    assert r[0] == "ok" or r[1] is asc.errors.ArgumentError, r


def test_overflowing_float_argument_behaves_the_same_on_both_paths():
    k = fresh(lang.float32)
    k(np.float64(1.0))                                # compiled; the np.float64 row is in the table
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (k._call, k):
            try:
                results.append(("ok", float(f(np.float64(1e300)))))
            except RuntimeWarning as e:
                results.append(("warning", str(e)))
    assert results[0] == results[1], results


def _grid_points(view_dtype):
    """Every finite value of a 16-bit float type (as float64), and the midpoints between neighbours."""
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = (bits & 0x7c00) != 0x7c00 if view_dtype is np.float16 else (bits & 0x7f80) != 0x7f80
    v = np.unique(bits[finite].view(view_dtype).astype(np.float64))
    return v, (v[:-1] + v[1:]) / 2


def test_16bit_float_parameters_on_the_fast_path():
    """float16 / bfloat16 parameters take Python floats and ints and float16 / float32 / float64 NumPy scalars on
    the fast path, rounded exactly as the Python path rounds (np.array(v, dtype)): once, to nearest even, for
    float16 and bfloat16 (asc.dtypes.to_bfloat16, whatever ml_dtypes does). Ties, their neighbours, subnormals, overflow and
    infinities agree bit for bit; NaN, and ints beyond 2^53, take the Python path."""
    rng = np.random.default_rng(16)
    values = [65504.0, 65519.99, 65520.0, 65536.0, 1e300, -1e300, float("inf"), float("-inf"), 0.0, -0.0,
              2.0 ** -25, -(2.0 ** -25), 2.0 ** -24, 3 * 2.0 ** -26, 5e-324, 3.4028234663852886e38, 3.5e38,
              1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -11 + 2 ** -40]
    for dt in (np.float16, BF16):
        grid, mids = _grid_points(dt)
        pick = mids[rng.choice(len(mids), 300, replace=False)]
        values += list(pick) + list(np.nextafter(pick, np.inf)) + list(np.nextafter(pick, -np.inf))
    values += list(rng.standard_normal(300) * 10.0 ** rng.integers(-9, 7, 300))
    ints = [0, 7, -7, 65519, 65520, 70000, 2 ** 53, 2 ** 53 + 1, 2 ** 60, -(10 ** 30)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cases = ([float(v) for v in values] + ints + [np.float64(v) for v in values[:80]] +
                 [np.float32(v) for v in values[:80]] + [np.float16(v) for v in values[:40]])

    def fast(kernel, arg):      # what the fast path serves
        if isinstance(arg, int) and abs(float(arg)) > 2 ** 53:
            return False
        if kernel is p_bf16:
            return not isinstance(arg, np.float16) and abs(float(arg)) <= 3.4028234663852886e38
        return True
    for kernel in (p_f16, p_bf16):
        served = 0
        for arg in cases:
            slow = outcome(kernel._call, arg)
            first = outcome(kernel, arg)
            before = fast_calls(kernel)
            again = outcome(kernel, arg)
            served += fast_calls(kernel) - before
            assert first == slow and again == slow, (kernel.__name__, repr(arg), again, slow)
        assert served == sum(fast(kernel, a) for a in cases), kernel.__name__


def test_16bit_float_parameter_nan_takes_the_python_path():
    for kernel in (p_f16, p_bf16):
        for arg in (float("nan"), np.float64("nan"), np.float32("nan")):
            assert outcome(kernel, arg) == outcome(kernel._call, arg)
