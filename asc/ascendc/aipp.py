"""AIPP (image pre-processing) in a pyasc kernel: asc.AippParams and its parts (AippSwapParams, ...) as the C
aggregates of asc-devkit's kernel_struct_aipp.h, and asc.set_aipp_functions, which takes them."""
from __future__ import annotations

from ..errors import KernelTypeError
from . import data_types as dtypes, enums, objects
from .operands import bind, scalar_as, tensor_of, void
from .values import Const, Val, bind_args


class AippPart:
    """An AIPP parameter part (AippSwapParams(...), ...): a compile-time value until AippParams assembles it."""

    def __init__(self, cname, got):
        self.cname, self.got = cname, got


# the C fields of each AIPP part, in the header's order, with their C types ("T": AippParams' dtype)
AIPP_FIELDS = {
    "AippPaddingParams": ("uint32", "T", "T", "T", "T"),
    "AippSwapParams": ("bool", "bool", "bool"),
    "AippSingleLineParams": ("bool",),
    "AippDataTypeConvParams": ("uint8", "uint8", "uint8", "float16", "float16", "float16", "float16", "float16",
                               "float16", "uint32"),
    "AippChannelPaddingParams": ("uint32", "T"),
    "AippColorSpaceConvParams": ("bool",) + ("int16",) * 9 + ("uint8",) * 6,
}
AIPP_PARTS = (("padding_params", "AippPaddingParams"), ("swap_params", "AippSwapParams"),
              ("single_line_params", "AippSingleLineParams"), ("dtc_params", "AippDataTypeConvParams"),
              ("c_padding_params", "AippChannelPaddingParams"), ("csc_params", "AippColorSpaceConvParams"))


def params(tr, node, p, args, kwargs):
    """asc.AippParams(...) (a struct value) or one of its parts (a compile-time value until AippParams takes it)."""
    names = [f for f, _ in p.fields]
    got = bind_args(tr, node, f"asc.{p.cname}", names, args, kwargs, dict(p.fields))
    if p.cname != "AippParams":
        return Const(AippPart(p.cname, got))
    d = got["dtype"]
    if not (isinstance(d, Const) and d.value in (dtypes.int8, dtypes.float16, dtypes.uint8)):
        raise tr.err(node, "asc.AippParams: dtype (the output pixel type) must be asc.int8, asc.float16 or "
                           "asc.uint8 (uint8: no data type conversion)", KernelTypeError)
    d = d.value
    parts = []
    for key, cname in AIPP_PARTS:
        v = got[key]
        if isinstance(v, Const) and v.value is None:
            part = AippPart(cname, {f: Const(x) for f, x in getattr(objects, cname).fields})
        elif isinstance(v, Const) and isinstance(v.value, AippPart) and v.value.cname == cname:
            part = v.value
        else:
            raise tr.err(node, f"asc.AippParams: {key} must be an asc.{cname}", KernelTypeError)
        vals = []
        for (f, _), ct in zip(getattr(objects, cname).fields, AIPP_FIELDS[cname]):
            x = part.got[f]
            if ct == "bool":
                vals.append(tr.bool_text(x, node))
            else:
                vals.append(scalar_as(tr, node, x, d if ct == "T" else getattr(dtypes, ct), f"{cname}: {f}"))
        targ = f"<{d.cname}>" if "T" in AIPP_FIELDS[cname] else ""
        parts.append(f"AscendC::{cname}{targ}{{{', '.join(vals)}}}")
    ct = f"AscendC::AippParams<{d.cname}>"
    return Val("struct", f"{ct}{{{', '.join(parts)}}}", ct, d, None, (("aipp", True),))


def set_aipp_functions(tr, node, a, args, kwargs):
    """asc.set_aipp_functions(src0[, src1], input_format, config): the configuration, checked as the docs state it."""
    sig, got = bind(tr, node, a, args, kwargs)
    srcs = [tensor_of(tr, node, got[k], k, a.name, ("gtensor",)) for k in ("src0", "src1") if k in got]
    fmt = got["input_format"]
    if not (isinstance(fmt, Const) and isinstance(fmt.value, enums.AippInputFormat)):
        raise tr.err(node, "asc.set_aipp_functions: input_format must be an asc.AippInputFormat member",
                     KernelTypeError)
    cfg = got["config"]
    if not (isinstance(cfg, Val) and cfg.get("aipp")):
        raise tr.err(node, "asc.set_aipp_functions: config must be an asc.AippParams", KernelTypeError)
    return void(f"AscendC::SetAippFunctions({', '.join(t.text for t in srcs)}, {fmt.value.cname}, {cfg.text})")
