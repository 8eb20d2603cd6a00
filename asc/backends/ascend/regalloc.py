"""Register allocation for the vector paths: the lowerer's virtual float32 registers become slots of one VECCALC
buffer (`buf0`, `buf1`, ... of `calcBuf_`), after the `Store` pseudo-instructions are resolved.

A value is produced straight into its output tile when nothing else touches that tile while the value lives;
otherwise it is copied there (Muls by 1, exact) or Cast to a 16-bit output. Slots are reused as soon as a register
dies; an instruction may write the slot of a source that dies in it (in place), except the advanced math APIs,
Casts and reductions, whose destination must not alias a source."""
from __future__ import annotations

from dataclasses import dataclass

from .ops import TMP_APIS
from .plans import Instr, V


@dataclass(frozen=True)
class Allocation:
    """A program with its registers in slots."""
    instrs: list
    slot_of: dict                 # virtual register number -> slot
    nslots: int


def finalize(instrs: list, dtypes: dict) -> Allocation:
    """Resolves the Store pseudo-instructions of `instrs` (dtypes: tensor name -> DType), then allocates slots."""
    uses: dict = {}
    for k, ins in enumerate(instrs):
        for s in ins.srcs:
            if s.kind == "v":
                uses.setdefault(s.ref, []).append(k)
    defs = {ins.dst.ref: k for k, ins in enumerate(instrs) if ins.dst is not None and ins.dst.kind == "v"}

    def touches(ins, tile):
        return ins.dst == tile or tile in ins.srcs

    def safe(k, v, tile):
        d = defs[v.ref]
        end = max(uses.get(v.ref, [k]))
        for j in range(d + 1, max(end, k) + 1):
            if j != k and touches(instrs[j], tile):
                return False
        return True

    out = []
    rename: dict = {}
    for k, ins in enumerate(instrs):
        if ins.api != "Store":
            out.append(ins)
            continue
        v = ins.srcs[0]
        f32 = dtypes[ins.dst.ref].name == "float32"
        if v.kind == "v" and f32 and v.ref in defs and v.ref not in rename and safe(k, v, ins.dst):
            rename[v.ref] = ins.dst              # produced straight into the output tile
            out.append(Instr("Note", None, (), scalar=f"the value is computed straight into the {ins.dst.ref} tile",
                             loc=ins.loc))
            continue
        if f32:
            out.append(Instr("Muls", ins.dst, (v,), scalar="1.0f", loc=ins.loc))
        else:
            out.append(Instr("Cast", ins.dst, (v,), mode="CAST_RINT", loc=ins.loc))
    for ins in out:
        if ins.dst is not None and ins.dst.kind == "v" and ins.dst.ref in rename:
            ins.dst = rename[ins.dst.ref]
        ins.srcs = tuple(rename.get(s.ref, s) if s.kind == "v" else s for s in ins.srcs)
    return allocate(_apart(out))


def _apart(instrs: list) -> list:
    """The advanced math APIs (Tanh, Erf, Sigmoid, ...) refuse a destination that overlaps the source, in place
    included (the Ascend C docs of each). Where the program has one in place -- a value produced straight into an
    output tile that its source was also renamed to, or a register redefined from itself -- the API writes a fresh
    register and a Muls by 1 (exact) copies it to the destination."""
    fresh = 1 + max((v.ref for ins in instrs for v in (ins.dst, *ins.srcs)
                     if v is not None and v.kind == "v" and isinstance(v.ref, int)), default=-1)
    out = []
    for ins in instrs:
        if ins.api in TMP_APIS and ins.dst is not None and ins.dst in ins.srcs:
            dst, ins.dst = ins.dst, V("v", fresh)
            fresh += 1
            out.append(ins)
            out.append(Instr("Muls", dst, (ins.dst,), scalar="1.0f", loc=ins.loc))
            continue
        out.append(ins)
    return out


def allocate(instrs: list) -> Allocation:
    """Linear scan over the program: each register gets a slot from its definition to its last use."""
    last: dict = {}
    for k, ins in enumerate(instrs):
        for s in ins.srcs:
            if s.kind == "v":
                last[s.ref] = k
    free: list = []
    nslots = 0
    slot: dict = {}
    for k, ins in enumerate(instrs):
        dying = [s.ref for s in ins.srcs if s.kind == "v" and last.get(s.ref) == k]
        reuse_ok = ins.api not in TMP_APIS and not ins.api.startswith(("Cast", "Reduce"))
        if reuse_ok:
            for r in dict.fromkeys(dying):
                free.append(slot[r])
        if ins.dst is not None and ins.dst.kind == "v":
            if ins.dst.ref in slot:
                pass
            elif reuse_ok and dying and slot[dying[0]] in free:
                s = slot[dying[0]]         # in place: dst is the same address as a dying source
                free.remove(s)
                slot[ins.dst.ref] = s
            elif free:
                slot[ins.dst.ref] = free.pop(0)
            else:
                slot[ins.dst.ref] = nslots
                nslots += 1
            if ins.dst.ref not in last:      # never read (dead value): its slot is free again
                free.append(slot[ins.dst.ref])
        if not reuse_ok:
            for r in dict.fromkeys(dying):
                free.append(slot[r])
    return Allocation(instrs, slot, nslots)
