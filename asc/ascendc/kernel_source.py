"""A kernel specialization: the arguments bound to the kernel's parameters (tensors in global memory, scalars,
structs, ConstExpr values), and the whole Ascend C source of the kernel with its helpers."""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError
from . import cube, data_types as dtypes, matmul, kernel_structs as struct
from .translate import PRELUDE, FuncTranslator, Program, ident
from .values import Const, Deferred, Val, freeze, param_kind


@dataclass
class Arg:
    name: str
    kind: str              # gm, scalar, struct, const
    dtype: object = None   # gm: DataType; scalar: DataType
    value: object = None   # the Python value


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def classify(jf, name, value, annotation_const: bool) -> Arg:
    if annotation_const:
        if isinstance(value, np.ndarray) or _is_torch(value):
            raise ArgumentError(f"{jf.fn.__name__}(): {name} is asc.ConstExpr and takes a compile-time value, "
                                f"not a tensor")
        return Arg(name, "const", None, value)
    if isinstance(value, np.ndarray):
        if not value.dtype.isnative:
            raise ArgumentError(f"{jf.fn.__name__}(): {name} has non-native byte order ({value.dtype.str}): pass "
                                f"{name}.astype({name}.dtype.newbyteorder('='))")
        d = dtypes.from_numpy(value.dtype)
        if d is None:
            raise ArgumentError(f"{jf.fn.__name__}(): {name} has dtype {value.dtype}, which Ascend C has no type for")
        return Arg(name, "gm", d, value)
    if _is_torch(value):
        d = dtypes.from_torch(value.dtype)
        if d is None:
            raise ArgumentError(f"{jf.fn.__name__}(): {name} has dtype {value.dtype}, which Ascend C has no type for")
        return Arg(name, "gm", d, value)
    if isinstance(value, struct.Struct):
        return Arg(name, "struct", type(value), value)
    if isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
        d = dtypes.of_python(value)
        if d in (dtypes.int32,) and isinstance(value, (int,)) and not isinstance(value, bool):
            d = dtypes.int64
        return Arg(name, "scalar", d, value)
    raise ArgumentError(f"{jf.fn.__name__}(): argument {name} is a {type(value).__name__}; a pyasc kernel takes "
                        f"NumPy arrays, torch CPU tensors, Python scalars, asc structs, and compile-time values "
                        f"for its asc.ConstExpr parameters")


def bind(jf, args, kwargs) -> list:
    try:
        b = jf.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise ArgumentError(f"{jf.fn.__name__}(): {e}") from None
    b.apply_defaults()
    return [classify(jf, n, v, param_kind(jf.fn, n) == "const") for n, v in b.arguments.items()]


def _key(a: Arg):
    if a.kind == "gm":
        return (a.name, "gm", a.dtype.name)
    if a.kind == "scalar":
        return (a.name, "scalar", a.dtype.name)
    if a.kind == "struct":
        return (a.name, "struct", a.dtype)
    return (a.name, "const", freeze(a.value))


class Kernel:
    """One specialization: its source, its C parameters (for the build) and Python line map (for reports)."""

    lines_are_python = True      # the source's #line directives make ascend-sim report Python lines

    def __init__(self, jf, args: list, prog: Program, text: str, params: list):
        self.jf, self.args, self.prog, self.text, self.params = jf, args, prog, text, params
        self.name = ident(jf.fn.__name__)
        self.lib = None

    def python_loc(self, line: int):
        return self.prog.line_files.get(line)


def specialize(jf, args, kwargs) -> Kernel:
    return specialize_bound(jf, bind(jf, args, kwargs))


def specialize_bound(jf, bound: list) -> Kernel:
    """The kernel for these bound arguments (k.args are those of the call that translated it: launch with
    `bound`)."""
    key = tuple(_key(a) for a in bound) + (jf.options.key(),)
    hit = jf.cache.get(key)
    if hit is not None and not jf.options.always_compile:
        return hit
    k = translate_kernel(jf, bound)
    jf.cache[key] = k
    return k


def translate_kernel(jf, bound: list) -> Kernel:
    name = ident(jf.fn.__name__)
    prog = Program(name, jf.options)
    tr = FuncTranslator(prog, jf.fn, is_kernel=True)
    sig, params, spec = [], [], []
    for a in bound:
        cn = ident(a.name)
        if a.kind == "const":
            tr.env[a.name] = Const(a.value)
            spec.append(f"{a.name}={a.value!r}")
        elif a.kind == "gm":
            tr.env[a.name] = Val("gaddr", f"((__gm__ {a.dtype.cname}*){cn})", f"__gm__ {a.dtype.cname}*",
                                 a.dtype)
            sig.append(f"GM_ADDR {cn}")
            params.append(("gm", cn, None))
            spec.append(f"{a.name}: {a.dtype.name}")
        elif a.kind == "scalar":
            ct = a.dtype.cname
            tr.env[a.name] = Val("scalar", cn, ct, a.dtype)
            tr.declare(a.name, ct)
            prog.scalar_params.add(cn)
            sig.append(f"{ct} {cn}")
            params.append(("scalar", cn, ct))
            spec.append(f"{a.name}: {a.dtype.name}")
        else:
            cls = a.dtype
            prog.structs.setdefault(cls, None)
            tr.env[a.name] = Val("struct", cn, cls.__name__, None, None, (("struct", cls),))
            tr.declare(a.name, cls.__name__)
            sig.append(f"{cls.__name__} {cn}")
            params.append(("scalar", cn, cls.__name__))
            spec.append(f"{a.name}: {cls.__name__}")
    if _uses_local_tensor_auto(tr):
        prog.insert_sync = True
    tr.translate_body()
    cube.check_kernel_type(prog, jf.options)
    lines = [f"// Ascend C translated by asc from the pyasc kernel {name!r} "
             f"({os.path.basename(tr.file)}:{tr.first})",
             "// specialized on: " + (", ".join(spec) or "(no parameters)")]
    if prog.uses_matmul and jf.options.matmul_cube_only:
        lines.append("#define ASCENDC_CUBE_ONLY")
    lines.append('#include "kernel_operator.h"')
    for h in sorted({cls.__dict__["_asc_header"] for cls in prog.structs if cls.__dict__.get("_asc_header")}):
        lines.append(f'#include "{h}"')
    if prog.uses_matmul:
        lines.append(matmul.INCLUDE)
    lines.append("")
    if prog.uses_prelude:
        lines += PRELUDE.splitlines() + [""]
    seen: set = set()
    for cls in list(prog.structs):
        lines += cls.c_declarations(seen)
    if prog.structs:
        lines.append("")
    for f in prog.funcs:
        lines += [x.render() if isinstance(x, Deferred) else x for x in f] + [""]
    lines.append(f'extern "C" __global__ __aicore__ void {name}({", ".join(sig)})')
    lines.append("{")
    if jf.options.kernel_type is not None:
        from ..runtime.config import KernelType
        lines.append(f"    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_{KernelType(jf.options.kernel_type).name});")
    elif prog.uses_matmul:
        # as pyasc: a kernel with a Matmul runs on cube and vector cores (MIX 1:2), or on the cube cores only
        kt = "AIC_ONLY" if jf.options.matmul_cube_only else "MIX_AIC_1_2"
        lines.append(f"    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_{kt});")
    body = [x.render() if isinstance(x, Deferred) else x for x in tr.out]
    if prog.autos:
        # one TPipe per kernel: the kernel's own (constructed in its body, not in a branch or loop) where it has
        # one, the buffers given right after it; else asc's
        own = next((i for i, x in enumerate(body) if re.fullmatch(r"    AscendC::TPipe \w+;", x)), None)
        pipe = body[own].split()[1].rstrip(";") if own is not None else "asc_pipe"
        lines.append("    // the Unified Buffer of the LocalTensorAuto tensors, one TBuf each (insert_sync)")
        if own is None:
            lines.append("    AscendC::TPipe asc_pipe;")
        inits = []
        for bid, nbytes in prog.autos:
            lines.append(f"    AscendC::TBuf<AscendC::TPosition::VECCALC> asc_auto_buf_{bid};")
            init = f"    {pipe}.InitBuffer(asc_auto_buf_{bid}, {nbytes});"
            (lines if own is None else inits).append(init)
        if own is not None:
            body[own + 1:own + 1] = inits
    lines += body
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if jf.options.strip_loc:
        text = "\n".join(x for x in text.splitlines() if not x.lstrip().startswith(("#line", "// "))) + "\n"
    return Kernel(jf, bound, prog, text, params)


def _uses_local_tensor_auto(tr) -> bool:
    for n in ast.walk(tr.node):
        if isinstance(n, ast.Attribute) and n.attr == "LocalTensorAuto":
            return True
        if isinstance(n, ast.Name) and n.id == "LocalTensorAuto":
            return True
    return False


