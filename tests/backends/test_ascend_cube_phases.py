"""A product next to element code: the cube phase writes the product (rounded to its dtype, as the interpreter
rounds it into the temporary) to a GM workspace, SyncAll<false>() holds every AIC and AIV, and the epilogue runs on
the AIVs as an ordinary row / map plan over the workspace (a MIX 1:2 kernel). Equal to the interpreter within the
corpus's 2 ulps; ascend-sim refuses the kernel without its barrier."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.runtime import ascend_sim
from asc.runtime.ascend_sim import AscendSimError
from helpers import BF16, close, interpreted


@lang.kernel
def bias_relu(a, b, bias):
    return lang.maximum(a @ b + bias, 0.0)


@lang.kernel
def scaled(a, b):
    return (a @ b) * 0.5


def _sim(kernel):
    return lang.kernel(target="ascend-sim")(kernel.pyfunc)


def _mats(m, k, n, dtype, seed):
    rng = np.random.default_rng(seed)
    return ((rng.standard_normal((m, k)) * 0.5).astype(dtype), (rng.standard_normal((k, n)) * 0.5).astype(dtype),
            rng.standard_normal(n).astype(dtype))


# (M, K, N): one fractal; 3 x 2 tiles of C (128 + 128 + 16 rows, 128 + 16 columns) and two K steps (64 + 16)
SHAPES = [(16, 16, 16), (272, 80, 144)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_a_product_with_a_bias_relu_epilogue(shape, dtype):
    a, b, bias = _mats(*shape, dtype, sum(shape))
    src = bias_relu.source("ascend", a, b, bias)
    assert "KERNEL_TYPE_MIX_AIC_1_2" in src and "SyncAll<false>();" in src
    got = _sim(bias_relu)(a, b, bias)
    want = interpreted(bias_relu)(a, b, bias)
    assert got.dtype == want.dtype and got.shape == want.shape
    close(got, want, want.dtype, ulps=2)


def test_a_map_epilogue_on_three_cores():
    """A 2-D map epilogue; 3 cores: 3 AICs for the 6 tiles, 3 AIVs (of the 6) for the map."""
    a, b, _ = _mats(272, 80, 144, np.float16, 7)
    with ascend_sim.configured(cores=3):
        got = _sim(scaled)(a, b)
    close(got, interpreted(scaled)(a, b), np.float16, ulps=2)


def test_the_sim_refuses_the_epilogue_without_the_barrier():
    """Without SyncAll<false>() the AIVs read the workspace the AIC wrote in the same phase: refused, naming the
    copy, whatever the threads' timing."""
    from asc import compiler
    from asc.backends.ascend import tiling
    a, b, bias = _mats(32, 48, 64, np.float16, 8)
    spec = _sim(bias_relu).specialization((a, b, bias), {})[0]
    src = compiler.render(spec.ir, "ascend")
    assert src.text.count("SyncAll<false>();") == 1
    broken = src.text.replace("SyncAll<false>();", "")
    lib, _, _ = ascend_sim.build(broken, src.name, src.entry_params)
    block_dim, values = tiling(src, {})
    words = np.array([values[f] for f, _ in src.tiling_fields], np.uint32)
    bufs = []
    for x in (a, b, bias):
        d = ascend_sim.device_empty(x.nbytes)
        d[:] = x.view(np.uint8).reshape(-1)
        bufs.append(d)
    bufs.append(ascend_sim.device_empty(32 * 64 * 2))          # ret
    bufs.append(ascend_sim.device_empty(32 * 64 * 2))          # the workspace
    with pytest.raises(AscendSimError, match="in the same phase"):
        ascend_sim.launch(lib, [x.ctypes.data for x in bufs], words, block_dim, src, "bias_relu")
    good, _, _ = ascend_sim.build(src.text, src.name, src.entry_params)
    ascend_sim.launch(good, [x.ctypes.data for x in bufs], words, block_dim, src, "bias_relu")
    close(bufs[3].view(np.float16).reshape(32, 64), interpreted(bias_relu)(a, b, bias), np.float16, ulps=2)
