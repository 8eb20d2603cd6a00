"""Seed kernels through the CANN twin (scripts/cann_twin.py: the Ascend C asc emits, run on Huawei's API
implementation with the twin's intrinsic model), one for each generator path issue 38's fixes changed on the Ascend
side, each output compared bit for bit with the interpreter's:

* lang.maximum / minimum with the scalar first, and a selection `s if s >= x else x`, on ties of 0.0 and -0.0
  (Max(Duplicate(s), x) and Compare + Select where Maxs(x, s) swapped the operands);
* NaN literals, of both signs (__builtin_nanf with the literal's sign, where 0.0f / 0.0f was the hardware's default
  NaN), and lang.minimum of a NaN literal (Min(Duplicate(NaN), x)): the interpreter's result is NumPy's, a NaN
  everywhere; the twin's model of vmin is C's fmin (twin_model.cpp), which returns the other operand when one is
  a NaN, so that output is checked against the model's rule (TWIN_MIN_MODEL), not against the interpreter;
* an explicit lang.bfloat16(v) of a computed value (rounded to bfloat16 before the float16 maximum);
* three outputs of two dtypes allocated in another order than the one they are returned in (the GM arguments in
  return order: the launcher's order);
* a view bound to a name keeps the bounds it had at the binding, also clipped at the end of the axis, and a run-time
  start below 0 is normalized as NumPy does (an empty window at i = 0).

Skipped where ASC_CANN_TWIN is not set (a development-time check: shared/cann_twin/README.md); each kernel takes
about half a minute there."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang

from test_ascend_nan_zero_bits import nans, rounded, ties          # the kernels of the ascend-sim tests, on the twin
from test_cann_twin_bits import needs_twin, on_twin
pytestmark = pytest.mark.filterwarnings("ignore::asc.backends.ascend.rendering.AscendFallbackWarning")

N = lang.dim("N")


@lang.kernel
def three_outputs(x: lang.float32[N]):
    """Allocated c, a, b; returned b, c, a (two dtypes, three sizes)."""
    c = lang.empty((N // 4,), lang.float16)
    a = lang.empty((N,), lang.float32)
    b = lang.empty((N // 2,), lang.float32)
    for i in range(N):
        a[i] = x[i] * 3.0
    for i in range(N // 2):
        b[i] = x[2 * i] - 1.0
    for i in range(N // 4):
        c[i] = lang.float16(x[4 * i] * 0.5)
    return b, c, a


@lang.kernel
def rebind(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    j = 0
    t = x[j:j + 4]
    j = 4
    out[0:4] = t
    out[8:12] = x[j:j + 4] + 1.0
    return out


@lang.kernel
def rebind_clipped(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    j = N - 2
    t = x[j:j + 4]
    j = 0
    out[0:4] = t + 1.0
    out[8:12] = x[j:j + 4]
    return out


@lang.kernel
def neg_start(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(0, N, 4):
        out[i:i + 4] = x[i - 1:i + 3]
    return out


def _f16(*bits):
    return np.array(bits, np.uint16).view(np.float16)


# name -> (kernel, arguments, output names in return order); NaN inputs are quiet NaNs whose payload float16's
# narrowing keeps (the twin's model of vconv gives a float16 NaN sign | 0x7e00: test_cann_twin_bits.py)
CASES = {
    "ties": (lang.kernel(ties), (np.array([-0.0, 0.0, 1.0, -2.0] * 20, np.float32),), ("lo", "hi", "ge", "le")),
    "nans": (lang.kernel(nans), (np.tile(_f16(0x3c00, 0x7e00, 0xfe00, 0x8000, 0xc200), 16),), ("lit", "neg", "mn")),
    "rounded": (lang.kernel(rounded), (np.full(70, -np.inf, np.float16), np.full(70, -2.34375, ml_dtypes.bfloat16)), ("out",)),
    "three_outputs": (three_outputs, (np.random.default_rng(3).standard_normal(4096 + 44).astype(np.float32),),
                      ("b", "c", "a")),
    "rebind": (rebind, (np.arange(1, 13, dtype=np.float32),), ("out",)),
    "rebind_clipped": (rebind_clipped, (np.arange(1, 13, dtype=np.float32),), ("out",)),
    "neg_start": (neg_start, (np.arange(1, 13, dtype=np.float32),), ("out",)),
}


# outputs whose twin result follows the twin's intrinsic model rather than NumPy: (case, output) -> the bits the
# model gives from the case's arguments. vmin is std::fmin there (shared/cann_twin/twin_model.cpp): fmin(NaN, x) is
# x; both NaN gives a NaN, narrowed to float16 as sign | 0x7e00. What the NPU's vmin does with a NaN the Ascend C
# docs do not say.
TWIN_MIN_MODEL = {("nans", "mn"): lambda x: np.where(np.isnan(x), _f16(0x7e00), x)}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32}[a.itemsize])


@needs_twin
@pytest.mark.parametrize("name", sorted(CASES))
def test_changed_generator_paths_on_the_twin_equal_the_interpreter_bit_for_bit(name, tmp_path):
    kernel, args, names = CASES[name]
    worst, worst_sim = on_twin(name, kernel, args, tmp_path)
    ref = lang.kernel(target="interpret")(kernel.pyfunc)(*args)
    refs = ref if isinstance(ref, tuple) else (ref,)
    assert len(refs) == len(names)
    for pname, r in zip(names, refs):
        r = np.asarray(r)
        got = np.fromfile(tmp_path / name / f"{pname}.out", r.dtype)[:r.size].reshape(r.shape)
        model = TWIN_MIN_MODEL.get((name, pname))
        if model is not None:                       # the interpreter's NaN everywhere; the twin's model's fmin
            assert np.all(np.isnan(r.astype(np.float32))), f"{name}: output {pname}"
            r = model(*args)
        np.testing.assert_array_equal(_bits(got), _bits(r), err_msg=f"{name}: output {pname}")
    if not any(case == name for case, _ in TWIN_MIN_MODEL):     # run()'s differences cover every output
        assert worst == 0 and worst_sim == 0, (worst, worst_sim)
