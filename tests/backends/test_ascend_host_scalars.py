"""Scalars before the loop computed on the host (issue 16, asc/backends/ascend/host_scalars.py).

A scalar computed before a vector kernel's loop from scalar parameters, sizes and constants only (Adam's
`1 - beta2 ** step`, `lang.sqrt(...)` of it), and a subexpression of such values in the loop that meets float32
data (`(1.0 - beta2) * g[i]`), is computed on the host in float64 with the interpreter's meaning and passed in the
tiling rounded once to float32: the kernel equals the interpreter bit for bit. Before this, the AI core computed
them in float32 (scalarPow_ / scalarSqrt_ in Init): 124 ulp (scaled_by_power, 0.999 ** 1000) and 85 ulp (adam_out)
of the largest output apart. What the host cannot know (a per-row value of a row kernel) stays on the core."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends.ascend import project
from asc.backends.ascend.rendering import AscendFallbackWarning
from asc.runtime import ascend_sim
from ascend_corpus import CORPUS
from helpers import close, interpreted, rand
from test_ascend_uniform_pow import adam_out, scaled_by_power

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")


def _source(kernel, *args):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", AscendFallbackWarning)
        src = kernel.source("ascend", *args)
    assert not [x for x in w if issubclass(x.category, AscendFallbackWarning)]
    return src


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _equal(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_power_before_a_map_loop_is_bit_equal():
    """0.999 ** 1000 (124 ulp of the largest output before: a float32 power on the core)."""
    x = rand(4099, np.float32, 1)
    src = _source(scaled_by_power, x, 0.999, 1000.0)
    assert "float hs_c;" in src and "c_ = t.hs_c;" in src and "d_ = t.hs_d;" in src and "scalarPow_" not in src
    sim = lang.kernel(target="ascend-sim")(scaled_by_power.pyfunc)
    for a, b in ((0.999, 1000.0), (0.999, 3.0), (0.9, 0.5), (1e-3, 7.0), (1.5, 300.0)):
        for s in ({}, {"cores": 3, "tile_cap": 256}):
            with ascend_sim.configured(**s):
                _equal(sim(x, a, b), interpreted(scaled_by_power)(x, a, b))


def test_adam_out_is_bit_equal():
    """Adam's bias corrections and the loop's `1 - beta1`, `1 - beta2` (85 ulp before)."""
    n = 4099
    p, g, m = rand(n, np.float32, 11), rand(n, np.float32, 12), rand(n, np.float32, 13) * 0.1
    v = np.abs(rand(n, np.float32, 14)) * 0.1
    src = _source(adam_out, p, g, m, v, 3.0)
    assert "bc2_sqrt_ = t.hs_bc2_sqrt;" in src and "scalarSqrt_" not in src and "scalarPow_" not in src
    assert len(re.findall(r"float hs_\w+;", src)) == 6          # bc1, bc2, step_size, bc2_sqrt, 1 - b1, 1 - b2
    sim = lang.kernel(target="ascend-sim")(adam_out.pyfunc)
    for step in (1.0, 3.0, 1000.0):
        args = (p, g, m, v, step)
        _equal(sim(*_copies(args)), interpreted(adam_out)(*_copies(args)))
        with ascend_sim.configured(cores=3, tile_cap=256):
            _equal(sim(*_copies(args), beta2=0.95, lr=3e-4), interpreted(adam_out)(*_copies(args), beta2=0.95,
                                                                                    lr=3e-4))


@pytest.mark.parametrize("case", ["one", "awkward"])
def test_corpus_adam_step_is_bit_equal(case):
    kernel, factory = CORPUS["adam_step"]
    args = factory(case)
    ref, got = _copies(args), _copies(args)
    interpreted(kernel)(*ref)
    lang.kernel(target="ascend-sim")(kernel.pyfunc)(*got)
    for a, b in zip(got[:4], ref[:4]):                  # p, m and v in place
        np.testing.assert_array_equal(a, b)


@lang.kernel
def per_row_power(x: lang.float32[R, C], a: float):
    """`k` is known on the host; the row's `r` (a per-row value: it varies with the block) is computed on the core."""
    k = lang.sqrt(1.0 - a ** 3.0)
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j] * x[i, j]
        r = lang.sqrt(s / C + k)
        for j in range(C):
            out[i, j] = x[i, j] * k / r
    return out


def test_a_block_varying_scalar_stays_on_the_core():
    x = rand((37, 53), np.float32, 5)
    src = _source(per_row_power, x, 0.9)
    assert "row kernel" in src.split("\n", 2)[1]
    assert re.search(r"\bk(_v)?_ = t\.hs_k;", src) and "float hs_k;" in src and "hs_r" not in src
    assert re.search(r"\bSqrt\(", src)                  # the per-row sqrt, on the vector unit
    sim = lang.kernel(target="ascend-sim")(per_row_power.pyfunc)
    for a in (0.9, 0.5):
        close(sim(x, a), interpreted(per_row_power)(x, a), np.float32, ulps=4)


@lang.kernel
def scaled_by_size(x: lang.float32[N], a: float):
    """A dynamic size in a host scalar: `c` changes with N, computed on the host for each call's sizes."""
    c = a ** (1.0 / N) - 1.0
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * c + 1.0 / N
    return out


def test_dynamic_shapes():
    sim = lang.kernel(target="ascend-sim")(scaled_by_size.pyfunc)
    for n in (1, 37, 4099):
        x = rand(n, np.float32, 6)
        _equal(sim(x, 0.7), interpreted(scaled_by_size)(x, 0.7))
    assert "hs_c" in _source(scaled_by_size, rand(37, np.float32, 6), 0.7)


def test_main_cpp_tiling_carries_the_value(tmp_path):
    """main.cpp's tiling holds the float32 of the interpreter's float64 value, as an exact hexadecimal literal;
    NAME=VALUE is refused for the scalars it comes from, accepted for the others."""
    x = rand(100, np.float32, 7)
    spec, bound, symbols = adam_out.specialization((x, x, x, x, 3.0), {}, latest=False)
    src = compiler.render(spec.ir, "ascend", warn=False)
    scalars = {"step": 3.0, "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.01}
    project.write_project(src, symbols, scalars, str(tmp_path))
    main = (tmp_path / "main.cpp").read_text()
    init = re.search(r"AdamOutTiling tiling = \{([^}]*)\};", main).group(1).split(", ")
    fields = [f for f, _ in src.tiling_fields]
    got = {f: v for f, v in zip(fields, init)}
    want_bc2_sqrt = np.float32(np.sqrt(1.0 - 0.999 ** 3.0))
    assert np.float32(float.fromhex(got["hs_bc2_sqrt"].rstrip("f"))) == want_bc2_sqrt
    assert np.float32(float.fromhex(got["hs_step_size"].rstrip("f"))) == np.float32(1e-3 / (1.0 - 0.9 ** 3.0))
    assert re.search(r'"beta2=".*fixed at 0\.999.*return 2;', main)
    assert re.search(r'"eps=", 0\) == 0\) \{ eps = static_cast<float>', main)
    readme = (tmp_path / "README.md").read_text()
    assert "`beta2` (= 0.999)" in readme and "cannot be changed" in readme


def test_tiling_words_hold_the_float32_bits():
    x = rand(64, np.float32, 8)
    k = lang.kernel(target="ascend-sim")(scaled_by_power.pyfunc)
    k(x, 0.999, 1000.0)
    src = k._last.ascend
    _, values, words = ascend_sim.tiling_words(src, {"N": 64}, {"a": 0.999, "b": 1000.0})
    i = [f for f, _ in src.tiling_fields].index("hs_c")
    assert words[i] == np.float32(0.999 ** 1000.0).view(np.uint32)


@lang.kernel
def chosen_before_the_loop(x: lang.float32[N], flag: bool, a: float):
    """A condition of parameters before the loop: both ways, computed on the host."""
    c = lang.exp(a) - 1.0 if flag and a > 0.0 else 1.0 / (3.0 + a)
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * c + (a - 1.0 / 3.0)
    return out


def test_conditions_before_the_loop():
    x = rand(300, np.float32, 9)
    assert "c_ = t.hs_c;" in _source(chosen_before_the_loop, x, True, 0.1)
    sim = lang.kernel(target="ascend-sim")(chosen_before_the_loop.pyfunc)
    for flag, a in ((True, 0.1), (False, 0.1), (True, -0.7)):
        _equal(sim(x, flag, a), interpreted(chosen_before_the_loop)(x, flag, a))
