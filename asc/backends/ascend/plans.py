"""What the ascend backend decides about a kernel before it writes any C++: the plan.

A plan is one of four declared dataclasses, by the kernel's shape (docs/ascend.md, "What a kernel becomes"):
`MapPlan` (one element loop nest), `RowPlan` (a loop over rows of [R, C] tensors), `CubePlan` (A @ B on the cube
units) and `ScalarPlan` (scalar code on one AI core, with the reason). They share `Plan`'s fields: the kernel and
its GM interface. The vector plans hold a program of `Instr` over virtual float32 registers (`V`) and loop-invariant
scalars (`S`); the register allocator's slot for each register is in `slot_of`. `str(plan)` prints it
(`format_plan`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ... import ir


class Unsupported(Exception):
    """This kernel (or this part of it) has no vector lowering; the reason names the construct and its line."""

    def __init__(self, reason: str, loc=None, kernel=None):
        super().__init__(reason)
        self.reason, self.loc = reason, loc
        self.kernel = kernel          # the kernel the scalar fallback renders instead (products written as loops)


# ------------------------------------------------------------------ values and instructions

@dataclass(frozen=True)
class S:
    """A scalar (loop-invariant) value: C++ text of type float (or int64_t for an index)."""
    text: str


@dataclass(frozen=True)
class V:
    """A vector value: a virtual float32 register ("v", number), an input tile ("in", name), an output tile ("out",
    name), a loaded 1-D row ("row", name) or the Compare bit mask ("mask", 0)."""
    kind: str
    ref: object


@dataclass
class Instr:
    """One instruction: `api` names a template of the emitter (instructions.py), mostly an Ascend C API."""
    api: str
    dst: V | None
    srcs: tuple
    scalar: str | None = None     # a scalar operand's C++ text (a dtype name for CastTo16 / CastFrom16)
    mode: str | None = None       # a round mode, compare mode, the API of a ScalarMath, a reduction's operator
    loc: object = None
    rdst: str | None = None       # the scalar a Scalar / ScalarMath / Reduce instruction assigns
    guard: str | None = None      # C++ text of a loop-invariant condition: the instruction runs only where it holds


@dataclass
class GmTensor:
    """A tensor in GM: a parameter or a returned allocation, and how the program uses it."""
    name: str
    dtype: ir.DType
    shape: tuple
    kind: str                     # "param" | "alloc"
    index: int                    # parameter position, or output index
    reads: bool = False
    writes: bool = False
    loc: object = None            # the allocation's line, for an output
    init: str = "empty"           # an output's initial value: "empty", "zeros" or "full" (with `fill`)
    fill: object = None

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize


# ------------------------------------------------------------------ plans

@dataclass(kw_only=True)
class Plan:
    """The fields every plan has: the kernel and its GM interface."""
    kind: ClassVar[str] = ""
    kernel: ir.Kernel = field(repr=False)
    tensors: list = field(default_factory=list)       # GmTensor: parameters in order, then the outputs
    scalars: list = field(default_factory=list)       # (name, ScalarType) of scalar params, in order
    return_loc: object = None                         # the first `return`

    def tensor(self, name) -> GmTensor:
        return next(t for t in self.tensors if t.name == name)

    def interface(self) -> dict:
        """This plan's own fields (the kernel and its GM interface), to build a plan of a kind from them."""
        return {"kernel": self.kernel, "tensors": self.tensors, "scalars": self.scalars, "return_loc": self.return_loc}

    def details(self) -> list:
        """The lines of the printed plan that are particular to its kind."""
        return []

    def __str__(self) -> str:
        return format_plan(self)


@dataclass(kw_only=True)
class MapPlan(Plan):
    """One loop nest over all elements: the body as count-form instructions on UB tiles."""
    kind: ClassVar[str] = "map"
    pre: list = field(default_factory=list)           # (loc, name, ctype, text): invariant scalars before the loop
    host: list = field(default_factory=list)          # (name, expr): those of `pre` computed on the host (host_scalars)
    loop_loc: object = None
    loop_locs: list = field(default_factory=list)     # each loop of the nest, outermost first
    numel: tuple = ()                                 # the shape whose elements the loop walks (ints and Syms)
    instrs: list = field(default_factory=list)        # the loop body
    nslots: int = 0                                   # float32 temporaries (slots of calcBuf_)
    slot_of: dict = field(default_factory=dict)       # virtual register -> slot
    adv: bool = False                                 # an advanced math API: the tmp buffer
    select: bool = False                              # Compare / Select: the bit mask and padded tails
    pre_math: dict = field(default_factory=dict)      # scalar math helpers of `pre` (scalar_math: api -> tmp)

    def details(self) -> list:
        return _pre(self.pre) + [
            f"elements: {' x '.join(map(_dim, self.numel))}; float32 slots: {self.nslots}; "
            f"tmp buffer: {_yes(self.adv)}; compare mask: {_yes(self.select)}"] + _program(self.instrs, self.slot_of)


@dataclass(kw_only=True)
class RowPlan(Plan):
    """A loop over the rows of [R, C] tensors: per-row scalar statements and instructions over the row."""
    kind: ClassVar[str] = "row"
    pre: list = field(default_factory=list)           # (loc, name, ctype, text): invariant scalars before the loop
    host: list = field(default_factory=list)          # (name, expr): those of `pre` computed on the host (host_scalars)
    loop_loc: object = None
    rows_dim: object = None                           # R (int or Sym)
    cols_dim: object = None                           # C (int or Sym)
    rows_1d: list = field(default_factory=list)       # names of the 1-D [C] tensors loaded once per core
    per_row: list = field(default_factory=list)       # names of the 1-D [R] tensors, a value per row (per_row.py)
    row_locals: dict = field(default_factory=dict)    # per-row scalar locals -> C type
    nscalar: int = 0                                  # ScalarMath results sm0, sm1, ...
    reduces: bool = False                             # a ReduceSum / ReduceMax / ReduceMin: the work buffer
    instrs: list = field(default_factory=list)        # the row's body, in order
    nslots: int = 0
    slot_of: dict = field(default_factory=dict)
    adv: bool = False
    pre_math: dict = field(default_factory=dict)      # scalar math helpers of `pre` (scalar_math: api -> tmp)
    select: bool = False                              # Compare / Select: the mask, tiles padded to 256-byte repeats
    packed: bool = False                              # several short rows per tile (packed_rows.py)
    bcast: dict = field(default_factory=dict)         # packed: per-row scalar -> (the per-row UB buffer it reads, loc)

    def details(self) -> list:
        packed = ([f"packed rows: several rows per tile (tiling.pack); per-row scalars by Brcb: "
                   f"{', '.join(f'{k} <- {v[0]}' for k, v in self.bcast.items()) or 'none'}"] if self.packed else [])
        return _pre(self.pre) + packed + [
            f"rows: {_dim(self.rows_dim)} of {_dim(self.cols_dim)}; 1-D rows: {', '.join(self.rows_1d) or 'none'}; "
            + (f"per-row tensors: {', '.join(self.per_row)}; " if self.per_row else "") +
            f"float32 slots: {self.nslots}; reductions: {_yes(self.reduces)}; tmp buffer: {_yes(self.adv)}"
            + ("; compare mask: yes" if self.select else ""),
            f"per-row scalars: {', '.join(self.row_locals) or 'none'}"] + _program(self.instrs, self.slot_of)


@dataclass(kw_only=True)
class CubePlan(Plan):
    """A product of whole 2-D float16/bfloat16/float32 matrices on the cube units (B possibly transposed), or a batch
    of them (3-D operands)."""
    kind: ClassVar[str] = "cube"
    mm: ir.MatMul = field(repr=False)
    dims: tuple = ()                                  # (M, N, K) of one product
    batch: int = 0                                    # 0: one 2-D product; B: B products of [B, M, K] @ [B, K, N]
    b_trans: bool = False                             # B is the transpose of a [N, K] tensor (x @ w^T)
    loop_loc: object = None

    def details(self) -> list:
        m, n, k = self.dims
        b = f"batch={self.batch} " if self.batch else ""
        bt = "^T" if self.b_trans else ""
        return [f"{self.mm.dst.tensor.name} = {self.mm.a.tensor.name} @ {self.mm.b.tensor.name}{bt}: {b}M={m} N={n} "
                f"K={k}"]


@dataclass(kw_only=True)
class ScalarPlan(Plan):
    """Scalar code on one AI core; `reason` says why there is no vector or cube lowering."""
    kind: ClassVar[str] = "scalar"
    reason: str = ""
    reason_loc: object = None

    def details(self) -> list:
        at = f" (line {self.reason_loc.line})" if self.reason_loc is not None else ""
        return [f"reason: {self.reason}{at}"]


# ------------------------------------------------------------------ printing

def _value_text(v) -> str:
    if isinstance(v, S):
        return v.text
    if v.kind == "v":
        return f"%{v.ref}"
    if v.kind == "mask":
        return "mask"
    return f"{v.ref}.{v.kind}"


def format_instr(ins: Instr, slot_of: dict | None = None) -> str:
    """One instruction as a line of the printed plan: `%3 [buf1] = Adds(x.in, 1.0f)`."""
    slot_of = slot_of or {}

    def val(v):
        text = _value_text(v)
        return f"{text} [buf{slot_of[v.ref]}]" if v.kind == "v" and v.ref in slot_of else text
    if ins.api == "Note":
        return f"# {ins.scalar}"
    ops = [val(s) for s in ins.srcs] + [x for x in (ins.scalar,) if x is not None]
    call = f"{ins.api}({', '.join(ops)})" + (f" mode {ins.mode}" if ins.mode else "")
    lhs = val(ins.dst) if ins.dst is not None else ins.rdst
    text = f"{lhs} = {call}" if lhs else call
    return f"if ({ins.guard}): {text}" if ins.guard else text


def format_plan(p: Plan) -> str:
    """The plan as readable text: its kind, GM tensors, scalars, then what its kind decided (`Plan.details`)."""
    lines = [f"ascend plan: {p.kind} kernel {p.kernel.entry.pyname}"]
    for t in p.tensors:
        use = "" if isinstance(p, ScalarPlan) else \
            " " + ("+".join(u for u, on in (("read", t.reads), ("written", t.writes)) if on) or "unused")
        lines.append(f"  gm {t.name}: {t.dtype.name}[{', '.join(map(_dim, t.shape))}] {t.kind}{use}" +
                     (f" (init {t.init})" if t.kind == "alloc" else ""))
    lines.extend(f"  scalar {name}: {t!r}" for name, t in p.scalars)
    lines.extend(f"  {line}" for line in p.details())
    return "\n".join(lines)


def _program(instrs: list, slot_of: dict) -> list:
    return ["program:"] + [f"  {format_instr(ins, slot_of)}" for ins in instrs]


def _pre(pre: list) -> list:
    return [f"before the loop: {ct} {name} = {text}" for _, name, ct, text in pre]


def _dim(d) -> str:
    return str(d) if isinstance(d, int) else d.name


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
