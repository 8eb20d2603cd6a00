"""pyasc's Matmul high-level API in a kernel (`asc.adv.Matmul`, `MatmulType`, `MatmulConfig`, `register_matmul`,
the Matmul methods, `with mm.iterate() as count:`), translated 1:1 to CANN's `AscendC::Matmul<MatmulType<...>, ...>`,
`REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling)` and the methods of lib/matmul_intf.h (SetTensorA, IterateAll,
Iterate, GetTensorC, ...). ascend-sim's own Matmul (asc/include/ascend_sim/lib/matmul_intf.h) runs them on the CPU."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import KernelTypeError
from . import data_types as dtypes, enums
from .values import Const, Val, bind_args

INCLUDE = '#include "lib/matmul_intf.h"'


@dataclass(frozen=True)
class MatmulType:
    """MatmulType(position, format, dtype, is_trans=False, layout=LayoutMode.NONE): where a Matmul operand lives,
    its layout and element type (a compile-time value; AscendC::MatmulType<...> in the source)."""
    position: enums.TPosition
    format: enums.CubeFormat
    dtype: dtypes.DataType
    is_trans: bool = False
    layout: enums.LayoutMode = enums.LayoutMode.NONE

    def ctext(self) -> str:
        t = f"AscendC::MatmulType<{self.position.cname}, {self.format.cname}, {self.dtype.cname}, " \
            f"{'true' if self.is_trans else 'false'}"
        if self.layout is not enums.LayoutMode.NONE:
            t += f", {self.layout.cname}"
        return t + ">"


@dataclass(frozen=True)
class MatmulConfig:
    """MatmulConfig(do_norm=True, ...): the Matmul template (CFG_NORM by default). asc takes the default (the Norm
    template, CFG_NORM) and the MDL template (do_norm=False, do_multi_data_load=True: CFG_MDL)."""
    do_norm: bool = True
    do_basic_block: bool = False
    do_multi_data_load: bool = False
    basic_m: int = 0
    basic_n: int = 0
    basic_k: int = 0

    def cname(self) -> str | None:
        if self == MatmulConfig():
            return None
        if self == MatmulConfig(do_norm=False, do_multi_data_load=True):
            return "AscendC::CFG_MDL"
        return ""


def _void(text) -> Val:
    return Val("call", text, "void")


def _args(tr, node, what, names, defaults, args, kwargs):
    return bind_args(tr, node, what, names, args, kwargs, defaults)


def _const(tr, node, v, what, cls):
    if not (isinstance(v, Const) and isinstance(v.value, cls)):
        raise tr.err(node, f"{what} must be an asc.adv.{cls.__name__}", KernelTypeError)
    return v.value


def construct(tr, node, args, kwargs) -> Val:
    """asc.adv.Matmul(a=MatmulType, b=..., c=..., bias=None, matmul_config=None, matmul_policy=0)."""
    got = _args(tr, node, "asc.adv.Matmul", ["a", "b", "c", "bias", "matmul_config", "matmul_policy"],
                {"bias": None, "matmul_config": None, "matmul_policy": 0}, args, kwargs)
    a, b, c = (_const(tr, node, got[k], f"asc.adv.Matmul: {k}", MatmulType) for k in ("a", "b", "c"))
    bias = got["bias"].value if isinstance(got["bias"], Const) and got["bias"].value is None else \
        _const(tr, node, got["bias"], "asc.adv.Matmul: bias", MatmulType)
    cfg = got["matmul_config"]
    cfg_name = None
    if not (isinstance(cfg, Const) and cfg.value is None):
        cfg_name = _const(tr, node, cfg, "asc.adv.Matmul: matmul_config", MatmulConfig).cname()
        if cfg_name == "":
            raise tr.err(node, "asc.adv.Matmul: asc takes MatmulConfig() (CFG_NORM) and MatmulConfig(do_norm=False, "
                               "do_multi_data_load=True) (CFG_MDL); this configuration is not supported yet")
    pol = got["matmul_policy"]
    if not (isinstance(pol, Const) and pol.value in (0, None)):
        raise tr.err(node, "asc.adv.Matmul: matmul_policy other than the default is not supported yet")
    for k, t in (("a", a), ("b", b)):
        if t.position is not enums.TPosition.GM:
            raise tr.err(node, f"asc.adv.Matmul: {k} at {t.position.name}: asc runs Matmul operands in GM "
                               f"(TPosition.GM) only, not yet from local memory")
    parts = [a.ctext(), b.ctext(), c.ctext()]
    if bias is not None or cfg_name is not None:
        parts.append((bias or c).ctext())
    if cfg_name is not None:
        parts.append(cfg_name)
    ct = f"AscendC::Matmul<{', '.join(parts)}>"
    tr.prog.uses_matmul = True
    return Val("new", ct + " {name};", ct, c.dtype, None, (("kind", "matmul"), ("mm", (a, b, c, bias))))


def _ptr(tr, node, v, what, kinds):
    if not (isinstance(v, Val) and v.kind in kinds):
        raise tr.err(node, f"asc.adv.register_matmul: {what} must be a {' or '.join(kinds)}", KernelTypeError)
    return v.text if v.kind == "pipeptr" else f"&{v.text}"


def register(tr, node, a, args, kwargs) -> Val:
    """asc.adv.register_matmul(pipe, workspace, matmul, tiling=None) -> REGIST_MATMUL_OBJ(&pipe, workspace, mm,
    &tiling): on the AIC of a MIX kernel the Matmul's server (the AIC leaves the kernel there)."""
    got = _args(tr, node, "asc.adv.register_matmul", ["pipe", "workspace", "matmul", "tiling"], {"tiling": None},
                args, kwargs)
    pipe = _ptr(tr, node, got["pipe"], "pipe", ("pipe", "pipeptr"))
    ws = got["workspace"]
    if not (isinstance(ws, Val) and ws.kind == "gaddr"):
        raise tr.err(node, "asc.adv.register_matmul: workspace must be a GlobalAddress (the kernel's workspace "
                           "argument)", KernelTypeError)
    mm = got["matmul"]
    if not (isinstance(mm, Val) and mm.kind == "matmul"):
        raise tr.err(node, "asc.adv.register_matmul: matmul must be an asc.adv.Matmul", KernelTypeError)
    out = [pipe, f"(GM_ADDR){ws.text}", mm.text]
    t = got["tiling"]
    if not (isinstance(t, Const) and t.value is None):
        out.append(_tiling(tr, node, t, "asc.adv.register_matmul: tiling"))
    return _void(f"REGIST_MATMUL_OBJ({', '.join(out)})")


def _tiling(tr, node, t, what) -> str:
    from .tiling import TCubeTiling
    if not (isinstance(t, Val) and t.kind == "struct" and t.get("struct") is TCubeTiling):
        raise tr.err(node, f"{what} must be an asc.adv.TCubeTiling (a kernel argument)", KernelTypeError)
    return f"&{t.text}"


# the methods: pyasc's parameters (name, default) in order; None: required
METHODS = {
    "init": (("tiling", None),),
    "set_tensor_a": (("tensor", None), ("transpose", False)),
    "set_tensor_b": (("tensor", None), ("transpose", False)),
    "set_bias": (("tensor", None),),
    "disable_bias": (),
    "set_tail": (("tail_m", -1), ("tail_n", -1), ("tail_k", -1)),
    "set_org_shape": (("org_m", None), ("org_n", None), ("org_ka", None), ("org_kb", None), ("org_kc", None)),
    "set_single_shape": (("single_m", None), ("single_n", None), ("single_k", None)),
    "iterate": (("en_partial_sum", False), ("sync", True), ("local_c_matrix", None)),
    "iterate_all": (("tensor", None), ("en_atomic", 0), ("sync", True), ("en_sequential_write", None),
                    ("wait_iterate_all", None), ("fake_msg", None)),
    "get_tensor_c": (("tensor", None), ("en_atomic", 0), ("en_sequential_write", False), ("sync", True),
                     ("optional_tensor", None)),
    "iterate_batch": (("tensor", None), ("batch_a", None), ("batch_b", None), ("en_sequential_write", None),
                      ("matrix_stride_a", 0), ("matrix_stride_b", 0), ("matrix_stride_c", 0),
                      ("en_partial_sum", False), ("en_atomic", 0), ("sync", True), ("wait_iterate_batch", None)),
    "end": (),
    "set_quant_scalar": (("quant_scalar", None),),
    "set_quant_vector": (("quant_vector", None),),
}
CNAMES = {"init": "Init", "set_tensor_a": "SetTensorA", "set_tensor_b": "SetTensorB", "set_bias": "SetBias",
          "disable_bias": "DisableBias", "set_tail": "SetTail", "set_org_shape": "SetOrgShape",
          "set_single_shape": "SetSingleShape", "iterate": "Iterate", "iterate_all": "IterateAll",
          "get_tensor_c": "GetTensorC", "iterate_batch": "IterateBatch", "end": "End",
          "set_quant_scalar": "SetQuantScalar", "set_quant_vector": "SetQuantVector"}
_OPTIONAL = {("set_org_shape", "org_kb"), ("set_org_shape", "org_kc")}


def _bool(tr, node, v, what) -> tuple:
    """(C text, compile-time value or None)."""
    if isinstance(v, Const):
        if not isinstance(v.value, (bool, int)):
            raise tr.err(node, f"{what} must be a bool", KernelTypeError)
        return ("true" if v.value else "false"), bool(v.value)
    return tr.bool_text(v, node), None


def _tensor(tr, node, v, what, dtype, kinds=("gtensor", "ltensor")) -> Val:
    if not (isinstance(v, Val) and v.kind in kinds):
        raise tr.err(node, f"{what} must be a {' or '.join(kinds)}", KernelTypeError)
    if dtype is not None and v.dtype is not dtype:
        raise tr.err(node, f"{what} holds {v.dtype.name if v.dtype else '?'}, the Matmul's MatmulType says "
                           f"{dtype.name}", KernelTypeError)
    return v


def method(tr, node, obj: Val, name: str, args, kwargs):
    a, b, c, bias = obj.get("mm")
    spec = METHODS.get(name)
    if spec is None:
        raise tr.err(node, f"Matmul.{name} is not supported yet by asc (see docs/pyasc.md)")
    names = [k for k, _ in spec]
    defaults = {k: d for k, d in spec if d is not None or (name, k) in _OPTIONAL or k in (
        "local_c_matrix", "en_sequential_write", "wait_iterate_all", "fake_msg", "optional_tensor")} | (
        {"wait_iterate_batch": None} if name == "iterate_batch" else {})
    got = _args(tr, node, f"Matmul.{name}", names, defaults, args, kwargs)
    base = f"{obj.text}.{CNAMES[name]}"
    what = f"Matmul.{name}"
    if name == "init":
        return _void(f"{base}({_tiling(tr, node, got['tiling'], what + ': tiling')})")
    if name in ("set_tensor_a", "set_tensor_b"):
        t = got["tensor"]
        if isinstance(t, Const) or (isinstance(t, Val) and t.kind == "scalar"):
            raise tr.err(node, f"{what} with a scalar is not supported yet by asc")
        d = (a if name == "set_tensor_a" else b).dtype
        t = _tensor(tr, node, t, f"{what}: tensor", d, ("gtensor",))
        tt, _ = _bool(tr, node, got["transpose"], f"{what}: transpose")
        return _void(f"{base}({t.text}, {tt})")
    if name == "set_bias":
        t = _tensor(tr, node, got["tensor"], f"{what}: tensor", (bias or c).dtype, ("gtensor",))
        return _void(f"{base}({t.text})")
    if name == "set_quant_scalar":
        q = got["quant_scalar"]
        if isinstance(q, Const) and not isinstance(q.value, int):
            raise tr.err(node, f"{what}: quant_scalar must be an int (the uint64 quantization word)", KernelTypeError)
        return _void(f"{base}((uint64_t)({tr.value_text(q, node)}))")
    if name == "set_quant_vector":
        t = _tensor(tr, node, got["quant_vector"], f"{what}: quant_vector", dtypes.uint64, ("gtensor",))
        return _void(f"{base}({t.text})")
    if name in ("disable_bias", "end"):
        return _void(f"{base}()")
    if name in ("set_tail", "set_single_shape", "set_org_shape"):
        vals = [got[k] for k in names if not (isinstance(got[k], Const) and got[k].value is None)]
        return _void(f"{base}({', '.join(tr.int_text(v, node) for v in vals)})")
    if name == "iterate":
        if not (isinstance(got["local_c_matrix"], Const) and got["local_c_matrix"].value is None):
            raise tr.err(node, "Matmul.iterate with local_c_matrix is not supported yet by asc")
        ps, _ = _bool(tr, node, got["en_partial_sum"], f"{what}: en_partial_sum")
        sync = _sync(tr, node, got["sync"], what)
        return Val("mmiter", f"{base}{sync}({ps})", "bool", dtypes.bool_)
    if name == "iterate_all":
        t = _tensor(tr, node, got["tensor"], f"{what}: tensor", c.dtype, ("gtensor",))
        cargs = [t.text, _atomic(tr, node, got["en_atomic"], what)]
        extra = [got[k] for k in ("en_sequential_write", "wait_iterate_all", "fake_msg")]
        while extra and isinstance(extra[-1], Const) and extra[-1].value is None:
            extra.pop()
        cargs += [_bool(tr, node, Const(False) if isinstance(x, Const) and x.value is None else x,
                        what)[0] for x in extra]
        return _void(f"{base}{_sync(tr, node, got['sync'], what)}({', '.join(cargs)})")
    if name == "iterate_batch":
        return _iterate_batch(tr, node, base, got, c)
    # get_tensor_c
    if not (isinstance(got["optional_tensor"], Const) and got["optional_tensor"].value is None):
        raise tr.err(node, "Matmul.get_tensor_c with optional_tensor (GM and UB at once) is not supported yet")
    t = _tensor(tr, node, got["tensor"], f"{what}: tensor", c.dtype)
    seq, _ = _bool(tr, node, got["en_sequential_write"], f"{what}: en_sequential_write")
    return _void(f"{base}{_sync(tr, node, got['sync'], what)}({t.text}, "
                 f"{_atomic(tr, node, got['en_atomic'], what)}, {seq})")


def _sync(tr, node, v, what) -> str:
    if not (isinstance(v, Const) and isinstance(v.value, (bool, int))):
        raise tr.err(node, f"{what}: sync must be a compile-time bool (a template argument)", KernelTypeError)
    return "" if v.value else "<false>"


def _atomic(tr, node, v, what) -> str:
    if isinstance(v, Const) and v.value not in (0, 1, 2, 3):
        raise tr.err(node, f"{what}: en_atomic must be 0 (none), 1 (add), 2 (max) or 3 (min), got {v.value!r}",
                     KernelTypeError)
    return tr.int_text(v, node)



def _iterate_batch(tr, node, base, got, c) -> Val:
    """Matmul.iterate_batch(tensor, batch_a, batch_b, en_sequential_write, matrix_stride_a=0, matrix_stride_b=0,
    matrix_stride_c=0, en_partial_sum=False, en_atomic=0, sync=True, wait_iterate_batch=None): the mix form of
    IterateBatch into a GlobalTensor (batch_a and batch_b given), as pyasc's first overload."""
    what = "Matmul.iterate_batch"
    t = got["tensor"]
    if isinstance(t, Val) and t.kind == "ltensor":
        raise tr.err(node, f"{what} into a LocalTensor (UB) is not supported yet by asc (into a GlobalTensor is)")
    t = _tensor(tr, node, t, f"{what}: tensor", c.dtype, ("gtensor",))
    seq, seq_v = _bool(tr, node, got["en_sequential_write"], f"{what}: en_sequential_write")
    if seq_v is True:
        raise tr.err(node, f"{what}: into a GlobalTensor en_sequential_write must be False (each block is written "
                           f"at its place in C)", KernelTypeError)
    ps, _ = _bool(tr, node, got["en_partial_sum"], f"{what}: en_partial_sum")
    wait = got["wait_iterate_batch"]
    if not (isinstance(wait, Const) and wait.value in (None, False)):
        raise tr.err(node, f"{what} with wait_iterate_batch (and WaitIterateBatch) is not supported yet by asc")
    cargs = [t.text, tr.int_text(got["batch_a"], node), tr.int_text(got["batch_b"], node), seq,
             tr.int_text(got["matrix_stride_a"], node), tr.int_text(got["matrix_stride_b"], node),
             tr.int_text(got["matrix_stride_c"], node), ps, _atomic(tr, node, got["en_atomic"], what)]
    return _void(f"{base}{_sync(tr, node, got['sync'], what)}({', '.join(cargs)})")
