"""Whom the kernel cache trusts: a directory or file asc loads code from (a kernel's library, the compiled
launcher, a generated Python module) must belong to the current user and be writable by nobody else. Anything else
is refused before it is opened: a library planted there would run its constructors in this process."""
from __future__ import annotations

import os
import stat
import threading

from ..errors import UntrustedCacheError

_checked: set = set()              # directories found trustworthy in this process (checked once each)
_lock = threading.Lock()


def current_uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else -1


def _problem(st: os.stat_result) -> str | None:
    uid = current_uid()
    if uid >= 0 and st.st_uid != uid:
        return f"it is owned by uid {st.st_uid}, not by you (uid {uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others can write it (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _refuse(what: str, path: str, why: str, fix: str) -> UntrustedCacheError:
    return UntrustedCacheError(
        f"asc will not load compiled code from the {what} {path}: {why}, so a library planted there would run in "
        f"this process. Fix: {fix}, or set ASC_CACHE_DIR to a directory of your own (asc creates it, mode 0700).")


def check_dir(path: str) -> None:
    """Raises UntrustedCacheError unless `path` is a directory of the current user that no one else can write
    (followed through a symbolic link: ASC_CACHE_DIR may be one). Once per directory and process."""
    if path in _checked:
        return
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse("cache directory", path, "it is not a directory", "remove it")
    why = _problem(st)
    if why is not None:
        fix = (f"`chmod go-w {path}`" if why.startswith("others") else
               f"remove it (`rm -rf {path}`: asc rebuilds what it needs)")
        raise _refuse("cache directory", path, why, fix)
    with _lock:
        _checked.add(path)


def check_file(path: str) -> os.stat_result:
    """Raises UntrustedCacheError unless `path` is a regular file (not a link) of the current user that no one
    else can write; its stat otherwise. FileNotFoundError when it is not there."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse("cache entry", path, "it is not a regular file", f"remove it (`rm {path}`)")
    why = _problem(st)
    if why is not None:
        raise _refuse("cache entry", path, why, f"remove it (`rm {path}`: asc rebuilds it)")
    return st


def forget_locks() -> None:
    """In a forked child: a fresh lock (the parent's may have been held by another thread)."""
    global _lock
    _lock = threading.Lock()


def forget() -> None:
    """Forgets the directories checked so far (tests that change a directory's owner or mode)."""
    with _lock:
        _checked.clear()
