"""The rewrite `half_ops` of a vector program (a list of `Instr` over virtual registers, before register
allocation): float16 arithmetic in float16 where the program rounds each operation to float16.

The lowering carries 16-bit values in float32: a float16 input is Cast to float32 when loaded, and a value rounded
to float16 (an explicit cast; every operation of a precision="mixed" kernel) is a Cast to float16 and back:

    Cast(v1, xIn, CAST_NONE)              x as float32
    Cast(v2, yIn, CAST_NONE)
    Mul(v3, v1, v2)                       float32 product
    CastTo16(h4, v3, CAST_RINT)           rounded to float16 ...
    CastFrom16(v5, h4)                    ... and back

A float32 +, -, * or / of two float16 values rounded to float16 (to nearest even) is the correctly rounded float16
operation (float32 has more than twice float16's bits plus two: the double rounding is innocuous), which the vector
unit computes itself on float16 operands, at twice float32's elements per repeat (Adds / Muls too, by a literal
that float16 holds exactly):

    Mul16(h4, xIn, yIn)                   Mul on half tiles: h4 = x * y in float16

Two rules, in program order: (1) a CastTo16 (float16, CAST_RINT) of an Add / Sub / Mul / Div whose operands are
float16 values (an input tile's load, or a CastFrom16 of a half register) and whose result has no other use
becomes that instruction on the float16 operands; (2) a CastTo16 of a value that is a float16 value already (a
round trip of a round trip) is that value. Instructions whose results nothing reads any more are then dropped
(the loads' Casts and CastFrom16s the float16 instructions replaced). bfloat16 has no vector arithmetic on the A2
AI core: its round trips stay."""
from __future__ import annotations

import numpy as np

from .plans import Instr

HALF_APIS = {"Add": "Add16", "Sub": "Sub16", "Mul": "Mul16", "Div": "Div16", "Adds": "Adds16", "Muls": "Muls16"}
HALF_OPS = frozenset(HALF_APIS.values())
_PURE = frozenset({"Cast", "CastFrom16", "CastTo16", "Add", "Sub", "Mul", "Div", "Adds", "Muls", "Duplicate"}) | HALF_OPS


def half_ops(instrs: list, dtypes: dict) -> list:
    """`instrs` with float16 operations in float16 (dtypes: tensor name -> ir.DType, for the input tiles)."""
    defs: dict = {}
    ndefs: dict = {}
    for ins in instrs:
        if ins.dst is not None and ins.dst.kind == "v":
            defs[ins.dst.ref] = ins
            ndefs[ins.dst.ref] = ndefs.get(ins.dst.ref, 0) + 1
    uses: dict = {}
    for ins in instrs:
        for s in ins.srcs:
            if s.kind == "v":
                uses[s.ref] = uses.get(s.ref, 0) + 1
    half_of: dict = {}         # float32 register -> the float16 value it holds exactly (a half register or in tile)
    alias: dict = {}           # half register -> the float16 value it is (rule 2)
    dropped: set = set()
    out = []
    for ins in instrs:
        ins = _renamed(ins, alias)
        src = ins.srcs[0] if ins.srcs else None
        if ins.guard is not None or ins.dst is None or ins.dst.kind != "v" or ndefs[ins.dst.ref] != 1:
            out.append(ins)           # (guarded, or a register defined twice: left as it is)
            continue
        if ins.api == "Cast" and ins.mode == "CAST_NONE" and src.kind == "in" and \
                getattr(dtypes.get(src.ref), "name", None) == "float16":
            half_of[ins.dst.ref] = src
        elif ins.api == "CastFrom16" and ins.scalar == "float16":
            half_of[ins.dst.ref] = src
        elif ins.api == "CastTo16" and ins.scalar == "float16" and ins.mode == "CAST_RINT" and src.kind == "v":
            if src.ref in half_of:                                             # rule 2
                alias[ins.dst.ref] = half_of[src.ref]
                continue
            d = defs.get(src.ref)
            if d is not None and d.api in HALF_APIS and d.guard is None and uses.get(src.ref) == 1 and \
                    ndefs[src.ref] == 1 and len(d.srcs) == (1 if d.scalar is not None else 2) and \
                    (d.scalar is None or _half_literal(d.scalar)) and \
                    all(s.kind == "v" and s.ref in half_of for s in d.srcs):      # rule 1
                dropped.add(id(d))
                out.append(Instr(HALF_APIS[d.api], ins.dst, tuple(half_of[s.ref] for s in d.srcs), d.scalar,
                                 loc=d.loc))
                continue
        out.append(ins)
    out = [ins for ins in out if id(ins) not in dropped]
    return _live(out)


def _half_literal(text: str) -> bool:
    """Whether a scalar operand's C++ text is a number literal that float16 holds exactly (2.0f, (-0.5f)): the
    Adds / Muls by it then is the float16 operation by the same value."""
    t = text.strip()
    while t.startswith("(") and t.endswith(")"):
        t = t[1:-1].strip()
    if t.endswith("f"):
        t = t[:-1]
    try:
        v = float(t)
    except ValueError:
        return False
    return v == v and abs(v) <= 65504.0 and float(np.float16(v)) == v


def _renamed(ins: Instr, alias: dict) -> Instr:
    if not any(s.kind == "v" and s.ref in alias for s in ins.srcs):
        return ins
    return Instr(ins.api, ins.dst, tuple(alias.get(s.ref, s) if s.kind == "v" else s for s in ins.srcs),
                 ins.scalar, ins.mode, ins.loc, ins.rdst, ins.guard)


def _live(instrs: list) -> list:
    """`instrs` without the pure instructions whose result nothing reads (repeated until none is left)."""
    while True:
        read = {s.ref for ins in instrs for s in ins.srcs if s.kind == "v"}
        keep = [ins for ins in instrs if not (ins.api in _PURE and ins.guard is None and ins.dst is not None and
                                              ins.dst.kind == "v" and ins.dst.ref not in read)]
        if len(keep) == len(instrs):
            return keep
        instrs = keep

