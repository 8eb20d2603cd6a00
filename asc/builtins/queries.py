"""The tables other layers read, derived from the declarations (each replaces a table a consumer kept by hand):

    math_names()            the elementwise math builtins, in declaration order (MATH_NAMES)
    python_aliases()        Python function -> builtin name: math.exp -> "exp" (frontend's PYMATH)
    cpu_templates()         name -> C template by suffix {s} (cstyle's math_fn)
    cpu_int_templates()     name -> C template for integer operands (cstyle's int_math_fn)
    cpu_scaled_templates()  (name, suffix) -> (template, divisors, factors): the measured scaled forms
    scaled_name(name)       the IR name of a scaled form ("erf" -> "erf_scaled")
    cpu_fused_templates()   IR name -> C template of the cpu target's fused products (GELU's: gelu_product pass)
    ascend_ops(form)        name -> Ascend C API of that form: BASIC, ADVANCED (needs a tmp buffer),
                            BINARY (maximum/minimum: Max/Min)
    ascend_tensor_scalar_ops()  name -> the tensor-scalar API of a BINARY op (Maxs/Mins)
    ascend_declarations()   name -> (arity, Ascend): what the ascend backend's op table (ascend/ops.py) is made of
    derivative(name)        the derivative rule of a builtin, or None (autodiff/expr.py applies it)
    composites()            name -> the composite builtins (gelu, silu, relu, softmax)
"""
from __future__ import annotations

from . import composites as _declared_composites, math_functions as _declared_math  # noqa: F401 (all declared)
from . import predicates as _declared_predicates  # noqa: F401
from .table import ADVANCED, BASIC, BINARY, BUILTINS


def _math():
    return [b for b in BUILTINS.values() if b.kind == "math"]


def math_names() -> tuple:
    return tuple(b.name for b in _math())


def python_aliases() -> dict:
    return {f: b.name for b in BUILTINS.values() for f in b.python}


def cpu_templates() -> dict:
    return {b.name: b.cpu.template for b in _math() if b.cpu}


def cpu_int_templates() -> dict:
    return {b.name: b.cpu.int_template for b in _math() if b.cpu and b.cpu.int_template}


def scaled_name(name: str) -> str:
    """The name of the scaled form f_scaled(x, s) = f(x * s) of builtin `name` in the IR (asc/passes/scaled_math)."""
    return f"{name}_scaled"


def cpu_scaled_templates() -> dict:
    return {(b.name, b.cpu.scaled[0]): b.cpu.scaled[1:] for b in _math() if b.cpu and b.cpu.scaled}


def cpu_fused_templates() -> dict:
    name, template = _declared_math.GELU_PRODUCT_CPU
    return {name: template}


def ascend_ops(form: str) -> dict:
    if form not in (BASIC, ADVANCED, BINARY):
        raise ValueError(f"no Ascend form {form!r}")
    return {b.name: b.ascend.api for b in _math() if b.ascend and b.ascend.form == form}


def ascend_tensor_scalar_ops() -> dict:
    return {b.name: b.ascend.tensor_scalar for b in _math() if b.ascend and b.ascend.tensor_scalar}


def ascend_declarations() -> dict:
    return {b.name: (b.arity, b.ascend) for b in _math() if b.ascend}


def derivative(name: str):
    b = BUILTINS.get(name)
    return b.derivative if b is not None else None


def composites() -> dict:
    return {b.name: b for b in BUILTINS.values() if b.expand is not None}
