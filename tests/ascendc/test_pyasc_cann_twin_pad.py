"""DataCopyPad GM -> UB with left / right padding through the CANN twin (Huawei's DataCopyPadGm2UBImpl lowering to
copy_gm_to_ubuf_align_b16 / _b32 and set_mov_pad_val, the twin's model of the copy) against ascend-sim, in both
forms: DataCopyExtParams + DataCopyPadExtParams<T> and DataCopyParams + DataCopyPadParams (pyasc's
asc.DataCopyPadParams). Each row's 32-byte UB block goes back to GM whole, so the padding is compared too.

The dummy after a ragged block with no left or right padding: the DataCopyPad docs (asc-devkit, GMToUB DataCopyPad,
examples 2 and 3) say it repeats the block's first element; Huawei's DataCopyPadGm2UBImpl passes the intrinsic only
the paddings (isPad just loads the pad register), so is_pad does not change it. The twin's intrinsic model leaves the
dummy unwritten, so only ascend-sim's dummy is checked, against that rule; the twin gives the data. Skipped where
ASC_CANN_TWIN is not set, like test_pyasc_cann_twin.py; each case takes about half a minute there."""
from __future__ import annotations

import os

import numpy as np
import pytest

import asc.environment

import test_pyasc_datacopy_pad_params as P
from test_pyasc_cann_twin import _captured, _script, needs_twin


def _run(tmp_path, monkeypatch, x, w, left, right, is_pad, ext, value):
    """(ascend-sim's z, the twin's z, the twin's reason or None): padded_rows over x's rows on both."""
    rows, cols = x.shape
    width = 32 // x.itemsize
    z = np.zeros((rows, width), x.dtype)
    cap = _captured(tmp_path, monkeypatch, lambda: P.padded_rows[1](x, z, rows, cols, w, left, right, is_pad, ext,
                                                                    value))
    blocks, worst, why, fired = _script().run_captured(cap, asc.environment.config.cann_twin)
    assert fired == [] and blocks == 1, (why, fired)
    twin = np.fromfile(os.path.join(cap, "z.twin"), x.dtype).reshape(rows, width)
    return z, twin, why


@needs_twin
@pytest.mark.parametrize("ext", [1, 0], ids=["ext-params", "pad-params"])
@pytest.mark.parametrize("dt,w,left,right", [(np.float32, 5, 1, 2), (np.float16, 9, 4, 3)],
                         ids=["f32-1-5-2", "f16-4-9-3"])
def test_left_and_right_padding_equal_the_twin(ext, dt, w, left, right, tmp_path, monkeypatch):
    """left + w + right fill the 32-byte block: no dummy, every byte defined, the twin bit-equal to ascend-sim."""
    rows, cols = 3, 11
    x = np.arange(rows * cols, dtype=dt).reshape(rows, cols) + 1
    value = -2.5 if ext else 0
    z, twin, why = _run(tmp_path, monkeypatch, x, w, left, right, 1, ext, value)
    assert why is None, why
    want = P._expected(x, w, left, right, value, 32 // x.itemsize)
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(twin.view(np.uint8), z.view(np.uint8))


@needs_twin
@pytest.mark.parametrize("ext", [1, 0], ids=["ext-params", "pad-params"])
def test_is_pad_without_left_or_right_padding_keeps_the_first_element_dummy(ext, tmp_path, monkeypatch):
    rows, cols, w = 3, 11, 5
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) + 1
    value = -2.5 if ext else 0
    z, twin, _ = _run(tmp_path, monkeypatch, x, w, 0, 0, 1, ext, value)
    np.testing.assert_array_equal(twin[:, :w], x[:, :w])             # the data, where the twin's model defines it
    np.testing.assert_array_equal(z[:, :w], x[:, :w])
    np.testing.assert_array_equal(z[:, w:], np.repeat(x[:, :1], 8 - w, axis=1))   # the docs' dummy, not the pad value
