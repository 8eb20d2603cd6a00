"""ascend-sim's precompiled kernel_operator.h (asc/runtime/sim_pch.py): built once per cache, sealed like a kernel,
taken by the compiler (not silently parsed again), rebuilt when damaged, left out with ASC_CACHE=off; kernels
compiled with it give the same results. Each case that needs a fresh process (a damaged file, another cache) runs
one, as a user's next run would."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import asc
from asc.runtime import ascend_sim, seal, sim_pch, toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(asc.__file__)))
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: nothing is built")

KERNEL = textwrap.dedent('''
    from __future__ import annotations
    import numpy as np
    import asc.language as lang

    @lang.kernel(target="ascend-sim")
    def axpb(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * 3.0 + 1.0
        return out

    x = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal(axpb(x), x * np.float32(3.0) + np.float32(1.0))
    print("ok")
''')


def _run(tmp_path, cache_dir, extra_env=None):
    script = tmp_path / "k.py"
    script.write_text(KERNEL)
    env = dict(os.environ, ASC_CACHE_DIR=str(cache_dir), PYTHONPATH=ROOT, **(extra_env or {}))
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-3000:]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache in which one kernel was compiled (so it holds the .gch): each test copies it."""
    tmp = tmp_path_factory.mktemp("pch")
    _run(tmp, tmp / "cache")
    return tmp / "cache"


def _copy(built, tmp_path):
    shutil.copytree(built, tmp_path / "cache", symlinks=True)
    return tmp_path / "cache"


def _pch_dirs(cache_dir):
    d = cache_dir / "ascend-sim"
    return sorted(p for p in d.iterdir() if p.name.startswith("pch-")) if d.is_dir() else []


def _flags():
    return list(ascend_sim.FLAGS) + list(ascend_sim.chip_flags())


def test_the_compiler_takes_the_precompiled_header(tmp_path):
    """`-H` marks a precompiled header the compiler used with `!`: a .gch it rejected would be parsed again
    silently (the -w of ascend-sim's flags hides -Winvalid-pch), so the test asks the compiler itself."""
    cxx = shlex.split(toolchain.compiler())
    d = sim_pch.include_dir(cxx, _flags(), ascend_sim.SIM_DIR, ascend_sim.HEADER, ascend_sim._header_hash())
    assert d is not None and os.path.isfile(os.path.join(d, "kernel_operator.h.gch"))
    assert os.path.realpath(os.path.join(d, "kernel_operator.h")) == os.path.realpath(ascend_sim.HEADER)
    src = tmp_path / "t.cpp"
    src.write_text('#include "kernel_operator.h"\n#include "kernel_operator.h"\n'
                   'extern "C" int one() { return AscendC::GetBlockNum() > 0; }\n')
    p = subprocess.run(cxx + _flags() + ["-H", "-I", d, "-I", ascend_sim.SIM_DIR, str(src), "-o",
                                         str(tmp_path / "t.so")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    used = [line for line in p.stderr.splitlines() if line.startswith("!")]
    assert used and used[0].split()[-1].endswith("kernel_operator.h.gch"), p.stderr[:2000]


def test_built_once_sealed_and_reused(tmp_path, built):
    cache_dir = _copy(built, tmp_path)
    (d,) = _pch_dirs(cache_dir)
    gch = d / "kernel_operator.h.gch"
    assert gch.stat().st_size > 0 and seal.seal_path(str(gch))
    stamp = gch.stat().st_mtime_ns
    # another kernel, another process: the same .gch, not rebuilt
    (tmp_path / "k2.py").write_text(KERNEL.replace("3.0", "5.0").replace("np.float32(3.0)", "np.float32(5.0)"))
    p = subprocess.run([sys.executable, str(tmp_path / "k2.py")], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, ASC_CACHE_DIR=str(cache_dir), PYTHONPATH=ROOT))
    assert p.returncode == 0, p.stderr[-3000:]
    assert _pch_dirs(cache_dir) == [d] and gch.stat().st_mtime_ns == stamp


@pytest.mark.parametrize("damage", ["truncate", "flip", "no_record", "garbage"])
def test_a_damaged_header_is_rebuilt_never_used(tmp_path, built, damage):
    cache_dir = _copy(built, tmp_path)
    (d,) = _pch_dirs(cache_dir)
    gch = d / "kernel_operator.h.gch"
    size, stamp = gch.stat().st_size, gch.stat().st_mtime_ns
    if damage == "truncate":
        with open(gch, "r+b") as f:
            f.truncate(size // 3)
    elif damage == "flip":
        with open(gch, "r+b") as f:
            f.seek(size // 2)
            b = f.read(1)
            f.seek(size // 2)
            f.write(bytes([b[0] ^ 0xFF]))
    elif damage == "no_record":
        os.unlink(seal.seal_path(str(gch)))
    else:
        gch.write_bytes(b"not a precompiled header" * 100)
    for so in (cache_dir / "ascend-sim").rglob("*.so"):        # the kernel compiles again, against the .gch
        so.unlink()
    _run(tmp_path, cache_dir)
    assert seal.verify(str(gch), seal_key(gch)) is None and gch.stat().st_mtime_ns != stamp     # built again


def seal_key(gch) -> str:
    with open(seal.seal_path(str(gch))) as f:
        return dict(line.split(" ", 1) for line in f.read().split("\n")[1:] if " " in line)["key"]


def test_cache_off_builds_none(tmp_path):
    cache_dir = tmp_path / "cache"
    _run(tmp_path, cache_dir, {"ASC_CACHE": "off"})
    assert _pch_dirs(cache_dir) == []


MIX = textwrap.dedent('''
    from __future__ import annotations
    import sys
    import numpy as np
    import asc.language as lang
    from asc.runtime import sim_pch

    if sys.argv[2] == "parse":                    # compile as before the .gch: the header parsed by each kernel
        sim_pch.include_dir = lambda *a, **kw: None

    def mix(x: lang.float16[N], k: lang.int32[N]) -> lang.float32[N]:
        out = lang.empty((N,), lang.float32)
        for i in range(N):
            out[i] = lang.float32(x[i]) * 0.1 + lang.float32(k[i] % 7)
        return out

    rng = np.random.default_rng(0)
    x = rng.standard_normal(1031).astype(np.float16)
    k = rng.integers(-50, 50, 1031).astype(np.int32)
    np.save(sys.argv[1], np.stack([lang.kernel(target="ascend-sim")(mix)(x, k),
                                   lang.kernel(target="interpret")(mix)(x, k)]))
''')


def test_same_results_with_and_without(tmp_path, built):
    """A kernel with 16-bit, integer and float paths compiled with the .gch and with the header parsed (each in
    a process and cache of its own): the same bits, equal to the interpreter's."""
    script = tmp_path / "mix.py"
    script.write_text(MIX)
    out = {}
    _copy(built, tmp_path).rename(tmp_path / "cache-pch")
    for how in ("pch", "parse"):
        env = dict(os.environ, ASC_CACHE_DIR=str(tmp_path / f"cache-{how}"), PYTHONPATH=ROOT)
        p = subprocess.run([sys.executable, str(script), str(tmp_path / f"{how}.npy"), how], env=env,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-3000:]
        out[how] = np.load(tmp_path / f"{how}.npy")
    assert _pch_dirs(tmp_path / "cache-pch") and not _pch_dirs(tmp_path / "cache-parse")
    np.testing.assert_array_equal(out["pch"].view(np.uint32), out["parse"].view(np.uint32))
    np.testing.assert_array_equal(out["pch"][0].view(np.uint32), out["pch"][1].view(np.uint32))


def test_a_process_that_changes_caches_finds_its_header_in_the_new_one(tmp_path, monkeypatch):
    import asc.environment
    cxx = shlex.split(toolchain.compiler())
    args = (cxx, _flags(), ascend_sim.SIM_DIR, ascend_sim.HEADER, ascend_sim._header_hash())
    first = sim_pch.include_dir(*args)
    try:
        monkeypatch.setenv("ASC_CACHE_DIR", str(tmp_path / "other"))
        asc.environment.reload()
        d = sim_pch.include_dir(*args)
        assert d is not None and d.startswith(str(tmp_path / "other"))
        assert os.path.isfile(os.path.join(d, "kernel_operator.h.gch"))
    finally:
        monkeypatch.undo()
        asc.environment.reload()
    assert sim_pch.include_dir(*args) == first
