"""What the disk cache trusts (docs/security.md): it loads nothing from a directory or entry that is not the user's
own or that others can write (a planted library would run its constructor in the user's process); a library is
loaded only when its build record names the key asked for and its bytes are intact (a library of another kernel
at the entry's path, a truncated library: rebuilt, never loaded); a cache this process cannot write is still read,
and kernels compile into a temporary cache of the process with a warning. Each case runs the victim in a new
process, as a user's next run would."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import asc
from asc.errors import UntrustedCacheError
from asc.runtime import cache, seal, trust

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(asc.__file__)))
REAL_CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(REAL_CXX is None, reason="no C++ compiler: nothing is built")

# root ignores permission bits; the child drops that power (CAP_DAC_OVERRIDE) so that a read-only cache is one
DROP_DAC = textwrap.dedent('''
    import ctypes, os
    if os.geteuid() == 0:
        class _H(ctypes.Structure): _fields_ = [("v", ctypes.c_uint32), ("pid", ctypes.c_int)]
        class _D(ctypes.Structure): _fields_ = [("e", ctypes.c_uint32), ("p", ctypes.c_uint32), ("i", ctypes.c_uint32)]
        _h, _d = _H(0x20080522, 0), (_D * 2)()
        _libc = ctypes.CDLL(None)
        assert _libc.capget(ctypes.byref(_h), _d) == 0
        _d[0].e &= ~6; _d[0].p &= ~6          # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        assert _libc.capset(ctypes.byref(_h), _d) == 0
''')

KERNEL = textwrap.dedent('''
    import sys
    import numpy as np
    import asc.language as lang

    @lang.kernel
    def twice(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * 2.0
        return out

    @lang.kernel
    def axpy(a: float, x: lang.float64[N], y: lang.float64[N]):
        for i in range(N):
            y[i] = a * x[i] + y[i]

    x = np.arange(10, dtype=np.float32)
    assert (twice(x) == x * 2).all(), twice(x)
    if "axpy" in sys.argv:
        y = np.ones(1000)
        axpy(3.0, np.arange(1000.0), y)
        assert (y == 3.0 * np.arange(1000.0) + 1).all()
    print("stats", twice.cache_info()["compiles"], twice.cache_info()["disk_hits"])
''')

PLANTED = textwrap.dedent('''
    #include <stdio.h>
    __attribute__((constructor)) static void planted(void) {
        FILE* f = fopen(MARKER, "w");
        if (f) { fputs("the planted library ran", f); fclose(f); }
    }
    int asc_entry(void* a, void* b) { (void)a; (void)b; return 0; }
''')


def run(tmp_path, *args, drop_dac=False, **env):
    path = tmp_path / "k.py"
    path.write_text("from __future__ import annotations\n" + (DROP_DAC if drop_dac else "") + KERNEL)
    e = {k: v for k, v in os.environ.items() if k not in ("ASC_CACHE", "ASC_LOG", "CXX", "CC", "ASC_CFLAGS")}
    e.update(ASC_CACHE_DIR=str(tmp_path / "cache"), ASC_LOG="compile",
             PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [e.get("PYTHONPATH")] if p]), **env)
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, env=e, cwd=tmp_path,
                          timeout=300)


def entry(tmp_path, name):
    """The library of kernel `name` in the cache (the one entry of that name)."""
    found = [p for p in (tmp_path / "cache").rglob(f"{name}-*.so") if "ascend-sim" not in p.parts]
    assert len(found) == 1, found
    return found[0]


def plant(tmp_path, at):
    """A library whose constructor writes a marker file, put at `at` with a build record that matches it (what an
    attacker who can write the directory would leave)."""
    marker = tmp_path / "planted-ran"
    src = tmp_path / "planted.c"
    src.write_text(PLANTED)
    subprocess.run([REAL_CXX, "-x", "c", "-shared", "-fPIC", f'-DMARKER="{marker}"', str(src), "-o", str(at)],
                   check=True)
    key = dict(line.split(" ", 1) for line in open(seal.seal_path(str(at))).read().splitlines()[1:])["key"]
    tmp = str(at) + ".new"
    shutil.copy(at, tmp)
    seal.install(tmp, str(at), key)
    return marker


def test_a_cache_dir_others_can_write_is_refused_before_anything_loads(tmp_path):
    assert run(tmp_path).returncode == 0
    so = entry(tmp_path, "twice")
    marker = plant(tmp_path, so)
    (tmp_path / "cache").chmod(0o777)
    r = run(tmp_path)
    assert r.returncode != 0 and "UntrustedCacheError" in r.stderr
    assert f"cache directory {tmp_path / 'cache'}: others can write it (mode 0777)" in r.stderr
    assert f"chmod go-w {tmp_path / 'cache'}" in r.stderr and "ASC_CACHE_DIR" in r.stderr
    assert not marker.exists()
    (tmp_path / "cache").chmod(0o700)
    (so.parent).chmod(0o770)                              # an entry's own directory, writable by the group
    r = run(tmp_path)
    assert r.returncode != 0 and f"cache directory {so.parent}: others can write it (mode 0770)" in r.stderr
    assert not marker.exists()


def test_a_launcher_directory_others_can_write_is_refused(tmp_path):
    assert run(tmp_path).returncode == 0
    launch = tmp_path / "cache" / "launch"
    launch.chmod(0o777)
    r = run(tmp_path)
    assert r.returncode != 0 and "UntrustedCacheError" in r.stderr and f"cache directory {launch}" in r.stderr


def test_an_entry_others_can_write_or_own_is_refused(tmp_path, monkeypatch):
    assert run(tmp_path).returncode == 0
    so = entry(tmp_path, "twice")
    marker = plant(tmp_path, so)
    so.chmod(0o722)
    r = run(tmp_path)
    assert r.returncode != 0 and f"cache entry {so}: others can write it (mode 0722)" in r.stderr
    assert f"rm {so}" in r.stderr and not marker.exists()
    so.chmod(0o700)
    if os.geteuid() == 0:                              # root can give the file away: a real foreign owner
        os.chown(so, 65534, 65534)
        r = run(tmp_path)
        assert r.returncode != 0 and f"cache entry {so}: it is owned by uid 65534, not by you (uid 0)" in r.stderr
        assert not marker.exists()
    else:                                              # a user cannot: this process pretends to be another one
        monkeypatch.setattr(trust, "current_uid", lambda: os.geteuid() + 1)
        with pytest.raises(UntrustedCacheError, match="not by you"):
            seal.verify(str(so), "any key")


def test_a_library_of_another_kernel_at_the_entry_path_is_rebuilt_not_loaded(tmp_path):
    first = run(tmp_path, "axpy")
    assert first.returncode == 0, first.stderr
    twice, axpy = entry(tmp_path, "twice"), entry(tmp_path, "axpy")
    shutil.copy(axpy, twice)                           # another kernel's valid library, with its record
    shutil.copy(seal.seal_path(str(axpy)), seal.seal_path(str(twice)))
    must = run(tmp_path, ASC_CACHE="must-hit")
    assert must.returncode != 0 and "CacheMissError" in must.stderr
    assert "cache entry corrupt (it was built for another kernel or signature)" in must.stderr
    again = run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "built for another kernel or signature" in again.stderr and "compiling twice" in again.stderr
    assert "stats 1 0" in again.stdout
    shutil.copy(axpy, twice)                           # the library alone: its bytes do not match the record
    again = run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "its contents changed since it was built" in again.stderr and "stats 1 0" in again.stdout
    assert "stats 0 1" in run(tmp_path, ASC_CACHE="must-hit").stdout


def test_a_truncated_library_is_rebuilt(tmp_path):
    assert run(tmp_path).returncode == 0
    so = entry(tmp_path, "twice")
    size = so.stat().st_size
    with open(so, "r+b") as f:
        f.truncate(size // 2)
    again = run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"cache entry corrupt (it has {size // 2} bytes; {size} were built)" in again.stderr
    assert "compiling twice" in again.stderr and "stats 1 0" in again.stdout
    assert so.stat().st_size == size
    no_record = run(tmp_path)
    assert "stats 0 1" in no_record.stdout
    os.unlink(seal.seal_path(str(so)))                 # an entry without its record (an older asc's) is rebuilt
    again = run(tmp_path)
    assert "it has no build record" in again.stderr and "stats 1 0" in again.stdout


def test_a_damaged_launcher_is_rebuilt(tmp_path):
    assert run(tmp_path).returncode == 0
    (lib,) = [p for p in (tmp_path / "cache" / "launch").iterdir() if not p.name.endswith(".seal")]
    lib.write_bytes(lib.read_bytes()[:4096])
    again = run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "the compiled launcher's cache entry corrupt (it has 4096 bytes" in again.stderr
    assert seal.verify(str(lib), dict(line.split(" ", 1) for line in
                                      open(seal.seal_path(str(lib))).read().splitlines()[1:])["key"]) is None


def test_a_read_only_cache_is_read_and_new_kernels_go_to_a_temporary_one(tmp_path):
    assert run(tmp_path).returncode == 0
    for d in [tmp_path / "cache", *(p for p in (tmp_path / "cache").rglob("*") if p.is_dir())]:
        d.chmod(0o500)
    try:
        hit = run(tmp_path, drop_dac=True, ASC_CACHE="must-hit")     # everything is there: loaded, not built
        assert hit.returncode == 0, hit.stderr
        assert "stats 0 1" in hit.stdout and "compiling" not in hit.stderr
        assert "CacheWarning" in hit.stderr and f"the kernel cache {tmp_path / 'cache'} cannot be written" in hit.stderr
        new = run(tmp_path, "axpy", drop_dac=True)                   # a kernel not in it compiles elsewhere
        assert new.returncode == 0, new.stderr
        assert "compiling axpy" in new.stderr and "temporary cache" in new.stderr
        assert not list((tmp_path / "cache").rglob("axpy-*"))
    finally:
        for d in [tmp_path / "cache", *(p for p in (tmp_path / "cache").rglob("*") if p.is_dir())]:
            d.chmod(0o700)


def test_generated_python_modules_follow_the_same_rules(tmp_path, monkeypatch):
    import dataclasses
    import asc.environment
    monkeypatch.setattr(asc.environment, "config", dataclasses.replace(asc.environment.config, cache_dir=str(tmp_path / "c")))
    source = "value = 42\n"
    mod = cache.generated_module("vectorize", "gen", source)
    assert mod.value == 42
    (path,) = (tmp_path / "c" / "vectorize").glob("gen_*.py")
    path.write_text("value = 'planted'\n")             # another text under this source's name: written again
    assert cache.generated_module("vectorize", "gen", source).value == 42
    path.chmod(0o666)
    with pytest.raises(UntrustedCacheError, match="others can write it"):
        cache.generated_module("vectorize", "gen", source)
    d = tmp_path / "c" / "autodiff"
    d.mkdir(mode=0o700)
    d.chmod(0o777)
    with pytest.raises(UntrustedCacheError, match=f"cache directory {d}: others can write it"):
        cache.generated_module("autodiff", "gen", source)
    assert not list(d.iterdir())


def test_must_hit_does_not_build_the_launcher(tmp_path):
    assert run(tmp_path).returncode == 0
    shutil.rmtree(tmp_path / "cache" / "launch")
    r = run(tmp_path, ASC_CACHE="must-hit")
    assert r.returncode != 0 and "CacheMissError" in r.stderr
    assert "ASC_CACHE=must-hit: the compiled launcher needs compiling" in r.stderr
    assert list((tmp_path / "cache" / "launch").iterdir()) == []
