"""How each instruction of a plan's program is written as Ascend C: one template per `Instr.api`.

A template is a format string over the instruction's fields -- `d` (destination), `s0`, `s1`, `s2` (sources),
`n` (the element count), `tmp` (the advanced APIs' sharedTmpBuffer), `scalar`, `mode`, `api`, and `storage` (the
C++ type of a 16-bit view) -- or, for the row path's instructions that need syncs and scalar reads, a small
function of (out, instruction, fields). The math APIs come from the op table (ops.OPS)."""
from __future__ import annotations

from .ctext import STORAGE, cname
from .ops import OPS

BINARY = "{api}({d}, {s0}, {s1}, {n});"
WITH_SCALAR = "{api}({d}, {s0}, (float){scalar}, {n});"
UNARY = "{api}({d}, {s0}, {n});"
ADVANCED = "{api}({d}, {s0}, {tmp}, {n});"


def sync(out, event: str):
    """A SetFlag / WaitFlag pair on a fresh event of `event` (HardEvent::V_S, ...)."""
    out.emit("{")
    out.emit(f"  int32_t eventId = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::{event}));")
    out.emit(f"  SetFlag<HardEvent::{event}>(eventId);")
    out.emit(f"  WaitFlag<HardEvent::{event}>(eventId);")
    out.emit("}")


def _scalar(out, ins, f):
    """A per-row scalar statement; one that reads a row's tile (mode "tile") waits for the copy and the vector unit
    first (the per-row tensors' buffers were synchronized once, before the first row)."""
    if ins.mode == "tile":
        sync(out, "MTE2_S")
        sync(out, "V_S")
    out.emit(f"{ins.rdst} = {ins.scalar};")


def _row_set(out, ins, f):
    """A per-row output's value for row r (per_row.py): a scalar write of its float32 UB buffer (`rdst`), then an
    S_V flag, so that no later vector instruction runs before the write."""
    if ins.mode == "tile":
        sync(out, "MTE2_S")
        sync(out, "V_S")
    out.emit(f"{ins.rdst}.SetValue(r, static_cast<float>({ins.scalar}));")
    sync(out, "S_V")


def _reduce(out, ins, f):
    """A reduction along the row into `red`, read back into the accumulator after a V_S sync."""
    out.emit("{api}(red, {s0}, work, {n});".format(**f))
    sync(out, "V_S")
    acc = ins.rdst
    if ins.mode == "add":
        out.emit(f"{acc} = {acc} + red.GetValue(0);")
    else:
        # numpy.maximum(acc, row max): NaN if either is (the row's NaN, or a NaN start), as every target computes it
        op = ">" if ins.mode == "max" else "<"
        out.emit(f"{acc} = ({acc} {op} red.GetValue(0) || {acc} != {acc}) ? {acc} : red.GetValue(0);")


def _scalar_math(out, ins, f):
    """Math on a per-row scalar: the value in 8 lanes of `red`, the API (`mode`) into `red2`, lane 0 read back."""
    out.emit(f"Duplicate(red, (float)({ins.scalar}), 8);")
    out.emit(TEMPLATES[ins.mode].format(api=ins.mode, d="red2", s0="red", tmp="tmp", n="8"))
    sync(out, "V_S")
    out.emit(f"{ins.rdst} = red2.GetValue(0);")


def _pick(out, ins, f):
    """`cond ? s0 : s1` for a uniform (loop-invariant) condition: a copy (Muls by 1, exact) of the chosen tile into
    the destination, none where the destination already is the chosen tile (a source that dies here)."""
    c = ins.scalar
    if f["d"] in (f["s0"], f["s1"]):
        other, when = (f["s1"], f"!({c})") if f["d"] == f["s0"] else (f["s0"], c)
        out.emit(f"if ({when}) {{")
        out.emit("  Muls({d}, {o}, 1.0f, {n});".format(o=other, **f))
        out.emit("}")
    else:
        out.emit("Muls({d}, ({c}) ? {s0} : {s1}, 1.0f, {n});".format(c=c, **f))


def _half(out, ins, f):
    """A float16 instruction of half_ops.py (Add16, ...): the API on half operands, a register reinterpreted as
    half, an input tile as it is (its own type is half)."""
    def h(v, text):
        return f"{text}.ReinterpretCast<half>()" if v.kind == "v" else text
    srcs = ", ".join(h(v, f[f"s{k}"]) for k, v in enumerate(ins.srcs))
    if ins.scalar is not None:                       # Adds16 / Muls16: the scalar as a half (exact: half_ops.py)
        srcs += f", (half)({ins.scalar})"
    out.emit(f"{ins.api[:-2]}({h(ins.dst, f['d'])}, {srcs}, {f['n']});")


def _patch(out, ins, f):
    """`a if j == c else b` in a row (row_lowering.patch): d = b's row with element c replaced by a's element c.
    a's element is read before d is written (d may take a's slot); an index outside [0, n) replaces nothing."""
    out.emit("{")
    out.depth += 1
    out.emit(f"const int64_t pIdx = static_cast<int64_t>({ins.scalar});")
    out.emit(f"const bool pIn = pIdx >= 0 && pIdx < static_cast<int64_t>({f['n']});")
    out.emit("float pVal = 0.0f;")
    sync(out, "V_S")
    out.emit(f"if (pIn) pVal = {f['s1']}.GetValue(static_cast<uint32_t>(pIdx));")
    out.emit(f"Muls({f['d']}, {f['s0']}, 1.0f, {f['n']});")
    out.emit("if (pIn) {")
    out.depth += 1
    sync(out, "V_S")
    out.emit(f"{f['d']}.SetValue(static_cast<uint32_t>(pIdx), pVal);")
    sync(out, "S_V")
    if ins.dst.kind == "out":          # the output tile goes to GM by MTE3, after this scalar write
        sync(out, "S_MTE3")
    out.depth -= 1
    out.emit("}")
    out.depth -= 1
    out.emit("}")


TEMPLATES = {
    "Note": "// ({scalar})",
    **{api: BINARY for api in ("Add", "Sub", "Mul", "Div")},
    **{api: WITH_SCALAR for api in ("Adds", "Muls")},
    **{op["api"]: BINARY for op in OPS.values() if op["args"] == 2},
    **{op["scalar_api"]: WITH_SCALAR for op in OPS.values() if op["scalar_api"] is not None},
    **{op["api"]: (ADVANCED if op["tmp"] else UNARY) for op in OPS.values() if op["args"] == 1},
    "Duplicate": "Duplicate({d}, (float){scalar}, {n});",
    "Cast": "Cast({d}, {s0}, RoundMode::{mode}, {n});",
    "Compare": "Compare({d}, {s0}, {s1}, CMPMODE::{mode}, {n});",
    "CompareScalar": "CompareScalar({d}, {s0}, (float){scalar}, CMPMODE::{mode}, {n});",
    "Select": "Select({d}, {s0}, {s1}, {s2}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {n});",
    "Pick": _pick,
    "CastTo16": "Cast({d}.ReinterpretCast<{storage}>(), {s0}, RoundMode::{mode}, {n});",
    **{api: _half for api in ("Add16", "Sub16", "Mul16", "Div16", "Adds16", "Muls16")},
    "CastToI32": "Cast({d}.ReinterpretCast<int32_t>(), {s0}, RoundMode::{mode}, {n});",
    "CastFromI32": "Cast({d}, {s0}.ReinterpretCast<int32_t>(), RoundMode::{mode}, {n});",
    "CastTo8": "Cast({d}, {s0}.ReinterpretCast<half>(), RoundMode::{mode}, {n});",
    "CastFrom16": "Cast({d}, {s0}.ReinterpretCast<{storage}>(), RoundMode::{mode}, {n});",
    "Scalar": _scalar,
    "RowSet": _row_set,
    "Patch": _patch,
    "ReduceSum": _reduce,
    "ReduceMax": _reduce,
    "ReduceMin": _reduce,
    "ScalarMath": _scalar_math,
}


def ref(v, slot_of: dict) -> str:
    """The C++ name of a value: an input / output / row tile, the mask, or the slot of a register."""
    if v.kind == "in":
        return f"{cname(v.ref)}In"
    if v.kind == "out":
        return f"{cname(v.ref)}Out"
    if v.kind == "row":
        return f"{cname(v.ref)}Row"
    if v.kind == "mask":
        return "mask"
    return f"buf{slot_of[v.ref]}"


def emit_instr(out, ins, slot_of: dict, n: str, tmp: str = "tmp"):
    """Writes instruction `ins` over `n` elements (C++ text of the count)."""
    template = TEMPLATES.get(ins.api)
    if template is None:
        raise AssertionError(f"no template for the instruction {ins.api}")
    f = {"api": ins.api, "n": n, "tmp": tmp, "scalar": ins.scalar, "mode": ins.mode, "storage": STORAGE.get(ins.scalar),
         "d": ref(ins.dst, slot_of) if ins.dst is not None else None}
    f.update({f"s{k}": ref(s, slot_of) for k, s in enumerate(ins.srcs)})
    if ins.guard:                      # an instruction of one side of a uniform condition: a scalar branch
        out.emit(f"if ({ins.guard}) {{")
        out.depth += 1
    if callable(template):
        template(out, ins, f)
    else:
        out.emit(template.format(**f))
    if ins.guard:
        out.depth -= 1
        out.emit("}")
