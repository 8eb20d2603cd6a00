"""Seed kernels through the CANN twin (scripts/cann_twin.py: the Ascend C asc emits, run on Huawei's API
implementation with the twin's intrinsic model), checking what today's changes on the Ascend side promise:

* a float16 / bfloat16 copy (`out[i] = x[i]`) keeps every one of the 65,536 bit patterns, NaN payloads included
  (cad6399: ascend-sim's to_bits / from_bits). The emitted kernel copies through float32 (Cast CAST_NONE, then
  Cast CAST_RINT), so on the twin a NaN's payload is what the twin's model of Huawei's vconv_* intrinsics makes of it
  (float16: sign | 0x7e00; bfloat16: quieted); every other pattern must come back bit for bit.
* a kernel with two outputs of one dtype and of different sizes gets each output's GM argument in return order
  (6786ad5): both outputs equal the interpreter's on the twin as on ascend-sim.

Skipped where ASC_CANN_TWIN is not set (a development-time check: shared/cann_twin/README.md); each kernel takes
about half a minute there."""
from __future__ import annotations

import importlib.util
import os

import ml_dtypes
import numpy as np
import pytest

import asc.environment
import asc.language as lang

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_twin = pytest.mark.skipif(not asc.environment.config.cann_twin, reason="ASC_CANN_TWIN is not set (the CANN twin is "
                                "a development-time tool)")


def _script():
    spec = importlib.util.spec_from_file_location("cann_twin_script", os.path.join(ROOT, "scripts", "cann_twin.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def on_twin(name, kernel, args, tmp_path) -> tuple:
    """Runs `kernel` on `args` through the twin (outputs in tmp_path / name / OUTPUT.out); no run error and none of
    Huawei's checks fired. Returns (worst, worst_sim): scripts/cann_twin.py's differences from the interpreter, for
    the twin and for ascend-sim."""
    _, _, worst, worst_sim, err, fired = _script().run(name, kernel, args, asc.environment.config.cann_twin, str(tmp_path))
    assert err is None and not fired, (err, fired)
    return worst, worst_sim


@lang.kernel
def copy16(x):
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i]
    return out


@lang.kernel
def two_sizes(x):
    """Two float32 outputs of different sizes, allocated in the opposite order to the one they are returned in."""
    n = x.shape[0]
    a = lang.empty((n,), lang.float32)
    b = lang.empty((n // 2,), lang.float32)
    for i in range(n):
        a[i] = x[i] * 2.0
    for i in range(n // 2):
        b[i] = x[2 * i] + 1.0
    return b, a


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint16)


# what the twin's intrinsic models do to a NaN that the copy narrows back from float32 (Huawei's Cast calls the
# vconv_* intrinsic and nothing else; its docs say nothing of NaNs): twin_model.cpp's F32ToF16 (shared/cann_twin)
# gives every float16 NaN the bits sign | 0x7e00, scripts/twin_extra_model.cpp's ToBf16Bits quiets a bfloat16 NaN
# (sets bit 6). The widening keeps the bits on both.
TWIN_NAN_MODEL = {"float16": lambda b: (b & 0x8000) | 0x7e00, "bfloat16": lambda b: b | 0x0040}


@needs_twin
@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
def test_a_16_bit_copy_keeps_all_65536_patterns_on_the_twin(dt, tmp_path):
    """Every pattern that is not a NaN comes back bit for bit from the twin, as from ascend-sim (which keeps every
    pattern, cad6399); a NaN comes back a NaN of its sign, with the payload the twin's model of vconv gives it (the
    model's rule, not Huawei's API code: see TWIN_NAN_MODEL). On the NPU the payload is what the hardware's vconv
    does, which the Ascend C docs do not say: asc's "a copy keeps the bits" rests on it there."""
    twin = _script()
    x = np.arange(1 << 16, dtype=np.uint16).view(dt)
    block_dim, apis, worst, worst_sim, err, fired = twin.run("copy16", copy16, (x,), asc.environment.config.cann_twin,
                                                             str(tmp_path))
    assert err is None and not fired, (err, fired)
    assert worst == 0 and worst_sim == 0, (worst, worst_sim)          # NaN where NaN, everything else equal
    got = np.fromfile(tmp_path / "copy16" / "out.out", np.uint16)[:x.size]
    sim = lang.kernel(target="ascend-sim")(copy16.pyfunc)(x)
    np.testing.assert_array_equal(_bits(sim), _bits(x))               # ascend-sim keeps the bits (cad6399)
    bits = _bits(x)
    nan = np.isnan(x.astype(np.float32))
    bad = np.flatnonzero((got != bits) & ~nan)
    assert bad.size == 0, f"{bad.size} patterns other than NaNs changed on the twin, e.g. {bits[bad[:4]]}"
    model = np.array([TWIN_NAN_MODEL[np.dtype(dt).name](int(b)) for b in bits[nan]], np.uint16)
    np.testing.assert_array_equal(got[nan], model)                    # the sign kept, the payload the model's


@needs_twin
@pytest.mark.parametrize("n", [64, 2 * 4096 + 6], ids=["small", "tiles-and-tail"])
def test_two_outputs_of_one_dtype_and_different_sizes_in_return_order(n, tmp_path):
    twin = _script()
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    block_dim, apis, worst, worst_sim, err, fired = twin.run("two_sizes", two_sizes, (x,),
                                                             asc.environment.config.cann_twin, str(tmp_path))
    assert err is None and not fired, (err, fired)
    a = np.fromfile(tmp_path / "two_sizes" / "a.out", np.float32)[:n]
    b = np.fromfile(tmp_path / "two_sizes" / "b.out", np.float32)[:n // 2]
    np.testing.assert_array_equal(a, x * np.float32(2.0))
    np.testing.assert_array_equal(b, x[::2][:n // 2] + np.float32(1.0))
    assert worst == 0 and worst_sim == 0, (worst, worst_sim)          # each output against its own reference
