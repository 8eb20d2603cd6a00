"""lang.profiler(): per-call records with bytes and FLOPs from the IR, consistent with an independent timing;
a report sorted by total time; a Chrome trace with compilations as their own events."""
from __future__ import annotations

import json
import time

import numpy as np

import asc.language as lang
from asc.passes.cost import call_cost


@lang.kernel
def scale_add(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = 2.0 * x[i] + lang.exp(y[i])
    return out


@lang.kernel
def rowsums(a: lang.float64[R, C]) -> lang.float64[R]:
    out = lang.empty(R, dtype=lang.float64)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += a[i, j]
        out[i] = s
    return out


def test_bytes_and_flops_come_from_the_ir():
    n = 1000
    x = np.ones(n, np.float32)
    scale_add(x, x)
    nbytes, flops, exact = call_cost(scale_add._last.ir, {"N": n})
    assert nbytes == 3 * 4 * n              # reads x and y, writes out
    assert flops == 3 * n and exact         # *, +, exp per element
    a = np.ones((7, 9))
    rowsums(a)
    assert call_cost(rowsums._last.ir, {}) == (8 * 7 * 9 + 8 * 7, 7 * 9, True)


def test_profiler_records_calls_and_compiles_consistently():
    @lang.kernel
    def fresh(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * x[i]
        return out
    x = np.random.default_rng(0).random(1 << 20).astype(np.float32)
    with lang.profiler() as prof:
        fresh(x)                                   # compiles (or loads) inside the profiler
        t0 = time.perf_counter()
        for _ in range(10):
            scale_add(x, x)
        outside = time.perf_counter() - t0
    kinds = [e["kind"] for e in prof.events]
    assert kinds.count("call") == 11 and any(k in ("compile", "load") for k in kinds)
    rows = {r["kernel"]: r for r in prof.summary()}
    r = rows["scale_add"]
    assert r["calls"] == 10 and r["bytes"] == 10 * 12 * (1 << 20) and r["flops"] == 10 * 3 * (1 << 20)
    assert 0 < r["seconds"] <= outside                       # the calls' own time, within the loop's
    assert abs(r["gbs"] - r["bytes"] / r["seconds"] / 1e9) < 1e-9
    assert 0 < r["bandwidth_fraction"] and 0 < r["peak_fraction"]
    text = prof.report()
    assert "scale_add" in text and "fresh" in text and "GB/s" in text
    assert text.index("scale_add") < text.index("fresh") or rows["fresh"]["compile_seconds"] > r["seconds"]


def test_chrome_trace(tmp_path):
    x = np.ones(64, np.float32)
    with lang.profiler() as prof:
        scale_add(x, x)
        scale_add(x, x)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    calls = [e for e in events if e["cat"] == "call"]
    assert len(calls) == 2 and all(e["ph"] == "X" and e["dur"] > 0 and e["name"] == "scale_add" for e in calls)
    assert calls[0]["args"]["bytes"] == 12 * 64


def test_calls_after_the_profiler_use_the_launcher_again():
    x = np.ones(64, np.float32)
    scale_add(x, x)
    with lang.profiler():
        scale_add(x, x)
    before = scale_add._launcher.calls
    scale_add(x, x)
    assert scale_add._launcher.calls == before + 1


def test_ascend_sim_calls_report_the_estimated_npu_time(tmp_path):
    from asc.examples.seed import gelu_any
    k = lang.kernel(target="ascend-sim")(gelu_any.pyfunc)
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    with lang.profiler() as prof:
        k(x)
        k(x)
        gelu_any(x)
    rows = {r["target"]: r for r in prof.summary()}
    est = k.estimate("ascend", x).seconds
    assert abs(rows["ascend-sim"]["npu_seconds"] - 2 * est) < 1e-12
    assert "npu_seconds" not in rows["cpu"]
    report = prof.report()
    assert "est. NPU us/call" in report and f"{est * 1e6:.2f}" in report
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.load(open(path))["traceEvents"]
    calls = [e for e in events if e["cat"] == "call" and e["args"]["target"] == "ascend-sim"]
    assert calls and all(abs(e["args"]["estimated_npu_us"] - round(est * 1e6, 3)) < 1e-3 for e in calls)
