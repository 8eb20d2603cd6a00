"""Window plans: element-wise maps whose accesses are shifted windows of the tensors (issue 16's stencils, RoPE).

A kernel of this shape: scalars before the loop, one 1-D or 2-D loop nest over a sub-range (`range(a, N - b)`, per
dimension), whose loads and stores are at the loop's index plus an offset that does not depend on the loop
(`u[i - 1]`, `u[i, j + 1]`, `x[t, j + N]`), and boundary statements outside the loop at constant indices
(`out[0] = u[0]`, `out[N - 1] = u[N - 1]`).

Each distinct (tensor, offset) access is its own UB tile, copied from / to GM with DataCopyPad at the element
offset of its window (the UB operands of vector instructions must be 32-byte aligned, so a shifted view into one
haloed tile is not an operand: the shift is done by the copy engine). The loop's index space (rows x columns) is cut
into units of one row and a chunk of columns; the units are spread over the cores with the remainder on the first
ones. Stores go out with DataCopyPad, which writes only its own bytes, so two cores never write the same bytes and
may share a 32-byte block. An output allocated with zeros / full that the loop does not cover is filled (the
segments before, between and after the window's rows). The boundary statements run on block 0 after its units:
one-element copies, count-1 vector instructions, one-element stores; they may not read what the kernel writes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ... import ir
from ...ir.printer import format_expr
from ...passes.cost import static_value
from .ctext import FLOATS, STORAGE_ROUND, cname
from .lowering import Lowerer, assigned_names, is_var
from .plans import Plan, S, Unsupported, V, format_instr
from .regalloc import finalize
from .window_budget import SUM_BLOCK, SUM_LANES, check_window


@dataclass(frozen=True)
class Offset:
    """sign * expr (expr an index expression of constants and sizes; None: zero)."""
    sign: int = 1
    expr: object = None

    def text(self) -> str:
        if self.expr is None:
            return ""
        return ("-" if self.sign < 0 else "+") + format_expr(self.expr)

    def value(self, symbols: dict) -> int:
        if self.expr is None:
            return 0
        v = static_value(self.expr, symbols)
        if v is None:
            raise Unsupported("an index offset that is not a constant or a size", getattr(self.expr, "loc", None))
        return self.sign * int(v)


@dataclass
class Access:
    """One window of a tensor: its UB tile `key`, the tensor, in (loaded) or out (stored), its offsets."""
    key: str
    tensor: str
    role: str
    drow: Offset | None           # None: a 1-D tensor (no row)
    dcol: Offset


@dataclass
class Point:
    """One element of a boundary statement: tile `key` of tensor at the flat index `index` (an IR expression)."""
    key: str
    tensor: str
    role: str
    index: object


@dataclass
class Boundary:
    """A statement outside the loop at constant indices, run on block 0: count-1 instructions."""
    loc: object
    points: list
    instrs: list
    slot_of: dict
    nslots: int


@dataclass(kw_only=True)
class WindowPlan(Plan):
    """A map over shifted windows of the tensors (1-D or 2-D loop nest over sub-ranges), with boundary statements."""
    kind: ClassVar[str] = "window"
    pre: list = field(default_factory=list)
    loop_loc: object = None
    loop_locs: list = field(default_factory=list)
    two_d: bool = False
    row_range: tuple = ()             # (start, stop) IR expressions (2-D)
    col_range: tuple = ()
    accesses: list = field(default_factory=list)
    instrs: list = field(default_factory=list)
    nslots: int = 0
    slot_of: dict = field(default_factory=dict)
    adv: bool = False
    fills: list = field(default_factory=list)       # (tensor name, key of its one store access, value C++ text)
    boundary: list = field(default_factory=list)
    acc_keys: list = field(default_factory=list)     # windows summed across the rows: units are column chunks
    sum_of: tuple | None = None                      # (tensor, flat index, loc): the loop summed into one element
    row_blocks: bool = False                         # units of several rows (a 2-D map of one element size)

    def access(self, key) -> Access:
        return next(a for a in self.accesses if a.key == key)

    def details(self) -> list:
        rng = lambda r: f"range({format_expr(r[0])}, {format_expr(r[1])})"  # noqa: E731
        lines = _pre(self.pre)
        lines.append(f"index space: {rng(self.row_range) + ' x ' if self.two_d else ''}{rng(self.col_range)}; "
                     f"float32 slots: {self.nslots}; tmp buffer: {'yes' if self.adv else 'no'}")
        for a in self.accesses:
            at = f"[{'i' + a.drow.text() + ', ' if a.drow is not None else ''}j{a.dcol.text()}]"
            lines.append(f"window {a.key}: {a.tensor}{at} {a.role}")
        if self.row_blocks:
            lines.append("units of several rows: a tensor's windows at one column offset share one copy of the rows")
        if self.acc_keys:
            lines.append(f"sums across the rows into {', '.join(self.acc_keys)}: a unit is a chunk of columns over "
                         f"all rows")
        if self.sum_of is not None:
            lines.append(f"sum of the loop into {self.sum_of[0]}[{format_expr(self.sum_of[1])}]: blocks of "
                         f"{SUM_BLOCK} elements over the cores, each into {SUM_LANES} lanes (element k into lane k % "
                         f"{SUM_LANES}), then ReduceSum into its partial in a GM workspace; SyncAll; block 0 adds the "
                         f"partials in block order")
        for name, _, v in self.fills:
            lines.append(f"fill {name} outside the window with {v}")
        lines += _program(self.instrs, self.slot_of)
        for b in self.boundary:
            lines.append(f"boundary statement (line {b.loc.line if b.loc else '?'}), on block 0:")
            lines += ["  " + x for x in _program(b.instrs, b.slot_of)[1:]]
        return lines


def _pre(pre: list) -> list:
    return [f"before the loop: {ct} {name} = {text}" for _, name, ct, text in pre]


def _program(instrs: list, slot_of: dict) -> list:
    return ["program:"] + [f"  {format_instr(ins, slot_of)}" for ins in instrs]


# ------------------------------------------------------------------ index shapes

def _mentions(e, names) -> bool:
    return any(isinstance(x, ir.Var) and x.name in names for x in ir.walk_expr(e))


def _offset(e, var: str, loopvars) -> Offset | None:
    """e = var + offset (offset free of the loop variables) -> the Offset, else None."""
    if is_var(e, var):
        return Offset()
    if isinstance(e, ir.Binary) and e.op in ("add", "sub"):
        if is_var(e.a, var) and not _mentions(e.b, loopvars):
            return Offset(1 if e.op == "add" else -1, e.b)
        if e.op == "add" and is_var(e.b, var) and not _mentions(e.a, loopvars):
            return Offset(1, e.a)
    return None


def _range_ok(loop: ir.For) -> bool:
    return isinstance(loop.step, ir.Const) and loop.step.value == 1 and \
        not any(isinstance(x, ir.Load) for x in ir.walk_expr(loop.start)) and \
        not any(isinstance(x, ir.Load) for x in ir.walk_expr(loop.stop))


class WindowLowerer(Lowerer):
    """The loop body (or a boundary statement) over windows: each (tensor, offset) access is a tile."""

    def __init__(self, tensors, scalar_names, loopvars, accesses: list, prefix: str):
        super().__init__(tensors, tuple(loopvars), scalar_names)
        self.loopvars = tuple(loopvars)
        self.accesses = accesses
        self.prefix = prefix
        self.by_sig: dict = {}
        self.flat = None                 # boundary statements: the tensors' shapes for flat indices
        self.acc_keys: set = set()       # windows summed across the rows (column reductions)
        self.sum_of = None               # (tensor, flat index, loc): the loop's elements summed into one element
        self.after_sum: set = set()      # boundary statements after the sum: the tensors they may read

    def window(self, t: ir.Var, indices, role: str, loc):
        gm = self.tensors[t.name]
        if self.flat is not None:        # a boundary statement: constant indices
            if _mentions_any_load(indices):
                raise Unsupported(f"a data-dependent index of {t.name!r}", loc)
            flat = _flat_index(indices, gm.shape, loc)
            sig = (t.name, role, format_expr(flat))
            if sig not in self.by_sig:
                key = f"{self.prefix}{len(self.accesses)}"
                self.accesses.append(Point(key, t.name, role, flat))
                self.by_sig[sig] = key
            return self.by_sig[sig]
        if len(indices) != len(gm.shape) or len(indices) > len(self.loopvars):
            raise Unsupported(f"the access {t.name}[...] is not a window of the loop's index space", loc)
        offs = [_offset(e, v, self.loopvars) for e, v in zip(indices, self.loopvars[-len(indices):])]
        if any(o is None for o in offs):
            raise Unsupported(f"the access {t.name}[...] is not at the loop's index plus an offset", loc)
        drow, dcol = (offs[0], offs[1]) if len(offs) == 2 else (None, offs[0])
        sig = (t.name, role, drow.text() if drow else None, dcol.text())
        if sig not in self.by_sig:
            key = f"{self.prefix}{len(self.accesses)}"
            self.accesses.append(Access(key, t.name, role, drow, dcol))
            self.by_sig[sig] = key
        return self.by_sig[sig]

    def load(self, e: ir.Load):
        t = e.tensor
        gm = self.tensors[t.name]
        out_key = self.by_sig.get(self._sig(t, e.indices, "out", e.loc))
        if out_key is not None and out_key in self.stored:
            v = self.stored[out_key]
            if gm.dtype.name != "float32":
                if out_key not in self.rounded:
                    self.rounded[out_key] = self.round_trip(v, gm.dtype.name)
                v = self.rounded[out_key]
            return v
        if t.name in self.after_sum:
            key = self.window(t, e.indices, "in", e.loc)
            self.loaded.setdefault(key, V("in", key))
            return self.loaded[key]
        if gm.writes or gm.kind == "alloc":
            raise Unsupported(f"the kernel reads {t.name!r}, which it writes (a value carried between elements)",
                              e.loc)
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{t.name!r} is {gm.dtype.name}; vector code reads float32, float16 and bfloat16",
                              e.loc)
        key = self.window(t, e.indices, "in", e.loc)
        if key in self.loaded:
            return self.loaded[key]
        gm.reads = True
        src = V("in", key)
        if gm.dtype.name != "float32":
            src = self.emit("Cast", self.reg(), [src], mode="CAST_NONE")
        self.loaded[key] = src
        return src

    def _sig(self, t, indices, role, loc):
        if self.flat is not None:
            try:
                return (t.name, role, format_expr(_flat_index(indices, self.tensors[t.name].shape, loc)))
            except Unsupported:
                return None
        offs = [_offset(e, v, self.loopvars) for e, v in zip(indices, self.loopvars[-len(indices):])]
        if any(o is None for o in offs) or len(indices) != len(self.tensors[t.name].shape):
            return None
        drow, dcol = (offs[0], offs[1]) if len(offs) == 2 else (None, offs[0])
        return (t.name, role, drow.text() if drow else None, dcol.text())

    def accumulation(self, s: ir.Store):
        """`acc[j] = acc[j] + e` (or e + acc[j]) of a 1-D tensor in a 2-D nest, at the column index only: a sum
        across the rows (a column reduction) -> e, else None."""
        v = s.value
        if not (len(self.loopvars) == 2 and len(s.indices) == 1 and isinstance(v, ir.Binary) and v.op == "add"):
            return None
        same = lambda x: isinstance(x, ir.Load) and x.tensor.name == s.tensor.name and \
            tuple(map(format_expr, x.indices)) == tuple(map(format_expr, s.indices))  # noqa: E731
        if same(v.a) and not same(v.b):
            return v.b
        if same(v.b) and not same(v.a):
            return v.a
        return None

    def total(self, s: ir.Store):
        """`acc[c] = acc[c] + e` at an index free of the loop's, in a 1-D loop: a sum of the whole index space."""
        v = s.value
        if self.flat is not None or len(self.loopvars) != 1 or any(_mentions(i, self.loopvars) for i in s.indices) \
                or not (isinstance(v, ir.Binary) and v.op == "add"):
            return None
        same = lambda x: isinstance(x, ir.Load) and x.tensor.name == s.tensor.name and \
            tuple(map(format_expr, x.indices)) == tuple(map(format_expr, s.indices))  # noqa: E731
        return v.b if same(v.a) and not same(v.b) else (v.a if same(v.b) and not same(v.a) else None)

    def store(self, s: ir.Store):
        name = s.tensor.name
        gm = self.tensors[name]
        if self.flat is None and len(self.loopvars) == 1 and self.total(s) is not None:
            if gm.kind != "alloc" or gm.init != "zeros" or gm.dtype.name != "float32" or self.sum_of is not None:
                raise Unsupported(f"a sum of the loop into {name!r}, which is not one float32 output allocated with "
                                  f"zeros", s.loc)
            v = self.vec(self.value(self.total(s)))
            self.emit("SumLanes", None, [v])
            self.sum_of = (name, _flat_index(s.indices, gm.shape, s.loc), s.loc)
            gm.writes = True
            return
        e = self.accumulation(s) if self.flat is None else None
        if e is not None:
            if gm.kind != "alloc" or gm.init == "empty" or gm.dtype.name != "float32":
                raise Unsupported(f"a sum across the rows into {name!r}, which is not a float32 output allocated "
                                  f"with zeros or full", s.loc)
            key = self.window(s.tensor, s.indices, "out", s.loc)
            if key in self.acc_keys or key in self.stored:
                raise Unsupported(f"{name!r} is accumulated twice in one iteration", s.loc)
            v = self.vec(self.value(e))
            acc = V("out", key)
            self.emit("Add", acc, [acc, v])
            gm.writes = True
            self.acc_keys.add(key)
            self.stored[key] = acc
            return
        if gm.reads and self.flat is not None:
            raise Unsupported(f"the statement writes {name!r}, which the kernel reads", s.loc)
        if gm.dtype.name not in FLOATS:
            raise Unsupported(f"{name!r} is {gm.dtype.name}; vector code writes float32, float16 and bfloat16", s.loc)
        v = self.value(s.value)
        key = self.window(s.tensor, s.indices, "out", s.loc)
        gm.writes = True
        if isinstance(v, S):
            v = self.vec(v)
        self.emit("Store", V("out", key), [v])
        self.stored[key] = v
        self.rounded.pop(key, None)

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, ir.If):
                raise Unsupported("an `if` in a window map has no vector lowering yet", s.loc)
        super().block(stmts)
        if self.select:
            raise Unsupported("conditional expressions in a window map have no vector lowering yet", None)


def _mentions_any_load(indices) -> bool:
    return any(isinstance(x, ir.Load) for e in indices for x in ir.walk_expr(e))


def _flat_index(indices, shape, loc):
    """The flat index of constant indices into a tensor of `shape` (an IR expression of constants and sizes)."""
    if len(indices) != len(shape):
        raise Unsupported("an access with fewer indices than dimensions", loc)
    int_t = indices[0].type
    flat = indices[0]
    for e, d in zip(indices[1:], shape[1:]):
        dim = ir.Const(d, int_t) if isinstance(d, int) else ir.Var(d.name, int_t)
        flat = ir.Binary("add", ir.Binary("mul", flat, dim, int_t), e, int_t)
    return flat


# ------------------------------------------------------------------ the plan

def window_plan(k: ir.Kernel, base: Plan, scalar_names: dict) -> WindowPlan:
    """The window plan of kernel `k` (`base`: its GM interface), or Unsupported."""
    fn = k.entry
    tensors = {t.name: t for t in base.tensors}
    for t in base.tensors:
        t.reads = t.writes = False
    pre, loops, outside, before = [], [], [], set()
    for s in fn.body:
        if isinstance(s, ir.Alloc):
            if s.output is None:
                raise Unsupported("temporary tensors have no vector lowering yet", s.loc)
        elif isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType) and not loops and not outside:
            v = Lowerer(tensors, (), scalar_names).value(s.value)
            if not isinstance(v, S) or s.var.type.dtype.kind != "f":
                raise Unsupported(f"the scalar {s.var.name!r} before the loop", s.loc)
            pre.append((s.loc, s.var.name, "float", v.text))
            scalar_names[s.var.name] = f"{cname(s.var.name)}_"
        elif isinstance(s, ir.For):
            loops.append(s)
        elif isinstance(s, ir.Store):
            outside.append(s)
            if not loops:
                before.add(id(s))
        elif isinstance(s, ir.Return):
            pass
        else:
            raise Unsupported(f"the statement {type(s).__name__} outside the element loop", getattr(s, "loc", None))
    if len(loops) != 1:
        raise Unsupported("a window map has exactly one loop nest", fn.loc)
    loop = loops[0]
    nest = [loop]
    if len(loop.body) == 1 and isinstance(loop.body[0], ir.For):
        nest.append(loop.body[0])
    body = nest[-1].body
    if any(isinstance(x, (ir.For, ir.While, ir.Break, ir.Continue, ir.Return)) for x in ir.walk_stmts(body)):
        raise Unsupported("control flow inside a window map", loop.loc)
    if not all(_range_ok(lp) for lp in nest):
        raise Unsupported("a loop of a window map is not a range of step 1 over sizes", loop.loc)
    loopvars = [lp.var.name for lp in nest]
    if any(_mentions(e, loopvars) for lp in nest for e in (lp.start, lp.stop)):
        raise Unsupported("a triangular loop nest", loop.loc)
    accesses: list = []
    low = WindowLowerer(tensors, scalar_names, loopvars, accesses, "win")
    low.carried = assigned_names(body)
    low.block(body)
    # the boundary statements: constant indices, tensors the loop neither reads nor writes... (checked below)
    bounds = []
    if low.sum_of is not None:
        if before:
            raise Unsupported("statements before a sum of the loop", loop.loc)
        if any(a.role == "out" for a in accesses):
            raise Unsupported("element stores next to a sum of the loop", loop.loc)
        for s in outside:                     # the epilogue reads the sum only after it is stored
            if any(isinstance(x, ir.Load) and x.tensor.name != low.sum_of[0] and tensors[x.tensor.name].writes
                   for x in ir.walk_expr(s.value)):
                raise Unsupported("an epilogue reading another output", s.loc)
    for s in outside:
        pts: list = []
        bl = WindowLowerer(tensors, scalar_names, (), pts, f"pt{len(bounds)}_")
        bl.flat = True
        if low.sum_of is not None:
            bl.after_sum = {low.sum_of[0]}
            tensors[low.sum_of[0]].writes = False      # the epilogue may write the sum's tensor again
            tensors[low.sum_of[0]].reads = False
        bl.loc = s.loc
        bl.store(s)
        fin = finalize(bl.out, {x.key: tensors[x.tensor].dtype for x in pts})
        bounds.append(Boundary(s.loc, pts, fin.instrs, fin.slot_of, fin.nslots))
        if low.sum_of is not None:
            tensors[low.sum_of[0]].writes = tensors[low.sum_of[0]].reads = True
    for t in base.tensors:
        if t.kind == "alloc" and not t.writes:
            raise Unsupported(f"the output {t.name!r} is not written", loop.loc)
    fills = []
    for t in base.tensors:
        if low.sum_of is not None and t.name == low.sum_of[0]:
            fills.append((t.name, None, "0.0f"))     # all of it zeros first (block 0), then the sum, the epilogue
            continue
        if t.kind != "alloc" or t.init == "empty":
            continue
        outs = [a for a in accesses if a.tensor == t.name and a.role == "out"]
        if len(outs) != 1:
            raise Unsupported(f"the output {t.name!r} (initialized) is stored through several windows", loop.loc)
        if any(p.tensor == t.name for b in bounds for p in b.points):
            raise Unsupported(f"the initialized output {t.name!r} is written outside the loop", loop.loc)
        if t.init == "zeros":
            val = "0.0f"
        else:
            v = Lowerer(tensors, (), scalar_names).value(t.fill)
            if not isinstance(v, S):
                raise Unsupported(f"the fill value of {t.name!r}", t.loc)
            val = f"static_cast<float>({STORAGE_ROUND.get(t.dtype.name, '{}').format(v.text)})"
        fills.append((t.name, outs[0].key, val))
    sizes = set(k.symbols)
    for e in [lp.start for lp in nest] + [lp.stop for lp in nest] + \
            [o.expr for a in accesses for o in (a.drow, a.dcol) if o is not None and o.expr is not None]:
        if any(isinstance(x, ir.Var) and x.name not in sizes for x in ir.walk_expr(e)) or \
                any(isinstance(x, ir.Load) for x in ir.walk_expr(e)):
            raise Unsupported("a loop bound or an index offset that is not made of constants and sizes", loop.loc)
    for a in accesses:
        if a.drow is None and len(nest) == 2 and len(tensors[a.tensor].shape) != 1:
            raise Unsupported("a 2-D window in a 1-D loop", loop.loc)
    if len(nest) == 1 and any(a.drow is not None for a in accesses):
        raise Unsupported("a 2-D tensor in a 1-D loop", loop.loc)
    # units of several rows: one copy per tensor and column offset brings the rows of all its row offsets, each
    # row padded to 32 bytes in UB (one element size, so every tile has the same pitch), vector instructions over
    # the h rows at once
    row_blocks = len(nest) == 2 and not low.acc_keys and low.sum_of is None and \
        all(a.drow is not None and static_value(a.drow.expr, {}) is not None if a.drow and a.drow.expr is not None
            else a.drow is not None for a in accesses) and \
        len({tensors[a.tensor].itemsize for a in accesses}) == 1
    fin = finalize(low.out, {a.key: tensors[a.tensor].dtype for a in accesses})
    p = WindowPlan(**base.interface(), pre=pre, loop_loc=loop.loc, loop_locs=[lp.loc for lp in nest],
                   two_d=len(nest) == 2, row_range=(nest[0].start, nest[0].stop) if len(nest) == 2 else (),
                   col_range=(nest[-1].start, nest[-1].stop), accesses=accesses, instrs=fin.instrs,
                   nslots=max([fin.nslots] + [b.nslots for b in bounds]), slot_of=fin.slot_of, adv=low.adv,
                   fills=fills, boundary=bounds, acc_keys=sorted(low.acc_keys), sum_of=low.sum_of,
                   row_blocks=row_blocks)
    if low.acc_keys and bounds:
        raise Unsupported("boundary statements next to a sum across the rows", loop.loc)
    for name in {a.tensor for a in accesses}:
        offs = {(a.drow.text() if a.drow else None, a.dcol.text()) for a in accesses if a.tensor == name}
        if tensors[name].reads and tensors[name].writes and len(offs) > 1:
            raise Unsupported(f"the loop reads and writes {name!r} at different offsets (a value carried between "
                              f"elements)", loop.loc)
    for role in ("in", "out"):
        if len({a.tensor for a in accesses if a.role == role}) > 4:
            raise Unsupported(f"more than 4 tensors {'read' if role == 'in' else 'written'} by a window map (8 "
                              f"double-buffered queues at one position)", loop.loc)
    check_window(p, loop.loc)
    return p


