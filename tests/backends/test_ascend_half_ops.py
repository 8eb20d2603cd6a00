"""asc/backends/ascend/half_ops.py: a float16 operation rounded to float16 runs as the vector instruction on half
operands (no Cast to float32 and back), with the interpreter's bits on ascend-sim; bfloat16 (no vector arithmetic on
the A2 AI core) keeps its round trips; the cost model counts the float16 instructions at 128 elements a repeat."""
from __future__ import annotations

import re

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.half_ops import half_ops
from asc.backends.ascend.plans import Instr, V
from asc.dtypes import bfloat16_np


def fma_like(x, y):
    return x * y + x - y / (x + 2.0)


def with_param(x, y, s: float):
    return x * s + y            # Muls by a run-time scalar: in float32 (its float16 value is not a literal)


def _vector_calls(src: str) -> list:
    return [line.strip() for line in src.splitlines()
            if re.match(r"\s*(Add|Sub|Mul|Div|Muls|Adds|Cast)\(", line)]


def test_mixed_float16_runs_in_half():
    x = np.ones(4096, np.float16)
    mixed = _vector_calls(lang.kernel(precision="mixed")(fma_like).source("ascend", x, x))
    assert any(re.fullmatch(r"Mul\(buf\d\.ReinterpretCast<half>\(\), xIn, yIn, n\);", c) for c in mixed), mixed
    half_ops_ = [c for c in mixed if ".ReinterpretCast<half>()" in c and not c.startswith("Cast(")]
    assert len(half_ops_) == 5, mixed                  # x * y, + x, x + 2.0 (Adds by a half literal), /, -
    assert "Adds(buf1.ReinterpretCast<half>(), xIn, (half)(2.0f), n);" in mixed or \
        any(re.fullmatch(r"Adds\(buf\d\.ReinterpretCast<half>\(\), xIn, \(half\)\(2\.0f\), n\);", c) for c in mixed)
    casts = [c for c in mixed if c.startswith("Cast(")]
    assert len(casts) == 2, mixed                      # the store: float16 -> float32 -> the output tile
    p = _vector_calls(lang.kernel(precision="mixed")(with_param).source("ascend", x, x, 0.5))
    assert any(c.startswith("Muls(buf") and "ReinterpretCast" not in c for c in p), p   # x * s in float32
    assert any(c.startswith("Add(") and "ReinterpretCast<half>" in c for c in p), p
    f32 = _vector_calls(lang.kernel(precision="float32")(fma_like).source("ascend", x, x))
    assert not any(".ReinterpretCast<half>(), xIn" in c for c in f32)


@pytest.mark.parametrize("n", [1, 31, 128, 4099])
def test_half_instructions_give_the_interpreters_bits(n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    y = (rng.standard_normal(n) * 4).astype(np.float16)
    x[:min(n, 3)] = [300.0, 6e-8, -0.0][:min(n, 3)]     # x * y overflows, a subnormal, a negative zero
    ref = lang.kernel(target="interpret", precision="mixed")(fma_like)(x, y)
    r = lang.kernel(target="ascend-sim", precision="mixed")(fma_like)(x, y)
    nan = np.isnan(ref.astype(np.float32)) & np.isnan(r.astype(np.float32))
    assert np.array_equal(r.view(np.uint16)[~nan], ref.view(np.uint16)[~nan])


def test_bfloat16_keeps_its_round_trips():
    bf = bfloat16_np()
    x = np.ones(256, bf)
    calls = _vector_calls(lang.kernel(precision="mixed")(fma_like).source("ascend", x, x))
    assert not any("ReinterpretCast<half>" in c for c in calls)
    assert any("ReinterpretCast<bfloat16_t>(), buf" in c and "CAST_RINT" in c for c in calls), calls
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(97).astype(bf), rng.standard_normal(97).astype(bf)
    ref = lang.kernel(target="interpret", precision="mixed")(fma_like)(x, y)
    r = lang.kernel(target="ascend-sim", precision="mixed")(fma_like)(x, y)
    assert np.array_equal(r.view(np.uint16), ref.view(np.uint16))


def test_estimate_counts_half_instructions_at_twice_the_rate():
    x = np.ones(1 << 20, np.float16)
    mixed = lang.kernel(precision="mixed")(fma_like).estimate("ascend", x, x)
    f32 = lang.kernel(precision="float32")(fma_like).estimate("ascend", x, x)
    assert mixed.parts["vector"] < f32.parts["vector"], (mixed, f32)


def test_the_rules_on_a_program():
    """Rule 1 needs both operands float16 and the result read once; rule 2 drops a round trip of a round trip;
    what nothing reads any more is dropped; a guarded instruction is left alone."""
    v = lambda k: V("v", k)          # noqa: E731
    xin, yin = V("in", "x"), V("in", "y")
    dtypes = {"x": type("D", (), {"name": "float16"})(), "y": type("D", (), {"name": "float16"})()}
    prog = [Instr("Cast", v(0), (xin,), mode="CAST_NONE"), Instr("Cast", v(1), (yin,), mode="CAST_NONE"),
            Instr("Mul", v(2), (v(0), v(1))),
            Instr("CastTo16", v(3), (v(2),), mode="CAST_RINT", scalar="float16"),
            Instr("CastFrom16", v(4), (v(3),), mode="CAST_NONE", scalar="float16"),
            Instr("CastTo16", v(5), (v(4),), mode="CAST_RINT", scalar="float16"),      # rule 2: v5 is v3
            Instr("CastFrom16", v(6), (v(5),), mode="CAST_NONE", scalar="float16"),
            Instr("Add", v(7), (v(6), v(0))),                                           # read twice: stays float
            Instr("CastTo16", v(8), (v(7),), mode="CAST_RINT", scalar="float16"),
            Instr("Store", V("out", "o"), (v(7),))]
    out = half_ops(prog, dtypes)
    apis = [(i.api, i.dst, i.srcs) for i in out]
    assert ("Mul16", v(3), (xin, yin)) in apis
    assert all(i.api != "Mul" for i in out)
    assert ("CastFrom16", v(6), (v(3),)) in apis                # v5 renamed to v3
    assert ("Add", v(7), (v(6), v(0))) in apis                   # its result is also stored: not rewritten
    assert all(i.dst != v(8) for i in out)                       # nothing reads v8: dropped
    guarded = [Instr("Cast", v(0), (xin,), mode="CAST_NONE"), Instr("Cast", v(1), (yin,), mode="CAST_NONE"),
               Instr("Mul", v(2), (v(0), v(1)), guard="c"),
               Instr("CastTo16", v(3), (v(2),), mode="CAST_RINT", scalar="float16"),
               Instr("Store", V("out", "o"), (v(3),))]
    assert [i.api for i in half_ops(guarded, dtypes)] == ["Cast", "Cast", "Mul", "CastTo16", "Store"]
