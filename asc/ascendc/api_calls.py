"""Calls in a pyasc kernel: the Ascend C API (from the declaration table), the constructors of tensors, pipes and
queues, @asc.jit helpers, and compile-time Python calls (folded). The methods of those objects are rows of
methods.py; the operands' conversions are operands.py's."""
from __future__ import annotations

import ast
import builtins
import inspect
import re
import warnings
from dataclasses import replace

from ..errors import AscendRuleWarning, CompileError, KernelTypeError
from . import api as api_mod
from . import aipp, cube, data_types as dtypes, enums, matmul, objects, quant, kernel_structs as struct
from .methods import method
from .operands import (bind, dtype_arg, mask_text, pipe_of, pos_arg, scalar, scalar_as, sync_before, tensor_of,
                       void)
from .values import Bound, Const, Deferred, Val, bind_args, freeze, ident, param_kind

_FOLDABLE = {builtins.int, builtins.float, builtins.bool, builtins.min, builtins.max, builtins.abs, builtins.len,
             builtins.round, builtins.tuple, builtins.list, builtins.isinstance, builtins.str}


# ------------------------------------------------------------------ the entry

def call(tr, node):
    fn = tr.expr(node.func)
    for k in node.keywords:
        if k.arg is None:
            raise tr.err(node, "**kwargs in a kernel call is not supported")
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise tr.err(node, "*args in a kernel call is not supported")
    args = [tr.expr(a) for a in node.args]
    kwargs = {k.arg: tr.expr(k.value) for k in node.keywords}
    if isinstance(fn, Bound):
        return method(tr, node, fn.obj, fn.name, args, kwargs)
    if not isinstance(fn, Const):
        raise tr.err(node.func, "this value cannot be called", KernelTypeError)
    f = fn.value
    if getattr(f, "_asc_jit", False):          # an @asc.jit function (jit.JITFunction)
        return helper_call(tr, node, f, args, kwargs)
    a = getattr(f, "_asc_api", None)
    if a is not None:
        return api_call(tr, node, a, args, kwargs)
    if isinstance(f, type) and issubclass(f, objects.KernelOnly):
        return construct(tr, node, f, args, kwargs)
    if isinstance(f, objects.Params):
        return params_ctor(tr, node, f, args, kwargs)
    if isinstance(f, type) and issubclass(f, struct.Struct):
        return struct_ctor(tr, node, f, args, kwargs)
    if f is objects.ceildiv and not all(isinstance(x, Const) for x in args):
        a0, b0 = (tr.int_text(x, node) for x in args)
        tr.prog.uses_prelude = True
        return scalar(f"asc_floordiv({a0} + {b0} - 1, {b0})", dtypes.int64)
    if f in (builtins.int, builtins.float) and len(args) == 1 and isinstance(args[0], Val):
        v = args[0]
        if v.kind != "scalar":
            raise tr.err(node, f"{f.__name__}() of a {v.kind}", KernelTypeError)
        d = dtypes.int64 if f is builtins.int else dtypes.float32
        return scalar(f"static_cast<{d.cname}>({v.text})", d)
    if f in (builtins.min, builtins.max) and len(args) == 2 and not kwargs and \
            not all(isinstance(x, Const) for x in args):
        a0, b0 = (tr.value_text(x, node) for x in args)
        fl = any((isinstance(x, Const) and isinstance(x.value, float)) or
                 (isinstance(x, Val) and x.dtype is not None and x.dtype.is_float) for x in args)
        op = "<" if f is builtins.min else ">"
        d = dtypes.float32 if fl else dtypes.int64
        return scalar(f"(({a0}) {op} ({b0}) ? ({a0}) : ({b0}))", d)
    if f is builtins.print or f is builtins.breakpoint:
        raise tr.err(node, f"{f.__name__}() does not run inside a compiled pyasc kernel: use asc.printf / "
                           f"asc.dump_tensor")
    if f is builtins.range or f is objects.range:
        raise tr.err(node, "range() is for for-loops")
    if all(isinstance(x, Const) for x in args) and all(isinstance(x, Const) for x in kwargs.values()) and \
            callable(f) and (f in _FOLDABLE or not isinstance(f, type(builtins.len)) or
                             getattr(f, "__module__", "") in ("math", "operator")):
        try:
            return Const(f(*[x.value for x in args], **{k: v.value for k, v in kwargs.items()}))
        except CompileError:
            raise
        except Exception as e:   # noqa: BLE001 -- the user's error, at the user's line
            raise tr.err(node, f"{type(e).__name__}: {e}", CompileError) from None
    raise tr.err(node, f"{getattr(f, '__name__', f)!r} cannot be called with runtime values in a kernel")


def struct_ctor(tr, node, cls, args, kwargs) -> Val:
    """A kernel struct built in the kernel (asc.adv.TCubeTiling(m=..., base_m=...)): a C variable of the struct,
    value-initialized, then each field given or with a non-zero default assigned."""
    if args:
        raise tr.err(node, f"{cls.__name__}(...) in a kernel takes its fields by keyword", KernelTypeError)
    sets = []
    for k, v in kwargs.items():
        fd = cls._asc_fields.get(k)
        if fd is None:
            raise tr.err(node, f"struct {cls.__name__} has no field {k!r}", KernelTypeError)
        if isinstance(fd, struct.StructField):
            raise tr.err(node, f"{cls.__name__}.{k} is a struct: build it on the host", KernelTypeError)
        sets.append((k, scalar_as(tr, node, v, fd.dtype, f"{cls.__name__}: {k}")))
    for k, fd in cls._asc_fields.items():
        if k not in kwargs and isinstance(fd, struct.Field) and fd.default:
            sets.append((k, scalar_as(tr, node, Const(fd.default), fd.dtype, f"{cls.__name__}: {k}")))
        elif k not in kwargs and isinstance(fd, struct.StructField):
            raise tr.err(node, f"{cls.__name__} holds a struct ({k}): build it on the host and pass it to the "
                               f"kernel as an argument")
    tr.prog.structs.setdefault(cls, None)
    external = bool(cls.__dict__.get("_asc_header"))
    after = " ".join(f"{{name}}.{(cls._asc_fields[k].name or k) if external else k} = {t};" for k, t in sets)
    return Val("new", f"{cls.__name__} {{name}}{{}};", cls.__name__, None, None,
               (("kind", "struct"), ("struct", cls), ("after", after)))


def api_call(tr, node, a: api_mod.Api, args, kwargs):
    if a.status != api_mod.SUPPORTED:
        raise tr.err(node, f"asc.{a.name} is not supported yet by asc ({a.note or 'see docs/pyasc.md'})")
    special = SPECIALS.get(a.special)
    if special is not None:
        return special(tr, node, a, args, kwargs)
    sig, got = bind(tr, node, a, args, kwargs)
    cargs, tmpl, tensors = [], [], []
    last_dtype = None
    for p in sig.params:
        if p.name not in got:
            if p.role == "T":
                continue
            if p.optional and p.default is None:
                continue
            got[p.name] = Const(p.default)
        v = got[p.name]
        if p.role in ("dst", "src"):
            t = tensor_of(tr, node, v, p.name, a.name, ("ltensor", "gtensor") if a.pipe == "copy" or
                          a.name == "dump_tensor" else ("ltensor",))
            tensors.append((p.role, p.name, t))
            last_dtype = t.dtype
            cargs.append(t.text)
        elif p.role == "n":
            cargs.append(tr.int_text(v, node))
        elif p.role == "s":
            cargs.append(scalar_as(tr, node, v, last_dtype or dtypes.float32, f"asc.{a.name}: {p.name}"))
        elif p.role == "mask":
            cargs.append(mask_text(tr, node, v))
        elif p.role == "e":
            if not (isinstance(v, Const) and isinstance(v.value, enums.ALL)):
                raise tr.err(node, f"asc.{a.name}: {p.name} must be an enum member (asc.RoundMode..., "
                                   f"asc.CMPMODE...)", KernelTypeError)
            cargs.append(v.value.cname)
        elif p.role == "T":
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise tr.err(node, f"asc.{a.name}: {p.name} must be a compile-time bool", KernelTypeError)
            tmpl.append((p, v.value))
        else:
            cargs.append(tr.value_text(v, node) if isinstance(v, Const) else v.text)
    targs = ""
    if any(val != p.default for p, val in tmpl):
        ts = [t.dtype.cname for _, _, t in tensors if t.kind == "ltensor"][:1 if a.name != "axpy" else 2]
        targs = "<" + ", ".join(ts + [("true" if val else "false") for p, val in tmpl]) + ">"
    sync_before(tr, pipe_of(a, tensors), tensors)
    check_dtypes(tr, node, a, tensors)
    return void(f"AscendC::{a.cname}{targs}({', '.join(cargs)})")


def check_dtypes(tr, node, a, tensors):
    if a.name in ("cast", "compare", "compare_scalar", "select", "dump_tensor", "trans_data_to_5hd") or \
            a.name.startswith("adv."):
        return
    ds = {t.dtype for _, _, t in tensors if t.dtype is not None}
    if a.name == "transpose" and len(tensors) == 3:
        ds = {tensors[0][2].dtype, tensors[1][2].dtype}
    if len(ds) > 1:
        names = ", ".join(f"{n}: {t.dtype.name}" for _, n, t in tensors)
        raise tr.err(node, f"asc.{a.name}: the tensors' element types differ ({names})", KernelTypeError)


# ------------------------------------------------------------------ specials

def sp_flag(tr, node, a, args, kwargs):
    sig, got = bind(tr, node, a, args, kwargs)
    ev = got["event"]
    if not (isinstance(ev, Const) and isinstance(ev.value, enums.HardEvent)):
        raise tr.err(node, f"asc.{a.name}: event must be an asc.HardEvent member", KernelTypeError)
    eid = tr.int_text(got.get("event_id", Const(0)), node)
    return void(f"AscendC::{a.cname}<{ev.value.cname}>({eid})")


def sp_barrier(tr, node, a, args, kwargs):
    sig, got = bind(tr, node, a, args, kwargs)
    p = got["pipe"]
    if not (isinstance(p, Const) and isinstance(p.value, enums.PipeID)):
        raise tr.err(node, "asc.pipe_barrier: pipe must be an asc.PipeID member", KernelTypeError)
    if tr.prog.insert_sync and p.value is enums.PipeID.PIPE_ALL:
        tr.prog.sync.entries.clear()
    return void(f"AscendC::PipeBarrier<{p.value.cname}>()")


def sp_sysvar(tr, node, a, args, kwargs):
    bind(tr, node, a, args, kwargs)
    return scalar(f"AscendC::{a.cname}()", dtypes.int64)


def sp_printf(tr, node, a, args, kwargs):
    if not args or not isinstance(args[0], Const) or not isinstance(args[0].value, str):
        raise tr.err(node, "asc.printf takes a format string first", KernelTypeError)
    fmt = args[0].value.encode("unicode_escape").decode().replace('"', '\\"')
    rest = [tr.value_text(x, node) for x in args[1:]]
    return void("AscendC::printf(" + ", ".join([f'"{fmt}"'] + rest) + ")")


def sp_softmax(tr, node, a, args, kwargs):
    sig, got = bind(tr, node, a, args, kwargs)
    dst, s, m, src = (tensor_of(tr, node, got[k], k, a.name, ("ltensor",)) for k in ("dst", "sum", "max", "src"))
    tiling = got["tiling"]
    tmp = got.get("temp_buffer")
    flags = [bool(got[k].value) if k in got else False for k in ("reuse_source", "basic_block", "data_format_nz")]
    tensors = [("dst", "dst", dst), ("dst", "sum", s), ("dst", "max", m), ("src", "src", src)]
    cargs = [dst.text, s.text, m.text, src.text]
    if tmp is not None and not (isinstance(tmp, Const) and tmp.value is None):
        t = tensor_of(tr, node, tmp, "temp_buffer", a.name, ("ltensor",))
        tensors.append(("dst", "temp_buffer", t))
        cargs.append(t.text)
    cargs.append(tiling.text if isinstance(tiling, Val) else tr.value_text(tiling, node))
    shape = src.get("shape")
    if shape is not None:
        cargs.append(shape)
    sync_before(tr, "V", tensors)
    targs = f"<{dst.dtype.cname}, {', '.join('true' if f else 'false' for f in flags)}>"
    return void(f"AscendC::SoftMax{targs}({', '.join(cargs)})")


def _none(v) -> bool:
    return v is None or (isinstance(v, Const) and v.value is None)


def sp_quant(tr, node, a, args, kwargs):
    sig, got = bind(tr, node, a, args, kwargs)
    dst = tensor_of(tr, node, got["dst"], "dst", a.name, ("ltensor",))
    src = tensor_of(tr, node, got["src"], "src", a.name, ("ltensor",))
    if src.dtype not in (dtypes.float16, dtypes.float32):
        raise tr.err(node, f"asc.adv.quant: src is {src.dtype.name}: AscendQuant quantizes half or float "
                           f"(float16 or float32) to int8", KernelTypeError)
    if dst.dtype is not dtypes.int8:
        raise tr.err(node, f"asc.adv.quant: dst is {dst.dtype.name}: the per-tensor AscendQuant of A2 writes int8 "
                           f"(dst must be an int8 tensor)", KernelTypeError)
    tensors = [("dst", "dst", dst), ("src", "src", src)]
    cargs = [dst.text, src.text]
    tmp = got.get("temp_buffer")
    if not _none(tmp):
        t = tensor_of(tr, node, tmp, "temp_buffer", a.name, ("ltensor",))
        if t.dtype is not dtypes.uint8:
            raise tr.err(node, f"asc.adv.quant: temp_buffer is {t.dtype.name}: AscendQuant's sharedTmpBuffer is a "
                               f"uint8 tensor (its size in bytes)", KernelTypeError)
        tensors.append(("dst", "temp_buffer", t))
        cargs.append(t.text)
    # pyasc materializes scale and offset in src's element type; the C parameters are float
    for k in ("scale", "offset"):
        cargs.append(scalar_as(tr, node, got[k], src.dtype, f"asc.adv.quant: {k}"))
    count = got.get("count")
    if not _none(count):
        cargs.append(tr.int_text(count, node))
    reuse = got.get("reuse_source", Const(False))
    if not (isinstance(reuse, Const) and isinstance(reuse.value, bool)):
        raise tr.err(node, "asc.adv.quant: reuse_source must be a compile-time bool", KernelTypeError)
    targs = [src.dtype.cname, "true" if reuse.value else "false"]
    cfg = got.get("config")
    if not _none(cfg):
        if not (isinstance(cfg, Const) and isinstance(cfg.value, quant.QuantConfig)):
            raise tr.err(node, "asc.adv.quant: config must be an asc.adv.QuantConfig(calc_count, offset_count, "
                               "scale_count, work_local_size) of compile-time ints", KernelTypeError)
        name = tr.fresh("quant_cfg")
        tr.parts.append(f"static constexpr AscendC::AscendQuantConfig {name} = {cfg.value.ctext()};")
        targs.append(name)
    sync_before(tr, "V", tensors)
    return void(f"AscendC::AscendQuant<{', '.join(targs)}>({', '.join(cargs)})")


def sp_call(tr, node, a, args, kwargs):
    if a.name == "get_tpipe_ptr":
        return Val("pipeptr", "::GetTPipePtr()", "AscendC::TPipe*")     # global in CANN (kernel_common.h)
    sig, got = bind(tr, node, a, args, kwargs)
    return scalar(f"AscendC::{a.cname}({', '.join(tr.value_text(v, node) for v in got.values())})", dtypes.int64)


def sp_trans_5hd(tr, node, a, args, kwargs):
    sig, got = bind(tr, node, a, args, kwargs)
    p = got["params"]
    ptext = p.text if isinstance(p, Val) else tr.value_text(p, node)
    dv, sv = got["dst_list"], got["src_list"]
    if isinstance(dv, Val) or isinstance(sv, Val):
        # the address-tensor form: two LocalTensor<uint64_t> of 16 UB addresses (GetPhyAddr) each; the element
        # type is that of the tensors whose addresses were stored in them (set_value(i, t.get_phy_addr()))
        for k, v in (("dst_list", dv), ("src_list", sv)):
            if not (isinstance(v, Val) and v.kind == "ltensor" and v.dtype is dtypes.uint64):
                raise tr.err(node, f"asc.trans_data_to_5hd: with a LocalTensor for one list, {k} must be a "
                                   f"LocalTensor of uint64 addresses too (or pass lists of 16 LocalTensors)",
                             KernelTypeError)
        elems = set()
        for v in (dv, sv):
            elems |= tr.prog.addr_elem.get(v.text, set())
        if not elems:
            raise tr.err(node, "asc.trans_data_to_5hd: the element type of the address tensors is unknown: store "
                               "the addresses with addr_tensor.set_value(i, tensor[offset].get_phy_addr()) in this "
                               "function before the call", KernelTypeError)
        if len(elems) > 1:
            raise tr.err(node, "asc.trans_data_to_5hd: the address tensors hold addresses of tensors of "
                               f"different element types ({', '.join(sorted(e.name for e in elems))})",
                         KernelTypeError)
        (d,) = elems
        if d.size != 2:
            raise tr.err(node, f"asc.trans_data_to_5hd: {d.name} elements: asc emulates TransDataTo5HD for 16-bit "
                               f"elements (float16, bfloat16, int16, uint16) only; the 8- and 32-bit layouts are "
                               f"not supported yet")
        sync_before(tr, "S", [("src", "dst_list", dv), ("src", "src_list", sv)])
        return void(f"AscendC::TransDataTo5HD<{d.cname}>({dv.text}, {sv.text}, {ptext})")
    lists = []
    for k in ("dst_list", "src_list"):
        v = got[k]
        items = v.value if isinstance(v, Const) and isinstance(v.value, tuple) else None
        if items is None or len(items) != 16 or not all(isinstance(t, Val) and t.kind == "ltensor" for t in items):
            raise tr.err(node, f"asc.trans_data_to_5hd: {k} must be a list of 16 LocalTensors", KernelTypeError)
        d = items[0].dtype
        if any(t.dtype is not d for t in items):
            raise tr.err(node, f"asc.trans_data_to_5hd: the tensors of {k} differ in element type", KernelTypeError)
        name = tr.fresh(k)
        tr.parts.append(f"AscendC::LocalTensor<{d.cname}> {name}[16] = {{{', '.join(t.text for t in items)}}};")
        lists.append((name, items))
    if lists[0][1][0].dtype is not lists[1][1][0].dtype:
        raise tr.err(node, "asc.trans_data_to_5hd: dst_list and src_list differ in element type", KernelTypeError)
    sync_before(tr, "V", [("dst", "dst_list", lists[0][1][0]), ("src", "src_list", lists[1][1][0])])
    return void(f"AscendC::TransDataTo5HD<{lists[0][1][0].dtype.cname}>({lists[0][0]}, {lists[1][0]}, {ptext})")


def sp_coretype(tr, node, a, args, kwargs):
    bind(tr, node, a, args, kwargs)
    return scalar(f"({a.cname})", dtypes.bool_)


SPECIALS = {"flag": sp_flag, "barrier": sp_barrier, "sysvar": sp_sysvar, "printf": sp_printf,
            "softmax": sp_softmax, "call": sp_call, "trans_5hd": sp_trans_5hd, "regist": matmul.register,
            "coretype": sp_coretype, "quant": sp_quant}


# ------------------------------------------------------------------ constructors

def _args(tr, node, name, names, args, kwargs, defaults=None):
    return bind_args(tr, node, f"asc.{name}", names, args, kwargs, defaults)


_C_WORDS = frozenset({"static_cast", "int64_t", "int32_t", "uint32_t", "uint64_t", "int16_t", "uint16_t"})


def _auto_bytes(tr, node, length, d):
    """The bytes of a LocalTensorAuto of `length` elements (an int or a shape: a tuple of dims): an int, or, for a
    length known at run time, the C expression of the kernel's scalar parameters that gives it (its TBuf is given
    its space at kernel start, where only the parameters exist)."""
    dims = list(length.value) if isinstance(length, Const) and isinstance(length.value, (tuple, list)) else [length]
    dims = [x if isinstance(x, (Const, Val)) else Const(x) for x in dims]
    what = "asc.LocalTensorAuto: the length" if len(dims) == 1 else "asc.LocalTensorAuto: each dim of the shape"
    for x in dims:
        if isinstance(x, Const) and (isinstance(x.value, bool) or not isinstance(x.value, int)):
            raise tr.err(node, f"{what} must be an int, got {x.value!r}", KernelTypeError)
        if isinstance(x, Val) and (x.kind != "scalar" or x.dtype is None or not x.dtype.is_int):
            raise tr.err(node, f"{what} must be an int, got a {x.kind} of {getattr(x.dtype, 'name', '?')}",
                         KernelTypeError)
    if all(isinstance(x, Const) for x in dims):
        n = 1
        for x in dims:
            n *= x.value
        if n <= 0:
            raise tr.err(node, f"asc.LocalTensorAuto: the length must be positive, got {n}", KernelTypeError)
        return n * d.size
    text = " * ".join(f"({tr.int_text(x, node)})" for x in dims)
    stored = {n.id for n in ast.walk(tr.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    free = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text)) - _C_WORDS
    bad = sorted(free - (tr.prog.scalar_params - {ident(x) for x in stored}))
    if bad:
        raise tr.err(node, f"asc.LocalTensorAuto: a length known at run time must be computed from the kernel's "
                           f"scalar parameters (its Unified Buffer space is given at kernel start), not from "
                           f"{', '.join(bad)} (a local value, a call or a reassigned parameter)", KernelTypeError)
    return f"static_cast<uint32_t>({text} * {d.size})"


def construct(tr, node, cls, args, kwargs):
    name = cls._asc_name
    if name == "adv.Matmul":
        return matmul.construct(tr, node, args, kwargs)
    if name == "GlobalTensor":
        _args(tr, node, name, [], args, kwargs)
        d = Deferred("")
        return Val("new", "{ctype} {name};", "AscendC::GlobalTensor", None, None,
                   (("kind", "gtensor"), ("deferred", d)))
    if name == "TPipe":
        _args(tr, node, name, [], args, kwargs)
        return Val("new", "AscendC::TPipe {name};", "AscendC::TPipe", None, None, (("kind", "pipe"),))
    if name in ("TQue", "TQueBind"):
        if name == "TQue":
            got = _args(tr, node, name, ["pos", "depth"], args, kwargs, {"depth": 1})
            pos = pos_arg(tr, node, got["pos"], "TQue: pos")
            ct = f"AscendC::TQue<{pos.cname}, {tr.int_text(got['depth'], node)}>"
            if pos is enums.TPosition.VECCALC:
                loc = tr.loc(node)
                warnings.warn_explicit(
                    "asc.TQue at TPosition.VECCALC: the NPU build accepts it (CANN's API examples declare such scratch "
                    "queues), but Huawei's CPU-debug build asserts pos != VECCALC (GetBufferLogicPos) and does not "
                    "compile the kernel, and the TQue docs list only VECIN/VECOUT/A1/A2/B1/B2/CO1/CO2: "
                    "asc.TBuf(asc.TPosition.VECCALC) is the scratch buffer both accept", AscendRuleWarning,
                    loc.file, loc.line)
        else:
            got = _args(tr, node, name, ["src", "dst", "depth"], args, kwargs, {"depth": 1})
            src, dst = (pos_arg(tr, node, got[k], f"TQueBind: {k}") for k in ("src", "dst"))
            pos = dst
            ct = f"AscendC::TQueBind<{src.cname}, {dst.cname}, {tr.int_text(got['depth'], node)}>"
        if not isinstance(got["depth"], Const):
            raise tr.err(node, f"asc.{name}: depth must be a compile-time int", KernelTypeError)
        return Val("new", ct + " {name};", ct, None, None, (("kind", "que"), ("pos", pos)))
    if name == "TBuf":
        got = _args(tr, node, name, ["pos"], args, kwargs, {"pos": enums.TPosition.VECCALC})
        pos = pos_arg(tr, node, got["pos"], "TBuf: pos")
        ct = f"AscendC::TBuf<{pos.cname}>"
        return Val("new", ct + " {name};", ct, None, None, (("kind", "buf"), ("pos", pos)))
    if name == "LocalTensor":
        got = _args(tr, node, name, ["dtype", "pos", "addr", "tile_size"], args, kwargs,
                    {"pos": enums.TPosition.VECIN, "addr": 0, "tile_size": 0})
        d = dtype_arg(tr, node, got["dtype"], "LocalTensor: dtype")
        pos = pos_arg(tr, node, got["pos"], "LocalTensor: pos")
        ct = f"AscendC::LocalTensor<{d.cname}>"
        if len(args) + len(kwargs) == 1:          # asc.LocalTensor(dtype): a declaration, given a value later
            return Val("new", ct + " {name};", ct, d, None, (("kind", "ltensor"), ("pos", pos)))
        tr.prog.raw_count += 1
        root = ("raw", tr.loc(node).line, tr.prog.raw_count)
        return Val("new", ct + " {name}(" + f"{pos.cname}, {tr.int_text(got['addr'], node)}, "
                   f"{tr.int_text(got['tile_size'], node)});", ct, d, root, (("kind", "ltensor"), ("pos", pos)))
    if name == "LocalTensorAuto":
        got = _args(tr, node, name, ["dtype", "length"], args, kwargs)
        d = dtype_arg(tr, node, got["dtype"], "LocalTensorAuto: dtype")
        if not tr.is_kernel:
            raise tr.err(node, "asc.LocalTensorAuto is created in the kernel function itself (pass it to helpers)")
        nbytes = _auto_bytes(tr, node, got["length"], d)
        key = (node.lineno, node.col_offset)
        bid = tr.prog.auto_sites.get(key)
        if bid is None:
            bid = len(tr.prog.autos)
            tr.prog.auto_sites[key] = bid
            tr.prog.autos.append((bid, nbytes))
        tr.prog.insert_sync = True
        ct = f"AscendC::LocalTensor<{d.cname}>"
        return Val("new", ct + " {name} = " + f"asc_auto_buf_{bid}.Get<{d.cname}>();", ct, d, ("auto", bid),
                   (("kind", "ltensor"), ("pos", enums.TPosition.VECCALC)))
    if name == "ShapeInfo":
        got = _args(tr, node, name, ["shape", "original_shape", "data_format"], args, kwargs,
                    {"original_shape": None, "data_format": enums.DataFormat.ND})
        sh = got["shape"]
        if not (isinstance(sh, Const) and isinstance(sh.value, tuple) and sh.value[:1] == ("array",)):
            raise tr.err(node, "asc.ShapeInfo takes asc.array(asc.int32, (dims...)) with compile-time dims")
        dims = sh.value[2]
        arr = tr.fresh("shape")
        tr.parts.append(f"uint32_t {arr}[{len(dims)}] = {{{', '.join(str(int(x)) for x in dims)}}};")
        return Val("shapeinfo", f"AscendC::ShapeInfo({len(dims)}, {arr})", "AscendC::ShapeInfo", None, None,
                   (("dims", tuple(int(x) for x in dims)),))
    raise tr.err(node, f"asc.{name} is not supported yet by asc")


SPECIALS["aipp"] = aipp.set_aipp_functions
SPECIALS.update(cube.SPECIALS)


def params_ctor(tr, node, p: objects.Params, args, kwargs):
    if p.cname.startswith("Aipp"):
        return aipp.params(tr, node, p, args, kwargs)
    if p.cname in cube.PARAMS_CTORS:
        v = cube.PARAMS_CTORS[p.cname](tr, node, args, kwargs)
        return replace(v, info=v.info + (("params", p),)) if isinstance(v, Val) else v
    names = [f for f, _ in p.fields]
    if p.cname == "SoftMaxTiling":
        _args(tr, node, p.cname, [], args, kwargs)
        return Val("struct", "SoftMaxTiling()", "SoftMaxTiling")   # global scope, as CANN declares it
    got = _args(tr, node, p.cname, names, args, kwargs, dict(p.fields))
    vals, targ = [], ""
    if p.cname == "DataCopyPadExtParams":      # a template on the element type: DataCopyPadExtParams<T>
        d = dtype_arg(tr, node, got.pop("dtype"), "DataCopyPadExtParams: dtype")
        targ = f"<{d.cname}>"
        got["padding_value"] = Val("scalar", scalar_as(tr, node, got["padding_value"], d, "padding_value"),
                                   d.cname, d)
    for f, _ in p.fields:
        if f not in got:
            continue
        v = got[f]
        if isinstance(v, Const) and v.value is None:
            raise tr.err(node, f"asc.{p.cname}: {f} is required", KernelTypeError)
        vals.append(tr.value_text(v, node) if isinstance(v, Const) else v.text)
    info = (("params", p),)                   # its fields' C names: translate.field_cname
    if not vals:
        return Val("struct", f"AscendC::{p.cname}()", f"AscendC::{p.cname}", info=info)
    return Val("struct", f"AscendC::{p.cname}{targ}({', '.join(vals)})", f"AscendC::{p.cname}{targ}", info=info)


# ------------------------------------------------------------------ @asc.jit helpers



def helper_call(tr, node, jf, args, kwargs):
    try:
        bound = inspect.signature(jf.fn).bind(*args, **kwargs)
    except TypeError as e:
        raise tr.err(node, f"{jf.fn.__name__}(): {e}", KernelTypeError) from None
    bound.apply_defaults()
    key, params = [jf], []
    for pname, v in bound.arguments.items():
        if not isinstance(v, (Const, Val)):
            v = Const(v)
        pk = param_kind(jf.fn, pname)
        if isinstance(v, Const) and (pk == "const" or not tr.is_num_const(v)):
            key.append((pname, "c", freeze(v.value)))
            params.append((pname, v, None))
        elif isinstance(v, Const):
            sv = tr.scalar_val(v)
            key.append((pname, "v", sv.ctype))
            params.append((pname, Val("scalar", ident(pname), sv.ctype, sv.dtype), sv.text))
        else:
            if pk == "const":
                raise tr.err(node, f"{jf.fn.__name__}(): {pname} is asc.ConstExpr, and this argument is a runtime "
                                   f"value", KernelTypeError)
            if v.kind in ("call", "new"):
                raise tr.err(node, f"{jf.fn.__name__}(): {pname}: this argument has no value", KernelTypeError)
            info = tuple((k, x) for k, x in v.info if k not in ("deferred", "var"))
            key.append((pname, "v", v.kind, v.ctype, v.dtype, v.root, info))
            params.append((pname, Val(v.kind, ident(pname), v.ctype, v.dtype, v.root, info), v.text))
    if tr.prog.insert_sync:
        key.append(tr.prog.sync.key())
    key = tuple(key)
    hit = tr.prog.helpers.get(key)
    if hit is None:
        sub = type(tr)(tr.prog, jf.fn, is_kernel=False)
        sig = []
        for pname, v, _ in params:
            if isinstance(v, Const):
                sub.env[pname] = v
                continue
            sub.env[pname] = v
            sub.declare(pname, v.ctype)
            ref = "&" if v.kind in ("que", "pipe", "buf", "matmul") else ""
            sig.append(f"{v.ctype}{ref} {v.text}")
        sub.translate_body()
        cname = tr.prog.helper_cname(ident(jf.fn.__name__))
        ret = sub.ret.ctype if sub.ret is not None else "void"
        text = [f"__aicore__ inline {ret} {cname}({', '.join(sig)})", "{"] + sub.out + ["}"]
        tr.prog.funcs.append(text)
        hit = (cname, sub.ret, tr.prog.sync.copy())
        tr.prog.helpers[key] = hit
    else:
        tr.prog.sync = hit[2].copy()
    cname, ret, _ = hit
    text = f"{cname}({', '.join(t for _, v, t in params if t is not None)})"
    if ret is None:
        return void(text)
    return Val(ret.kind, text, ret.ctype, ret.dtype, ret.root, ret.info)


