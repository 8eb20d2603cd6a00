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


_SCALED = ("from __future__ import annotations\nimport asc.language as lang\n\n"
           "@lang.kernel\ndef scaled(x: lang.float32[N], beta: lang.float16 = 1.5, eps: float = 1e-5,\n"
           "           k: int = 3, lim: float = float('inf')) -> lang.float32[N]:\n"
           "    out = lang.empty_like(x)\n    for i in range(N):\n"
           "        out[i] = min(x[i] * beta + eps + k, lim)\n    return out\n")


def _main_cpp_scalars(text: str) -> dict:
    import re
    return dict(re.findall(r"^    \S+ (\w+) = static_cast<\S+>\((.*)\);$", text, re.M))


def test_ascend_project_host_takes_the_python_defaults_and_overrides(tmp_path):
    """The project's host program runs the kernel with the signature's defaults (not 0: SwiGLU's beta, layernorm's
    eps), --scalar NAME=VALUE overrides one, and a non-finite default is a valid C++ literal."""
    from asc import cli
    src = tmp_path / "k.py"
    src.write_text(_SCALED)
    out = tmp_path / "proj"
    assert cli.main(["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=4096", "-o", str(out)]) == 0
    vals = _main_cpp_scalars((out / "main.cpp").read_text())
    assert vals == {"beta": "1.5", "eps": "1e-05", "k_v": "3", "lim": "INFINITY"}, vals   # k: a name of the renderers
    out2 = tmp_path / "proj2"
    assert cli.main(["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=4096", "--scalar", "eps=0.25",
                     "--scalar", "k=-7", "-o", str(out2)]) == 0
    vals = _main_cpp_scalars((out2 / "main.cpp").read_text())
    assert vals["eps"] == "0.25" and vals["k_v"] == "-7" and vals["beta"] == "1.5"


def test_ascend_project_scalar_errors(tmp_path, capsys):
    import pytest
    from asc import cli
    src = tmp_path / "k.py"
    src.write_text(_SCALED.replace("beta: lang.float16 = 1.5, eps: float = 1e-5", "eps: float, beta: lang.float16 = 1.5"))
    assert cli.main(["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=64", "-o",
                     str(tmp_path / "p")]) == 0
    assert "scalar parameter 'eps' of scaled has no default" in capsys.readouterr().err
    assert _main_cpp_scalars((tmp_path / "p" / "main.cpp").read_text())["eps"] == "0.0"
    with pytest.raises(SystemExit, match=r"--scalar gamma: scaled has no scalar parameter of that name"):
        cli.main(["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=64", "--scalar", "gamma=1",
                  "--scalar", "eps=1", "-o", str(tmp_path / "p")])
    with pytest.raises(SystemExit, match=r"--scalar eps=abc: not a number"):
        cli.main(["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=64", "--scalar", "eps=abc",
                  "-o", str(tmp_path / "p")])


def test_ascend_project_scalar_values_are_never_silently_changed(tmp_path):
    """--scalar text that the parameter's dtype cannot hold is refused naming the argument: a fraction for an
    integer (was truncated: k=2.5 gave 2), an integer outside its range (was an OverflowError traceback), a float
    that overflows to infinity (1e400 became inf); an integral float text for an integer is exact and accepted."""
    import pytest
    from asc import cli
    src = tmp_path / "k.py"
    src.write_text(_SCALED.replace("k: int = 3", "k: lang.int32 = 3"))
    base = ["compile", f"{src}::scaled", "--target", "ascend", "--shape", "N=64", "-o", str(tmp_path / "p")]
    for arg, msg in [("k=2.5", r"--scalar k=2\.5: not an integer \(the parameter is int32\)"),
                     ("k=99999999999", r"--scalar k=99999999999: outside the range of int32"),
                     ("eps=1e400", r"--scalar eps=1e400: outside the range of float64"),
                     ("beta=1e6", r"--scalar beta=1e6: outside the range of float16")]:
        with pytest.raises(SystemExit, match=msg):
            cli.main(base + ["--scalar", arg])
    assert cli.main(base + ["--scalar", "k=1e3", "--scalar", "eps=-inf", "--scalar", "beta=0.5"]) == 0
    vals = _main_cpp_scalars((tmp_path / "p" / "main.cpp").read_text())
    assert vals["k_v"] == "1000" and vals["eps"] == "-INFINITY" and vals["beta"] == "0.5", vals


def test_python_m_asc_cli_runs_the_command():
    """`python -m asc.cli` is the same command as `python -m asc` (it did nothing: no __main__ guard)."""
    for mod in ("asc", "asc.cli"):
        r = subprocess.run([sys.executable, "-m", mod, "--help"], capture_output=True, text=True)
        assert r.returncode == 0 and "usage: asc" in r.stdout and "compile" in r.stdout, (mod, r.stderr)
