"""A/B of asc against another checkout of asc, on the same machine in one run: `python benchmarks/ab.py OTHER [--rounds
2] [--quick] [--suite run.py]`. The suite's script runs alternately from this checkout (B) and from OTHER (A), each in
a fresh process with its own disk cache (so each compiles its own kernels), ABAB...; the table gives, per asc
workload, the median over rounds of each side's median time and the ratio B / A (below 1: this checkout is faster).
Peers are left out: they are the same code on both sides."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_side(checkout: str, suite: str, extra: list, cache: str, out: str) -> dict:
    env = dict(os.environ, ASC_CACHE_DIR=cache, PYTHONPATH=checkout)
    cmd = [sys.executable, os.path.join(checkout, "benchmarks", suite), "--out", out] + extra
    subprocess.run(cmd, env=env, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        data = json.load(f)
    return data if isinstance(data, dict) else {"results": data}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("other", help="the other checkout of asc (A)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--suite", default="run.py")
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    extra = ["--quick"] if a.quick else []
    sides = {"A": os.path.abspath(a.other), "B": ROOT}
    times: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for side, checkout in sides.items():
                out = os.path.join(tmp, f"{side}{r}.json")
                data = run_side(checkout, a.suite, extra, os.path.join(tmp, f"cache-{side}"), out)
                for row in data["results"]:
                    if row.get("peer", "").startswith("asc") and "median_s" in row:
                        key = (row["workload"], row["dtype"], row["peer"], row["variant"])
                        times.setdefault(key, {"A": [], "B": []})[side].append(row["median_s"])
                for name, v in data.get("dispatch_s", {}).items():      # call overhead
                    if name.startswith("asc"):
                        times.setdefault(("call: " + name[4:24], "", "asc", ""), {"A": [], "B": []})[side].append(v)
                for name, v in data.get("compile", {}).items():         # import, cold and warm first calls
                    times.setdefault((name, "", "asc", ""), {"A": [], "B": []})[side].append(v)
                print(f"round {r + 1}, {side} done", file=sys.stderr, flush=True)
    print(f"{'workload':28s} {'dtype':8s} {'variant':8s} {'A ms':>9s} {'B ms':>9s} {'B/A':>6s}")
    for (w, dt, peer, var), t in sorted(times.items()):
        if t["A"] and t["B"]:
            ta, tb = statistics.median(t["A"]), statistics.median(t["B"])
            print(f"{w:28s} {dt:8s} {var:8s} {ta * 1e3:9.3f} {tb * 1e3:9.3f} {tb / ta:6.2f}")


if __name__ == "__main__":
    main()
