"""The declaration of a builtin and the registry of all of them.

One `Builtin` carries everything every layer needs to know about one kernel-language function: its name and kind
(which tells the frontend how to lower a call), the interpreter implementation (calling a builtin outside the
compiler runs it on NumPy values), the type rule, the code each target writes for it (`Cpu`, `Ascend`), its
derivative, the Python functions it stands for, and its docs. A composite (gelu, ...) instead carries
`expand`: its definition as an expression of other builtins, which the interpreter runs and the IR lowering can
build. asc/builtins/queries.py derives the tables other layers read from these declarations.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from . import clipping

BUILTINS: dict = {}


# forms of an Ascend C API
BASIC = "basic"         # a basic vector instruction: Api(dst, src, count)
ADVANCED = "advanced"   # an advanced math API: Api(dst, src, sharedTmpBuffer, count), needs the tmp buffer
BINARY = "binary"       # a two-operand vector instruction Api(dst, a, b, count), with a tensor-scalar form
ASCEND_FORMS = (BASIC, ADVANCED, BINARY)


@dataclass(frozen=True)
class Cpu:
    """The C expression templates of the cpu target (functions of asc/include/asc_math.h and asc_cpu.h).

    `template`: the form for float operands; `{s}` is the suffix of the computing type (f32, f64), `{}` the
    operands. `int_template`: the form for integer operands (no suffix), or None (then `template` is used).
    `scaled`: f(x * c) computed as one call with x * c never rounded, for measured constants c: (suffix,
    template of (x, the factor), divisors c of x / c, factors c of x * c), or None."""
    template: str
    int_template: str | None = None
    scaled: tuple | None = None

    def functions(self) -> set:
        """The C function names the templates call (for the suffixes f32 and f64)."""
        texts = [self.template.replace("{s}", s) for s in ("f32", "f64")]
        texts += [t for t in (self.int_template, self.scaled and self.scaled[1]) if t]
        return {t.split("(", 1)[0] for t in texts}


@dataclass(frozen=True)
class Ascend:
    """The Ascend C API a builtin lowers to in vector code.

    `form`: BASIC, ADVANCED (needs the shared tmp buffer) or BINARY. `tensor_scalar`: a BINARY API's form with one
    scalar operand (Maxs for Max). `cost`: an ADVANCED API's cost in basic instructions per repeat (the cost
    model, asc/backends/ascend/cost_model.py); a basic one costs 1."""
    api: str
    form: str
    tensor_scalar: str | None = None
    cost: int | None = None

    def apis(self) -> tuple:
        return (self.api,) + ((self.tensor_scalar,) if self.tensor_scalar else ())


@dataclass(eq=False)
class Builtin:
    """A kernel-language builtin. Calling it from Python runs the interpreter implementation.

    `derivative(A, e, D)`: d e / d leaf for a call `e` of this builtin (an ir.Call), built with the autodiff's
    algebra A (A.const(value, like), A.add, A.sub, A.mul, A.div, A.neg, A.call(name, *args), A.is_zero,
    A.refuse(message, loc)) and D (the derivative of a subexpression). None: not differentiable.
    `expand(ops, x, ...)`: a composite's definition over `ops` (asc/builtins/composites.py). `exact`: its value of
    operands of one float type is a value of that type (abs, maximum, floor, ...), so precision="mixed" does not
    round it again (asc/passes/mixed_precision.py)."""
    name: str
    kind: str
    impl: object
    type_rule: object = None
    arity: int | None = None
    cpu: Cpu | None = None
    ascend: Ascend | None = None
    derivative: object = None
    python: tuple = ()
    expand: object = None
    doc: str | None = None
    uses: tuple = field(default=())       # a composite: the builtins its expansion calls
    exact: bool = False

    def __post_init__(self):
        self.__doc__ = self.doc if self.doc is not None else self.impl.__doc__
        self.__name__ = self.name
        self.__wrapped__ = self.impl

    def __call__(self, *args, **kwargs):
        if self.kind in clipping.KINDS and clipping.any_clipped(args):
            return clipping.call(self, args, kwargs)       # an edge tile (asc/builtins/clipping.py)
        return self.impl(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<asc builtin {self.name}>"


def register(b: Builtin) -> Builtin:
    if b.name in BUILTINS:
        raise ValueError(f"the builtin {b.name!r} is declared twice")
    BUILTINS[b.name] = b
    return b


def builtin(kind: str, type_rule=None, arity=None, name=None, **fields):
    """Declares the decorated function as the interpreter implementation of a builtin; `fields` are the other
    fields of its declaration (cpu=, ascend=, derivative=, python=)."""
    def deco(fn):
        return register(Builtin(name or fn.__name__.rstrip("_"), kind, fn, type_rule, arity, **fields))
    return deco


# ------------------------------------------------------------------ type rules

def float_rule(t: ir.ScalarType) -> ir.ScalarType:
    """The result is a float: ints become the default float (float math of an int)."""
    return ir.to_float(t)


def same_rule(t: ir.ScalarType) -> ir.ScalarType:
    """The result has the operand's type."""
    return t


def promote_rule(a: ir.ScalarType, b: ir.ScalarType) -> ir.ScalarType:
    """The result has the operands' promoted type."""
    return ir.promote(a, b)
