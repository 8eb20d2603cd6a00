"""The `asc` command: demo (at small sizes) and compile."""
from __future__ import annotations

import subprocess
import sys

from asc import demo


def test_demo_checks_every_kernel(monkeypatch):
    monkeypatch.setattr(demo, "N", 1 << 12)
    monkeypatch.setattr(demo, "ROWS", 16)
    monkeypatch.setattr(demo, "COLS", 64)
    lines = []
    assert demo.run(out=lines.append) is True


def test_compile_prints_generated_cpp(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("from __future__ import annotations\nimport asc.language as lang\n\n"
                   "@lang.kernel\ndef neg(x: lang.float32[N]) -> lang.float32[N]:\n"
                   "    out = lang.empty_like(x)\n    for i in range(N):\n        out[i] = -x[i]\n    return out\n")
    r = subprocess.run([sys.executable, "-m", "asc", "compile", f"{src}::neg", "--shape", "N=4096"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "const float* __restrict x" in r.stdout and "4096LL" in r.stdout and "// k.py:8  out[i] = -x[i]" in r.stdout
    r = subprocess.run([sys.executable, "-m", "asc", "compile", f"{src}::neg", "--target", "ir", "--shape",
                        "N=8"], capture_output=True, text=True)
    assert r.returncode == 0 and "float32[8]" in r.stdout


def test_bench_suites_run_their_scripts(monkeypatch):
    import asc.cli as cli
    calls = []
    monkeypatch.setattr(cli.os, "execv", lambda exe, args: calls.append(args[1:]))
    cli.main(["bench", "--quick"])
    cli.main(["bench", "tensor", "--runs", "3"])
    cli.main(["bench", "torch"])
    assert calls[0][0].endswith("run.py") and calls[0][1:] == ["--quick"]
    assert calls[1][0].endswith("tensor.py") and calls[1][1:] == ["--runs", "3"]
    assert calls[2][0].endswith("torch_ops.py")
