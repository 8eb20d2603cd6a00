"""`lang.profiler()`: records every kernel call and compilation inside a `with` block.

    with lang.profiler() as prof:
        y = gelu(x)
    print(prof.report())
    prof.export_chrome_trace("trace.json")      # Perfetto / chrome://tracing

Each call: kernel, specialization (argument types and shapes), target, wall time, bytes moved and FLOPs derived
from the IR (passes.cost), achieved GB/s and GFLOP/s, and their fraction of this machine's limits (measured once,
cached). While a profiler is active the compiled launcher times each call itself and reports it: about 3 us per
call of overhead."""
from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from collections import OrderedDict

from ..dispatch import state as _state


class Profiler:
    def __init__(self):
        self.events: list = []
        self._costs: dict = {}
        self._prev = None
        self._t0 = 0.0
        self._lock = threading.Lock()

    def __enter__(self):
        self._prev = _state.STATE.observer
        self._t0 = time.perf_counter()
        _state.set_observer(self)
        return self

    def __exit__(self, *exc):
        _state.set_observer(self._prev)
        return False

    # ---- observer protocol (asc.dispatch.state.set_observer)
    def on_call(self, kernel, spec, bound, symbols, target, seconds):
        key = (id(spec), tuple(sorted(symbols.items())))
        cost = self._costs.get(key)
        if cost is None:
            from ..passes.cost import call_cost     # (the cost model: at the first profiled call, not at import)
            cost = self._costs[key] = call_cost(spec.ir, symbols)
        nbytes, flops, exact = cost
        ev = dict(kind="call", name=kernel.__name__, signature=spec.describe(), target=target,
                  start=time.perf_counter() - seconds - self._t0, seconds=seconds, bytes=nbytes, flops=flops,
                  exact=exact)
        if target in ("ascend", "ascend-sim"):
            ekey = ("npu",) + key
            if ekey not in self._costs:
                self._costs[ekey] = _npu_estimate(spec, symbols)
            ev["npu_seconds"] = self._costs[ekey]
        self._add(ev)

    def on_compile(self, kernel, spec, seconds, from_disk, reason):
        self._add(dict(kind="load" if from_disk else "compile", name=kernel.__name__, signature=spec.describe(),
                       target=kernel.options.target, start=time.perf_counter() - seconds - self._t0,
                       seconds=seconds, reason=reason))

    def _add(self, ev):
        ev["thread"] = threading.get_ident()
        with self._lock:
            self.events.append(ev)

    # ---- results
    def summary(self) -> list:
        """One row per (kernel, specialization, target): calls, time, bytes, FLOPs, rates and fractions of the
        machine's limits, sorted by total time."""
        from .machine import limits
        lim = limits()
        rows = OrderedDict()
        for ev in self.events:
            key = (ev["name"], ev["signature"], ev["target"])
            r = rows.setdefault(key, dict(kernel=ev["name"], signature=ev["signature"], target=ev["target"],
                                          calls=0, seconds=0.0, compile_seconds=0.0, bytes=0, flops=0,
                                          exact=True))
            if ev["kind"] == "call":
                if "npu_seconds" in ev:
                    est = ev["npu_seconds"]
                    r["npu_seconds"] = None if est is None or r.get("npu_seconds", 0) is None else \
                        r.get("npu_seconds", 0.0) + est
                r["calls"] += 1
                r["seconds"] += ev["seconds"]
                r["bytes"] += ev["bytes"]
                r["flops"] += ev["flops"]
                r["exact"] &= ev["exact"]
            else:
                r["compile_seconds"] += ev["seconds"]
        out = []
        for r in rows.values():
            s = r["seconds"]
            r["gbs"] = r["bytes"] / s / 1e9 if s else 0.0
            r["gflops"] = r["flops"] / s / 1e9 if s else 0.0
            r["bandwidth_fraction"] = r["gbs"] / lim["bandwidth_gbs"]
            r["peak_fraction"] = r["gflops"] / lim["peak_gflops"]
            out.append(r)
        out.sort(key=lambda r: r["seconds"] + r["compile_seconds"], reverse=True)
        return out

    def report(self) -> str:
        """The summary as a table (a str; drawn with rich when stdout is a terminal and rich is installed)."""
        from .machine import limits
        lim = limits()
        head = ["kernel", "specialization", "target", "calls", "total ms", "mean us", "GB/s", "% BW", "GFLOP/s",
                "% peak", "compile ms"]
        rows = self.summary()
        body = [[r["kernel"], r["signature"], r["target"], str(r["calls"]), f"{r['seconds'] * 1e3:.3f}",
                 f"{r['seconds'] / r['calls'] * 1e6:.1f}" if r["calls"] else "-", f"{r['gbs']:.1f}",
                 f"{100 * r['bandwidth_fraction']:.0f}%", f"{r['gflops']:.1f}" + ("" if r["exact"] else "~"),
                 f"{100 * r['peak_fraction']:.0f}%", f"{r['compile_seconds'] * 1e3:.0f}"]
                for r in rows]
        note = (f"machine: {lim['bandwidth_gbs']} GB/s memory bandwidth, {lim['peak_gflops']} GFLOP/s float32 peak; "
                f"~: a loop's trip count depends on data")
        if any("npu_seconds" in r for r in rows):      # ascend / ascend-sim kernels: the cost model's NPU time
            head.append("est. NPU us/call")
            for row, r in zip(body, rows):
                est = r.get("npu_seconds")
                row.append(f"{est / r['calls'] * 1e6:.2f}" if est is not None and r["calls"] else "-")
            note += "; est. NPU: asc's Ascend 910B1 cost model (docs/ascend.md), an estimate, not a measurement"
        if sys.stdout.isatty():
            try:
                from rich.console import Console
                from rich.table import Table
                t = Table(title="asc profile", caption=note)
                for h in head:
                    t.add_column(h, justify="left" if h in ("kernel", "specialization", "target") else "right")
                for row in body:
                    t.add_row(*row)
                buf = io.StringIO()
                Console(file=buf, force_terminal=True, width=160).print(t)
                return buf.getvalue()
            except ImportError:
                pass
        widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(head)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
        return "\n".join(lines + [note])

    def export_chrome_trace(self, path) -> None:
        """Writes the events in the Trace Event format (Perfetto, chrome://tracing); compilations are events of
        their own category."""
        pid = os.getpid()
        events = []
        for ev in self.events:
            args = {"specialization": ev["signature"], "target": ev["target"]}
            if ev["kind"] == "call":
                args.update(bytes=ev["bytes"], flops=ev["flops"],
                            gbs=round(ev["bytes"] / ev["seconds"] / 1e9, 3) if ev["seconds"] else 0)
                if ev.get("npu_seconds") is not None:
                    args["estimated_npu_us"] = round(ev["npu_seconds"] * 1e6, 3)
            else:
                args["reason"] = ev.get("reason", "")
            events.append({"name": ev["name"] if ev["kind"] == "call" else f"{ev['kind']} {ev['name']}",
                           "cat": ev["kind"], "ph": "X", "ts": ev["start"] * 1e6, "dur": ev["seconds"] * 1e6,
                           "pid": pid, "tid": ev["thread"], "args": args})
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def _npu_estimate(spec, symbols):
    """Estimated Ascend 910B1 seconds of one call of this specialization (None where the model has none)."""
    from ..errors import AscError
    from .. import compiler
    try:
        return compiler.ascend_estimate(spec.ir, dict(symbols), "Ascend910B1").seconds
    except AscError:        # a kernel the Ascend lowering refuses: no estimate, the call is still profiled
        return None


def profiler() -> Profiler:
    return Profiler()
