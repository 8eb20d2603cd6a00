"""A precompiled ascend-sim header: `kernel_operator.h` parsed once per cache, not once per kernel.

Every ascend-sim kernel is a .cpp whose first line includes `kernel_operator.h` (the emulation of the Ascend C API,
about 4,500 lines with the standard headers it needs); parsing it is about 40% of compiling a small kernel. The
first compile writes `kernel_operator.h.gch` into a folder of the cache, beside a link to the real header (so a
second `#include "kernel_operator.h"`, in the kernel's own .cpp, finds the header and its `#pragma once`), and later
compiles put that folder first on the include path. The compiler takes the .gch only when it was built with the same
compiler, flags and macros (it silently parses the header otherwise), and it is keyed like a kernel: by the headers'
hash, their folder, the flags, the chip's macros and the compiler. The code built is the same as without it.

Anything that stops the .gch from being built or checked (a compiler without precompiled headers, a file system
without symbolic links, ASC_CACHE=off) leaves compiles as they were: `include_dir` returns None."""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading

from .. import environment as _config
from ..errors import ToolchainError
from . import cache, seal, toolchain

try:
    import fcntl
except ImportError:                     # (not POSIX: no lock between processes; builds are atomic anyway)
    fcntl = None

_ready: dict = {}                        # (key, cache) -> the folder to put first on the include path, or None
_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A child forked while another thread of the parent built the header starts with a free lock (and builds or
    checks for itself)."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def include_dir(cxx: list, flags: list, sim_dir: str, header: str, header_hash: str) -> str | None:
    """The folder holding a valid `kernel_operator.h.gch` for a compile `cxx + flags` (built on first use), or
    None: compile without it."""
    if _config.config.cache_mode == "off":
        return None
    h = hashlib.sha256()
    for part in (header_hash, sim_dir, " ".join(cxx + flags), toolchain.identity({})):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()
    where = (key, cache.cache_dir())          # (a process may change caches: ASC_CACHE_DIR and config.reload())
    d = _ready.get(where, False)
    if d is not False and (d is None or os.path.isdir(d)):
        return d
    with _lock:
        try:
            _ready[where] = _prepare(key, cxx, flags, sim_dir, header)
        except (OSError, ToolchainError) as e:
            cache.log(f"no precompiled ascend-sim header ({e}); kernels parse kernel_operator.h")
            _ready[where] = None
        return _ready[where]


def _prepare(key: str, cxx: list, flags: list, sim_dir: str, header: str) -> str | None:
    d = cache.subdir("ascend-sim", f"pch-{key[:16]}")
    gch = os.path.join(d, "kernel_operator.h.gch")
    with os.fdopen(os.open(os.path.join(d, ".lock"), os.O_RDWR | os.O_CREAT, 0o600), "r+") as lockf:
        if fcntl is not None:
            fcntl.flock(lockf, fcntl.LOCK_EX)         # one process builds it; the others wait, then check it
        try:
            link = os.path.join(d, "kernel_operator.h")
            if not (os.path.islink(link) and os.readlink(link) == header):
                tmp_link = os.path.join(d, f".tmp-link-{os.getpid()}-{threading.get_ident()}")
                seal.unlink(tmp_link)
                os.symlink(header, tmp_link)
                os.replace(tmp_link, link)
            if seal.verify(gch, key) is None:
                return d
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".gch", dir=d)
            os.close(fd)
            try:
                cmd = cxx + flags + ["-I", sim_dir, "-x", "c++-header", header, "-o", tmp]
                cache.log(f"precompiling ascend-sim's kernel_operator.h -> {gch}")
                proc = toolchain.run(cmd, "ascend-sim's kernel_operator.h (precompiled header)")
                if proc.returncode != 0 or os.path.getsize(tmp) == 0:
                    cache.log(f"the compiler did not precompile kernel_operator.h (exit {proc.returncode}); "
                              f"kernels parse it")
                    return None
                seal.install(tmp, gch, key)
            finally:
                seal.unlink(tmp)
            return d
        finally:
            if fcntl is not None:
                fcntl.flock(lockf, fcntl.LOCK_UN)
