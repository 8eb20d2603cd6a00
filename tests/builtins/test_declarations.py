"""Every builtin's declaration is complete for every target that claims it, and the tables derived from the
declarations (asc/builtins/queries.py) agree with the tables the consumers still keep by hand (these comparisons
go once the consumers read the accessors)."""
from __future__ import annotations

import builtins
import importlib.util
import math
import pathlib
import re

import ml_dtypes
import numpy as np
import pytest

import asc.builtins as B
import asc.language as lang
from asc import ir
from asc.autodiff import expr as ad
from asc.backends.ascend import emitted_api as ascend_api

INCLUDE = pathlib.Path(B.__file__).resolve().parents[1] / "include"
MATH = [b for b in B.BUILTINS.values() if b.kind == "math"]
KINDS = {"math", "alloc", "cast", "range", "reduce", "matmul", "activation", "softmax", "transpose", "buffer", "tile",
         "predicate", "select"}
NOT_DIFFERENTIABLE = {"floor", "ceil", "round"}          # piecewise constant: autodiff refuses them


def _c_functions() -> set:
    """The functions asc/include/asc_math.h and asc_cpu.h define (what generated cpu code can call)."""
    text = (INCLUDE / "asc_math.h").read_text() + (INCLUDE / "asc_cpu.h").read_text()
    return set(re.findall(r"(?:ASCM_INLINE|static\s+inline)\s+[\w\s\*]+?\b(asc_\w+)\s*\(", text))


C_FUNCTIONS = _c_functions()


# ------------------------------------------------------------------ completeness

@pytest.mark.parametrize("b", B.BUILTINS.values(), ids=lambda b: b.name)
def test_every_builtin_has_an_implementation_and_docs(b):
    assert b.kind in KINDS
    assert callable(b.impl) and b.__doc__ and len(b.__doc__) > 10
    assert getattr(lang, b.name) is b


@pytest.mark.parametrize("b", MATH, ids=lambda b: b.name)
def test_math_builtins_are_complete(b):
    assert b.arity in (1, 2)
    t = b.type_rule(*[ir.ScalarType(ir.float32)] * b.arity)
    assert isinstance(t, ir.ScalarType) and t.dtype == ir.float32
    assert b.cpu is not None
    assert b.cpu.template.count("{}") == b.arity and "{s}" in b.cpu.template
    if b.cpu.int_template:
        assert b.cpu.int_template.count("{}") == b.arity
    if b.cpu.scaled:
        suffix, tmpl, divisors, factors = b.cpu.scaled
        assert suffix in ("f32", "f64") and tmpl.count("{}") == 2 and divisors and factors
    missing = b.cpu.functions() - C_FUNCTIONS
    assert not missing, f"{b.name}: no {sorted(missing)} in asc/include/asc_math.h or asc_cpu.h"
    for f in b.python:
        assert getattr(math, f.__name__, None) is f or getattr(builtins, f.__name__) is f
    if b.name not in NOT_DIFFERENTIABLE:
        assert callable(b.derivative), f"{b.name} is float math without a derivative"


@pytest.mark.parametrize("b", [b for b in MATH if b.ascend], ids=lambda b: b.name)
def test_ascend_apis_are_ones_asc_may_emit(b):
    a = b.ascend
    assert a.form in B.table.ASCEND_FORMS
    for api in a.apis():
        assert api in ascend_api.API, f"{b.name}: {api} is not in asc/backends/ascend/emitted_api.py"
    want = {B.BASIC: 3, B.ADVANCED: 4, B.BINARY: 4}[a.form]
    assert all(ascend_api.ARITY[api] == want for api in a.apis())
    assert (a.cost is not None) == (a.form == B.ADVANCED)
    assert (a.tensor_scalar is not None) == (a.form == B.BINARY) == (b.arity == 2)


# ------------------------------------------------------------------ derivatives: checked against finite differences

_X = ir.Var("x", ir.ScalarType(ir.float64))


def _eval(e, x):
    return eval(ad.py(e), {"lang": lang, "x": x})


@pytest.mark.parametrize("b", [b for b in MATH if b.derivative], ids=lambda b: b.name)
@pytest.mark.parametrize("x", [0.3, 1.7, -0.8])
def test_derivatives_match_finite_differences(b, x):
    if b.name in ("log", "sqrt", "rsqrt"):
        x = abs(x)
    args = (_X,) if b.arity == 1 else (_X, ir.Const(3.0, ir.ScalarType(ir.float64)))
    call = ir.Call(b.name, args, _X.type)
    d = ad.derivative(call, ad.leaf_key(_X), {})
    h = 1e-6
    f = (lambda v: b(v)) if b.arity == 1 else (lambda v: b(v, 3.0))
    assert _eval(d, x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-5, abs=1e-6)


def test_a_varying_exponent_is_refused():
    call = ir.Call("pow", (_X, _X), _X.type)
    with pytest.raises(ad.AutodiffError, match="varying exponent"):
        ad.derivative(call, ad.leaf_key(_X), {})


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE))
def test_piecewise_constant_math_is_refused(name):
    call = ir.Call(name, (_X,), _X.type)
    with pytest.raises(ad.AutodiffError, match="has no derivative"):
        ad.derivative(call, ad.leaf_key(_X), {})


# ------------------------------------------------------------------ composites: one definition

def test_composites_use_declared_builtins():
    comps = B.composites()
    assert set(comps) == {"gelu", "silu", "relu", "softmax", "isnan", "isinf", "isfinite"}
    for b in comps.values():
        assert b.uses or b.kind == "predicate"          # the predicates are comparisons only
        assert all(B.BUILTINS[u].kind in ("math", "reduce") for u in b.uses)


def _16(dt):
    return dt in (np.float16, ml_dtypes.bfloat16)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_interpreted_composites_are_the_formulas(dt):
    """Bit for bit what the interpreter computed before the declarations: the formula on float32 (16-bit tensors)
    or the dtype, rounded once to the dtype."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(64) * 4, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dt)
    xk = x.view(B.KernelArray)
    w = x.astype(np.float32) if _16(dt) else x
    with np.errstate(all="ignore"):
        want = {"gelu": 0.5 * w * (1.0 + B.erf(w * 0.7071067811865476)), "silu": w * B.sigmoid(w),
                "relu": np.maximum(w, 0)}
        for name, ref in want.items():
            got = B.BUILTINS[name](xk)
            ref = np.asarray(ref).astype(dt)
            assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes(), name
        for v in (0.5, x[0], np.float32(x[1])):
            assert np.asarray(B.gelu(v)).tobytes() == np.asarray(0.5 * v * (1.0 + B.erf(v * 0.7071067811865476))
                                                                 ).tobytes()
    a = rng.standard_normal((3, 5)).astype(dt)
    for axis in (-1, 0):
        m = np.asarray(B.max_(a, axis=axis, keepdims=True)).astype(a.dtype)
        e = np.asarray(B.exp(a - m)).astype(a.dtype)
        s = np.asarray(B.sum_(e, axis=axis, keepdims=True)).astype(a.dtype)
        got = B.softmax(a.view(B.KernelArray), axis)
        assert isinstance(got, B.KernelArray) and got.tobytes() == (e / s).astype(a.dtype).tobytes()


_KERNELS = '''
import asc.language as lang
N = lang.dim("N")


@lang.kernel
def scalar_builtin(x: lang.{dt}[N]) -> lang.{dt}[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = lang.{name}(x[i])
    return out


@lang.kernel
def scalar_expansion(x: lang.{dt}[N]) -> lang.{dt}[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = {scalar}
    return out


@lang.kernel
def tensor_builtin(x: lang.{dt}[N]) -> lang.{dt}[N]:
    return lang.{name}(x)


@lang.kernel
def tensor_expansion(x: lang.{dt}[N]) -> lang.{dt}[N]:
    return {tensor}
'''


def _body(ir_text: str) -> list:
    return [re.sub(r"\s+# line \d+$", "", line) for line in ir_text.splitlines()[1:]]


@pytest.mark.parametrize("dt", ["float32", "float16"])
@pytest.mark.parametrize("name", ["gelu", "silu", "relu"])
def test_frontend_ir_of_composites_is_the_expansion(tmp_path, name, dt):
    """The IR the frontend builds for lang.gelu(...) is the IR of the declared expansion written out."""
    b = B.BUILTINS[name]
    src = _KERNELS.format(name=name, dt=dt, scalar=b.expand(B.SourceOps(), "x[i]"),
                          tensor=b.expand(B.SourceOps(), "x"))
    path = tmp_path / f"composite_{name}_{dt}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.zeros(8, dt)
    assert _body(mod.scalar_builtin.source("ir", x)) == _body(mod.scalar_expansion.source("ir", x))
    assert _body(mod.tensor_builtin.source("ir", x)) == _body(mod.tensor_expansion.source("ir", x))


# ------------------------------------------------------------------ the consumers read the declarations

def test_math_names():
    assert B.MATH_NAMES == B.math_names() == ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "sin", "cos",
                                              "floor", "ceil", "abs", "maximum", "minimum", "pow",
                                                  "round")


def test_python_aliases_are_pymath():
    from asc.frontend.calls import PYMATH
    assert B.python_aliases() == PYMATH


def test_cpu_renderer_reads_the_declarations():
    from asc.backends.cstyle import CStyleRenderer as R
    from asc.passes import scaled_math
    assert {k: v for k, v in R.math_fn.items() if k in B.math_names()} == B.cpu_templates()
    assert B.cpu_int_templates() == R.int_math_fn
    for (name, _), (template, divisors, factors) in B.cpu_scaled_templates().items():
        assert R.math_fn[B.scaled_name(name)] == template
        assert scaled_math.SCALED[name] == B.scaled_name(name)
    assert scaled_math.MEASURED_CPU == {k: v[1:] for k, v in B.cpu_scaled_templates().items()}
    # GELU's fused product (asc/passes/gelu_product.py): its template from the declaration, costly like erf
    assert {k: R.math_fn[k] for k in B.cpu_fused_templates()} == B.cpu_fused_templates() == {
        "gelu_erf_scaled": "asc_gelu_erf_scaled_f32({}, {})"}
    assert "asc_gelu_erf_scaled_f32" in C_FUNCTIONS


def test_ascend_op_table_is_made_of_the_declarations():
    from asc.backends.ascend.ops import OPS
    assert set(OPS) == set(B.ascend_declarations())
    for name, (arity, a) in B.ascend_declarations().items():
        op = OPS[name]
        assert (op["api"], op["args"], op["scalar_api"]) == (a.api, arity, a.tensor_scalar)
        assert op["tmp"] == (a.form == B.ADVANCED) and op["cost"] == (a.cost or 1)
    assert B.ascend_ops(B.BINARY) == {"maximum": "Max", "minimum": "Min"}
    assert B.ascend_tensor_scalar_ops() == {"maximum": "Maxs", "minimum": "Mins"}


def test_derivative_accessor():
    assert B.derivative("exp") is B.exp.derivative and B.derivative("floor") is None
    assert B.derivative("gelu") is None and B.derivative("no such builtin") is None
