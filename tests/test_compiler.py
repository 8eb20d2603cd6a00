"""asc.compiler: the target table, the stages in order, every stage printable, and the callers going through it."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import asc.language as lang
from asc import compiler, ir
from asc.math import erf, sqrt


@lang.kernel
def gelu(x: lang.float32[N]) -> lang.float32[N]:  # noqa: F821
    out = lang.empty_like(x)
    for i in range(N):  # noqa: F821
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


@lang.kernel
def row_sum(x: lang.float32[R, C]) -> lang.float32[R]:  # noqa: F821
    out = lang.empty((R,), dtype=lang.float32)  # noqa: F821
    for r in range(R):  # noqa: F821
        acc = 0.0
        for c in range(C):  # noqa: F821
            acc += x[r, c]
        out[r] = acc
    return out


X = np.linspace(-3, 3, 1000, dtype=np.float32)


@pytest.mark.parametrize("target", sorted(compiler.TARGETS))
def test_stages_start_with_the_frontend_and_end_with_the_source(target):
    names = compiler.stages(target)
    assert names[0] == compiler.FRONTEND and names[-1] == compiler.SOURCE
    assert len(set(names)) == len(names)
    t = compiler.TARGETS[target]
    assert names[1:-1] == ("mixed_precision", "fusion", "tensor_lower") + tuple(n for n, _ in t.passes) + tuple(n for n, _ in t.plans)


@pytest.mark.parametrize("target", ["cpu", "ascend"])
def test_every_stage_prints(target):
    names = compiler.stages(target)
    texts = [gelu.source(target, X, stage=s) for s in names]
    # source("ir") is the element-level IR every target takes: the stage after the tensor passes
    assert texts[names.index("tensor_lower")] == gelu.source("ir", X)
    assert texts[-1] == gelu.source(target, X)               # the last stage is the source
    for t in texts:
        assert t.strip()
    assert "def gelu" in texts[0] or "gelu" in texts[0]


def test_lower_runs_the_passes_in_order():
    spec, _, _ = row_sum.specialization((np.ones((512, 128), np.float32),), {})   # IR only: not compiled
    k = spec.ir
    step = k
    for name, fn in compiler.TARGETS["cpu"].passes:
        step = fn(step, spec.options.as_dict())
        assert ir.format_kernel(compiler.lower(k, "cpu", spec.options, until=name)) == ir.format_kernel(step)
    assert ir.format_kernel(compiler.lower(k, "cpu", spec.options)) == ir.format_kernel(step)
    # classification is visible from its stage on, not before
    assert "[parallel" not in compiler.show(spec.tensor_ir, "cpu", spec.options, compiler.FRONTEND)
    assert "[parallel" in compiler.show(spec.tensor_ir, "cpu", spec.options, "classify")


@lang.kernel
def tensor_level(a: lang.float32[M, K], b: lang.float32[K, N], bias: lang.float32[N]) -> lang.float32[M, N]:  # noqa: F821
    return lang.relu(a @ b + bias)


def test_tensor_statements_are_visible_until_tensor_lower():
    a, b, bias = np.ones((8, 4), np.float32), np.ones((4, 6), np.float32), np.ones(6, np.float32)
    front = tensor_level.source("cpu", a, b, bias, stage="frontend")
    lowered = tensor_level.source("cpu", a, b, bias, stage="tensor_lower")
    assert "tensor _t_tmp#1 = (a @ b)" in front and "for a_" not in front and " in range(" not in front
    assert "tensor " not in lowered and " in range(" in lowered


def test_the_ascend_plan_is_a_stage():
    text = gelu.source("ascend", X, stage="ascend_plan")
    assert text.startswith("ascend plan: map kernel gelu"), text
    assert "= Erf(" in text and gelu.source("ascend", X).count("Erf(") >= 1


def test_unknown_stage_and_target_are_clear_errors():
    with pytest.raises(ValueError, match="no stage 'nope' for target 'cpu'; stages: frontend"):
        gelu.source("cpu", X, stage="nope")
    with pytest.raises(ValueError, match="unknown target 'gpu'"):
        compiler.target("gpu")


def test_compiled_result_is_the_interpreters():
    ref = lang.kernel(target="interpret")(gelu.pyfunc)(X)
    np.testing.assert_allclose(gelu(X), ref, rtol=3e-7, atol=1e-7)


def test_cli_prints_a_stage(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("from __future__ import annotations\nimport asc.language as lang\n\n@lang.kernel\ndef neg(x: lang.float32[N]) -> lang.float32[N]:\n"
                   "    out = lang.empty_like(x)\n    for i in range(N):\n        out[i] = -x[i]\n    return out\n")
    r = subprocess.run([sys.executable, "-m", "asc", "compile", f"{src}::neg", "--shape", "N=64", "--stage",
                        "classify"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "for i in range(0:int, 64:int, 1:int) [simd]:  # line 7" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-m", "asc", "compile", f"{src}::neg", "--shape", "N=64", "--stage",
                        "nope"], capture_output=True, text=True)
    assert r.returncode != 0 and "no stage 'nope'" in r.stderr
