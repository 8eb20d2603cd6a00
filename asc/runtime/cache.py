"""The disk cache of compiled kernels: content-addressed, private (0700), written atomically."""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import sys

from .. import config as _config
from ..version import __version__
from ..errors import CacheMissError
from . import toolchain


def cache_dir() -> str:
    d = _config.config.cache_dir
    os.makedirs(d, mode=0o700, exist_ok=True)
    return d


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


def path_for(name: str, k: str) -> str:
    sub = os.path.join(cache_dir(), k[:2])
    os.makedirs(sub, mode=0o700, exist_ok=True)
    return os.path.join(sub, f"{name}-{k[:32]}.so")


def log(msg: str) -> None:
    if "compile" in _config.config.log:
        print(f"asc: {msg}", file=sys.stderr)


def _why_not_cached(name: str, signature: str, normalized_ir: str, options: dict) -> str:
    """Compares with the last build of this kernel and signature (an index kept beside the cache)."""
    d = os.path.join(cache_dir(), "index")
    os.makedirs(d, mode=0o700, exist_ok=True)
    entry = os.path.join(d, hashlib.sha256(f"{name}|{signature}".encode()).hexdigest()[:32])
    ir_hash = hashlib.sha256(normalized_ir.encode()).hexdigest()
    opt_hash = hashlib.sha256(toolchain.identity(options).encode()).hexdigest()
    try:
        with open(entry) as f:
            old_ir, old_opt = f.read().split()
    except (OSError, ValueError):
        old_ir = old_opt = None
    tmp = f"{entry}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{ir_hash} {opt_hash}\n")
    os.replace(tmp, entry)
    if old_ir is None:
        return "not in the disk cache"
    if old_ir != ir_hash:
        return "the kernel's source changed since its last build"
    if old_opt != opt_hash:
        return "the compiler, its flags or the kernel's options changed since its last build"
    return "its disk cache entry is missing"


def load_or_build(name: str, normalized_ir: str, render, options: dict, reason: str, signature: str = ""):
    """The loaded library for this kernel: from the disk cache, else compiled (render() gives the source).
    Returns (library, path, compiled: bool, reason)."""
    k = key(normalized_ir, options)
    path = path_for(name, k)
    mode = _config.config.cache_mode
    if mode != "off" and os.path.exists(path):
        try:
            return ctypes.CDLL(path), path, False, reason
        except OSError as e:
            reason = f"{reason}; cache entry corrupt ({e})"
    elif mode != "off":
        reason = f"{reason}; {_why_not_cached(name, signature, normalized_ir, options)}"
    if mode == "must-hit":
        raise CacheMissError(f"ASC_CACHE=must-hit: kernel {name!r} ({signature}) needs compiling: {reason}")
    log(f"compiling {name} ({reason}) -> {path}")
    toolchain.build(render(), path, options, name)
    return ctypes.CDLL(path), path, True, reason


def generated_module(kind: str, name: str, source: str, globals_: dict | None = None):
    """Imports generated kernel source (asc.grad, @lang.vectorize) from a file in the cache, so that the frontend
    and pdb can read it like any source; `globals_` are set before the module runs."""
    import importlib.util
    d = os.path.join(cache_dir(), kind)
    os.makedirs(d, mode=0o700, exist_ok=True)
    path = os.path.join(d, f"{name}_{hashlib.sha256(source.encode()).hexdigest()[:16]}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(globals_ or {})
    spec.loader.exec_module(mod)
    return mod
