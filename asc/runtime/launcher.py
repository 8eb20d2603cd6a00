"""The compiled entry point (`launch.c`): built once per machine and Python, cached, loaded as an extension module.
It serves a kernel's steady-state calls without Python; anything it cannot serve goes to the Python path."""
from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import signal
import sys
import sysconfig
import tempfile
import threading

import numpy as np

from .. import config as _config, ir
from ..errors import ToolchainError
from ..dtypes import HANDLES
from . import cache, toolchain

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.c")
_SCALAR_KIND = {"float64": "d", "float32": "f", "float16": "e", "bfloat16": "E", "int64": "q", "int32": "i",
                "int16": "h", "int8": "b", "uint8": "B", "bool": "?"}


# -O1: compiles in about 2/3 of -O2's time (the first call in a fresh cache waits for it) with the same per-call
# time (measured: 0.124 us for a 16-element call either way); part of the cache key
OPT = "-O1"


@functools.lru_cache(maxsize=None)
def module():
    """The _asc_launch module, or None when it cannot be built (the Python path then serves every call)."""
    try:
        return _load()
    except (ToolchainError, OSError, ImportError):
        return None


class _Build:
    """One compile of launch.c into a temporary file beside the cache entry `path`, as a background process:
    finish() waits for it and moves the result into place (os.replace: another process building the same entry at
    the same time only replaces one complete file with another)."""

    def __init__(self, path: str):
        import subprocess
        d, suffix = os.path.dirname(path), importlib.machinery.EXTENSION_SUFFIXES[0]
        cmd = shlex.split(toolchain.compiler()) + [
            "-x", "c", OPT, "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], "-I", np.get_include()]
        self.path, self.owner = path, os.getpid()
        fd, self.tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=d)
        os.close(fd)
        self.errors = None
        try:
            self.errors = tempfile.TemporaryFile()    # not a pipe: nobody reads it while the compiler runs
            # a process group of its own: cancel() kills the compiler's children (cc1, as, ld) with it
            self.proc = subprocess.Popen(cmd + [SOURCE, "-o", self.tmp], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=self.errors, start_new_session=True)
        except BaseException:
            if self.errors is not None:
                self.errors.close()
            _unlink(self.tmp)
            raise

    def finish(self):
        """Waits for the compiler: True when the module is in place, False when it failed (logged), None when a
        signal killed it (worth another try)."""
        try:
            rc = self.proc.wait()
        except BaseException:                         # KeyboardInterrupt while waiting: nothing is left running
            self.cancel()
            raise
        if rc == 0:
            self.errors.close()
            try:
                _put(self.tmp, self.path)
            except OSError:
                _unlink(self.tmp)
                raise
            return True
        _unlink(self.tmp)
        self.errors.seek(0)
        stderr = self.errors.read().decode(errors="replace")
        self.errors.close()
        if rc < 0:
            return None
        cache.log(f"the compiled launcher did not build (calls take the Python path): {stderr[-2000:]}")
        return False

    def cancel(self) -> None:
        """Reaps the compiler: a build that already succeeded is kept, a running one is killed."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
        self.proc.wait()
        self.errors.close()
        if self.proc.returncode == 0:
            try:
                _put(self.tmp, self.path)
                return
            except OSError:
                pass
        _unlink(self.tmp)


_lock = threading.Lock()         # guards _pending
_load_lock = threading.Lock()    # one build at a time in this process
_pending: list = []              # the build start() began and module() has not taken yet (at most one)
_atexit_set: list = []


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _record(path: str) -> str:
    """The file beside a built launcher that holds the SHA-256 of what was built."""
    return path + ".sha256"


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _put(tmp: str, path: str) -> None:
    """Moves a built launcher into place, with the record of its digest (written first: a process that reads the
    pair between the two moves sees a mismatch and rebuilds, never loads a file the record does not vouch for)."""
    rec = tmp + ".sha256"
    with open(rec, "w") as f:
        f.write(_digest(tmp) + "\n")
    try:
        os.replace(rec, _record(path))
    except OSError:
        _unlink(rec)
        raise
    os.replace(tmp, path)


def damage(path: str) -> str | None:
    """What is wrong with the cached launcher at `path` (truncated, overwritten, its record missing...), "" when
    there is none, None when it is whole: the file is what was built (its SHA-256 is the one recorded at build
    time). A damaged file is never loaded: dlopen of a truncated library can kill the process (SIGBUS)."""
    try:
        have = _digest(path)
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"it cannot be read: {e.strerror}"
    try:
        with open(_record(path)) as f:
            want = f.read().strip()
    except FileNotFoundError:
        return "the record of what was built is missing"
    except OSError as e:
        return f"the record of what was built cannot be read: {e.strerror}"
    if have != want:
        return f"its content ({os.path.getsize(path)} bytes) is not what was built"
    return None


def _discard(path: str, why: str) -> None:
    """Removes a damaged launcher (and its record) so that it is built again, and says so under ASC_LOG=compile."""
    cache.log(f"the cached launcher {os.path.basename(path)} is damaged ({why}): removed, building it again")
    _unlink(path)
    _unlink(_record(path))


@functools.lru_cache(maxsize=None)
def _source_digest() -> bytes:
    with open(SOURCE, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def _path() -> str:
    """The cache entry of the launcher for this source, Python, NumPy and compiler."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    key = hashlib.sha256(_source_digest() + sys.version.encode() + np.__version__.encode() + OPT.encode() +
                         toolchain.identity({}).encode()).hexdigest()[:24]
    d = os.path.join(cache.cache_dir(), "launch")
    os.makedirs(d, mode=0o700, exist_ok=True)
    return os.path.join(d, f"_asc_launch-{key}{suffix}")


def _take(path: str | None = None):
    """The pending background build, removed from _pending; None when there is none for `path` (one started by
    another process before a fork is that process's to reap and is forgotten here)."""
    with _lock:
        job = _pending.pop() if _pending else None
    if job is None or job.owner != os.getpid():
        return None
    if path is not None and job.path != path:          # the cache directory changed since (config.reload())
        job.cancel()
        return None
    return job


def start() -> None:
    """Starts compiling the launcher in the background when module() has not loaded it and it is not in the disk
    cache, so that it builds while the first kernel compiles; module() waits for it. Never raises: a build that
    cannot start is left to module(), which reports why."""
    if module.cache_info().currsize:
        return
    with _lock:
        if _pending and _pending[0].owner == os.getpid():
            return
        _pending.clear()
        try:
            path = _path()
            why = damage(path)
            if why is None:
                return
            if why:
                _discard(path, why)
            _pending.append(_Build(path))
        except (ToolchainError, OSError, ImportError, ValueError):
            return
        if not _atexit_set:
            atexit.register(cancel)
            _atexit_set.append(True)


def cancel() -> None:
    """Reaps a background build that module() will not wait for (the first kernel failed to compile, or the
    interpreter exits): no compiler is left running and no zombie remains."""
    job = _take()
    if job is not None:
        job.cancel()


def _load():
    path = _path()
    with _load_lock:
        if not _ensure_built(path):
            return None
        try:
            mod = _import(path)
        except (ImportError, OSError) as e:           # whole as built, yet it does not load: build it once more
            _discard(path, f"it does not load: {e}")
            if not _ensure_built(path):
                return None
            try:
                mod = _import_fresh(path)
            except (ImportError, OSError) as e:
                cache.log(f"the compiled launcher does not load (calls take the Python path): {e}")
                return None
    mod.set_cache_limit(_config.config.output_cache_mb << 20)
    return mod


def _ensure_built(path: str) -> bool:
    """The launcher at `path` is in place and whole (built now, or by the background build, when it was not):
    True; False when it did not build (logged)."""
    job = _take(path)
    if job is None:
        why = damage(path)
        if why is None:
            return True
        if why:
            _discard(path, why)
        job = _Build(path)
    built = job.finish()
    if built is None:                         # its compiler was killed: build again, here and now
        built = _Build(path).finish()
    if built:
        why = damage(path)
        if why is not None:                   # replaced meanwhile (by another process) with a damaged file
            cache.log(f"the compiled launcher was damaged right after its build ({why or 'it is gone'}); calls "
                      f"take the Python path in this process")
            return False
    return bool(built)


def _import(path: str):
    loader = importlib.machinery.ExtensionFileLoader("_asc_launch", path)
    spec = importlib.util.spec_from_file_location("_asc_launch", path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _import_fresh(path: str):
    """Imports the rebuilt launcher at `path` through a name of this attempt's own: the dynamic loader answers a
    second dlopen of a path it already opened with the library it opened then (the one that did not load)."""
    fd, link = tempfile.mkstemp(prefix=".load-", suffix=importlib.machinery.EXTENSION_SUFFIXES[0],
                                dir=os.path.dirname(path))
    os.close(fd)
    try:
        os.unlink(link)
        os.link(path, link)
        return _import(link)
    finally:
        _unlink(link)         # the loaded library stays mapped


_torch_set = [False]


def share_torch(mod) -> None:
    """Lets the launcher take torch CPU tensors, once torch is imported (asc never imports torch itself)."""
    torch = sys.modules.get("torch")
    if _torch_set[0] or torch is None or not hasattr(torch, "from_numpy"):
        return
    table = {}
    for h in HANDLES.values():
        t = getattr(torch, h.ir.name, None)
        if isinstance(t, torch.dtype):
            table[h.np.num] = t
    mod.set_torch(torch.Tensor, torch.from_numpy, table, HANDLES[ir.bfloat16].np.num)
    _torch_set[0] = True


def row(spec, entry_address: int):
    """The launcher's table row for a compiled specialization (see Launcher.add in launch.c)."""
    k: ir.Kernel = spec.ir
    syms = {name: i for i, name in enumerate(k.symbols)}

    def dims(shape):
        return tuple(d if isinstance(d, int) else -(syms[d.name] + 1) for d in shape)

    params = []
    for p, ps, key in zip(k.entry.params, spec.kernel.specs, spec.key):
        t = p.var.type
        written = p.var.name in spec.written
        if isinstance(t, ir.TensorType):
            params.append(("t", HANDLES[t.dtype].np.num, dims(t.shape), written))
        else:
            kind = _SCALAR_KIND.get(t.dtype.name, "x")
            _, arg_dtype, python_number = key      # what the specialization was made for: ("s", dtype, pyweak)
            if ps.kind == "any" and kind == "d" and python_number:
                kind = "D"
            params.append((kind, -1 if python_number else HANDLES[arg_dtype].np.num, (), False))
    allocs = tuple((HANDLES[o.type.dtype].np.num, dims(o.type.shape)) for o in k.outputs if o.kind == "alloc")
    souts = tuple(HANDLES[o.type.dtype].np.num for o in k.outputs if o.kind == "scalar")
    rets = tuple(({"param": "p", "alloc": "a", "scalar": "s"}[o.kind], o.index) for o in k.outputs)
    return (entry_address, int(bool(k.symbols)), len(k.symbols), tuple(params), allocs, souts, rets,
            bool(k.returns_tuple))
