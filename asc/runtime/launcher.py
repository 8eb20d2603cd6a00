"""The compiled entry point (`launch.c`): built once per machine and Python, cached, loaded as an extension module.
It serves a kernel's steady-state calls without Python; anything it cannot serve goes to the Python path."""
from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import sys
import sysconfig
import tempfile

import numpy as np

from .. import config as _config, ir
from ..errors import ToolchainError
from ..language.dtypes import HANDLES
from . import cache, toolchain

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.c")
_SCALAR_KIND = {"float64": "d", "float32": "f", "int64": "q", "int32": "i", "int16": "h", "int8": "b",
                "uint8": "B", "bool": "?"}


@functools.lru_cache(maxsize=None)
def module():
    """The _asc_launch module, or None when it cannot be built (the Python path then serves every call)."""
    try:
        return _load()
    except (ToolchainError, OSError, ImportError):
        return None


def _load():
    with open(SOURCE, "rb") as f:
        src = f.read()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    key = hashlib.sha256(src + sys.version.encode() + np.__version__.encode() +
                         toolchain.identity({}).encode()).hexdigest()[:24]
    d = os.path.join(cache.cache_dir(), "launch")
    os.makedirs(d, mode=0o700, exist_ok=True)
    path = os.path.join(d, f"_asc_launch-{key}{suffix}")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=d)
        os.close(fd)
        cmd = shlex.split(toolchain.compiler()) + [
            "-x", "c", "-O2", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], "-I", np.get_include(),
            SOURCE, "-o", tmp]
        import subprocess
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            os.unlink(tmp)
            cache.log(f"the compiled launcher did not build (calls take the Python path): {proc.stderr[-2000:]}")
            return None
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location("_asc_launch", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.set_cache_limit(_config.config.output_cache_mb << 20)
    return mod


_torch_set = [False]


def share_torch(mod) -> None:
    """Lets the launcher take torch CPU tensors, once torch is imported (asc never imports torch itself)."""
    torch = sys.modules.get("torch")
    if _torch_set[0] or torch is None or not hasattr(torch, "from_numpy"):
        return
    table = {}
    for h in HANDLES.values():
        t = getattr(torch, h.ir.name, None)
        if isinstance(t, torch.dtype):
            table[h.np.num] = t
    mod.set_torch(torch.Tensor, torch.from_numpy, table, HANDLES[ir.bfloat16].np.num)
    _torch_set[0] = True


def row(spec, entry_address: int):
    """The launcher's table row for a compiled specialization (see Launcher.add in launch.c)."""
    k: ir.Kernel = spec.ir
    syms = {name: i for i, name in enumerate(k.symbols)}

    def dims(shape):
        return tuple(d if isinstance(d, int) else -(syms[d.name] + 1) for d in shape)

    params = []
    for p, ps in zip(k.entry.params, spec.kernel.specs):
        t = p.var.type
        written = p.var.name in spec.written
        if isinstance(t, ir.TensorType):
            params.append(("t", HANDLES[t.dtype].np.num, dims(t.shape), written))
        else:
            kind = _SCALAR_KIND.get(t.dtype.name, "x")
            if ps.kind == "any" and kind == "d":
                kind = "D"
            params.append((kind, 0, (), False))
    allocs = tuple((HANDLES[o.type.dtype].np.num, dims(o.type.shape)) for o in k.outputs if o.kind == "alloc")
    souts = tuple(HANDLES[o.type.dtype].np.num for o in k.outputs if o.kind == "scalar")
    rets = tuple(({"param": "p", "alloc": "a", "scalar": "s"}[o.kind], o.index) for o in k.outputs)
    return (entry_address, int(bool(k.symbols)), len(k.symbols), tuple(params), allocs, souts, rets,
            bool(k.returns_tuple))
