"""Differential fuzz test of reductions: random accumulator loops, compiled (cpu target) vs interpreted vs a NumPy model.

The element-wise fuzzer (test_fuzz.py) draws expressions; this one puts them in the loops that make a reduction:

    @lang.kernel(dynamic_shape=True)                       @lang.kernel
    def fz(x: F[N], y: F[N], k: I[N], m: I[N]):            def fz(x: F[R, C], y: F[R, C], k: I[R, C], m: I[R, C]):
        o0 = lang.empty((1,), dtype=...)                       o0 = lang.empty((R,), dtype=...)
        a0 = <init>                                            for r in range(R):
        for i in range(N):                                         a0 = <init>
            a0 += <term>                                           for c in range(C):
            a1 = max(a1, <term>)                                       a0 *= <term>
        o0[0] = a0                                                 o0[r] = a0
        return o0, ...                                         return o0, ...

An accumulator is a sum (`a += t`), a product (`a *= t`) or a running max/min in every spelling a user writes
(`max(a, t)`, `max(t, a)`, `lang.maximum(a, t)`, `t if t > a else a`, and the min forms). Its initial value is a weak
Python literal or a typed one (`lang.int8(-128)`); its type is the one NumPy 2 gives the loop (NEP 50: a weak
initial value takes the type of the first term it meets). Terms are the element-wise fuzzer's expressions over
int8..int64, uint8, float16, bfloat16, float32 and float64 values, casts, ternaries, min/max and math.

What is compared, and how exactly:
- integer sums and products: bit for bit (wrapping arithmetic is associative, so every order gives the same bits);
- float sums of integer-valued terms (`lang.floor` of a term clamped to [-100, 100]): bit for bit, since every
  partial sum is exact in any order; this catches a missed, repeated or misplaced element at any size;
- other float sums and products (terms clamped to [-1e4, 1e4], to [-1, 1] for 16-bit accumulators, products to
  [0.999, 1.001]): within (2n + 8) eps of the sum of the terms' magnitudes (the bound of two summation orders),
  NaN exactly where the model has NaN;
- max/min: bit for bit (within a few ulp of the chosen term where it holds a math function), except that 0.0 and -0.0 are one value (a vectorized max does not keep Python's rule that
  the first of two equal values wins). NaN follows the kernel language's rule (docs/tensors.md): `max(a, t)`,
  `max(t, a)` and `lang.maximum` of floats are numpy.maximum, NaN once any term is; the ternary `t if t > a else a`
  is Python's, which skips a NaN term (numpy.fmax). Half of the max/min terms keep their NaNs (the inputs hold NaN
  and infinities at every size from 33 on), half are `t if t == t else 0.0`, so that the non-NaN values are compared
  at every size too.

Sizes: 0, 1, 7, 33, 1000, 4099 and 32771 (primes past the 4096-element partials of a parallel reduction and past
2**15) for 1-D loops; rows of 0..1000 columns for 2-D ones. ASC_FUZZ_SEEDS / ASC_FUZZ_EXAMPLES / ASC_FUZZ_LOG work
as in test_fuzz.py (ASC_FUZZ_REDUCE_EXAMPLES overrides the kernels per seed here):

    ASC_FUZZ_SEEDS=1000-1599 ASC_FUZZ_REDUCE_EXAMPLES=10 ASC_FUZZ_LOG=/tmp/fuzz.log nice python -m pytest \\
        tests/test_fuzz_reduce.py
"""
from __future__ import annotations

import os
import random
from typing import NamedTuple

import numpy as np
import pytest

import asc.language as lang
from test_fuzz import (COMPUTE, EPS, INTS, LANG, STORE, STORE_EPS, STORE_TINY, WF, WI, Gen, Node, Ty, _as_f64,
                       _fmt, _seeds, binary, compare, conv, exact_mismatch, float_input, fmath, int_input, lit,
                       load, load_module, np_minmax, promote, select)

# ---------------------------------------------------------------------------------------------------- types

RANK = {"b": 0, "i": 1, "f": 2}


def unify(old: Ty, new: Ty) -> Ty | None:
    """The type a variable keeps when assigned both (asc's rule, as NumPy's types evolve in the loop): a weak value
    adopts a strong type of equal or higher kind; two strong types must be equal."""
    if old == new:
        return old
    if old.weak and not new.weak and RANK[old.kind] <= RANK[new.kind]:
        return new
    if new.weak and not old.weak and RANK[new.kind] <= RANK[old.kind]:
        return old
    if old.weak and new.weak:
        return old if RANK[old.kind] >= RANK[new.kind] else new
    return None


def acc_type(init: Ty, term: Ty, kind: str) -> Ty | None:
    """The fixpoint type of an accumulator: `a = init; a = op(a, term)` until it settles, or None (refused)."""
    t = init
    for _ in range(4):
        r = promote(t, term)
        if kind in ("max", "min") and t.weak and not term.weak and term.kind == "i" and t.kind == "f":
            r = Ty("f64")                                   # max(-1e30, int32) compares in float64
        u = unify(t, r)
        if u is None:
            return None
        if u == t:
            return t
        t = u
    return None


def natural_store(t: Ty) -> str:
    return t.name if t.kind != "b" else "i64"


# ---------------------------------------------------------------------------------------------------- accumulators

class Acc(NamedTuple):
    kind: str          # sum prod max min
    form: str          # how the update is spelled
    init_src: str
    init_val: float
    term: Node
    ty: Ty             # the accumulator's type
    check: str         # "exact" or "tol"

    def update(self, name: str) -> str:
        t = self.term.src
        return {"sum": f"{name} += {t}", "prod": f"{name} *= {t}",
                "max(a, t)": f"{name} = max({name}, {t})", "max(t, a)": f"{name} = max({t}, {name})",
                "min(a, t)": f"{name} = min({name}, {t})", "min(t, a)": f"{name} = min({t}, {name})",
                "maximum": f"{name} = lang.maximum({name}, {t})", "minimum": f"{name} = lang.minimum({name}, {t})",
                "t > a": f"{name} = {t} if {t} > {name} else {name}",
                "t < a": f"{name} = {t} if {t} < {name} else {name}"}[self.form if self.kind in ("max", "min")
                                                                        else self.kind]


def clamp(g: Gen, t: Node, lo, hi) -> Node:
    a, b = g.fit(t, lit(lo))
    t = np_minmax("maximum", a, b)
    a, b = g.fit(t, lit(hi))
    return np_minmax("minimum", a, b)


def no_nan(t: Node) -> Node:
    """`t if t == t else 0.0` (0 for an integer term: it has no NaN)."""
    if t.ty.kind != "f":
        return t
    guarded = select(compare("==", t, t), t, lit(0.0))
    guarded.nan_guard = True
    return guarded


def typed_init(ty: Ty, v) -> tuple:
    """`lang.<dtype>(v)` for a strong accumulator type, the literal for a weak one."""
    text = repr(v) if not (isinstance(v, (int, float)) and v < 0) else f"({v!r})"
    if ty.weak:
        return text, v
    return f"lang.{LANG[ty.name]}({v!r})", v


class RGen(Gen):
    """Gen with the loads of one loop's element (`x[i]` or `x[r, c]`) and its index (`i` or `c`)."""

    def __init__(self, rnd, variant, xdt, ydt, kdt, mdt, index: str, elem: str, max_index: int):
        super().__init__(rnd, variant, xdt, ydt, kdt, mdt)
        self.elem = elem
        self.index = Node(index, WI, lambda env: env["i"], bound=max_index, nonneg=True)

    def leaf(self) -> Node:
        if self.variant == "float":
            kind = self.pick(["x", "y", "flit", "i", "ilit", "k"], [8, 6, 4, 2, 2, 1])
        else:
            kind = self.pick(["k", "m", "ilit", "i", "x"], [8, 6, 4, 3, 1])
        names = {"x": self.xdt, "y": self.ydt, "k": self.kdt, "m": self.mdt}
        if kind in names:
            n = load(kind, Ty(names[kind]))
            n.src = f"{kind}[{self.elem}]"
            return n
        if kind == "i":
            return self.index
        if kind == "flit":
            return lit(self.pick([0.0, -0.0, 0.5, -2.5, 3.0, 0.1, 100.0, -1.0]))
        return lit(self.pick([0, 1, -1, 2, 3, -7, 10, 1000]))

    def term(self) -> Node:
        if self.variant == "float" and self.chance(30):
            return self.trans()
        return self.exact(3)

    def accumulator(self) -> Acc | None:
        kind = self.pick(["sum", "prod", "max", "min"], [4, 2, 3, 2])
        t = self.term()
        if t.ty.kind == "b":
            return None
        if kind == "prod" and t.ty.weak:
            return None                    # a Python int product grows without bound (compiled: int64)
        if kind == "sum" and t.ty.weak and t.ty.kind == "i" and t.bound > 2 ** 40:
            return None
        if kind in ("max", "min"):
            if self.chance(50):
                t = no_nan(t)
            form = self.pick([f"{kind}(a, t)", f"{kind}(t, a)", "maximum" if kind == "max" else "minimum",
                              "t > a" if kind == "max" else "t < a"])
            weak_init = self.pick([True, False], [3, 1])
            if t.ty.kind == "f" or self.chance(30):
                v = self.pick([-1e30, 1e30, 0.0, -5.5]) if kind == "max" else self.pick([1e30, -1e30, 0.0, 5.5])
            else:
                info = np.iinfo(STORE[t.ty.name]) if not t.ty.weak else np.iinfo(np.int32)
                v = self.pick([int(info.min) if kind == "max" else int(info.max), 0, 3])
            init = WF if isinstance(v, float) else WI
            ty = acc_type(init, t.ty, kind)
            if ty is None:
                return None
            if not weak_init and not ty.weak:
                src, val = typed_init(ty, v)
            else:
                src, val = typed_init(init, v)
            return Acc(kind, form, src, val, t, ty, "tol" if t.trans else "exact")
        if kind == "sum":
            init = self.pick([0, 0.0, 3, -1.5]) if t.ty.kind == "f" else self.pick([0, 0, 5, 0.0])
        else:
            init = self.pick([1, 1.0, 2]) if t.ty.kind == "f" else self.pick([1, 1, 3])
        init_ty = WF if isinstance(init, float) else WI
        ty = acc_type(init_ty, t.ty, kind)
        if ty is None:
            return None
        check = "exact"
        if ty.kind == "f":
            if kind == "sum" and not t.trans and self.chance(50):
                t = fmath("floor", clamp(self, t, -100.0, 100.0))       # integer-valued: exact in any order
            elif kind == "sum":
                bound = 1.0 if ty.name in ("f16", "bf16") else 1e4
                t = clamp(self, t, -bound, bound)
                check = "tol"
            else:
                t = clamp(self, t, 0.999, 1.001)
                check = "tol"
            ty = acc_type(init_ty, t.ty, kind)
            if ty is None or ty.kind != "f":
                return None
        src, val = typed_init(init_ty, init)
        if self.chance(25) and not ty.weak:
            src, val = typed_init(ty, init)
        return Acc(kind, "", src, val, t, ty, check)


# ---------------------------------------------------------------------------------------------------- the model

def model(acc: Acc, env: dict, shape: tuple) -> np.ndarray:
    """The accumulator's value per row (shape[:-1]; () for a 1-D loop), in its compute dtype."""
    cdt = COMPUTE[acc.ty.name]
    with np.errstate(all="ignore"):
        terms = conv(acc.term.ev(env), acc.ty).reshape(shape)
        init = np.full(shape[:-1], acc.init_val).astype(STORE[acc.ty.name]).astype(cdt) \
            if not acc.ty.weak else np.full(shape[:-1], acc.init_val, cdt)
        if acc.kind == "sum":
            if cdt.kind == "f":
                return (init.astype(np.float64) + terms.astype(np.float64).sum(axis=-1)).astype(cdt)
            return (init + np.add.reduce(terms, axis=-1, dtype=cdt)).astype(cdt)
        if acc.kind == "prod":
            if cdt.kind == "f":
                return (init.astype(np.float64) * terms.astype(np.float64).prod(axis=-1)).astype(cdt)
            return (init * np.multiply.reduce(terms, axis=-1, dtype=cdt)).astype(cdt)
        if acc.form in ("t > a", "t < a"):          # Python's ternary: a NaN term is skipped
            fn = np.fmax if acc.kind == "max" else np.fmin
        else:                                       # max/min of floats in a kernel: numpy.maximum / minimum
            fn = np.maximum if acc.kind == "max" else np.minimum
        return fn(init, fn.reduce(terms, axis=-1, initial=np.array(init.flat[0] if init.size else 0, cdt)))
        # (every row's init is the same value)


def magnitude(acc: Acc, env: dict, shape: tuple) -> np.ndarray:
    """The scale of the accumulator's rounding error: the sum of the terms' magnitudes for a sum, the largest error
    scale of one term (a math function's value) for a max/min of terms with math functions."""
    with np.errstate(all="ignore"):
        if acc.kind in ("max", "min"):
            sc = acc.term.scale(env) if acc.term.scale is not None else np.abs(_as_f64(acc.term.ev(env)))
            sc = np.where(np.isfinite(sc), sc, 0.0).reshape(shape)
            return (sc.max(axis=-1) if shape[-1] else np.zeros(shape[:-1]))
        t = np.abs(_as_f64(conv(acc.term.ev(env), acc.ty))).reshape(shape)
        return np.where(np.isfinite(t), t, 0.0).sum(axis=-1) + abs(acc.init_val)


def mismatch(acc: Acc, a: np.ndarray, b: np.ndarray, scale: np.ndarray, n: int, odt: str) -> np.ndarray:
    if acc.check == "exact":
        bad = exact_mismatch(a, b)
        if acc.kind in ("max", "min") and a.dtype.kind not in "iub":
            bad &= ~((_as_f64(a) == 0) & (_as_f64(b) == 0))          # 0.0 and -0.0 are one value here
        return bad
    fa, fb = _as_f64(a), _as_f64(b)
    eps = max([EPS.get(COMPUTE[acc.ty.name], 2.0 ** -23)] + [EPS[COMPUTE[t.name]] for _, t in acc.term.trans])
    nans = np.isnan(fa) | np.isnan(fb)
    with np.errstate(all="ignore"):
        if acc.kind == "prod":
            scale = np.abs(fb)
        terms = 8 if acc.kind in ("max", "min") else 2 * n + 8     # a max/min carries one term's error
        tol = terms * eps * scale + STORE_EPS[odt] * np.maximum(np.abs(fa), np.abs(fb)) + STORE_TINY[odt]
        ok = np.where(nans, np.isnan(fa) & np.isnan(fb), (fa == fb) | (np.abs(fa - fb) <= tol))
    return ~ok


# ---------------------------------------------------------------------------------------------------- kernels

SIZES_1D = [0, 1, 7, 33, 1000, 4099]
BIG = 32771
SHAPES_2D = [(0, 5), (1, 1), (3, 7), (4, 33), (2, 1000), (33, 130), (5, 0)]


class Case(NamedTuple):
    fuzz_seed: int
    index: int
    xdt: str
    ydt: str
    kdt: str
    mdt: str
    two_d: bool
    accs: list
    dynamic: bool
    shapes: list          # 1-D: (n,), 2-D: (R, C)
    seed: int


def kernel_source(case: Case) -> str:
    dims = "R, C" if case.two_d else "N"
    deco = "@lang.kernel(dynamic_shape=True)" if case.dynamic else "@lang.kernel"
    lines = ["from __future__ import annotations", "", "import asc.language as lang", "", "", deco,
             f"def fz(x: lang.{LANG[case.xdt]}[{dims}], y: lang.{LANG[case.ydt]}[{dims}], "
             f"k: lang.{LANG[case.kdt]}[{dims}], m: lang.{LANG[case.mdt]}[{dims}]):"]
    for j, a in enumerate(case.accs):
        lines.append(f"    o{j} = lang.empty(({'R' if case.two_d else 1},), dtype=lang.{LANG[natural_store(a.ty)]})")
    if case.two_d:
        lines.append("    for r in range(R):")
        lines += [f"        a{j} = {a.init_src}" for j, a in enumerate(case.accs)]
        lines.append("        for c in range(C):")
        lines += [f"            {a.update(f'a{j}')}" for j, a in enumerate(case.accs)]
        lines += [f"        o{j}[r] = a{j}" for j in range(len(case.accs))]
    else:
        lines += [f"    a{j} = {a.init_src}" for j, a in enumerate(case.accs)]
        lines.append("    for i in range(N):")
        lines += [f"        {a.update(f'a{j}')}" for j, a in enumerate(case.accs)]
        lines += [f"    o{j}[0] = a{j}" for j in range(len(case.accs))]
    lines.append("    return " + ", ".join(f"o{j}" for j in range(len(case.accs))) +
                 ("," if len(case.accs) == 1 else ""))
    return "\n".join(lines) + "\n"


def make_case(fuzz_seed: int, index: int) -> Case:
    rnd = random.Random(f"asc-fuzz-reduce:{fuzz_seed}:{index}")
    variant = rnd.choice(["float", "int"])
    fl = ["f32", "f64", "f16", "bf16"]
    xdt = rnd.choice(fl)
    ydt = xdt if rnd.random() < 0.5 else rnd.choice(fl)
    kdt = rnd.choices(INTS, [2, 1, 3, 2, 2])[0]
    mdt = kdt if rnd.random() < 0.5 else rnd.choice(INTS)
    two_d = rnd.random() < 0.4
    dynamic = rnd.random() < 0.6
    if two_d:
        shapes = SHAPES_2D if dynamic else [rnd.choice(SHAPES_2D)]
        max_index = max(c for _, c in shapes)
    else:
        sizes = SIZES_1D + ([BIG] if rnd.random() < 0.35 else [])
        shapes = [(n,) for n in sizes] if dynamic else [(rnd.choice(sizes + [BIG]),)]
        max_index = max(s[0] for s in shapes)
    g = RGen(rnd, variant, xdt, ydt, kdt, mdt, "c" if two_d else "i", "r, c" if two_d else "i", max(max_index, 1))
    accs = []
    for _ in range(60):
        if len(accs) >= rnd.randint(2, 5):
            break
        a = g.accumulator()
        if a is not None:
            accs.append(a)
    return Case(fuzz_seed, index, xdt, ydt, kdt, mdt, two_d, accs, dynamic, shapes, rnd.randrange(2 ** 32))


# ---------------------------------------------------------------------------------------------------- the checks

stats = {"kernels": 0, "programs": 0}


def env_of(x, y, k, m, shape) -> dict:
    f32 = {STORE["f16"], STORE["bf16"]}
    flat = [a.reshape(-1) for a in (x, y, k, m)]
    fx, fy, fk, fm = [a.astype(np.float32) if a.dtype in f32 else a for a in flat]
    idx = np.tile(np.arange(shape[-1], dtype=np.int64), int(np.prod(shape[:-1], dtype=np.int64)))
    return {"x": fx, "y": fy, "k": fk, "m": fm, "i": idx, "n": fx.size}


def run_case(case: Case, failures: list):
    source = kernel_source(case)
    mod = load_module(source)
    compiled = mod.fz
    interp = lang.kernel(target="interpret")(compiled.pyfunc)
    stats["kernels"] += 1
    stats["programs"] += len(case.accs)
    rng = np.random.default_rng(case.seed)
    failed = set()
    for shape in case.shapes:
        n = int(np.prod(shape))
        x, y = (float_input(rng, n, case.xdt).reshape(shape), float_input(rng, n, case.ydt).reshape(shape))
        k, m = int_input(rng, n, case.kdt).reshape(shape), int_input(rng, n, case.mdt).reshape(shape)
        inputs = (x, y, k, m)
        snapshot = [a.copy() for a in inputs]
        got_c, got_i = compiled(*inputs), interp(*inputs)
        for a, s in zip(inputs, snapshot):
            assert np.array_equal(a.view(np.uint8), s.view(np.uint8)), "a kernel modified its input"
        env = env_of(x, y, k, m, shape)
        rows = shape[:-1] if case.two_d else ()
        for j, acc in enumerate(case.accs):
            if j in failed:
                continue
            odt = natural_store(acc.ty)
            c, it = np.asarray(got_c[j]), np.asarray(got_i[j])
            assert c.dtype == STORE[odt] and it.dtype == STORE[odt], (c.dtype, it.dtype, odt)
            want = model(acc, env, shape if case.two_d else (shape[0],)).astype(STORE[odt]).reshape(-1)
            scale = np.atleast_1d(magnitude(acc, env, shape if case.two_d else (shape[0],)))
            got = {"compiled": c, "interpreted": it, "numpy_model": want}
            for lhs, rhs in (("compiled", "interpreted"), ("interpreted", "numpy_model")):
                bad = mismatch(acc, got[lhs], got[rhs], scale, shape[-1], odt)
                if bad.any():
                    failed.add(j)
                    where = np.flatnonzero(bad)[:4]
                    failures.append(
                        f"seed {case.fuzz_seed} program {case.index} accumulator a{j} ({acc.kind}, {acc.check}, "
                        f"type {acc.ty!r}): {lhs} vs {rhs} differ, shape {shape}, rows {where.tolist()}: " +
                        "  ".join(f"{name}={[_fmt(v[w]) for w in where]}" for name, v in got.items()) +
                        f"\n{source}input seed={case.seed}")
                    break


SEEDS = _seeds(os.environ.get("ASC_FUZZ_SEEDS", "0,1,2,3"))
EXAMPLES = int(os.environ.get("ASC_FUZZ_REDUCE_EXAMPLES", os.environ.get("ASC_FUZZ_EXAMPLES", 6)))


@pytest.mark.parametrize("fuzz_seed", SEEDS)
def test_fuzz_reductions_compiled_vs_interpreter(fuzz_seed):
    failures: list = []
    before = dict(stats)
    for index in range(EXAMPLES):
        case = make_case(fuzz_seed, index)
        try:
            run_case(case, failures)
        except Exception as e:      # a compile error or a crash of one program: report it, run the others
            failures.append(f"seed {fuzz_seed} program {index}: {type(e).__name__}: {e}\n{kernel_source(case)}"
                            f"shapes={case.shapes} input seed={case.seed}")
    log = os.environ.get("ASC_FUZZ_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"reduce seed {fuzz_seed}: kernels {stats['kernels'] - before['kernels']} programs "
                    f"{stats['programs'] - before['programs']} failures {len(failures)}\n")
            for r in failures:
                f.write(r + "\n\n")
    assert not failures, f"{len(failures)} failing program(s):\n\n" + "\n\n".join(failures)


def test_generator_draws_every_kind():
    """The CI budget's programs cover every accumulator kind and spelling, 1-D and 2-D, exact and within tolerance,
    and the sizes past the parallel partials."""
    cases = [make_case(s, i) for s in SEEDS for i in range(EXAMPLES)]
    accs = [a for c in cases for a in c.accs]
    assert {a.kind for a in accs} == {"sum", "prod", "max", "min"}
    assert {a.check for a in accs} == {"exact", "tol"}
    assert {c.two_d for c in cases} == {False, True}
    assert {a.ty.kind for a in accs} >= {"i", "f"}
    assert any(max(s[-1] for s in c.shapes) > 4096 for c in cases)
    float_minmax = [a for a in accs if a.kind in ("max", "min") and a.term.ty.kind == "f"]
    assert {getattr(a.term, "nan_guard", False) for a in float_minmax} == {False, True}   # NaN terms, and none
    assert {a.form in ("t > a", "t < a") for a in float_minmax} == {False, True}
