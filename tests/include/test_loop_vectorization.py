"""Every math function's element loop is vector code on every ISA asc targets: a property of the compiled code, read
from gcc's vectorization report (-fopt-info-vec), not a timing. One translation unit holds, for each builtin with a
C template (asc.builtins.queries: cpu_templates, cpu_scaled_templates, cpu_fused_templates, cpu_int_templates), the loop the cpu target
emits for it (`#pragma omp simd`, float32 / float64 / int32 / int64, and float16 / bfloat16 storage computed in
float32), compiled with the kernels' own flags for -march=x86-64-v2 (SSE4.2), x86-64-v3 (AVX2) and x86-64-v4
(AVX-512), and for aarch64 (NEON, SVE) where a cross compiler is installed. Compile only: nothing runs.

The loops that are not vector code are listed in NOT_VECTOR with the reason, as strict xfails: when one becomes
vector code, the test says so and the entry goes."""
from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from asc.builtins import queries
from asc.runtime import toolchain

X86 = {"x86-64-v2": 16, "x86-64-v3": 32, "x86-64-v4": 64}          # -march level -> widest vector (bytes)
CROSS = shutil.which("aarch64-linux-gnu-g++")
ARM = {"armv8-a": 16, "armv8.2-a+sve": 16} if CROSS else {}           # (SVE: vector-length-agnostic, 16 B at least)

NOT_VECTOR = {
    # the float32 reduction computes in double: gcc 12 does not vectorize the float -> double widening for NEON
    # ("relevant stmt not supported: xd = (double) ..."), though it does for SVE
    **{("armv8-a", f"{f}_{s}"): "conversions of the argument reduction (float -> double, double -> int64) gcc 12 does not vectorize for NEON"
       for f in ("sin", "cos") for s in ("f32", "f64", "f16", "bf16")},
    # integer power by squaring: a loop whose trip count is the exponent's bit length, per element
    **{(lv, f"pow_{s}"): "asc_ipow's data-dependent while loop" for lv in (*X86, *ARM) for s in ("i32", "i64")},
    # round of an integer is the identity: the loop is a plain copy, not reported as a vectorized loop
    **{(lv, f"round_{s}"): "an identity (a copy loop)" for lv in (*X86, *ARM) for s in ("i32", "i64")},
}

C_TYPES = {"f32": "float", "f64": "double", "i32": "int32_t", "i64": "int64_t", "f16": "asc_half", "bf16": "asc_bf16"}
WIDEN = {"f16": ("asc_h2f({})", "asc_f2h({})"), "bf16": ("asc_bf2f({})", "asc_f2bf({})")}


def _loops():
    """(source, {line of a loop: its name})"""
    lines, where = ['#include "asc_cpu.h"', "#include <stdint.h>"], {}

    def loop(name, s, expr):
        ct = C_TYPES[s]
        load, store = WIDEN.get(s, ("{}", "{}"))
        lines.append(f'extern "C" void loop_{name}_{s}(const {ct}* __restrict x, const {ct}* __restrict y, '
                     f'{ct}* __restrict out, int64_t n) {{')
        lines.append("  #pragma omp simd")
        where[len(lines) + 1] = f"{name}_{s}"
        lines.append(f"  for (int64_t i = 0; i < n; ++i) out[i] = "
                     f"{store.format(expr.format(load.format('x[i]'), load.format('y[i]')))};")
        lines.append("}")
    for name, t in queries.cpu_templates().items():
        for s in ("f32", "f64", "f16", "bf16"):
            loop(name, s, t.replace("{s}", "f32" if s in WIDEN else s))
    for (name, s), (t, *_consts) in queries.cpu_scaled_templates().items():
        loop(queries.scaled_name(name), s, t.replace("{}, {}", "{}, 0.7071067690849304"))
    for name, t in queries.cpu_fused_templates().items():          # GELU's product (asc/passes/gelu_product.py)
        for s in ("f32", "f16", "bf16"):
            loop(name, s, t.replace("{}, {}", "{}, 0.7071067690849304"))
    for name, t in queries.cpu_int_templates().items():
        for s in ("i32", "i64"):
            loop(name, s, t)
    return "\n".join(lines) + "\n", where


def _compile(cxx: list, level: str, src: str, where: dict) -> dict:
    """{loop name: [vector widths in bytes]} from gcc's report for -march=`level`."""
    flags = [f for f in toolchain.flags({}, user=False) if f not in ("-shared", "-march=native")]
    r = subprocess.run(cxx + flags + [f"-march={level}", "-I", toolchain.INCLUDE_DIR, "-x", "c++", "-c", src,
                                      "-o", os.devnull, "-fopt-info-vec-optimized"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    found: dict = {}
    for line in r.stderr.splitlines():
        # fixed-width vectors ("using 32 byte vectors"), or SVE's vector-length-agnostic code ("using variable
        # length vectors": recorded as 16, its minimum width)
        m = re.match(re.escape(src) + r":(\d+):\d+: optimized: loop vectorized using (\d+ byte|variable length) "
                     r"vectors", line)
        if m and int(m.group(1)) in where:
            width = 16 if m.group(2) == "variable length" else int(m.group(2).split()[0])
            found.setdefault(where[int(m.group(1))], []).append(width)
    return found


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """{level: {loop: widths}}, all ISAs compiled at once (one compile each, in parallel)."""
    cxx = shlex.split(toolchain.compiler())
    if "free software foundation" not in subprocess.run(cxx + ["--version"], capture_output=True,
                                                         text=True).stdout.lower():
        pytest.skip("the vectorization report read here is gcc's (-fopt-info-vec)")
    src_text, where = _loops()
    src = tmp_path_factory.mktemp("vec") / "loops.cpp"
    src.write_text(src_text)
    jobs = [(cxx, lv) for lv in X86 if platform.machine() in ("x86_64", "AMD64")]
    jobs += [([CROSS], lv) for lv in ARM]
    with ThreadPoolExecutor(max_workers=len(jobs) or 1) as pool:
        done = {lv: pool.submit(_compile, c, lv, str(src), where) for c, lv in jobs}
    found = {lv: f.result() for lv, f in done.items()}
    assert all(found.values()), "gcc's report names no vectorized loop: its format changed?"
    return found, sorted(where.values())


def _names():
    return sorted(_loops()[1].values())


@pytest.mark.parametrize("level", [*X86, *ARM])
@pytest.mark.parametrize("loop", _names())
def test_the_loop_is_vector_code(report, level, loop):
    found, _ = report
    if level not in found:
        pytest.skip(f"no compiler for {level} here")
    why = NOT_VECTOR.get((level, loop))
    if why is not None:
        assert loop not in found[level], f"{loop} is vector code on {level} now: remove it from NOT_VECTOR ({why})"
        pytest.xfail(f"{loop} on {level}: {why}")
    assert loop in found[level], f"the {loop} loop is not vector code with -march={level}"
    if level in X86:
        assert max(found[level][loop]) == X86[level], (loop, level, found[level][loop])


def test_every_math_builtin_has_a_loop():
    names = set(_names())
    for name in queries.cpu_templates():
        assert {f"{name}_f32", f"{name}_f64", f"{name}_f16", f"{name}_bf16"} <= names
