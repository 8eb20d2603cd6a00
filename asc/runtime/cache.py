"""The disk cache of compiled kernels: content-addressed, private (0700), written atomically."""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys

from .. import __version__, config as _config
from ..errors import CacheMissError
from . import toolchain


def cache_dir() -> str:
    d = _config.config.cache_dir
    os.makedirs(d, mode=0o700, exist_ok=True)
    return d


def key(normalized_ir: str, options: dict) -> str:
    h = hashlib.sha256()
    for part in (__version__, toolchain.identity(options), normalized_ir):
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


def load_or_build(name: str, normalized_ir: str, render, options: dict, reason: str):
    """The loaded library for this kernel: from the disk cache, else compiled (render() gives the source).
    Returns (library, path, compiled: bool)."""
    k = key(normalized_ir, options)
    path = path_for(name, k)
    mode = _config.config.cache_mode
    if mode != "off" and os.path.exists(path):
        try:
            return ctypes.CDLL(path), path, False
        except OSError as e:
            reason = f"cache entry corrupt ({e})"
    elif mode != "off":
        reason = reason + ", not in the disk cache"
    if mode == "must-hit":
        raise CacheMissError(f"ASC_CACHE=must-hit: kernel {name!r} needs compiling ({reason})")
    log(f"compiling {name} ({reason}) -> {path}")
    toolchain.build(render(), path, options, name)
    return ctypes.CDLL(path), path, True
