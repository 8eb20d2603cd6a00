"""A batch of products on the cube path: [B, M, K] @ [B, K, N] -> [B, M, N] of float16 / bfloat16 matrices, the
tiles of every product of the batch block-cyclic over the cube cores (more tiles than cores, ragged last tiles in M
and N, a ragged last K step), equal to the interpreter (the specification) within the corpus's 2 ulps."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError
from asc.runtime import ascend_sim
from helpers import BF16, close, interpreted


@lang.kernel
def batched(a, b):
    return a @ b


@lang.kernel
def broadcast_batch(a, b):
    return a @ b


def _sim(kernel):
    return lang.kernel(target="ascend-sim")(kernel.pyfunc)


def _operands(bt, m, k, n, dtype, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((bt, m, k)) * 0.5).astype(dtype)
    b = (rng.standard_normal((bt, k, n)) * 0.5).astype(dtype)
    return a, b


# (batch, M, K, N): one product of one tile; 5 products of 2 x 2 tiles (128 + 16 rows, 128 + 32 columns) and a
# K of 64 + 16 (two K steps); 7 products of one small tile (7 tiles on 24 cores)
SHAPES = [(1, 16, 16, 16), (5, 144, 80, 160), (7, 32, 48, 16)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_batched_products_equal_the_interpreter(shape, dtype):
    a, b = _operands(*shape, dtype, sum(shape))
    got = _sim(batched)(a, b)
    want = interpreted(batched)(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape == (shape[0], shape[1], shape[3])
    close(got, want, want.dtype, ulps=2)


def test_batches_on_three_cores():
    """20 tiles on 3 cube cores: each core walks tiles of several products (the batch changes inside its loop)."""
    a, b = _operands(5, 144, 80, 160, np.float16, 3)
    with ascend_sim.configured(cores=3):
        got = _sim(batched)(a, b)
    close(got, interpreted(batched)(a, b), np.float16, ulps=2)


def test_the_plan_is_a_batched_cube_plan():
    a, b = _operands(3, 32, 16, 48, np.float16, 4)
    src = batched.source("ascend", a, b)
    assert "matrix product on the cube units" in src.split("\n", 2)[1]
    assert "SetBatch(tile / t_.batchTiles);" in src and "uint32_t batchTiles;" in src
    two_d = batched.source("ascend", a[0], b[0])       # a 2-D product keeps its tiling struct (no batch fields)
    assert "batchTiles" not in two_d and "SetBatch" not in two_d


def test_a_broadcast_batch_is_not_taken_by_the_cube_path():
    """[B, M, K] @ [K, N] (one B for the whole batch) is not a batch of whole 3-D tensors of one batch size."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    with pytest.raises(CompileError, match="batches of them over whole 3-D tensors of one batch size"):
        broadcast_batch.source("ascend", a, b)
