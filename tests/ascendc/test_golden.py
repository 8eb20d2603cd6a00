"""The emitted Ascend C of two pyasc kernels is pinned: the queue pipeline (vadd_queues) and the LocalTensorAuto
kernel whose buffers and SetFlag/WaitFlag pairs the translator inserts (vadd_auto). ASC_UPDATE_GOLDEN is not read:
to update, delete the file and rerun (the test writes it and fails once)."""
import pathlib

import numpy as np
import pytest

import pyasc_kernels as K

GOLDEN = pathlib.Path(__file__).parent / "golden"
X = np.zeros(1024, np.float32)
CASES = {"vadd_queues_float32.cpp": (K.vadd_queues, (X, X, X, 512, 128)),
         "vadd_auto_float16.cpp": (K.vadd_auto, (X.astype(np.float16),) * 3 + (512, 128))}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    kernel, args = CASES[name]
    text = kernel.source(*args)
    path = GOLDEN / name
    if not path.exists():
        path.write_text(text)
        pytest.fail(f"wrote {path}: check it and rerun")
    assert text == path.read_text(), f"the emitted Ascend C of {name} changed (diff it against {path})"


def test_sync_pairs_of_vadd_auto():
    """The pairs a real build needs, and no others: MTE2->S before get_value, MTE2->V before the vector ops,
    V->MTE3 before the copy out, and V->MTE2 and MTE3->V for the previous iteration's readers (one V_MTE2 pair
    orders every earlier vector access before the MTE2 copies after it)."""
    text = CASES["vadd_auto_float16.cpp"][0].source(*CASES["vadd_auto_float16.cpp"][1])
    events = [ln.split("HardEvent::")[1].split(">")[0] for ln in text.splitlines() for _ in [0]
              if "SetFlag<AscendC::HardEvent::" in ln for ln in ln.split("AscendC::SetFlag")[1:]]
    assert events == ["V_MTE2", "MTE2_S", "MTE3_V", "MTE2_V", "V_MTE3"], events



@pytest.mark.parametrize("first", [2.0, -2.0])
def test_sync_of_a_read_in_an_if_condition_comes_before_the_if(first):
    import asc.runtime.config as config
    config.set_platform(config.Backend.CPU)
    x = np.arange(64, dtype=np.float32) - 10
    x[0] = first
    text = K.branch_on_read.source(x, x, 64)
    lines = [ln.strip() for ln in text.splitlines()]
    at_if = next(i for i, ln in enumerate(lines) if ln.startswith("if ("))
    pair = next(i for i, ln in enumerate(lines) if "HardEvent::MTE2_S" in ln)
    assert pair < at_if, text          # (it was dropped: the scalar read raced the copy on an NPU)
    z = np.zeros_like(x)
    K.branch_on_read[1](x, z, 64)
    np.testing.assert_array_equal(z, x + np.float32(1.0 if first > 0 else -1.0))
