"""The operands of pyasc calls in a kernel: the values a call gives (a LocalTensor, a scalar, nothing), the binding of
arguments to an overload of the API table, and their conversion to C text by role (tensors, counts, scalars in an
element type, masks, data types, positions), with the SetFlag/WaitFlag pairs insert_sync needs before an access.
Used by api_calls.py (functions and constructors) and methods.py (methods of kernel objects)."""
from __future__ import annotations

from ..errors import KernelTypeError
from . import api as api_mod
from . import data_types as dtypes, enums
from .values import Const, Val


def ltensor(dtype, text, root=None, pos=None) -> Val:
    return Val("ltensor", text, f"AscendC::LocalTensor<{dtype.cname}>", dtype, root, (("pos", pos),))


def void(text) -> Val:
    return Val("call", text, "void")


def scalar(text, dtype) -> Val:
    return Val("scalar", text, dtype.cname, dtype)


# ------------------------------------------------------------------ overloads of the table

def bind(tr, node, a: api_mod.Api, args, kwargs):
    """(signature, {param name: value}) of the first overload that takes these arguments."""
    errors = []
    for sig in a.sigs:
        names = [p.name for p in sig.params]
        if len(args) > len(names):
            errors.append(f"{len(names)} parameters")
            continue
        got = dict(zip(names, args))
        bad = [k for k in kwargs if k not in names or k in got]
        if bad:
            errors.append(f"no parameter {bad[0]!r}")
            continue
        got.update(kwargs)
        missing = [p.name for p in sig.params if p.name not in got and not p.optional]
        if missing:
            errors.append(f"missing {', '.join(missing)}")
            continue
        structs = [p.name for p in sig.params if p.role == "n" and isinstance(got.get(p.name), Val) and
                   got[p.name].kind == "struct"]
        if structs:        # a parameter struct where this overload takes a count: the next overload
            errors.append(f"{structs[0]} is a count")
            continue
        return sig, got
    forms = " | ".join("(" + ", ".join(p.name + ("=" + repr(p.default) if p.optional else "")
                                       for p in s.params) + ")" for s in a.sigs)
    raise tr.err(node, f"asc.{a.name}: no overload takes these arguments ({'; '.join(errors)}); the forms are "
                       f"{forms}", KernelTypeError)


def tensor_of(tr, node, v, name, api_name, want=("ltensor", "gtensor")):
    if not isinstance(v, Val) or v.kind not in want:
        what = v.value if isinstance(v, Const) else v.kind
        raise tr.err(node, f"asc.{api_name}: {name} must be a {' or '.join(want)}, got {what!r}", KernelTypeError)
    return v


def scalar_as(tr, node, v, dtype, what) -> str:
    if isinstance(v, Const):
        if isinstance(v.value, bool) or not isinstance(v.value, (int, float)):
            raise tr.err(node, f"{what} must be a number, got {v.value!r}", KernelTypeError)
        val = v.value
        if dtype.is_int:
            if isinstance(val, float) and val != int(val):
                raise tr.err(node, f"{what} {val!r} is not a {dtype.name} value", KernelTypeError)
            val = int(val)
            lit = str(val)
        else:
            lit = tr.value_text(Const(float(val)), node)
        return f"static_cast<{dtype.cname}>({lit})"
    if v.kind != "scalar":
        raise tr.err(node, f"{what} must be a scalar, got a {v.kind}", KernelTypeError)
    if v.dtype is dtype:
        return v.text
    return f"static_cast<{dtype.cname}>({v.text})"


def mask_text(tr, node, v) -> str:
    if isinstance(v, Const) and isinstance(v.value, (tuple, list)):
        vals = list(v.value)
        if len(vals) != 2 or not all(isinstance(x, int) and 0 <= x < 2**64 for x in vals):
            raise tr.err(node, "a bit mask is a list of two 64-bit unsigned ints [high, low]", KernelTypeError)
        name = tr.fresh("mask")
        tr.parts.append(f"uint64_t {name}[2] = {{{', '.join(str(x) + 'ULL' for x in vals)}}};")
        return name
    if isinstance(v, Const) and isinstance(v.value, tuple) is False and isinstance(v.value, int):
        return f"{v.value}" if v.value < 2**31 else f"{v.value}ULL"
    return tr.int_text(v, node)


def pipe_of(a: api_mod.Api, tensors) -> str | None:
    if a.pipe != "copy":
        return a.pipe
    kinds = [t.kind for _, _, t in tensors]
    if kinds and kinds[0] == "gtensor":
        return "MTE3"
    if "gtensor" in kinds:
        return "MTE2"
    return "V"


def sync_before(tr, pipe, tensors):
    """The SetFlag/WaitFlag pairs insert_sync needs before an access of these tensors on `pipe`."""
    if not tr.prog.insert_sync or pipe is None:
        return
    for role, _, t in tensors:
        if t.kind != "ltensor" or t.root is None:
            continue
        for ev in tr.prog.sync.access(t.root, pipe, "w" if role == "dst" else "r"):
            tr.parts.append(f"AscendC::SetFlag<AscendC::HardEvent::{ev}>(0); "
                            f"AscendC::WaitFlag<AscendC::HardEvent::{ev}>(0);")


# ------------------------------------------------------------------ compile-time arguments

def dtype_arg(tr, node, v, what):
    if not (isinstance(v, Const) and isinstance(v.value, dtypes.DataType)):
        raise tr.err(node, f"{what} must be a data type (asc.float32, x.dtype, ...)", KernelTypeError)
    return v.value


def pos_arg(tr, node, v, what):
    if not (isinstance(v, Const) and isinstance(v.value, enums.TPosition)):
        raise tr.err(node, f"{what} must be an asc.TPosition member", KernelTypeError)
    return v.value
