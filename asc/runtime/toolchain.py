"""The system C++ compiler: finding it, its identity (for cache keys), and building a shared library."""
from __future__ import annotations

import functools
import hashlib
import os
import platform
import shlex
import shutil
import signal
import subprocess
import tempfile

from .. import environment as _config
from ..errors import ToolchainError
from . import seal

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


# -march for a machine other than the host's (a cross build: `flags(options, machine="aarch64")`), where
# -march=native cannot ask the CPU: the baseline asc supports there. aarch64: ARMv8.2-A with half-precision
# arithmetic (Kunpeng 920, Neoverse N1 / Graviton 2, Apple M1 and later; NEON, no SVE); x86-64: x86-64-v2 (SSE4.2).
# A native build on either keeps -march=native. The aarch64 build is checked under qemu-user:
# tests/runtime/test_aarch64_qemu.py, docs/cpu.md "aarch64".
CROSS_MARCH = {"aarch64": ("-march=armv8.2-a+fp16",), "x86_64": ("-march=x86-64-v2",)}


def flags(options: dict, user: bool = True, machine: str | None = None) -> tuple:
    """The compile flags for these kernel options; with `user`, the user's ASC_CFLAGS last. `machine` (a key of
    CROSS_MARCH, e.g. "aarch64") builds for that machine instead of the host: its -march replaces -march=native."""
    out = list(BASE_FLAGS)
    if machine is not None and machine != platform.machine():
        if machine not in CROSS_MARCH:
            raise ToolchainError(f"no cross-build flags for machine {machine!r} (known: {', '.join(CROSS_MARCH)})")
        i = out.index("-march=native")
        out[i:i + 1] = CROSS_MARCH[machine]
    if options.get("fastmath"):
        # FMA contraction and reciprocal division, but nan/inf and signed zeros keep their meaning (asc_math.h
        # relies on them; -ffast-math would break its special cases)
        out = [f for f in out if f != "-ffp-contract=off"] + ["-ffp-contract=fast", "-freciprocal-math",
                                                             "-fno-signed-zeros", "-fno-trapping-math"]
    if user:
        out += list(_config.config.cflags)
    return tuple(out)


# the compiled code's vector ISA, read from the compiler's predefined macros for the kernels' flags: (macro, feature)
_ISA_MACROS = (("__SSE4_2__", "sse4.2"), ("__AVX__", "avx"), ("__AVX2__", "avx2"), ("__FMA__", "fma"),
               ("__F16C__", "f16c"), ("__AVX512F__", "avx512f"), ("__AVX512BW__", "avx512bw"),
               ("__AVX512DQ__", "avx512dq"), ("__AVX512VL__", "avx512vl"), ("__AVX512BF16__", "avx512bf16"),
               ("__AVX512FP16__", "avx512fp16"), ("__ARM_NEON", "neon"), ("__ARM_FEATURE_FMA", "fma"),
               ("__ARM_FEATURE_FP16_VECTOR_ARITHMETIC", "fp16"), ("__ARM_FEATURE_SVE", "sve"),
               ("__ARM_FEATURE_SVE2", "sve2"))


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "Hardware")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _isa_name(features: list, machine: str) -> str:
    """The widest vector ISA of these compiler features: AVX-512, AVX2, AVX, SSE4.2 or SSE2 (x86-64); SVE or NEON
    (aarch64)."""
    for feature, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4.2", "SSE4.2"),
                          ("sve", "SVE"), ("neon", "NEON")):
        if feature in features:
            return name
    return "SSE2" if machine in ("x86_64", "AMD64") else "scalar"


@functools.lru_cache(maxsize=None)
def _probe(cxx: str, flags: tuple) -> dict:
    """What the compiler `cxx` targets with `flags`: its version, the features its predefined macros say, and (gcc)
    what -march and the preferred vector width resolve to."""
    base = shlex.split(cxx) + [f for f in flags if f not in ("-shared", "-fPIC") and not f.startswith("-W")]
    out = {"compiler_version": "", "features": [], "march": "", "prefer_vector_width": ""}

    def ask(args):
        try:
            return subprocess.run(args, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.SubprocessError):
            return ""
    out["compiler_version"] = (ask(shlex.split(cxx) + ["--version"]).splitlines() or [""])[0].strip()
    macros = set(line.split()[1] for line in ask(base + ["-dM", "-E", "-x", "c++", os.devnull]).splitlines()
                 if line.startswith("#define ") and len(line.split()) > 1)
    out["features"] = list(dict.fromkeys(name for m, name in _ISA_MACROS if m in macros))
    for line in ask(base + ["-Q", "--help=target"]).splitlines():       # gcc only (clang: empty)
        words = line.split()
        if len(words) == 2 and words[0] in ("-march=", "-mprefer-vector-width="):
            out["march" if words[0] == "-march=" else "prefer_vector_width"] = words[1]
    return out


def target_isa(options: dict | None = None) -> dict:
    """The ISA compiled kernels run on, for the flags of these kernel options (ASC_CFLAGS included): the machine,
    the CPU, the vector ISA the compiler targets (its name, its features, what -march resolves to) and the compiler
    with its flags. Benchmarks print it, so that figures from different ISAs are never compared blindly."""
    cxx = compiler()
    fl = flags(options or {})
    p = _probe(cxx, fl)
    machine = platform.machine()
    return {"isa": _isa_name(p["features"], machine), "features": p["features"], "machine": machine,
            "cpu": _cpu_model(), "march": p["march"], "prefer_vector_width": p["prefer_vector_width"],
            "compiler": cxx, "compiler_version": p["compiler_version"], "flags": " ".join(fl),
            "asc_cflags": " ".join(_config.config.cflags)}


def describe_isa(info: dict) -> str:
    """Two lines for a benchmark's header: the ISA (`ISA AVX2 (sse4.2 avx avx2 fma f16c; -march resolves to
    x86-64-v3) on x86_64 AMD EPYC`), then the compiler and its flags."""
    march = f"; -march resolves to {info['march']}" if info["march"] else ""
    width = f", preferred vector width {info['prefer_vector_width']}" if info["prefer_vector_width"] else ""
    user = f", ASC_CFLAGS={info['asc_cflags']!r}" if info["asc_cflags"] else ""
    return (f"ISA {info['isa']} ({' '.join(info['features']) or 'no vector extensions'}{march}{width}) on "
            f"{info['machine']} {info['cpu']}\n"
            f"compiler {info['compiler_version'] or info['compiler']}{user}: {info['flags']}")


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


def run(cmd: list, what: str) -> subprocess.CompletedProcess:
    """Runs the compiler command `cmd` (`what` it compiles, for messages) in a process group of its own, within
    ASC_COMPILE_TIMEOUT seconds: past that, or on KeyboardInterrupt, the compiler and its children (cc1plus, as,
    ld) are killed. Raises ToolchainError when it cannot start or does not finish in time."""
    timeout = _config.config.compile_timeout or None
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", start_new_session=True)
    except OSError as e:
        raise ToolchainError(f"could not run the C++ compiler {cmd[0]!r}: {e}. " + INSTALL_HINT) from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise ToolchainError(
            f"the C++ compiler did not finish compiling {what} within {timeout:g} s and was stopped "
            f"(ASC_COMPILE_TIMEOUT={timeout:g}). If it is only slow, raise ASC_COMPILE_TIMEOUT (seconds; 0: no "
            f"limit); if it hangs, check the compiler with the command: {shlex.join(cmd)}") from None
    except BaseException:
        _kill(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.communicate()


def finish(tmp: str, out_path: str, key: str, what: str, cmd: list) -> None:
    """Checks that the compiler's output `tmp` is a complete shared library and moves it to `out_path` with its
    build record (asc/runtime/seal.py); ToolchainError when the compiler left none or a damaged one."""
    why = seal.incomplete(tmp) if os.path.exists(tmp) else "it wrote no file"
    if why is not None:
        seal.unlink(tmp)
        raise ToolchainError(f"the C++ compiler reported success on {what} but its output is not a complete shared "
                             f"library: {why}. The compiler or the disk is at fault (a full disk, a killed linker, "
                             f"a wrapper script): check `df` and the command: {shlex.join(cmd)}")
    seal.install(tmp, out_path, key)


def build(source: str, out_path: str, options: dict, name: str, key: str = "") -> None:
    """Compiles `source` into the shared library `out_path` (written atomically, with its build record naming the
    cache key `key`: asc/runtime/seal.py)."""
    cxx = compiler()
    d = os.path.dirname(out_path)
    src_path = out_path[:-3] + ".cpp"
    seal.write_atomic(src_path, source.encode())
    fd, tmp_so = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=d)
    os.close(fd)
    try:
        cmd = shlex.split(cxx) + list(flags(options)) + ["-I", INCLUDE_DIR, src_path, "-o", tmp_so]
        proc = run(cmd, f"kernel {name!r}")
        if proc.returncode != 0:
            raise ToolchainError(_failure(cxx, name, cmd, src_path, proc.stderr, options, d))
        finish(tmp_so, out_path, key, f"kernel {name!r}", cmd)
    finally:
        seal.unlink(tmp_so)


def _failure(cxx: str, name: str, cmd: list, src_path: str, stderr: str, options: dict, d: str) -> str:
    """The message for a failed kernel compile. With ASC_CFLAGS set, the compile runs once more without them: when
    it then passes, the user's flags are at fault (said so); otherwise it is a bug in asc."""
    tail = f"Repro command: {shlex.join(cmd)}\nGenerated source: {src_path}\n{stderr[-4000:]}"
    bug = "(this is a bug in asc; please report it)"
    user = " ".join(_config.config.cflags)
    if not user:
        return f"the C++ compiler failed on kernel {name!r} {bug}.\n{tail}"
    fd, probe = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=d)
    os.close(fd)
    try:
        retry = run(shlex.split(cxx) + list(flags(options, user=False)) + ["-I", INCLUDE_DIR, src_path, "-o", probe],
                    f"kernel {name!r} without ASC_CFLAGS").returncode
    except ToolchainError:
        retry = None
    finally:
        seal.unlink(probe)
    if retry == 0:
        return (f"the C++ compiler failed on kernel {name!r} because of your ASC_CFLAGS ({user!r}): it compiles "
                f"without them. Fix or unset ASC_CFLAGS.\n{tail}")
    if retry is None:
        return (f"the C++ compiler failed on kernel {name!r} with your ASC_CFLAGS ({user!r}): try without them; if "
                f"it still fails, {bug[1:-1]}.\n{tail}")
    return f"the C++ compiler failed on kernel {name!r}, also without your ASC_CFLAGS ({user!r}) {bug}.\n{tail}"
