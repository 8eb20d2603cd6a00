"""fork() after a parallel kernel: the child runs kernels on one thread.

The OpenMP runtime's thread pool does not survive fork(): the child has the pool's bookkeeping but not its threads,
and its first parallel region waits for them forever (this is how multiprocessing's fork start method and PyTorch
DataLoader workers start). Every cpu kernel library exports `asc_single_thread` (asc_cpu.h); in a child forked from
a process where an OpenMP runtime was loaded, asc sets it to 1 in each kernel library the child has or loads later,
and the kernels' parallel regions run on the calling thread. Results are the same bits: no split of the work depends
on the team size. A child of a process that never loaded an OpenMP runtime keeps its threads.
"""
from __future__ import annotations

import ctypes
import os
import threading

_OPENMP_RUNTIMES = ("libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so")

_lock = threading.Lock()
_libs: list = []          # every cpu kernel library loaded in this process
_single = False           # this process is a fork of one with an OpenMP runtime loaded


def _openmp_loaded() -> bool:
    mode = getattr(os, "RTLD_NOLOAD", 0) | getattr(os, "RTLD_LAZY", 1)
    for name in _OPENMP_RUNTIMES:
        try:
            ctypes.CDLL(name, mode=mode)        # RTLD_NOLOAD: a handle only if it is already in the process
            return True
        except OSError:
            pass
    return False


def _set(lib) -> None:
    try:
        ctypes.c_int.in_dll(lib, "asc_single_thread").value = 1
    except ValueError:                          # a library without the flag (not a cpu kernel)
        pass


def _after_fork_in_child() -> None:
    global _single, _lock
    _lock = threading.Lock()                    # a thread of the parent may have held it
    if _single or _libs or _openmp_loaded():
        _single = True
        for lib in _libs:
            _set(lib)


def adopt(lib) -> None:
    """Records a loaded cpu kernel library (and makes it single-threaded in a forked child)."""
    with _lock:
        _libs.append(lib)
        if _single:
            _set(lib)


def single_threaded() -> bool:
    """Whether kernels of this process run on one thread because it was forked (see the module's text)."""
    return _single


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
