"""The ascend target's plan kinds are one table (asc/backends/ascend/kinds.py): every plan class the planner makes
has its kind there with every part (tiling, render, cost, the cores it runs on), and the three uses (tiling,
rendering, the estimate) go through it: a kernel of each kind renders, tiles and is estimated as its kind."""
from __future__ import annotations

import ast
import pathlib
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends import ascend
from asc.backends.ascend import kinds, plans
from asc.backends.ascend.phases import PhasedPlan
from asc.backends.ascend.window_lowering import WindowPlan

ASCEND = pathlib.Path(ascend.__file__).parent


def test_every_plan_class_has_its_kind():
    classes = [plans.MapPlan, plans.RowPlan, plans.CubePlan, plans.ScalarPlan, WindowPlan, PhasedPlan]
    assert sorted(c.kind for c in classes) == sorted(kinds.KINDS)
    for name, k in kinds.KINDS.items():
        assert k.name == name and k.plan.kind == name
        assert callable(k.tiling) and callable(k.render) and callable(k.cost)
        assert k.unit in ("aiv", "aic")
    assert [n for n, k in kinds.KINDS.items() if k.unit == "aic"] == ["cube"]


def _a_plan(node) -> bool:
    """`p`, `q`, `plan` or `<x>.plan`: a plan (not an instruction operand, whose kinds include "row")."""
    return (isinstance(node, ast.Name) and node.id in ("p", "q", "plan")) or \
        (isinstance(node, ast.Attribute) and node.attr == "plan")


def test_no_other_module_dispatches_on_a_kind_name():
    """Only the kind modules and the table name kinds to pick a part: the planner (which decides the kind),
    the plans themselves and the phased plan's own walk over its phases aside."""
    allowed = {"kinds.py", "planner.py", "plans.py", "phases.py", "host_scalars.py"}
    names = set(kinds.KINDS)
    found = []
    for path in sorted(ASCEND.glob("*.py")):
        if path.name in allowed or path.name.startswith("kind_"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(isinstance(c, ast.Constant) and c.value in names
                                                      for c in node.comparators) and \
                    isinstance(node.left, ast.Attribute) and node.left.attr == "kind" and _a_plan(node.left.value):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Dict) and sum(isinstance(k, ast.Constant) and k.value in names
                                                  for k in node.keys) >= 3:
                found.append(f"{path.name}:{node.lineno} (a table of kinds)")
    assert found == []


def _map(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * 2.0 + 1.0
    return out


def _row(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for r in range(R):
        m = lang.max(x[r, :])
        out[r, :] = x[r, :] - m
    return out


def _cube(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    return a @ b


def _window(u: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(u)
    for i in range(1, N - 1):
        out[i] = u[i - 1] + u[i + 1] - 2.0 * u[i]
    return out


def _scalar(x: lang.int32[N]) -> lang.int32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] // 3
    return out


CASES = {
    "map": (_map, lambda: (np.arange(1000, dtype=np.float32),)),
    "row": (_row, lambda: (np.ones((16, 96), np.float32),)),
    "cube": (_cube, lambda: (np.ones((64, 32), np.float16), np.ones((32, 48), np.float16))),
    "window": (_window, lambda: (np.ones(1000, np.float32),)),
    "scalar": (_scalar, lambda: (np.arange(100, dtype=np.int32),)),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_renders_tiles_and_estimates_as_itself(kind):
    fn, args = CASES[kind]
    k = lang.kernel(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec, _, symbols = k.specialization(args(), {}, "estimate")
        src = compiler.render(spec.ir, "ascend", warn=False)
        est = k.estimate("ascend", *args())
    assert src.plan.kind == kind and est.kind == kind and est.seconds > 0
    assert est == kinds.KINDS[kind].cost(src, symbols, _launch(src, symbols))     # the kind's own cost
    block_dim, values = kinds.tiling(src, symbols)
    assert block_dim == est.block_dim and block_dim >= 1 and values
    assert all(f in values for f, _ in src.tiling_fields)


def _launch(src, symbols):
    from asc.backends.ascend.cost_model import Launch
    info = ascend.soc_info(ascend.DEFAULT_SOC)
    block_dim, t = kinds.tiling(src, symbols)
    return Launch(ascend.DEFAULT_SOC, info, info["clock_ghz"] * 1e9, block_dim, t)
