"""The methods of pyasc's kernel objects (GlobalTensor, LocalTensor, TQue, TQueBind, TPipe, TBuf) in a kernel: one
row each in METHODS, what the call becomes in Ascend C. api.py declares each method's parameters (bound here as for
any call of the table); a row gives the C text and what the call returns:

  text      the C++ expression; {base} is the object with its `.` (or `->`), {cname} the API table's C name, and
            {param:role} an argument converted by its role:
              n   an integer expression            n?  the same, or nothing when the argument is absent or None
              s   a scalar in the object's element type
              T   a data type (its C name; a LocalTensor result has that element type)
              lt  a LocalTensor                    ev  an asc.HardEvent member
              shape  an asc.ShapeInfo
  returns   "void"; a dtype name ("uint32", "bool_"): a scalar of it; "elem": a scalar of the object's element type;
            "gaddr": the GM address of the tensor's element type; "phyaddr": a UB address (uint64); "shapeinfo";
            "alloc": a new LocalTensor of the T argument at the object's position; "buf": the same, in the TBuf;
            "view": the object's memory as a LocalTensor of the T argument
  sync      "r" / "w": the scalar pipe reads / writes the tensor (insert_sync orders the pipes' accesses first)
  buffer    a GlobalTensor method that needs set_global_buffer first
  special   a handler (SPECIALS) for what a row cannot say

Adding a method: its parameters in api.py, its row here."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CompileError, KernelTypeError
from . import api as api_mod
from . import data_types as dtypes, enums, matmul
from .operands import bind, dtype_arg, ltensor, scalar, scalar_as, sync_before, tensor_of, void
from .values import Const, Deferred, Val


@dataclass(frozen=True)
class Method:
    text: str = ""
    returns: str = "void"
    sync: str | None = None
    buffer: bool = False
    special: str | None = None


# the C++ class of each kind of kernel object
CLASSES = {"gtensor": "GlobalTensor", "ltensor": "LocalTensor", "que": "TQue", "pipe": "TPipe", "pipeptr": "TPipe",
           "buf": "TBuf"}

_QUE = {
    "alloc_tensor": Method("{base}{cname}<{dtype:T}>()", "alloc"),
    "deque": Method("{base}{cname}<{dtype:T}>()", "alloc"),
    "enque": Method("{base}{cname}({tensor:lt})"),
    "free_tensor": Method("{base}{cname}({tensor:lt})"),
    "vacant_in_que": Method("{base}{cname}()", "bool_"),
    "has_tensor_in_que": Method("{base}{cname}()", "bool_"),
    "get_tensor_count_in_que": Method("{base}{cname}()", "int32"),
    "has_idle_buffer": Method("{base}{cname}()", "bool_"),
}

METHODS = {
    ("GlobalTensor", "set_global_buffer"): Method(special="set_global_buffer"),
    ("GlobalTensor", "get_value"): Method("{base}GetValue({offset:n})", "elem", buffer=True),
    ("GlobalTensor", "set_value"): Method("{base}SetValue({offset:n}, {value:s})", buffer=True),
    ("GlobalTensor", "get_size"): Method("{base}GetSize()", "uint64", buffer=True),
    ("GlobalTensor", "get_phy_addr"): Method("{base}GetPhyAddr({offset:n?})", "gaddr", buffer=True),

    ("LocalTensor", "get_value"): Method("{base}GetValue({index:n})", "elem", sync="r"),
    ("LocalTensor", "set_value"): Method("{base}SetValue({index:n}, {value:s})", sync="w", special="note_address"),
    ("LocalTensor", "get_size"): Method("{base}{cname}()", "uint32"),
    ("LocalTensor", "get_length"): Method("{base}{cname}()", "uint32"),
    # a UB address on the NPU (uint64_t), a pointer in CANN's CPU-debug build: the cast serves both; the element
    # type goes with it (TransDataTo5HD's address-tensor form takes it from the addresses)
    ("LocalTensor", "get_phy_addr"): Method("((uint64_t)({base}GetPhyAddr()))", "phyaddr"),
    ("LocalTensor", "get_position"): Method("static_cast<int32_t>({base}GetPosition())", "int32"),
    ("LocalTensor", "get_user_tag"): Method("{base}GetUserTag()", "int32"),
    ("LocalTensor", "set_size"): Method("{base}{cname}({size:n})"),
    ("LocalTensor", "set_buffer_len"): Method("{base}{cname}({len:n})"),
    ("LocalTensor", "set_user_tag"): Method("{base}{cname}({tag:n})"),
    ("LocalTensor", "reinterpret_cast"): Method("{base}ReinterpretCast<{dtype:T}>()", "view"),
    ("LocalTensor", "set_addr_with_offset"): Method("{base}SetAddrWithOffset({src:lt}, {offset:n})"),
    ("LocalTensor", "get_shape_info"): Method("{base}GetShapeInfo()", "shapeinfo"),
    ("LocalTensor", "set_shape_info"): Method("{base}SetShapeInfo({shape_info:shape})"),

    **{("TQue", n): m for n, m in _QUE.items()},
    **{("TQueBind", n): m for n, m in _QUE.items()},
    ("TQueBind", "free_all_event"): Method("{base}FreeAllEvent()"),

    ("TPipe", "init_buffer"): Method(special="init_buffer"),
    ("TPipe", "destroy"): Method("{base}{cname}()"),
    ("TPipe", "init"): Method("{base}{cname}()"),
    ("TPipe", "reset"): Method("{base}{cname}()"),
    ("TPipe", "alloc_event_id"): Method("{base}{cname}<{event:ev}>()", "int32"),
    ("TPipe", "fetch_event_id"): Method("{base}{cname}<{event:ev}>()", "int32"),
    ("TPipe", "release_event_id"): Method("{base}ReleaseEventID<{event:ev}>({id:n})"),

    ("TBuf", "get"): Method("{base}Get<{dtype:T}>({len:n?})", "buf"),
    ("TBuf", "get_with_offset"): Method("{base}GetWithOffset<{dtype:T}>({size:n}, {offset:n})", "buf"),
}

_FIELD = re.compile(r"\{(\w+)(?::(\w+\??))?\}")


def method(tr, node, obj: Val, name: str, args, kwargs):
    """obj.name(*args, **kwargs) in a kernel: the Val it gives."""
    kind = obj.kind
    if kind == "matmul":
        return matmul.method(tr, node, obj, name, args, kwargs)
    if kind == "scalar" and name == "ceildiv":         # pyasc's RuntimeInt.ceildiv(b): (a + b - 1) // b
        if len(args) != 1 or kwargs:
            raise tr.err(node, "ceildiv takes one argument: a.ceildiv(b)", KernelTypeError)
        a0, b0 = obj.text, tr.int_text(args[0], node)
        tr.prog.uses_prelude = True
        return scalar(f"asc_floordiv({a0} + {b0} - 1, {b0})", dtypes.int64)
    cls = CLASSES.get(kind)
    if kind == "que" and obj.ctype.startswith("AscendC::TQueBind<"):
        cls = "TQueBind"        # its own rows of the table (free_all_event is a TQueBind method only)
    a = api_mod.lookup(f"{cls}.{name}") if cls else None
    if a is None:
        raise tr.err(node, f"a {cls or kind} has no method {name!r} in asc", CompileError)
    if a.status != api_mod.SUPPORTED:
        raise tr.err(node, f"{cls}.{name} is not supported yet by asc")
    _, got = bind(tr, node, a, args, kwargs)
    row = METHODS.get((cls, name))
    if row is None:
        raise tr.err(node, f"{cls}.{name} is not supported yet by asc")
    base = f"{obj.text}{'->' if kind == 'pipeptr' else '.'}"
    if row.special == "set_global_buffer":
        return _set_global_buffer(tr, node, obj, got, base)
    if row.special == "init_buffer":
        return _init_buffer(tr, node, got, base)
    if row.buffer and obj.dtype is None:
        raise tr.err(node, "the GlobalTensor has no buffer yet (call set_global_buffer first)")
    targ = []

    def field(m):
        param, role = m.group(1), m.group(2)
        if role is None:
            return {"base": base, "cname": a.cname}[param]
        v = got.get(param)
        if role == "n?":
            return "" if v is None or (isinstance(v, Const) and v.value is None) else tr.int_text(v, node)
        if role == "n":
            return tr.int_text(v, node)
        if role == "s":
            return scalar_as(tr, node, v, obj.dtype, f"{name}: {param}")
        if role == "T":
            targ.append(dtype_arg(tr, node, v, f"{name}: {param}"))
            return targ[-1].cname
        if role == "lt":
            return tensor_of(tr, node, v, param, f"{cls}.{name}", ("ltensor",)).text
        if role == "ev":
            if not (isinstance(v, Const) and isinstance(v.value, enums.HardEvent)):
                raise tr.err(node, f"{name}: {param} must be an asc.HardEvent member", KernelTypeError)
            return v.value.cname
        if role == "shape":
            if not (isinstance(v, Val) and v.kind == "shapeinfo"):
                raise tr.err(node, f"{name} takes an asc.ShapeInfo", KernelTypeError)
            return v.text
        raise ValueError(f"METHODS[{cls}, {name}]: unknown role {role!r}")

    text = _FIELD.sub(field, row.text)
    if row.sync:
        sync_before(tr, "S", [("dst" if row.sync == "w" else "src", "tensor", obj)])
    if row.special == "note_address":
        _note_address(tr, obj, got)
    return _result(row.returns, text, obj, targ[0] if targ else None)


def _result(returns, text, obj, d):
    if returns == "void":
        return void(text)
    if returns == "elem":
        return scalar(text, obj.dtype)
    if returns == "gaddr":
        return Val("gaddr", text, f"const __gm__ {obj.dtype.cname}*", obj.dtype)
    if returns == "phyaddr":
        return Val("scalar", text, "uint64_t", dtypes.uint64, None, (("phy_of", obj.dtype),))
    if returns == "shapeinfo":
        return Val("shapeinfo", text, "AscendC::ShapeInfo")
    if returns == "alloc":
        return ltensor(d, text, None, obj.get("pos"))
    if returns == "buf":
        return ltensor(d, text, ("tbuf", obj.text), obj.get("pos"))
    if returns == "view":
        return ltensor(d, text, obj.root, obj.get("pos"))
    return scalar(text, getattr(dtypes, returns))


# ------------------------------------------------------------------ what a row cannot say

def _note_address(tr, obj, got):
    """A UB address stored in a LocalTensor<uint64_t> (TransDataTo5HD's address lists) keeps its element type."""
    v = got["value"]
    if obj.dtype is dtypes.uint64 and isinstance(v, Val) and v.get("phy_of") is not None:
        tr.prog.addr_elem.setdefault(obj.text, set()).add(v.get("phy_of"))


def _set_global_buffer(tr, node, obj, got, base):
    buf = got["buffer"]
    if not (isinstance(buf, Val) and buf.kind == "gaddr"):
        raise tr.err(node, "set_global_buffer takes a GlobalAddress (a kernel argument, plus an offset)",
                     KernelTypeError)
    var = obj.get("var")
    d = obj.get("deferred")
    if obj.dtype is not None and obj.dtype is not buf.dtype:
        raise tr.err(node, f"the GlobalTensor holds {obj.dtype.name}, the buffer is {buf.dtype.name}",
                     KernelTypeError)
    if var is not None and isinstance(d, Deferred):
        d.ctype = f"AscendC::GlobalTensor<{buf.dtype.cname}>"
        tr.env[var] = Val("gtensor", var, d.ctype, buf.dtype, None, obj.info)
    size = got.get("buffer_size")
    extra = "" if size is None or (isinstance(size, Const) and size.value is None) else \
        ", " + tr.int_text(size, node)
    return void(f"{base}SetGlobalBuffer({buf.text}{extra})")


def _init_buffer(tr, node, got, base):
    if "que" in got:
        q = got["que"]
        if not (isinstance(q, Val) and q.kind == "que"):
            raise tr.err(node, "init_buffer: que must be a TQue", KernelTypeError)
        return void(f"{base}InitBuffer({q.text}, {tr.int_text(got['num'], node)}, "
                    f"{tr.int_text(got['len'], node)})")
    b = got["buf"]
    if not (isinstance(b, Val) and b.kind in ("buf", "que")):
        raise tr.err(node, "init_buffer: buf must be a TBuf", KernelTypeError)
    return void(f"{base}InitBuffer({b.text}, {tr.int_text(got['num'], node)})")
