"""asc.runtime.toolchain.target_isa: the ISA compiled kernels run on, read from the compiler itself for the kernels'
flags (ASC_CFLAGS included), which every benchmark prints in its header and writes in its JSON (benchmarks/harness.py
`machine()`), so that figures from different ISAs are never compared blindly (docs/cpu.md, "Per ISA")."""
from __future__ import annotations

import os
import platform
import shutil
import sys

import pytest

from asc.runtime import toolchain

HAVE_CXX = shutil.which("g++") or shutil.which("clang++")
X86 = platform.machine() in ("x86_64", "AMD64")
pytestmark = pytest.mark.skipif(not HAVE_CXX, reason="no C++ compiler")

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")


@pytest.mark.skipif(not X86, reason="x86-64 levels")
@pytest.mark.parametrize("level, isa, has, lacks", [
    ("x86-64-v2", "SSE4.2", ["sse4.2"], ["avx", "avx2", "avx512f"]),
    ("x86-64-v3", "AVX2", ["sse4.2", "avx", "avx2", "fma", "f16c"], ["avx512f"]),
    ("x86-64-v4", "AVX-512", ["avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"], []),
])
def test_the_isa_is_what_the_compiler_targets_with_asc_cflags(cflags, level, isa, has, lacks):
    cflags(f"-march={level}")          # after asc's -march=native: the later -march wins, on any host
    info = toolchain.target_isa()
    assert info["isa"] == isa, info
    assert set(has) <= set(info["features"]) and not set(lacks) & set(info["features"]), info
    assert info["flags"].split()[-1] == f"-march={level}" and info["asc_cflags"] == f"-march={level}"
    if "g++" in info["compiler"]:
        assert info["march"] == level, info
    text = toolchain.describe_isa(info)
    head, flags_line = text.split("\n")
    assert head.startswith(f"ISA {isa} (") and level in head and info["cpu"] in head
    assert flags_line.endswith(info["flags"]) and "ASC_CFLAGS='-march=" + level + "'" in flags_line


def test_native_is_the_hosts_isa(cflags):
    cflags("")
    info = toolchain.target_isa()
    assert "-march=native" in info["flags"].split() and info["asc_cflags"] == ""
    assert info["machine"] == platform.machine() and info["compiler_version"]
    if X86:
        with open("/proc/cpuinfo") as f:
            host = next(line for line in f if line.startswith("flags")).split()
        want = "AVX-512" if "avx512f" in host else "AVX2" if "avx2" in host else "AVX" if "avx" in host else \
            "SSE4.2" if "sse4_2" in host else "SSE2"
        assert info["isa"] == want, (info, want)


def test_the_benchmarks_header_and_json_carry_it(cflags):
    cflags("-march=x86-64-v3" if X86 else "")
    sys.path.insert(0, BENCH)
    try:
        import harness
    finally:
        sys.path.remove(BENCH)
    info, lines = harness.machine()
    peers = info.pop("peers")
    assert info == toolchain.target_isa() and peers == (harness.peers_held() or "native")
    assert lines == toolchain.describe_isa(info) + (f"\n{peers}" if peers != "native" else "")
    assert lines.startswith("ISA ") and info["flags"] in lines
    for script in ("run.py", "tensor.py", "matmul.py", "checks.py", "torch_ops.py"):   # every `asc bench` suite
        with open(os.path.join(BENCH, script)) as f:
            src = f.read()
        assert "harness.machine()" in src and ("\"isa\": isa" in src or "isa=isa" in src or
                                               "\"target_isa\": target" in src), script


def test_cross_flags_replace_native_march():
    """flags(machine=...) for a cross build: the machine's -march from CROSS_MARCH in place of -march=native, the
    rest unchanged (FMA contraction still off); the host's own machine keeps -march=native; an unknown machine is
    a ToolchainError (tests/runtime/test_aarch64_qemu.py builds with these under qemu)."""
    import platform

    from asc.errors import ToolchainError
    from asc.runtime import toolchain
    native = toolchain.flags({}, user=False)
    arm = toolchain.flags({}, user=False, machine="aarch64")
    if platform.machine() != "aarch64":
        assert "-march=native" not in arm and "-march=armv8.2-a+fp16" in arm
        assert [f for f in arm if f != "-march=armv8.2-a+fp16"] == [f for f in native if f != "-march=native"]
    assert "-ffp-contract=off" in arm
    assert toolchain.flags({}, user=False, machine=platform.machine()) == native
    with pytest.raises(ToolchainError, match="no cross-build flags"):
        toolchain.flags({}, user=False, machine="riscv64")


PEERS_SCRIPT = """
import os, sys
sys.path.insert(0, {bench!r})
import harness
line = harness.peers_at_target_isa()
info, lines = harness.machine()
print("RUNS", 1)
print("LINE", line)
print("PEERS", info["peers"])
print("HEADER", lines.splitlines()[-1])
print("ATEN", os.environ.get("ATEN_CPU_CAPABILITY"), os.environ.get("ONEDNN_MAX_CPU_ISA"))
"""


@pytest.mark.skipif(not X86, reason="x86-64 ISA levels")
@pytest.mark.parametrize("native", [False, True])
def test_an_avx2_build_holds_the_peers_to_avx2(tmp_path, native):
    """ASC_CFLAGS=-march=x86-64-v3 stands for a machine without AVX-512: the benchmark scripts restart once with
    torch, oneDNN, Numba, NumPy and OpenBLAS held to AVX2 (benchmarks/harness.py peers_at_target_isa), and say so in
    the header; PEERS_NATIVE=1 leaves them alone."""
    import subprocess
    script = tmp_path / "peers.py"
    script.write_text(PEERS_SCRIPT.format(bench=BENCH))
    env = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA",
                                                           "NUMBA_CPU_NAME", "NPY_DISABLE_CPU_FEATURES",
                                                           "OPENBLAS_CORETYPE", "PEERS_NATIVE")}
    env["ASC_CFLAGS"] = "-march=x86-64-v3"
    if native:
        env["PEERS_NATIVE"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("RUNS") == 1                    # the restart happens before any output
    got = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    if native:
        assert got["LINE"] == "" and got["PEERS"] == "native" and got["ATEN"] == "None None"
    else:
        assert got["ATEN"] == "avx2 AVX2"
        assert got["LINE"].startswith("peers held to the same ISA") and "ONEDNN_MAX_CPU_ISA=AVX2" in got["LINE"]
        assert got["PEERS"] == got["LINE"] == got["HEADER"]
