"""The system C++ compiler: finding it, its identity (for cache keys), and building a shared library."""
from __future__ import annotations

import functools
import hashlib
import os
import platform
import shlex
import shutil
import tempfile

from .. import config as _config
from ..errors import ToolchainError

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")
BASE_FLAGS = ("-O3", "-march=native", "-std=c++17", "-fPIC", "-shared", "-fopenmp", "-fno-math-errno", "-fwrapv",
              "-ffp-contract=off",  # no silent FMA: results match the interpreter bit for bit (fastmath allows it)
              "-fno-semantic-interposition", "-fvisibility=hidden", "-Wno-unused-variable",
              "-Wno-unused-but-set-variable")

INSTALL_HINT = ("asc needs a C++ compiler for the cpu target: install g++ (Debian/Ubuntu: `apt install g++`, "
                "Fedora: `dnf install gcc-c++`, macOS: `xcode-select --install`) or clang++, or set CXX. "
                "Kernels still run without one with target=\"interpret\" or ASC_DEBUG=1.")


@functools.lru_cache(maxsize=None)
def find_cxx(cxx_env: str | None, cc_env: str | None) -> str:
    if cxx_env:
        candidates = [cxx_env]        # the user's choice: no fallback
    elif cc_env:  # CC=clang -> clang++, CC=gcc -> g++
        base = os.path.basename(cc_env)
        candidates = [cc_env.replace(base, base.replace("clang", "clang++").replace("gcc", "g++"))]
    else:
        candidates = ["g++", "clang++", "c++"]
    for c in candidates:
        parts = shlex.split(c)
        if parts and shutil.which(parts[0]):
            return c
    if cxx_env:
        raise ToolchainError(f"CXX={cxx_env!r} was not found. " + INSTALL_HINT)
    raise ToolchainError("no C++ compiler found (tried g++, clang++, c++). " + INSTALL_HINT)


def compiler() -> str:
    cfg = _config.config
    return find_cxx(cfg.cxx, cfg.cc)


@functools.lru_cache(maxsize=None)
def _identity(cxx: str) -> str:
    exe = shutil.which(shlex.split(cxx)[0]) or cxx
    real = os.path.realpath(exe)
    st = os.stat(real)
    return f"{cxx}|{real}|{st.st_size}|{int(st.st_mtime)}"


@functools.lru_cache(maxsize=None)
def host_fingerprint() -> str:
    """The CPU's identity (-march=native code depends on it)."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "model name", "Features", "CPU part")):
                    flags += line
                if line.strip() == "":
                    break
    except OSError:
        pass
    return platform.machine() + ":" + hashlib.sha256(flags.encode()).hexdigest()[:16]


def flags(options: dict) -> tuple:
    out = list(BASE_FLAGS)
    if options.get("fastmath"):
        # FMA contraction and reciprocal division, but nan/inf and signed zeros keep their meaning (asc_math.h
        # relies on them; -ffast-math would break its special cases)
        out = [f for f in out if f != "-ffp-contract=off"] + ["-ffp-contract=fast", "-freciprocal-math",
                                                             "-fno-signed-zeros", "-fno-trapping-math"]
    out += list(_config.config.cflags)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _headers_hash() -> str:
    headers = ""
    for name in sorted(os.listdir(INCLUDE_DIR)):
        if name.endswith(".h"):
            with open(os.path.join(INCLUDE_DIR, name), "rb") as f:
                headers += hashlib.sha256(f.read()).hexdigest()[:16]
    return headers


def identity(options: dict) -> str:
    return "|".join((_identity(compiler()), host_fingerprint(), " ".join(flags(options)), _headers_hash(),
                     repr(sorted(options.items()))))


def build(source: str, out_path: str, options: dict, name: str) -> None:
    """Compiles `source` into the shared library `out_path` (written atomically)."""
    cxx = compiler()
    d = os.path.dirname(out_path)
    fd, tmp_so = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=d)
    os.close(fd)
    src_path = out_path[:-3] + ".cpp"
    fd, tmp_src = tempfile.mkstemp(prefix=".tmp-", suffix=".cpp", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    os.replace(tmp_src, src_path)
    cmd = shlex.split(cxx) + list(flags(options)) + ["-I", INCLUDE_DIR, src_path, "-o", tmp_so]
    try:
        import subprocess
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        os.unlink(tmp_so)
        raise ToolchainError(f"could not run the C++ compiler {cxx!r}: {e}. " + INSTALL_HINT) from None
    if proc.returncode != 0:
        os.unlink(tmp_so)
        raise ToolchainError(
            f"the C++ compiler failed on kernel {name!r} (this is a bug in asc; please report it).\n"
            f"Repro command: {shlex.join(cmd)}\n"
            f"Generated source: {src_path}\n{proc.stderr[-4000:]}")
    os.replace(tmp_so, out_path)
