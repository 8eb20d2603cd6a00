"""Differential test: random element-wise kernels (expression DAGs of the operations the vector lowering knows),
emitted as Ascend C, run on ascend-sim and compared with the interpreter, in float32, float16 and bfloat16."""
import importlib.util
import random

import numpy as np
import pytest

import asc.language as lang
from asc.runtime import ascend_sim
from helpers import BF16, close, interpreted, rand

UNARY = ["lang.tanh({})", "lang.sigmoid({})", "lang.exp(lang.tanh({}))", "lang.abs({})", "lang.sqrt(1.0 + {0} * {0})",
         "lang.erf({})", "-{}"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{0} / (1.0 + {1} * {1})", "max({}, {})", "min({}, {})",
          "lang.maximum({}, {})"]


def make_kernel(seed: int) -> str:
    rng = random.Random(seed)
    names = ["x[i]", "y[i]", "a"]
    lines = []
    for k in range(rng.randint(2, 4)):
        if rng.random() < 0.4:
            expr = rng.choice(UNARY).format(rng.choice(names))
        else:
            expr = rng.choice(BINARY).format(rng.choice(names), rng.choice(names + ["0.5", "2.0"]))
        lines.append(f"        t{k} = {expr}")
        names.append(f"t{k}")
    last = names[-1]
    other = rng.choice(names[3:-1] or ["x[i]"])
    return "\n".join([
        "import asc.language as lang", "", "",
        "@lang.kernel",
        f"def fz{seed}(x, y, a: lang.float32):",
        "    out = lang.empty_like(x)",
        "    out2 = lang.empty_like(x)",
        "    for i in range(len(x)):",
        *lines,
        f"        out[i] = {last}",
        f"        out2[i] = {other} * a",
        "    return out, out2", ""])


@pytest.mark.parametrize("seed", range(12))
def test_random_map_kernels(seed, tmp_path):
    path = tmp_path / f"fz{seed}.py"
    path.write_text(make_kernel(seed))
    spec = importlib.util.spec_from_file_location(f"fz{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    k = getattr(mod, f"fz{seed}")
    sim = lang.kernel(target="ascend-sim")(k.pyfunc)
    dtype = [np.float32, np.float16, BF16][seed % 3]
    n = [1, 37, 1000, 1001, 4099, 300][seed % 6]
    x, y = rand(n, dtype, seed, 2.0), rand(n, dtype, seed + 100, 2.0)
    text = k.source("ascend", x, y, np.float32(0.75))
    assert "GetValue" not in text, "a map kernel must not fall back to scalar code"
    with ascend_sim.configured(cores=[None, 3][seed % 2], tile_cap=[None, 256][seed % 2]):
        out, out2 = sim(x, y, np.float32(0.75))
    ref, ref2 = interpreted(k)(x, y, np.float32(0.75))
    close(out, ref, dtype, ulps=4)
    close(out2, ref2, dtype, ulps=4)
