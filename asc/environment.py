"""Every environment variable asc reads, in one place. Read once at import; `reload()` re-reads (tests)."""
from __future__ import annotations

import os
from dataclasses import dataclass


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "asc")


@dataclass(frozen=True)
class Config:
    debug: bool                 # ASC_DEBUG=1: every kernel runs in the interpreter
    cache_dir: str              # ASC_CACHE_DIR
    cache_mode: str             # ASC_CACHE: "" (normal), "off" (never reuse the disk cache), "must-hit"
    log: frozenset              # ASC_LOG=compile,...
    cc: str | None              # CC
    cxx: str | None             # CXX
    num_threads: int            # ASC_NUM_THREADS, else OMP_NUM_THREADS, else the CPU count
    cflags: tuple               # ASC_CFLAGS: extra flags appended to the compile command
    output_cache_mb: int        # ASC_OUTPUT_CACHE_MB: freed kernel outputs kept mapped for reuse (default 1024)
    memory_check: bool          # ASC_MEMORY_CHECK=1: compiled kernels check every index
    numeric_check: bool         # ASC_NUMERIC_CHECK=1: nan/inf in a kernel's outputs is an error
    cann_twin: str | None       # ASC_CANN_TWIN: the folder of the CANN twin's run_twin.sh (scripts/cann_twin.py)
    compile_timeout: float      # ASC_COMPILE_TIMEOUT: seconds one C++ compile may take (default 600; 0: no limit)
    pyasc_capture: str | None   # ASC_PYASC_CAPTURE: a folder; each pyasc kernel launch that succeeds saves its
                                # emitted source, inputs and outputs there (scripts/pyasc_twin.py --captured)


def _int(name: str, default: int) -> int:
    try:
        return max(0, int(os.environ.get(name, default)))
    except ValueError:
        return default


def _seconds(name: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(name, default)))
    except ValueError:
        return default


def _read() -> Config:
    threads = os.environ.get("ASC_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or ""
    try:
        n = int(threads.split(",")[0])
    except ValueError:
        n = 0
    if n <= 0:
        n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return Config(
        debug=_flag("ASC_DEBUG"),
        cache_dir=os.environ.get("ASC_CACHE_DIR") or _default_cache_dir(),
        cache_mode=os.environ.get("ASC_CACHE", "").strip().lower(),
        log=frozenset(x.strip() for x in os.environ.get("ASC_LOG", "").split(",") if x.strip()),
        cc=os.environ.get("CC") or None,
        cxx=os.environ.get("CXX") or None,
        num_threads=n,
        cflags=tuple(os.environ.get("ASC_CFLAGS", "").split()),
        output_cache_mb=_int("ASC_OUTPUT_CACHE_MB", 1024),
        memory_check=_flag("ASC_MEMORY_CHECK"),
        numeric_check=_flag("ASC_NUMERIC_CHECK"),
        cann_twin=os.environ.get("ASC_CANN_TWIN") or None,
        compile_timeout=_seconds("ASC_COMPILE_TIMEOUT", 600.0),
        pyasc_capture=os.environ.get("ASC_PYASC_CAPTURE") or None,
    )


config = _read()


def reload() -> Config:
    global config
    config = _read()
    return config
