"""precision="mixed" kernels through the CANN twin (shared/cann_twin: the Ascend C asc emits, compiled against
Huawei's asc-devkit API and run with the twin's intrinsic model): float16 arithmetic on half operands
(asc/backends/ascend/half_ops.py: Mul / Add / Adds / Div / Sub of LocalTensor<half>), bfloat16 through its Cast
round trips, and the user's §8.3 example, each output bit-equal to the interpreter's. Skipped where
ASC_CANN_TWIN is not set (a development-time check)."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.examples import seed
from asc.dtypes import bfloat16_np

from test_cann_twin_bits import needs_twin, on_twin

N = lang.dim("N")


def fma_like(x, y):
    return x * y + x - y / (x + 2.0)


def seed_mixed(x: lang.float32[N]) -> lang.float32[N]:
    tmp = lang.cast(x, lang.float16)
    result = tmp * tmp + 1.0 - tmp / 3.0
    return lang.cast(result, lang.float32)


def _args(dt, n=4096 + 44):
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal(n) * 4).astype(dt), (rng.standard_normal(n) * 4).astype(dt)
    x[:3] = [300.0, 6e-8, -0.0] if dt == np.float16 else [3e38, 1e-39, -0.0]
    return x, y


CASES = {
    "mixed_f16": (lang.kernel(precision="mixed")(fma_like), _args(np.float16)),
    "mixed_bf16": (lang.kernel(precision="mixed")(fma_like), _args(bfloat16_np())),
    # the one kernel of the twin corpus, the seed's kernels and the goldens whose Ascend C half_ops changed in
    # float32 mode: the seed's add of 2-D float16 (its row store's round trip is now Add on half operands)
    "add_rows_f16": (seed.add, tuple(a.reshape(44, 94) for a in _args(np.float16, 44 * 94))),
    "seed_mixed": (lang.kernel(precision="mixed")(seed_mixed),
                   # (|x| < 250: no float16 overflow; the kernel runs as scalar code, and the twin's scalar
                   # float -> half conversion saturates at 65504 where the vector Cast and ascend-sim give inf)
                   ((np.random.default_rng(8).standard_normal(4096 + 44) * 30).astype(np.float32),)),
}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32}[a.itemsize])


@needs_twin
@pytest.mark.parametrize("name", sorted(CASES))
def test_mixed_precision_on_the_twin_equals_the_interpreter(name, tmp_path):
    kernel, args = CASES[name]
    worst, worst_sim = on_twin(name, kernel, args, tmp_path)
    ref = np.asarray(lang.kernel(target="interpret", precision=kernel.options.precision)(kernel.pyfunc)(*args))
    out = next((tmp_path / name).glob("*.out"))                  # the one output, by its name in the kernel
    got = np.fromfile(out, ref.dtype)[:ref.size].reshape(ref.shape)
    nan = np.isnan(ref.astype(np.float32)) & np.isnan(got.astype(np.float32))
    np.testing.assert_array_equal(_bits(got)[~nan], _bits(ref)[~nan], err_msg=name)
    assert worst == 0 and worst_sim == 0, (worst, worst_sim)      # run()'s own comparisons, in the same precision
