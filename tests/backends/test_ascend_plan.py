"""The ascend plan as a stage of its own: `ascend.plan(kernel)` is pure (no C++, no warning), one declared dataclass
per kind, printable; the op table is the one source of the math APIs (row kernels take every builtin the map path
takes)."""
import dataclasses
import importlib.util
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends import ascend
from asc.backends.ascend import emitted_api as api, ops
from asc.examples import seed as sk
from asc.examples import seed_tensor as skt
from asc.runtime import ascend_sim
from helpers import close, interpreted, rand


def _ir(kernel, *args):
    """The kernel's IR for these arguments, lowered as the ascend target renders it."""
    return compiler.lower(kernel.specialization(args, {})[0].ir, "ascend")


def test_each_kind_has_its_plan_and_prints():
    x, m = np.zeros(100, np.float32), np.zeros((4, 40), np.float32)
    A = np.zeros((32, 32), np.float16)
    cases = [(ascend.MapPlan, _ir(sk.saxpy, np.float32(2), x, x), "out.out = Add("),
             (ascend.RowPlan, _ir(sk.layernorm, m, m[0], m[0]), "= ReduceSum(x.in) mode add"),
             (ascend.CubePlan, _ir(skt.matmul_any, A, A), "M=32 N=32 K=32"),
             (ascend.ScalarPlan, _ir(sk.matmul, A, A), "reason: ")]
    for cls, k, needle in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # planning warns of nothing: render() does
            p = ascend.plan(k)
        assert type(p) is cls and p.kind == cls.kind
        text = str(p)
        assert text == ascend.format_plan(p) and text.startswith(f"ascend plan: {p.kind} kernel ")
        assert needle in text, text
        assert str(ascend.plan(k)) == text              # pure: the same plan again
        assert set(vars(p)) == {f.name for f in dataclasses.fields(p)}      # no field but the declared ones
        assert ascend.render(k, warn=False).plan.kind == p.kind


def test_one_op_table():
    """The op table is data: the same facts for every builtin, and only APIs of the API table."""
    for name, op in ops.OPS.items():
        assert set(op) == {"api", "args", "tmp", "scalar_api", "cmp", "cost"}, name
        assert op["api"] in api.API and (op["scalar_api"] is None or op["scalar_api"] in api.API), name


ROW_SOURCE = '''import asc.language as lang


@lang.kernel
def row_{fn}(x, w):
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        r = lang.{fn}(s / C + 1.5)
        for j in range(C):
            out[i, j] = x[i, j] * r + w[j]
    return out
'''


@pytest.mark.parametrize("fn", ["sin", "cos", "floor", "ceil"])
def test_row_kernels_take_every_math_builtin_of_the_op_table(fn, tmp_path):
    """Math on a per-row scalar reads the same table as the map path: sin, cos, floor and ceil (once missing from
    the row path's own table) run as ScalarMath on the vector unit, and agree with the interpreter on ascend-sim."""
    path = tmp_path / f"row_{fn}.py"
    path.write_text(ROW_SOURCE.format(fn=fn))
    spec = importlib.util.spec_from_file_location(f"row_{fn}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    k = getattr(mod, f"row_{fn}")
    x, w = rand((5, 37), np.float32, 1, 1.0), rand(37, np.float32, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a row kernel, not the scalar fallback
        text = k.source("ascend", x, w)
    assert f"{ops.OPS[fn]['api']}(red2, red, tmp, 8);" in text
    sim = lang.kernel(target="ascend-sim")(k.pyfunc)
    with ascend_sim.configured(cores=2):
        close(sim(x, w), interpreted(k)(x, w), np.float32, ulps=4)
