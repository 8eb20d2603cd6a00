"""Differential fuzz test of 16-bit bit patterns (issue 38): random kernels of copies, casts and arithmetic over
float16 and bfloat16 inputs full of NaN payloads (quiet and signalling, both signs), subnormals, -0.0, infinities
and the largest finite values; compiled (cpu, cpu with memory checks, ascend-sim) against the interpreter bit for
bit, NaNs included, and the interpreter against a NumPy model of the documented rule (docs/tensors.md, "NaN"):

- loads widen exactly (a NaN keeps its sign and payload); 16-bit values are carried in float32;
- a store into a float16 / bfloat16 tensor, and lang.cast to one, round to nearest even; a NaN keeps its sign and
  the top bits of its payload, not quieted (1 if none of them is set) - so copies keep the bits;
- -x, abs(x), a ternary and max / min (Python's and lang.maximum / minimum, numpy.maximum's meaning: a NaN operand
  as it is, the second operand on a tie) choose or change the sign bit only (on the ascend target -x is Muls(x, -1):
  there a NaN that went through -x is arithmetic's);
- arithmetic (+ - * /) is float32 arithmetic; where it gives a NaN, that it is NaN is compared, not its sign and
  payload, which IEEE 754 leaves open (and NumPy and C compilers do differently: see Val).

A kernel holds 1-4 programs (an output each; ascend-sim takes at most four outputs; ASC_FUZZ_BITS_PROGRAMS=8 for
more where it is not among the targets), each one of

    o[i] = <expr>                        element code: a random expression tree (depth <= 3)
    v = <expr>; ...; o[i] = <expr of v>  through a local variable
    o[:] = x  /  o[a:b] = x[c:d]         tensor copies and slice assignments
    o[:] = lang.cast(x, dt) / -x / x op y   a tensor cast, negation or one operation

over x (float16 or bfloat16), y (either), w (float32 with NaN payloads in every bit) and weak Python literals that
every format holds exactly (0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 3.0, inf, -inf, nan). Each kernel is written into a
module file in a temporary directory, imported, and run on every target.

Seeds: each seed of ASC_FUZZ_BITS_SEEDS ("0,1" by default; "100-599" for a range) runs ASC_FUZZ_BITS_EXAMPLES
kernels (2 by default), each drawn from random.Random("asc-fuzz-bits:<seed>:<index>"): reproducible (with the same
ASC_FUZZ_BITS_PROGRAMS). ASC_FUZZ_BITS_
TARGETS picks the compiled targets ("cpu,cpu-checked,ascend-sim" by default). Every failing program of a seed is
reported, and ASC_FUZZ_LOG=file appends a line per seed (kernels, programs, failures), for long runs outside CI:

    ASC_FUZZ_BITS_SEEDS=0-999 ASC_FUZZ_BITS_EXAMPLES=4 ASC_FUZZ_LOG=/tmp/fuzz.log nice python -m pytest tests/test_fuzz_bits.py
"""
from __future__ import annotations

import importlib.util
import os
import random
import sys
import tempfile
from typing import Callable, NamedTuple

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
STORE = {"f16": F16, "bf16": BF16, "f32": np.dtype(np.float32)}
LANG = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}
FORMAT = {"f16": (13, 0x7c00, 0x3ff), "bf16": (16, 0x7f80, 0x7f)}     # payload shift, exponent bits, payload mask
LITERALS = ["0.0", "-0.0", "0.5", "1.0", "-1.0", "2.0", "3.0", "float('inf')", "-float('inf')", "float('nan')"]


# ---------------------------------------------------------------------------------------------------- the rule

def widen(bits: np.ndarray, name: str) -> np.ndarray:
    """16-bit patterns as float32, exactly: a NaN keeps its sign and its payload (shifted up)."""
    shift, exp, mask = FORMAT[name]
    b = bits.astype(np.uint32)
    with np.errstate(invalid="ignore"):
        u = bits.view(STORE[name]).astype(np.float32).view(np.uint32).copy()
    nan = ((b & exp) == exp) & ((b & mask) != 0)
    u[nan] = ((b[nan] & 0x8000) << 16) | 0x7f800000 | ((b[nan] & mask) << shift)
    return u.view(np.float32)


def narrow(f: np.ndarray, name: str) -> np.ndarray:
    """float32 values as 16-bit patterns: to nearest even; a NaN: its sign, the top of its payload (1 if none)."""
    shift, exp, mask = FORMAT[name]
    f = np.asarray(f, np.float32)
    u = f.view(np.uint32)
    with np.errstate(invalid="ignore", over="ignore"):
        out = f.astype(STORE[name]).view(np.uint16).copy()
    nan = np.isnan(f)
    p = (u[nan] >> shift) & mask
    out[nan] = (((u[nan] >> 16) & 0x8000) | exp | p | (p == 0)).astype(np.uint16)
    return out


def rounded(f: np.ndarray, name: str) -> np.ndarray:
    """lang.cast(v, 16-bit): the value rounded to the format, carried in float32."""
    return widen(narrow(f, name), name) if name in FORMAT else f


# ---------------------------------------------------------------------------------------------------- expressions

class Ty(NamedTuple):
    name: str            # f16 bf16 f32
    weak: bool = False   # a Python float (NEP 50: takes the other operand's type)


WEAK = Ty("f32", True)


def promote(a: Ty, b: Ty) -> Ty:
    if a.weak and b.weak:
        return WEAK
    if a.weak or b.weak:
        return Ty((b if a.weak else a).name)
    if a.name == b.name:
        return a
    return Ty("f32")          # float16 with bfloat16, or either with float32


class Val(NamedTuple):
    """A model value: float32 values (16-bit ones carried in float32), and where only NaN-ness is determined: a NaN
    that arithmetic gave, or one chosen, negated or converted from such a NaN. IEEE 754 does not say which payload
    an operation of two NaNs passes on (NumPy's scalar `a + b` gives b's, its array loops and compiled code a's),
    nor the sign of a NaN result (C compilers compute `x * -1.0` as `-x`, `a + -b` as `a - b`, `x * 1.0` as `x`)."""
    v: np.ndarray
    loose: np.ndarray
    negated: np.ndarray      # a NaN that went through -x: on the ascend target, Muls(x, -1.0f), arithmetic


class Node:
    """An expression: its source, its type, and its model (env -> Val)."""

    def __init__(self, src: str, ty: Ty, ev: Callable[[dict], Val]):
        self.src, self.ty, self.ev = src, ty, ev


def f32(v) -> np.ndarray:
    return np.asarray(v, np.float32)


def exact(v) -> Val:
    v = f32(v)
    return Val(v, np.zeros(v.shape, bool), np.zeros(v.shape, bool))


def literal(text: str) -> Node:
    value = np.float32(eval(text))          # noqa: S307 - one of LITERALS
    return Node(text if not text.startswith("-") else f"({text})", WEAK, lambda env: exact(np.full(env["n"], value)))


def load(name: str, ty: Ty) -> Node:
    return Node(f"{name}[i]", ty, lambda env: exact(env[name]))


ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide}
CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
       "!=": np.not_equal}


def binary(op: str, a: Node, b: Node) -> Node:
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        with np.errstate(all="ignore"):
            r = f32(ARITH[op](x.v, y.v))
        return Val(r, np.isnan(r), np.isnan(r))     # a NaN from arithmetic: sign and payload not specified
    return Node(f"({a.src} {op} {b.src})", promote(a.ty, b.ty), ev)


def choose(first: np.ndarray, x: Val, y: Val) -> Val:
    return Val(f32(np.where(first, x.v, y.v)), np.where(first, x.loose, y.loose), np.where(first, x.negated, y.negated))


def minmax(fname: str, a: Node, b: Node) -> Node:
    """numpy.maximum / minimum with the bits: a if a is NaN, else b if b is NaN, else the larger / smaller (the
    second on a tie)."""
    bigger = fname in ("max", "lang.maximum")

    def ev(env):
        x, y = a.ev(env), b.ev(env)
        return choose(((x.v > y.v) if bigger else (x.v < y.v)) | np.isnan(x.v), x, y)
    return Node(f"{fname}({a.src}, {b.src})", promote(a.ty, b.ty), ev)


def unary(op: str, a: Node) -> Node:
    fn = np.negative if op == "-" else np.abs

    def ev(env):
        x = a.ev(env)
        r = f32(fn(x.v))
        return Val(r, x.loose, x.negated | (np.isnan(r) if op == "-" else False))
    return Node(f"(-{a.src})" if op == "-" else f"abs({a.src})", a.ty, ev)


def cast(a: Node, to: str, style: str) -> Node:
    src = f"lang.cast({a.src}, lang.{LANG[to]})" if style == "cast" else f"lang.{LANG[to]}({a.src})"

    def ev(env):
        x = a.ev(env)
        return Val(f32(rounded(x.v, to)), x.loose, x.negated)
    return Node(src, Ty(to), ev)


def select(cond: tuple, a: Node, b: Node) -> Node:
    op, l, r = cond
    c = f"{l.src} {op} {r.src}"
    return Node(f"({a.src} if {c} else {b.src})", promote(a.ty, b.ty),
                lambda env: choose(CMP[op](l.ev(env).v, r.ev(env).v), a.ev(env), b.ev(env)))


class Gen:
    def __init__(self, rnd: random.Random, xdt: str, ydt: str, local: list):
        self.rnd, self.xdt, self.ydt = rnd, xdt, ydt
        self.local = local           # [(name, Node)] of the local variables defined so far

    def pick(self, options, weights=None):
        return self.rnd.choices(options, weights)[0] if weights else self.rnd.choice(options)

    def leaf(self) -> Node:
        kinds = ["x", "y", "w", "lit"] + (["v"] if self.local else [])
        kind = self.pick(kinds, [8, 5, 2, 2] + ([4] if self.local else []))
        if kind == "x":
            return load("x", Ty(self.xdt))
        if kind == "y":
            return load("y", Ty(self.ydt))
        if kind == "w":
            return load("w", Ty("f32"))
        if kind == "v":
            name, node = self.pick(self.local)
            return Node(name, node.ty, node.ev)
        return literal(self.pick(LITERALS))

    def expr(self, depth: int) -> Node:
        if depth <= 0 or self.rnd.randrange(100) < 25:
            return self.leaf()
        d = depth - 1
        form = self.pick(["bin", "unary", "minmax", "select", "cast"], [6, 3, 3, 3, 4])
        if form == "bin":
            return binary(self.pick(list(ARITH)), self.expr(d), self.expr(d))
        if form == "unary":
            return unary(self.pick(["-", "abs"]), self.expr(d))
        if form == "minmax":
            return minmax(self.pick(["max", "min", "lang.maximum", "lang.minimum"]), self.expr(d), self.expr(d))
        if form == "select":
            if self.rnd.randrange(4) == 0:          # a NaN test
                v = self.expr(d)
                cond = ("!=", v, v)
            else:
                cond = (self.pick(list(CMP)), self.expr(d), self.expr(d))
            return select(cond, self.expr(d), self.expr(d))
        return cast(self.expr(d), self.pick(["f16", "bf16", "f32"], [2, 2, 1]), self.pick(["cast", "call"]))


# ---------------------------------------------------------------------------------------------------- programs

class Program(NamedTuple):
    out: str                  # the output's name
    dtype: str                # its dtype
    lines: list               # statements of the loop body (element programs) or of the kernel (tensor programs)
    tensor: bool
    ev: Callable              # env -> (the output's bits (uint16 or uint32), where only NaN-ness is determined)


def store_bits(value: Val, dtype: str) -> tuple:
    return (narrow(value.v, dtype) if dtype in FORMAT else f32(value.v).view(np.uint32)), value.loose, value.negated


def copied(b: np.ndarray, negated=None) -> tuple:
    none = np.zeros(b.shape, bool)
    return b, none, none if negated is None else negated


def element_program(rnd: random.Random, k: int, xdt: str, ydt: str) -> Program:
    out, dtype = f"o{k}", rnd.choice(["f16", "bf16", "f32", xdt])
    local: list = []
    lines = []
    g = Gen(rnd, xdt, ydt, local)
    for j in range(rnd.choice([0, 0, 1, 2])):
        node = g.expr(rnd.choice([0, 1, 2]))
        name = f"v{k}_{j}"
        lines.append(f"{name} = {node.src}")
        local.append((name, node))
    e = g.expr(3)
    lines.append(f"{out}[i] = {e.src}")
    return Program(out, dtype, lines, False, lambda env: store_bits(e.ev(env), dtype))


def tensor_program(rnd: random.Random, k: int, xdt: str, ydt: str, n: int) -> Program:
    out = f"o{k}"
    form = rnd.choice(["copy", "slices", "cast", "neg", "binary"])
    src = rnd.choice(["x", "y"])
    sdt = xdt if src == "x" else ydt
    if form == "copy":
        return Program(out, sdt, [f"{out} = lang.empty_like({src})", f"{out}[:] = {src}"], True,
                       lambda env: copied(env[src + "_bits"]))
    if form == "slices":
        h = n // 2
        lines = [f"{out} = lang.empty_like({src})", f"{out}[0:n // 2] = {src}[n - n // 2:n]",
                 f"{out}[n // 2:n] = {src}[0:n - n // 2]"]
        return Program(out, sdt, lines, True,
                       lambda env: copied(np.concatenate([env[src + "_bits"][n - h:], env[src + "_bits"][:n - h]])))
    if form == "cast":
        to = rnd.choice(["f16", "bf16", "f32"])
        return Program(out, to, [f"{out} = lang.cast({src}, lang.{LANG[to]})"], True,
                       lambda env: store_bits(exact(env[src]), to))
    if form == "neg":
        return Program(out, sdt, [f"{out} = -{src}"], True,
                       lambda env: copied(env[src + "_bits"] ^ np.uint16(0x8000), np.isnan(env[src])))
    op = rnd.choice(list(ARITH))
    dtype = xdt if xdt == ydt else "f32"

    return Program(out, dtype, [f"{out} = x {op} y"], True,
                   lambda env: store_bits(binary(op, load("x", Ty(xdt)), load("y", Ty(ydt))).ev(env), dtype))


def kernel_source(name: str, xdt: str, ydt: str, programs: list) -> str:
    lines = [f"def {name}(x: lang.{LANG[xdt]}[N], y: lang.{LANG[ydt]}[N], w: lang.float32[N]):", "    n = N"]
    for p in programs:
        if not p.tensor:
            lines.append(f"    {p.out} = lang.empty_like(x, lang.{LANG[p.dtype]})")
    if any(not p.tensor for p in programs):
        lines.append("    for i in range(n):")
        lines += [f"        {s}" for p in programs if not p.tensor for s in p.lines]
    lines += [f"    {s}" for p in programs if p.tensor for s in p.lines]
    lines.append(f"    return {', '.join(p.out for p in programs)}{',' if len(programs) == 1 else ''}")
    return "\n".join(lines) + "\n"


def draw(rnd: random.Random, name: str):
    xdt = rnd.choice(["f16", "bf16"])
    ydt = rnd.choice(["f16", "bf16", xdt])
    n = rnd.choice([1, 7, 33, 130, 300, 1000])
    programs = [tensor_program(rnd, k, xdt, ydt, n) if rnd.randrange(4) == 0 else
                element_program(rnd, k, xdt, ydt) for k in range(rnd.randint(1, PROGRAMS))]
    return xdt, ydt, n, programs, kernel_source(name, xdt, ydt, programs)


# ---------------------------------------------------------------------------------------------------- inputs

def patterns(rnd: np.random.Generator, name: str, n: int) -> np.ndarray:
    """n 16-bit patterns: NaNs (quiet, signalling, payloads, both signs), infinities, zeros, subnormals, the largest
    finite values, ones, and ordinary values."""
    shift, exp, mask = FORMAT[name]
    kind = rnd.integers(0, 8, n)
    sign = rnd.integers(0, 2, n).astype(np.uint16) << 15
    pay = rnd.integers(1, mask + 1, n).astype(np.uint16)
    quiet = (mask + 1) >> 1
    ordinary = (rnd.standard_normal(n) * 4).astype(STORE[name]).view(np.uint16)
    choices = [exp | pay, exp | (pay & (quiet - 1)) | 1, exp | quiet | (pay & (quiet - 1)), np.full(n, exp),
               np.zeros(n), pay, np.full(n, (exp - (mask + 1)) | mask), ordinary]
    return np.choose(kind, [np.asarray(c, np.uint16) for c in choices]).astype(np.uint16) | sign


def float32_patterns(rnd: np.random.Generator, n: int) -> np.ndarray:
    """float32 values: NaNs with payload bits anywhere (also only below what 16 bits keep), widened 16-bit values,
    ties, ordinary values."""
    kind = rnd.integers(0, 4, n)
    sign = rnd.integers(0, 2, n, dtype=np.uint32) << 31
    nans = 0x7f800000 | rnd.integers(1, 1 << 23, n, dtype=np.uint32)
    low = 0x7f800000 | rnd.integers(1, 1 << 13, n, dtype=np.uint32)
    ties = (rnd.standard_normal(n).astype(np.float32).view(np.uint32) & 0xffff0000) | 0x8000
    ordinary = (rnd.standard_normal(n) * 3).astype(np.float32).view(np.uint32)
    return (np.choose(kind, [nans, low, ties, ordinary]).astype(np.uint32) | sign).view(np.float32)


# ---------------------------------------------------------------------------------------------------- running

def _seeds(spec: str) -> list:
    out = []
    for part in spec.split(","):
        part = part.strip()
        if "-" in part[1:]:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


SEEDS = _seeds(os.environ.get("ASC_FUZZ_BITS_SEEDS", "0,1"))
EXAMPLES = int(os.environ.get("ASC_FUZZ_BITS_EXAMPLES", 2))
TARGETS = [t for t in os.environ.get("ASC_FUZZ_BITS_TARGETS", "cpu,cpu-checked,ascend-sim").split(",") if t]
# programs (outputs) a kernel holds at most: ascend-sim takes four outputs (more than 8 queue buffers otherwise)
PROGRAMS = min(int(os.environ.get("ASC_FUZZ_BITS_PROGRAMS", 4)), 4 if "ascend-sim" in TARGETS else 99)


def load_module(path: str, src: str):
    with open(path, "w") as f:
        f.write("import asc.language as lang\nN = lang.dim('N')\n\n" + src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def is_nan(b: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in FORMAT:
        _, exp, mask = FORMAT[dtype]
        return ((b & exp) == exp) & ((b & mask) != 0)
    return ((b & 0x7f800000) == 0x7f800000) & ((b & 0x7fffff) != 0)


def differ(got: np.ndarray, want: np.ndarray, loose: np.ndarray, dtype: str) -> np.ndarray:
    """Where got is not want: other bits, or where only NaN-ness is determined, not both NaN."""
    return np.where(loose, is_nan(got, dtype) != is_nan(want, dtype), got != want)


def describe(p: Program, env: dict, got: np.ndarray, want: np.ndarray, loose, where: str) -> str:
    bad = np.nonzero(differ(got, want, loose, p.dtype))[0]
    k = int(bad[0])
    return (f"{where}: {p.out} ({p.dtype}) differs at {bad.size} of {got.size} elements; element {k}: got "
            f"0x{int(got[k]):x}, want 0x{int(want[k]):x}; inputs x=0x{int(env['x_bits'][k]):04x} "
            f"y=0x{int(env['y_bits'][k]):04x} w=0x{int(env['w'].view(np.uint32)[k]):08x}\n    " +
            "\n    ".join(p.lines))


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


def run_seed(seed: int, tmp: str) -> tuple:
    failures, kernels, programs = [], 0, 0
    for index in range(EXAMPLES):
        rnd = random.Random(f"asc-fuzz-bits:{seed}:{index}")
        name = f"fzb_{seed}_{index}"
        xdt, ydt, n, progs, src = draw(rnd, name)
        gen = np.random.default_rng(rnd.randrange(1 << 30))
        xb, yb = patterns(gen, xdt, n), patterns(gen, ydt, n)
        w = float32_patterns(gen, n)
        env = {"n": n, "x": widen(xb, xdt), "y": widen(yb, ydt), "w": w, "x_bits": xb, "y_bits": yb}
        mod = load_module(os.path.join(tmp, name + ".py"), src)
        fn = getattr(mod, name)
        args = (xb.view(STORE[xdt]), yb.view(STORE[ydt]), w)
        kernels += 1
        programs += len(progs)
        try:
            ref = lang.kernel(target="interpret")(fn)(*args)
        except Exception as e:           # noqa: BLE001 - reported with the kernel
            failures.append(f"seed {seed} kernel {index}: the interpreter raised {type(e).__name__}: {e}\n{src}")
            continue
        for p, r in zip(progs, ref):
            want, loose, _ = p.ev(env)
            if differ(bits(r), want, loose, p.dtype).any():
                failures.append(describe(p, env, bits(r), want, loose, f"seed {seed} kernel {index} interpret vs "
                                                                       f"model"))
        for target in TARGETS:
            try:
                got = on_target(target, fn)(*args)
            except Exception as e:       # noqa: BLE001
                failures.append(f"seed {seed} kernel {index} {target} raised {type(e).__name__}: {e}\n{src}")
                continue
            for p, g, r in zip(progs, got, ref):
                _, loose, negated = p.ev(env)
                if target == "ascend-sim":
                    loose = loose | negated
                if differ(bits(g), bits(r), loose, p.dtype).any():
                    failures.append(describe(p, env, bits(g), bits(r), loose, f"seed {seed} kernel {index} {target} "
                                                                              f"vs interpret"))
    return kernels, programs, failures


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_bits(seed, tmp_path):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # ascend-sim's scalar-code fallbacks
        sys.path.insert(0, str(tmp_path))
        try:
            kernels, programs, failures = run_seed(seed, str(tmp_path))
        finally:
            sys.path.remove(str(tmp_path))
    log = os.environ.get("ASC_FUZZ_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"fuzz_bits seed {seed}: {kernels} kernels, {programs} programs, {len(failures)} failures\n")
            for x in failures:
                f.write(x + "\n")
    assert not failures, "\n\n".join(failures)


def test_the_rule_is_numpys_float16_rule():
    """The model's conversions are NumPy's float16 ones (its software conversion: no F16C in the wheels' baseline)
    and, for bfloat16, the same rule (ml_dtypes agrees on everything but NaN payloads, which it makes 0x7fc0)."""
    all16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    assert (widen(all16, "f16").view(np.uint32) == all16.view(F16).astype(np.float32).view(np.uint32)).all()
    assert (widen(all16, "bf16").view(np.uint32) == all16.view(BF16).astype(np.float32).view(np.uint32)).all()
    w = float32_patterns(np.random.default_rng(0), 1 << 16)
    with np.errstate(invalid="ignore", over="ignore"):
        assert (narrow(w, "f16") == w.astype(F16).view(np.uint16)).all()
        finite = ~np.isnan(w)
        assert (narrow(w, "bf16")[finite] == w[finite].astype(BF16).view(np.uint16)).all()
    assert (narrow(widen(all16, "bf16"), "bf16") == all16).all() and (narrow(widen(all16, "f16"), "f16") == all16).all()
