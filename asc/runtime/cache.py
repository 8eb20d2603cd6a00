"""The disk cache of compiled kernels: content-addressed, private (0700), written atomically."""
from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import os
import shutil
import sys
import tempfile
import threading
import warnings

from .. import environment as _config
from ..version import __version__
from ..errors import CacheMissError, CacheWarning, ToolchainError
from . import seal, toolchain, trust


_roots: dict = {}                 # configured directory -> the directory this process writes entries to
_roots_lock = threading.Lock()


def cache_dir() -> str:
    """The directory this process writes cache entries to: ASC_CACHE_DIR (private, 0700; refused with
    UntrustedCacheError when it is another user's or others can write it), or, when it cannot be written, a
    temporary cache of this process's own (a CacheWarning says so once; removed at exit)."""
    d = _config.config.cache_dir
    root = _roots.get(d)
    if root is not None:
        return root
    with _roots_lock:
        if d not in _roots:
            _roots[d] = _writable_root(d)
        return _roots[d]


def _writable_root(d: str) -> str:
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
    except OSError as e:
        return _fallback(d, e)
    trust.check_dir(d)
    try:
        fd, probe = tempfile.mkstemp(prefix=".tmp-probe-", dir=d)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return _fallback(d, e)
    return d


def _fallback(d: str, e: OSError) -> str:
    tmp = tempfile.mkdtemp(prefix="asc-cache-")
    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(tmp, True))     # not by a forked child
    warnings.warn(f"asc: the kernel cache {d} cannot be written ({e.strerror or e}); this process compiles into "
                  f"a temporary cache ({tmp}, removed at exit), so kernels compile again in every process. Fix: make "
                  f"{d} writable, or set ASC_CACHE_DIR to a directory you can write.", CacheWarning, stacklevel=3)
    return tmp


def readonly_root() -> str | None:
    """The configured cache directory when this process cannot write it (its entries are still loaded)."""
    d = _config.config.cache_dir
    return d if cache_dir() != d else None


def subdir(*parts: str) -> str:
    """A private folder inside the cache: each level created 0700 (whatever the umask) and trust-checked."""
    path = cache_dir()
    os.makedirs(path, mode=0o700, exist_ok=True)      # (made again if it was removed since)
    for p in parts:
        path = os.path.join(path, p)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        trust.check_dir(path)
    return path


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=None)
def compiler_fingerprint() -> str:
    """The IR, the builtin table, the passes, the renderers and the pipeline that turn the IR into C++, by file size
    and modification time (a few stats, no reads): a kernel cached by an edited or upgraded asc of the same version
    is not loaded for a new one."""
    parts = []

    def scan(rel: str):                 # os.scandir: the stat of each entry comes with the listing
        try:
            entries = sorted(os.scandir(os.path.join(_PKG, rel)), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if e.is_dir() and e.name != "__pycache__":
                scan(f"{rel}/{e.name}")
            elif e.name.endswith(".py"):
                st = e.stat()
                parts.append(f"{rel}/{e.name}:{st.st_size}:{st.st_mtime_ns}")
    for sub in ("ir", "builtins", "passes", "backends"):
        scan(sub)
    try:
        st = os.stat(os.path.join(_PKG, "compiler.py"))
        parts.append(f"compiler.py:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        pass
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def key(normalized_ir: str, options: dict) -> str:
    h = hashlib.sha256()
    for part in (__version__, compiler_fingerprint(), toolchain.identity(options), normalized_ir):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def log(msg: str) -> None:
    if "compile" in _config.config.log:
        print(f"asc: {msg}", file=sys.stderr)


def _why_not_cached(name: str, signature: str, normalized_ir: str, options: dict) -> str:
    """Compares with the last build of this kernel and signature (an index kept beside the cache)."""
    entry = os.path.join(subdir("index"), hashlib.sha256(f"{name}|{signature}".encode()).hexdigest()[:32])
    ir_hash = hashlib.sha256(normalized_ir.encode()).hexdigest()
    opt_hash = hashlib.sha256(toolchain.identity(options).encode()).hexdigest()
    try:
        with open(entry) as f:
            old_ir, old_opt = f.read().split()
    except (OSError, ValueError):
        old_ir = old_opt = None
    seal.write_atomic(entry, f"{ir_hash} {opt_hash}\n".encode())
    if old_ir is None:
        return "not in the disk cache"
    if old_ir != ir_hash:
        return "the kernel's source changed since its last build"
    if old_opt != opt_hash:
        return "the compiler, its flags or the kernel's options changed since its last build"
    return "its disk cache entry is missing"


_loaded: dict = {}                 # (path, key) -> the library loaded from it in this process
_key_locks: dict = {}              # key -> the lock its first load or build holds (one build per key and process)
_locks_lock = threading.Lock()


def _key_lock(k: str) -> threading.Lock:
    with _locks_lock:
        lock = _key_locks.get(k)
        if lock is None:
            lock = _key_locks[k] = threading.Lock()
        return lock


def _after_fork_in_child() -> None:
    """A lock another thread of the parent held when it forked stays held in the child forever: the child starts
    with fresh ones (the parent's build in progress is not the child's; the child builds for itself)."""
    global _locks_lock, _roots_lock
    _locks_lock, _roots_lock = threading.Lock(), threading.Lock()
    _key_locks.clear()
    trust.forget_locks()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _lookups(parts: tuple, write_path: str) -> list:
    """Where an entry may be: the configured cache when it is read-only (trusted), then the one written to."""
    out = []
    ro = readonly_root()
    if ro is not None and os.path.isdir(ro):
        trust.check_dir(ro)
        path, ok = ro, True
        for p in parts[:-1]:
            path = os.path.join(path, p)
            if not os.path.isdir(path):
                ok = False
                break
            trust.check_dir(path)
        if ok:
            out.append(os.path.join(path, parts[-1]))
    return out + [write_path]


def locate(parts: tuple, k: str) -> str:
    """The path of entry `parts` (its path inside the cache): in the configured cache when this process cannot write
    it and it holds the entry for key `k` intact, else in the cache this process writes (where it may be missing)."""
    write_path = os.path.join(subdir(*parts[:-1]), parts[-1])
    for path in _lookups(parts, write_path)[:-1]:
        if seal.verify(path, k) is None:
            return path
    return write_path


def library(parts: tuple, k: str, build, what: str, reason: str, why_missing=None):
    """The loaded library of cache entry `parts` (its path inside the cache) for the full key `k`: loaded when its
    build record names `k` and its bytes are intact, else built by `build(path, reason)` (which must leave the library
    sealed at `path`: toolchain.build does). One load or build per key and process; every other thread waits for
    it. `what` names the entry in messages. Returns (library, path, compiled: bool, reason)."""
    write_path = os.path.join(subdir(*parts[:-1]), parts[-1])
    mode = _config.config.cache_mode
    with _key_lock(k):
        if mode != "off":
            for path in _lookups(parts, write_path):
                lib = _loaded.get((path, k))
                if lib is not None:
                    return lib, path, False, reason
                problem = seal.verify(path, k)
                if problem is None:
                    try:
                        lib = ctypes.CDLL(path)
                    except OSError as e:
                        problem = f"cache entry corrupt ({e})"
                    else:
                        _loaded[(path, k)] = lib
                        return lib, path, False, reason
                if problem != seal.MISSING:
                    break
            if problem == seal.MISSING:
                problem = why_missing() if why_missing is not None else "not in the disk cache"
            reason = f"{reason}; {problem}" if reason else problem
        if mode == "must-hit":
            raise CacheMissError(f"ASC_CACHE=must-hit: {what} needs compiling: {reason}. Run it once without "
                                 f"ASC_CACHE=must-hit (same machine, compiler and flags) to fill the cache.")
        build(write_path, reason)
        try:
            lib = ctypes.CDLL(write_path)
        except OSError as e:
            raise ToolchainError(f"the library the C++ compiler built for {what} does not load: {e}. Check the "
                                 f"compiler and ASC_CFLAGS; the library is {write_path}") from None
        _loaded[(write_path, k)] = lib
        return lib, write_path, True, reason


def load_or_build(name: str, normalized_ir: str, render, options: dict, reason: str, signature: str = ""):
    """The loaded library for this kernel: from the disk cache, else compiled (render() gives the source).
    Returns (library, path, compiled: bool, reason)."""
    k = key(normalized_ir, options)

    def build(path: str, why: str) -> None:
        log(f"compiling {name} ({why}) -> {path}")
        toolchain.build(render(), path, options, name, k)

    return library((k[:2], f"{name}-{k[:32]}.so"), k, build, f"kernel {name!r} ({signature})", reason,
                   lambda: _why_not_cached(name, signature, normalized_ir, options))


def generated_module(kind: str, name: str, source: str, globals_: dict | None = None):
    """Imports generated kernel source (asc.grad, @lang.vectorize) from a file in the cache, so that the frontend
    and pdb can read it like any source; `globals_` are set before the module runs. The file runs only when it is
    the user's own and holds exactly `source` (else it is written again)."""
    import importlib.util
    path = os.path.join(subdir(kind), f"{name}_{hashlib.sha256(source.encode()).hexdigest()[:16]}.py")
    data = source.encode()
    try:
        trust.check_file(path)
        with open(path, "rb") as f:
            same = f.read() == data
    except FileNotFoundError:
        same = False
    if not same:
        seal.write_atomic(path, data)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(globals_ or {})
    spec.loader.exec_module(mod)
    return mod
