"""ASC_PYASC_CAPTURE: each successful pyasc launch saves its emitted source, its GM arguments before and after the
run, its scalars' bytes and meta.json (what scripts/pyasc_twin.py --captured runs through the CANN twin)."""
import dataclasses
import json
import os

import numpy as np
import pytest

import asc.environment
import asc.runtime.config as config

import pyasc_kernels as K


@pytest.fixture
def capture(tmp_path, monkeypatch):
    config.set_platform(config.Backend.CPU)
    monkeypatch.setattr(asc.environment, "config", dataclasses.replace(asc.environment.config, pyasc_capture=str(tmp_path)))
    return tmp_path


def test_capture(capture):
    x = np.arange(512, dtype=np.float32)
    y = np.ones(512, np.float32)
    z = np.zeros(512, np.float32)
    K.vadd_queues[2](x, y, z, 256, 64)
    (d,) = [capture / n for n in os.listdir(capture)]
    meta = json.loads((d / "meta.json").read_text())
    assert meta["kernel"] == "vadd_queues" and meta["blocks"] == 2
    gm = {p["name"]: p for p in meta["params"] if p["kind"] == "gm"}
    assert {n: p["changed"] for n, p in gm.items()} == {"x": False, "y": False, "z": True}
    np.testing.assert_array_equal(np.fromfile(d / "z.in", np.float32), np.zeros(512, np.float32))
    np.testing.assert_array_equal(np.fromfile(d / "z.asc", np.float32), x + y)
    np.testing.assert_array_equal(np.fromfile(d / "x.in", np.float32), x)
    assert (d / "kernel.cpp").read_text() == K.vadd_queues.source(x, y, z, 256, 64)
