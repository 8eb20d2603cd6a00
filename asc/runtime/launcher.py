"""The compiled entry point (`launch.c`, with the allocator of its outputs, `output_cache.c`): built once per machine
and Python, cached, loaded as an extension module. It serves a kernel's steady-state calls without Python; anything
it cannot serve goes to the Python path."""
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

from .. import environment as _config, ir
from ..errors import CacheMissError, ToolchainError, UntrustedCacheError
from ..dtypes import HANDLES, bfloat16_imported
from . import cache, seal, toolchain

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "launch.c")
# the files of the module: compiled together (SOURCES), and all of them part of the cache key (FILES)
SOURCES = (SOURCE, os.path.join(_HERE, "output_cache.c"))
FILES = SOURCES + (os.path.join(_HERE, "output_cache.h"),)
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
    except (UntrustedCacheError, CacheMissError):
        raise                                         # a refused cache or ASC_CACHE=must-hit: said, not hidden
    except (ToolchainError, OSError, ImportError):
        return None


class _Build:
    """One compile of launch.c into a temporary file beside the cache entry `path`, as a background process:
    finish() waits for it and moves the result into place (os.replace: another process building the same entry at
    the same time only replaces one complete file with another)."""

    def __init__(self, path: str, key: str):
        import subprocess
        d, suffix = os.path.dirname(path), importlib.machinery.EXTENSION_SUFFIXES[0]
        cmd = shlex.split(toolchain.compiler()) + [
            "-x", "c", OPT, "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], "-I", np.get_include()]
        self.path, self.key, self.owner = path, key, os.getpid()
        fd, self.tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=d)
        os.close(fd)
        self.errors = None
        try:
            self.errors = tempfile.TemporaryFile()    # not a pipe: nobody reads it while the compiler runs
            # a process group of its own: cancel() kills the compiler's children (cc1, as, ld) with it
            # "-x c" before each source: the g++ driver compiles a second file as C++ otherwise
            self.cmd = cmd + [x for src in SOURCES for x in ("-x", "c", src)] + ["-o", self.tmp]
            self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=self.errors, start_new_session=True)
        except BaseException:
            if self.errors is not None:
                self.errors.close()
            _unlink(self.tmp)
            raise

    def finish(self):
        """Waits for the compiler: True when the module is in place, False when it failed (logged), None when a
        signal killed it (worth another try)."""
        import subprocess
        timeout = _config.config.compile_timeout or None
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:             # a compiler that never returns (ASC_COMPILE_TIMEOUT)
            self.cancel()
            cache.log(f"the compiled launcher did not build within {timeout:g} s (ASC_COMPILE_TIMEOUT); calls take "
                      f"the Python path")
            return False
        except BaseException:                         # KeyboardInterrupt while waiting: nothing is left running
            self.cancel()
            raise
        if rc == 0:
            self.errors.close()
            try:
                toolchain.finish(self.tmp, self.path, self.key, "the compiled launcher", self.cmd)
            except ToolchainError as e:
                cache.log(f"the compiled launcher did not build (calls take the Python path): {e}")
                return False
            finally:
                _unlink(self.tmp)
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
                toolchain.finish(self.tmp, self.path, self.key, "the compiled launcher", self.cmd)
            except (ToolchainError, OSError):
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


@functools.lru_cache(maxsize=None)
def _source_digest() -> bytes:
    h = hashlib.sha256()
    for path in FILES:
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read())
    return h.digest()


def _key() -> str:
    """The full cache key of the launcher: this source, Python, NumPy and compiler (its build record holds it)."""
    return hashlib.sha256(_source_digest() + sys.version.encode() + np.__version__.encode() + OPT.encode() +
                          toolchain.identity({}).encode()).hexdigest()


def _path() -> str:
    """The cache entry of the launcher (in a trusted cache directory: asc/runtime/trust.py; a read-only cache's
    when it holds it)."""
    key = _key()
    return cache.locate(("launch", f"_asc_launch-{key[:24]}{importlib.machinery.EXTENSION_SUFFIXES[0]}"), key)


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
            path, key = _path(), _key()
            problem = None if _config.config.cache_mode == "must-hit" else seal.verify(path, key)
            if problem is None:
                return                                # in the cache; nothing compiles under must-hit (module() says)
            _rebuilding(problem)
            _pending.append(_Build(path, key))
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


def _rebuilding(problem: str) -> None:
    if problem != seal.MISSING:
        cache.log(f"the compiled launcher's {problem}: rebuilding it")


def _load():
    path, key = _path(), _key()
    with _load_lock:
        job = _take(path)
        problem = seal.verify(path, key) if job is None else None     # the file and its build record, trusted
        if problem is not None:
            _must_build(path, problem)
            _rebuilding(problem)
            job = _Build(path, key)
        if job is not None and not _finish(job, path, key):
            return None
        try:
            mod = _import(path)
        except ImportError as e:       # intact as recorded, yet it does not import: built again once, when cached
            if job is not None:
                cache.log(f"the compiled launcher does not load (calls take the Python path): {e}")
                return None
            problem = f"cache entry does not load ({e})"
            _must_build(path, problem)
            _rebuilding(problem)
            if not _finish(_Build(path, key), path, key):
                return None
            try:
                mod = _import_fresh(path)
            except ImportError as e:
                cache.log(f"the compiled launcher does not load (calls take the Python path): {e}")
                return None
    mod.set_cache_limit(_config.config.output_cache_mb << 20)
    return mod


def _must_build(path: str, problem: str) -> None:
    if _config.config.cache_mode == "must-hit":
        raise CacheMissError(f"ASC_CACHE=must-hit: the compiled launcher needs compiling ({problem}: "
                             f"{path}). Run once without ASC_CACHE=must-hit to fill the cache.")


def _finish(job: _Build, path: str, key: str) -> bool:
    """Waits for the build `job`; a compiler killed by a signal is run once more, here and now."""
    built = job.finish()
    if built is None:
        built = _Build(path, key).finish()
    return bool(built)


def _import(path: str):
    spec = importlib.util.spec_from_file_location("_asc_launch", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _import_fresh(path: str):
    """Imports the launcher rebuilt at `path` through a name of its own: the dynamic loader answers a second dlopen
    of a path it opened already with the library it opened then (the one that did not import)."""
    fd, link = tempfile.mkstemp(prefix=".tmp-load-", suffix=importlib.machinery.EXTENSION_SUFFIXES[0],
                                dir=os.path.dirname(path))
    os.close(fd)
    try:
        os.unlink(link)
        os.link(path, link)            # the same (just verified) file; a link, not a copy
        return _import(link)
    finally:
        _unlink(link)                  # the loaded library stays mapped


_torch_set = [False, False]     # [shared, with bfloat16]


def share_torch(mod) -> None:
    """Lets the launcher take torch CPU tensors, once torch is imported (asc never imports torch itself). bfloat16
    joins the table once ml_dtypes is imported (a bfloat16 row needs it first: asc.dtypes.bfloat16_np), so a table
    shared before is shared again then."""
    torch = sys.modules.get("torch")
    bf16 = bfloat16_imported()
    if (_torch_set[0] and _torch_set[1] == bf16) or torch is None or not hasattr(torch, "from_numpy"):
        return
    table = {}
    for h in HANDLES.values():
        t = getattr(torch, h.ir.name, None)
        if isinstance(t, torch.dtype) and (h.ir != ir.bfloat16 or bf16):
            table[h.np.num] = t
    mod.set_torch(torch.Tensor, torch.from_numpy, table, HANDLES[ir.bfloat16].np.num if bf16 else -1)
    _torch_set[:] = [True, bf16]


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
            size = spec.size_params.get(p.index, None) if hasattr(spec, "size_params") else None
            # an int argument used as a size: the value the row was built for, or the size symbol it binds
            dims_ = () if size is None else ((size,) if isinstance(size, int) else (-(syms[size] + 1),))
            params.append((kind, -1 if python_number else HANDLES[arg_dtype].np.num, dims_, False))
    allocs = tuple((HANDLES[o.type.dtype].np.num, dims(o.type.shape)) for o in k.outputs if o.kind == "alloc")
    souts = tuple(HANDLES[o.type.dtype].np.num for o in k.outputs if o.kind == "scalar")
    rets = tuple(({"param": "p", "alloc": "a", "scalar": "s"}[o.kind], o.index) for o in k.outputs)
    return (entry_address, int(bool(k.symbols)), len(k.symbols), tuple(params), allocs, souts, rets,
            bool(k.returns_tuple)) + ((size_program(k, syms),) if k.sizes else ())


_SIZE_OPS = {"add": 2, "sub": 3, "mul": 4, "floordiv": 5, "mod": 6}


def size_program(k: ir.Kernel, syms: dict) -> tuple:
    """The launcher's program of k's sizes computed from sizes (ir.SizeDef, in order): derive() in launch.c."""
    code = []

    def emit(e):
        if isinstance(e, ir.Const):     # (a constant past int64: an op derive() refuses, so the Python path)
            code.extend((0, int(e.value)) if -2 ** 63 <= int(e.value) < 2 ** 63 else (8, 0))
        elif isinstance(e, ir.Var):
            code.extend((1, syms[e.name]))
        elif isinstance(e, ir.Cast):
            emit(e.x)
        else:
            emit(e.a)
            emit(e.b)
            code.extend((_SIZE_OPS[e.op], 0))
    for d in k.sizes:
        emit(d.expr)
        code.extend((7, syms[d.name]))
    return tuple(code)
