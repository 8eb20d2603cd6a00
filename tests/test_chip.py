"""asc/chip.py declares the Ascend chips' sizes once: the seed backend's plans (asc/backends/ascend/soc.py), pyasc's
platform constants and host tiling, and ascend-sim's headers (as -D flags) all read it; no Ascend source writes a
size again, and the emulator follows the flags it is given."""
from __future__ import annotations

import pathlib
import re
import shlex
import subprocess

import pytest

import asc
from asc import chip
from asc.backends.ascend import soc
from asc.lib import host
from asc.runtime import ascend_sim, toolchain

ROOT = pathlib.Path(__file__).resolve().parents[1] / "asc"
SIM = ROOT / "include" / "ascend_sim"
# the Ascend side of asc: where a chip size would be written
ASCEND_SOURCES = [*SIM.rglob("*.h"), *(ROOT / "backends" / "ascend").rglob("*.py"), *(ROOT / "ascendc").rglob("*.py"),
                  *(ROOT / "lib").rglob("*.py"), ROOT / "runtime" / "ascend_sim.py"]
# the header constants that hold chip sizes
SIM_NAMES = ("UB_SIZE", "UB_BLOCK", "SELECT_SCRATCH", "L1_SIZE", "L1_RESERVED", "L0A_SIZE", "L0B_SIZE", "L0C_SIZE",
             "BT_SIZE")


def test_no_chip_size_is_written_twice():
    distinct = {chip.UB_BYTES, chip.L1_BYTES, chip.L0C_BYTES}        # numbers nothing else is made of
    products = {f"{v // 1024} * 1024" for v in distinct}
    for path in ASCEND_SOURCES:
        text = path.read_text()
        for v in distinct:
            assert not re.search(rf"(?<![\w.]){v}(?![\w.])", text), f"{path}: {v} is asc/chip.py's"
        if path.suffix == ".py":
            for p in products:
                assert p not in text, f"{path}: {p} is asc/chip.py's"
        else:
            for name in SIM_NAMES:
                assert not re.search(rf"\b{name}\s*=\s*\d", text), f"{path}: {name} is given a number"


def test_the_headers_read_every_flag_and_only_those():
    used = set()
    for path in SIM.rglob("*.h"):
        used |= set(re.findall(r"\bASC_CHIP_\w+", path.read_text()))
    assert used == set(chip.sim_defines())
    assert ascend_sim.chip_flags() == tuple(f"-D{k}={v}" for k, v in chip.sim_defines().items())


def test_the_python_side_reads_the_chip():
    assert (soc.UB_BYTES, soc.L1_BYTES, soc.L0C_BYTES, soc.SOCS) == (chip.UB_BYTES, chip.L1_BYTES, chip.L0C_BYTES,
                                                                     chip.SOCS)
    assert soc.SELECT_RESERVE == chip.SELECT_SCRATCH
    assert (asc.TOTAL_L1_SIZE.value, asc.TOTAL_L0C_SIZE.value, asc.ONE_BLK_SIZE.value) == \
        (chip.L1_BYTES, chip.L0C_BYTES, chip.UB_BLOCK)
    for name, info in chip.SOCS.items():
        p = host.PlatformAscendC(name)
        M = host.CoreMemType
        assert [p.get_core_mem_size(m) for m in (M.UB, M.L1, M.L0_A, M.L0_B, M.L0_C, M.L2)] == \
            [chip.UB_BYTES, chip.L1_BYTES, chip.L0A_BYTES, chip.L0B_BYTES, chip.L0C_BYTES, info["l2_mb"] << 20]
        assert (p.get_core_num_aiv(), p.get_core_num_aic()) == (info["aiv"], info["aic"])
        assert (p.l1_reserved, p.bt_size) == (chip.L1_RESERVED, chip.BT_BYTES)


PROBE = """#include "kernel_operator.h"
int main() {
    std::printf("%u %u %u %u %u %u %u %u %u %d\\n", ascend_sim::UB_SIZE, ascend_sim::UB_BLOCK,
                ascend_sim::SELECT_SCRATCH, ascend_sim::L1_SIZE, ascend_sim::L0A_SIZE, ascend_sim::L0B_SIZE,
                ascend_sim::L0C_SIZE, ascend_sim::BT_SIZE, ascend_sim::MEM_SIZE[1],
                int(AscendC::GetDataBlockSizeInBytes()));
}
"""


def _probe(tmp_path, flags):
    try:
        cxx = shlex.split(toolchain.compiler())
    except Exception as e:
        pytest.skip(f"no C++ compiler: {e}")
    src, exe = tmp_path / "probe.cpp", tmp_path / "probe"
    src.write_text(PROBE)
    proc = subprocess.run(cxx + ["-std=c++17", "-O0", "-w", "-pthread", *flags, "-I", str(SIM), str(src), "-o",
                                 str(exe)], capture_output=True, text=True)
    if proc.returncode:
        return None, proc.stderr
    return [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()], ""


def test_the_emulator_has_the_chips_sizes_and_follows_the_flags(tmp_path):
    got, err = _probe(tmp_path, ascend_sim.chip_flags())
    assert got == [chip.UB_BYTES, chip.UB_BLOCK, chip.SELECT_SCRATCH, chip.L1_BYTES, chip.L0A_BYTES, chip.L0B_BYTES,
                   chip.L0C_BYTES, chip.BT_BYTES, chip.L1_BYTES - chip.L1_RESERVED, chip.UB_BLOCK], err
    # another chip (a smaller UB and L1): the emulation follows asc/chip.py, it has no numbers of its own
    other = dict(chip.sim_defines(), ASC_CHIP_UB_BYTES=128 * 1024, ASC_CHIP_L1_BYTES=256 * 1024)
    got, err = _probe(tmp_path, [f"-D{k}={v}" for k, v in other.items()])
    assert got is not None and got[0] == 128 * 1024 and got[3] == 256 * 1024, err
    # without the flags the headers refuse to compile, naming where the sizes come from
    got, err = _probe(tmp_path, [])
    assert got is None and "chip_flags" in err
