"""C++ text that every part of the ascend backend spells the same way: storage types, the names of kernel
parameters, classes and locals, float constants, and the Python line a statement comes from."""
from __future__ import annotations

import linecache
import math
import re

import numpy as np

from ... import ir
from ..cstyle import C_RESERVED, float_literal

# the C++ storage type of each dtype in GM and in UB
STORAGE = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t", "int8": "int8_t", "int16": "int16_t",
           "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "bool": "bool", "float64": "double"}

# the dtypes vector code computes on (in float32)
FLOATS = ("float32", "float16", "bfloat16")

# the value a 16-bit tensor holds after storing a float: rounded to its type
STORAGE_ROUND = {"float16": "static_cast<half>({})", "bfloat16": "static_cast<bfloat16_t>({})"}

# names the renderers use for their own locals: a per-row scalar local of the same name is suffixed
_TAKEN = {"n", "r", "t", "k", "red", "red2", "work", "tmp", "base", "pipe", "op", "eventId", "tiling"}


def cname(name: str) -> str:
    """The C++ name of a kernel parameter or tensor (suffixed where it is a C++ keyword)."""
    return f"{name}_v" if name in C_RESERVED else name


def camel(name: str) -> str:
    """snake_case -> CamelCase, for the kernel class and tiling struct names."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p) or "Kernel"


def cname_local(name: str) -> str:
    """The C++ name of a per-row scalar local (kept readable; suffixed where it would clash)."""
    if name in C_RESERVED or name in _TAKEN or re.fullmatch(r"(buf|sm)\d+", name) or \
            name.endswith(("In", "Out", "Row")):
        return name + "_l"
    return name


def scalar_ctype(t: ir.ScalarType) -> str:
    """The C++ type a scalar kernel parameter is passed as."""
    return "float" if t.dtype.kind == "f" else ("bool" if t.dtype.kind == "b" else "int64_t")


def type_text(t) -> str:
    """A parameter's type as the header comment shows it: float32[*, *] for a tensor."""
    if isinstance(t, ir.TensorType):
        return f"{t.dtype.name}[{', '.join('*' for _ in t.shape)}]"
    return repr(t)


def fmt_const(v: float) -> str:
    """A float constant as float32 C++ text (NaN and infinities as divisions)."""
    v = float(v)
    if math.isnan(v):
        return "(0.0f / 0.0f)"
    if math.isinf(v):
        return "(1.0f / 0.0f)" if v > 0 else "(-1.0f / 0.0f)"
    text = repr(float(np.float32(v)))
    if "e" not in text and "." not in text:
        text += ".0"
    return float_literal(text + "f")


def source_line(loc) -> str:
    """The Python source line of `loc`, stripped ("" without one)."""
    if loc is None:
        return ""
    return linecache.getline(loc.file, loc.line).strip()


def where(loc) -> str:
    """`file:line:col: ` for a message, or "" without a location."""
    return f"{loc!r}: " if loc is not None else ""
