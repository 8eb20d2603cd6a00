"""ascend-sim adds a ReduceSum and a SoftMax row sum in the order Huawei's A2 implementation does (asc-devkit):

- ReduceSum, count form (dav_c220 ReduceSumImpl: one counter-mode vcadd into the accumulator; ReduceSum.md's key
  features, the first way for the count interface on Atlas A2): each 256-byte repeat a binary tree of adjacent pairs
  (ReduceDataBlock.md), the repeats' sums added in order;
- SoftMax (NewReduceSumLastNDImpl on 64-float repeats): 64 lane partials (a tree of 8 for the first 512 elements when
  the row has at least 512, else the first repeats added lane by lane), the further repeats in order, the tail into
  the first lanes, then a tree over the 64 lanes; a row shorter than 64 is one tree.

Each result is compared bit for bit with a NumPy model of that order, on inputs where the index-order sum differs."""
import numpy as np
import pytest

from asc.runtime import ascend_sim
from test_ascend_sim_checks import GM, PROLOGUE


def _tree(v: np.ndarray, width: int) -> np.float32:
    """v (float32, len <= width, width a power of two) as a binary tree of adjacent pairs; lanes past len(v) are
    inactive (a pair with one active lane passes it on)."""
    v = list(np.asarray(v, np.float32))
    while width > 1:
        v = [np.float32(v[i] + v[i + 1]) if i + 1 < len(v) else v[i] for i in range(0, len(v), 2)]
        width //= 2
    return v[0]


def _in_order(v: np.ndarray) -> np.float32:
    acc = np.float32(0)
    for x in np.asarray(v, np.float32):
        acc = np.float32(acc + x)
    return acc


def reduce_sum_model(x: np.ndarray) -> np.float32:
    per = 64
    acc = None
    for r in range(0, len(x), per):
        part = _tree(x[r:r + per], per)
        acc = part if acc is None else np.float32(acc + part)
    return acc


def softmax_row_sum_model(e: np.ndarray) -> np.float32:
    k = len(e)
    if k < 64:
        return _tree(e, 64)
    reps, tail = divmod(k, 64)
    if k >= 512:
        t = np.array([_tree(e[8 * l:8 * l + 8], 8) for l in range(64)], np.float32)
        first = 8
    elif k >= 128:
        t = (e[:64] + e[64:128]).astype(np.float32)
        first = 2
    else:
        t = e[:64].copy()
        first = 1
    for r in range(first, reps):
        t = (t + e[64 * r:64 * r + 64]).astype(np.float32)
    t[:tail] = (t[:tail] + e[64 * reps:]).astype(np.float32)
    return _tree(t, 64)


def _run(body: str, name: str, x: np.ndarray, ny: int) -> np.ndarray:
    text = PROLOGUE + f'extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)\n{{\n' \
        + body + "\n}\n"
    lib, _, _ = ascend_sim.build(text, name, GM)
    x = np.ascontiguousarray(x, np.float32)
    y = np.zeros(ny, np.float32)
    ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), 1, None, name)
    return y


def _reduce_sum_kernel(n: int) -> str:
    pad = (n + 7) // 8 * 8
    return f"""
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> wBuf;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, {pad});
  yGm.SetGlobalBuffer((__gm__ float*)y, 8);
  pipe.InitBuffer(inQ, 1, {pad} * sizeof(float));
  pipe.InitBuffer(outQ, 1, 8 * sizeof(float));
  pipe.InitBuffer(wBuf, 1024 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, {pad});
  inQ.EnQue(a);
  LocalTensor<float> s = inQ.DeQue<float>();
  LocalTensor<float> w = wBuf.Get<float>();
  LocalTensor<float> d = outQ.AllocTensor<float>();
  Duplicate(d, 0.0f, 8);
  ReduceSum(d, s, w, {n});
  outQ.EnQue(d);
  inQ.FreeTensor(s);
  LocalTensor<float> o = outQ.DeQue<float>();
  DataCopy(yGm, o, 8);
  outQ.FreeTensor(o);"""


@pytest.mark.parametrize("n", [5, 37, 64, 200, 1000, 4096])
def test_reduce_sum_adds_a_tree_per_repeat_and_the_repeats_in_order(n):
    rng = np.random.default_rng(n)
    # magnitudes spread over six decades: the order shows in the bits
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(np.float32)
    xp = np.zeros((n + 7) // 8 * 8, np.float32)
    xp[:n] = x
    got = _run(_reduce_sum_kernel(n), f"rsum_{n}", xp, 8)[0]
    want = reduce_sum_model(x)
    assert got.tobytes() == want.tobytes(), (got, want, _in_order(x))
    # 1 and then halves of its ulp: in index order each one rounds away, in the tree they add up first
    xp[:] = 0.0
    xp[0], xp[1:n] = 1.0, np.float32(2.0 ** -24)
    got = _run(_reduce_sum_kernel(n), f"rsum_{n}", xp, 8)[0]
    want = reduce_sum_model(xp[:n])
    assert got.tobytes() == want.tobytes(), (got, want)
    assert n < 5 or want > _in_order(xp[:n]) == 1.0


def _softmax_kernel(m: int, k: int) -> str:
    n = m * k
    return f"""
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  TBuf<TPosition::VECCALC> eBuf, sBuf, mBuf;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, {n});
  yGm.SetGlobalBuffer((__gm__ float*)y, {2 * n + 8 * m});
  pipe.InitBuffer(inQ, 1, {n} * sizeof(float));
  pipe.InitBuffer(outQ, 1, {n} * sizeof(float));
  pipe.InitBuffer(eBuf, {n} * sizeof(float));
  pipe.InitBuffer(sBuf, {8 * m} * sizeof(float));
  pipe.InitBuffer(mBuf, {8 * m} * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, {n});
  inQ.EnQue(a);
  LocalTensor<float> s = inQ.DeQue<float>();
  LocalTensor<float> e = eBuf.Get<float>();
  LocalTensor<float> sums = sBuf.Get<float>();
  LocalTensor<float> maxes = mBuf.Get<float>();
  LocalTensor<float> d = outQ.AllocTensor<float>();
  Exp(e, s, {n});                       // every row's maximum is 0: these are SoftMax's exponentials
  SoftMaxTiling smTiling;
  SoftMaxShapeInfo si{{{m}, {k}, {m}, {k}}};
  SoftMax<float>(d, sums, maxes, s, smTiling, si);
  outQ.EnQue(d);
  LocalTensor<float> o = outQ.DeQue<float>();
  DataCopy(yGm, o, {n});
  DataCopy(yGm[{n}], e, {n});
  DataCopy(yGm[{2 * n}], sums, {8 * m});
  outQ.FreeTensor(o);
  inQ.FreeTensor(s);"""


# one length per branch of Huawei's order: < 64, [64, 128), [128, 512), >= 512 (with and without a tail, and with
# further repeats after the first 512)
@pytest.mark.parametrize("m,k", [(3, 40), (2, 120), (2, 392), (2, 512), (3, 1032), (1, 1024)])
def test_softmax_row_sum_is_huaweis_order(m, k):
    rng = np.random.default_rng(k)
    x = rng.uniform(-9.0, 0.0, (m, k)).astype(np.float32)
    x[:, 3] = 0.0                         # max 0: x - max is x, exactly
    y = _run(_softmax_kernel(m, k), f"smax_{m}_{k}", x.ravel(), 2 * m * k + 8 * m)
    dst, e, sums = y[:m * k].reshape(m, k), y[m * k:2 * m * k].reshape(m, k), y[2 * m * k:].reshape(m, 8)
    np.testing.assert_allclose(e, np.exp(x.astype(np.float64)), rtol=1e-6)
    differs = 0
    for r in range(m):
        want = softmax_row_sum_model(e[r])
        assert sums[r].tobytes() == np.full(8, want, np.float32).tobytes(), (r, sums[r], want)
        assert dst[r].tobytes() == (e[r] / want).astype(np.float32).tobytes()
        differs += want != _in_order(e[r])
    if k >= 120:
        assert differs                    # the input tells the orders apart
