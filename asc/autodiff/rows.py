"""The structure autodiff understands: a kernel as a "row program", read from its IR.

A kernel is split into *outer loops* (the longest chain of perfectly nested `for` loops whose indices every store
uses: rows of a softmax, (i, j) of a matmul or of a 2-D map) and the *row body* run once per outer iteration. The
row body is straight-line code over:

- row scalars: local variables assigned at row level, and output elements whose index is the outer indices
  (`C[i, j]` in a matmul), both kept in SSA form (each assignment makes a new *version*);
- inner loops (one level, `for j in range(n)`, or a perfect nest of them read as one loop over their product),
  whose statements are element locals (inlined), reductions into a row scalar (`s += e`, `s = s - e`,
  `m = max(m, e)`, `min`, `lang.maximum/minimum`) and element stores at `[outer..., j]` (an output element, or a
  temporary read back by a later loop, inlined at the read).

If statements are read as the conditional expressions they amount to (ifs.py): their conditions guard the reads of
the branches they select. Everything else is refused with the line and the reason: data-dependent or shifted
writes, reads of elements written by another iteration, `while` loops, in-place updates of an input, a running
accumulator read inside its own loop, loops nested deeper, loops not of the form `range(n)`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..frontend.context import size_param_symbol
from .refusals import refuse
from .expr import py
from .ifs import convert as convert_ifs


@dataclass
class Assign:
    """A row-level definition: version `ver` of `key` is `expr`."""
    ver: str
    key: str
    expr: ir.Expr
    loc: object


@dataclass
class Reduction:
    """Version `ver` of `key` is `prev` reduced with `elem` (a function of the loop index) by `op`."""
    ver: str
    key: str
    prev: ir.Expr
    op: str                 # add | sub | max | min
    elem: ir.Expr
    loc: object
    update: ir.Expr = None  # the forward's update, reading the accumulator as Var(ver): recomputed as written


@dataclass
class Loop:
    var: ir.Var
    stop: ir.Expr
    loc: object
    reductions: list = field(default_factory=list)


@dataclass
class Output:
    """How output tensor `name` gets its final value: a row scalar version (`ver`, index `index`) or an element
    expression `expr` of inner loop `loop` at index `index`."""
    name: str
    index: tuple
    ver: str = None
    loop: Loop = None
    expr: ir.Expr = None


@dataclass
class RowProgram:
    outer: list             # of ir.For
    defs: list              # Assign | Loop, in program order
    outputs: list           # Output, in return order
    types: dict             # version name -> ScalarType
    params: list            # ir.Var of the kernel's parameters


def _whole_range(s: ir.For):
    if not (isinstance(s.start, ir.Const) and s.start.value == 0 and isinstance(s.step, ir.Const)
            and s.step.value == 1):
        refuse("only loops `for i in range(n)` are differentiated (this one has a start or a step)", s.loc)


def index_vars(indices) -> list:
    """The loop-variable names used as whole index components, in order (None when a component is neither a
    variable nor a constant)."""
    out = []
    for e in indices:
        if isinstance(e, ir.Var):
            out.append(e.name)
        elif not isinstance(e, ir.Const):
            return None
    return out


def same_extent(stop: ir.Expr, dim) -> bool:
    if isinstance(dim, int):
        return isinstance(stop, ir.Const) and stop.value == dim
    # `range(G)` and an axis of size G, an int argument bound as a size (lang.zeros((B, G)), dynamic_shape=True)
    return isinstance(stop, ir.Var) and getattr(dim, "name", None) in (stop.name, size_param_symbol(stop.name))


def covers(indices, loops, shape) -> bool:
    """True when writing at `indices` over `loops` (Fors or Loops, the ones whose variables form the index) touches
    every element of a tensor of `shape` exactly once: the loop variables in order, constants 0 on unit axes."""
    if len(indices) != len(shape):
        return False
    it = iter(loops)
    for e, d in zip(indices, shape):
        if isinstance(e, ir.Const):
            if not (e.value == 0 and d == 1):
                return False
            continue
        loop = next(it, None)
        if loop is None or not isinstance(e, ir.Var) or e.name != loop.var.name or not same_extent(loop.stop, d):
            return False
    return next(it, None) is None


class _Reader:
    """Walks the kernel's IR and builds the RowProgram, refusing what it cannot differentiate."""

    def __init__(self, body, params, allocs, output_names, loc, symbols, old=None):
        """`body`: the statements; `params`: the Vars read as inputs (tensors and scalars); `allocs`: name ->
        Alloc of each tensor the statements write; `output_names`: the written tensors whose gradients are given;
        `old`: written tensor -> the name of its earlier value, read where the statements read it before writing."""
        self.params = list(params)
        self.param_names = {v.name for v in self.params}
        self.allocs = dict(allocs)
        self.output_names = list(output_names)
        self.old = dict(old or {})
        self.cur: dict = {}          # row-scalar key -> current version (Var) or zero Const
        self.counts: dict = {}
        self.types: dict = {}
        self.version_of: dict = {}   # version name -> its key
        self.pseudo_index: dict = {}  # tensor -> index tuple of its row-scalar element
        self.elem: dict = {}         # tensor -> (Loop, expr) of its latest element store
        self.elem_index: dict = {}   # tensor -> the index of that store
        self.dead_locals: dict = {}  # element locals of finished loops -> the loop's loc
        self.defs: list = []
        self.at = loc                # the statement being read, for errors
        self.nest_names: set = set()  # the index names of loop nests read as one loop (see _nest)
        self.free = self.param_names | set(symbols) | {
            s.var.name for s in ir.walk_stmts(body) if isinstance(s, ir.For)}
        self.outer, stmts = self._outer_loops(body)
        self.outer_names = [f.var.name for f in self.outer]
        self.row(stmts)

    @classmethod
    def of_kernel(cls, k: ir.Kernel):
        allocs, outputs = kernel_allocs(k)
        return cls(k.entry.body, [p.var for p in k.entry.params], allocs, outputs, k.entry.loc, k.symbols)

    # ---------------------------------------------------------------- structure
    def _outer_loops(self, body):
        stmts = [s for s in body if not isinstance(s, (ir.Alloc, ir.Return))]
        stores = [s for s in ir.walk_stmts(body) if isinstance(s, ir.Store)]
        for s in stores:
            if s.tensor.name in self.param_names:
                refuse(f"the kernel overwrites its input {s.tensor.name!r}", s.loc)
            if s.tensor.name not in self.allocs:
                refuse(f"{s.tensor.name!r} is not a tensor the kernel allocates", s.loc)
        outer = []
        while len(stmts) == 1 and isinstance(stmts[0], ir.For):
            f = stmts[0]
            if not all(any(isinstance(i, ir.Var) and i.name == f.var.name for i in s.indices) for s in stores):
                break
            _whole_range(f)
            outer.append(f)
            stmts = [s for s in f.body]
        return outer, stmts

    def _new_version(self, key: str, base: str, t: ir.ScalarType) -> ir.Var:
        n = self.counts.get(key, 0) + 1
        self.counts[key] = n
        name = base if n == 1 and key == base else f"{base}__{n}"
        if self.version_of.setdefault(name, key) != key:
            refuse(f"the kernel uses the name {name!r}, which the backward needs for a version of "
                   f"{self.version_of[name]!r}; rename it", self.at)
        self.types[name] = t
        v = ir.Var(name, t)
        self.cur[key] = v
        return v

    def _pseudo_key(self, s_tensor: str, indices, loc) -> str:
        idx = tuple(py(i) for i in indices)
        known = self.pseudo_index.setdefault(s_tensor, idx)
        if known != idx:
            refuse(f"{s_tensor!r} is written at [{', '.join(idx)}] and at [{', '.join(known)}] in one row", loc)
        return f"{s_tensor}[{', '.join(idx)}]"

    def _index_kind(self, indices, inner: str | None):
        """"row" when the index is the outer variables (and constants), "elem" when it is those plus the inner
        loop's variable last, else None."""
        names = index_vars(indices)
        if names is None:
            return None
        if names == self.outer_names:
            return "row"
        if inner is not None and names == self.outer_names + [inner]:
            return "elem"
        return None

    # ---------------------------------------------------------------- expressions
    def subst(self, e, loop: Loop | None, env: dict, running: set):
        """`e` with element locals inlined, row scalars and output reads replaced by their current version."""
        if isinstance(e, ir.Var):
            if e.name in env:
                return env[e.name]
            if e.name in running:
                refuse(f"the running value of {e.name!r} is used inside the loop that accumulates it", self.at)
            if e.name in self.cur:
                return self.cur[e.name]
            if e.name in self.dead_locals:
                refuse(f"{e.name!r} is used after the loop that computes it", self.at)
            if e.name not in self.free:
                refuse(f"{e.name!r} is read before it is assigned in this iteration", self.at)
            return e
        if isinstance(e, ir.Const):
            return e
        if isinstance(e, ir.Load):
            idx = tuple(self.subst(i, loop, env, running) for i in e.indices)
            for i in idx:
                if any(isinstance(x, (ir.Load, ir.FuncCall)) for x in ir.walk_expr(i)):
                    refuse(f"{e.tensor.name!r} is read at a data-dependent index", e.loc)
            name = e.tensor.name
            if name not in self.allocs:
                return ir.Load(e.tensor, idx, e.type, e.loc)
            return self._read_written(e, idx, loop, running)
        fields = {}
        for name in ir.EXPR_CHILDREN[type(e)]:
            v = getattr(e, name)
            fields[name] = tuple(self.subst(x, loop, env, running) for x in v) if isinstance(v, tuple) else (
                self.subst(v, loop, env, running))
        return type(e)(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, **fields})

    def _read_written(self, e: ir.Load, idx, loop, running):
        name = e.tensor.name
        shown = f"{name}[{', '.join(py(i) for i in idx)}]"
        kind = self._index_kind(idx, loop.var.name if loop else None)
        if kind == "row":
            if name in self.elem:
                refuse(f"{shown} reads one element of {name!r}, which an inner loop writes per element (only the "
                       f"element that loop writes is read back)", e.loc)
            key = self._pseudo_key(name, idx, e.loc)
            if key in running:
                refuse(f"the running value of {shown} is used inside the loop that accumulates it", e.loc)
            if key in self.cur:
                return self.cur[key]
            return self._unwritten(name, ir.Load(e.tensor, idx, e.type, e.loc))
        if kind == "elem":
            if name in self.pseudo_index:
                refuse(f"{shown} is read per element, but {name!r} is written or read at one element per row "
                       f"({name}[{', '.join(self.pseudo_index[name])}])", e.loc)
            if name in self.elem:
                src_loop, expr = self.elem[name]
                if src_loop is loop:
                    return expr
                if py(src_loop.stop) != py(loop.stop):
                    refuse(f"{shown} is read over range({py(loop.stop)}) but was written over "
                           f"range({py(src_loop.stop)})", e.loc)
                return rename(expr, src_loop.var.name, loop.var)
            return self._unwritten(name, ir.Load(e.tensor, idx, e.type, e.loc))
        refuse(f"{shown} is read at an element another iteration writes (stencils, recurrences and transposed "
               f"reads of computed tensors are not differentiated)", e.loc)

    def _unwritten(self, name, e):
        if name in self.old:            # the value before these statements: an input
            return ir.Load(ir.Var(self.old[name], self.allocs[name].var.type), e.indices, e.type, e.loc)
        a = self.allocs[name]
        if a.init == "zeros":
            return ir.Const(0.0 if e.type.dtype.kind == "f" else 0, e.type)
        refuse(f"{name!r} is read before it is written", e.loc)

    # ---------------------------------------------------------------- statements
    def row(self, stmts):
        for s in stmts:
            self.at = s.loc
            if isinstance(s, ir.If):            # as conditional expressions, which guard the reads they select
                self.row(convert_ifs([s], set(self.cur) | self.free))
            elif isinstance(s, ir.Assign):
                value = self.subst(s.value, None, {}, set())
                self.dead_locals.pop(s.var.name, None)
                v = self._new_version(s.var.name, s.var.name, s.var.type)
                self.defs.append(Assign(v.name, s.var.name, value, s.loc))
            elif isinstance(s, ir.Store):
                if self._index_kind(s.indices, None) != "row":
                    refuse(f"{s.tensor.name!r} is written at [{', '.join(py(i) for i in s.indices)}], not at the "
                           f"loop indices", s.loc)
                if s.tensor.name in self.elem:
                    refuse(f"{s.tensor.name!r} is written both per row and per element", s.loc)
                key = self._pseudo_key(s.tensor.name, s.indices, s.loc)
                value = self.subst(s.value, None, {}, set())
                t = ir.ScalarType(s.tensor.type.dtype)
                v = self._new_version(key, s.tensor.name, t)
                self.defs.append(Assign(v.name, key, value, s.loc))
            elif isinstance(s, ir.For):
                self.inner(s)
            else:
                what = {"While": "while loops (a data-dependent trip count)"}.get(
                    type(s).__name__, f"{type(s).__name__.lower()} statements")
                refuse(f"{what} are not differentiated", s.loc)

    def _acc_key(self, s, inner):
        """The row-scalar key a statement of the inner loop reduces into, or None."""
        if isinstance(s, ir.Assign):
            if any(isinstance(x, ir.Var) and x.name == s.var.name for x in ir.walk_expr(s.value)):
                return s.var.name
        elif isinstance(s, ir.Store) and self._index_kind(s.indices, inner) == "row":
            me = (s.tensor.name, tuple(py(i) for i in s.indices))
            if any(isinstance(x, ir.Load) and (x.tensor.name, tuple(py(i) for i in x.indices)) == me
                   for x in ir.walk_expr(s.value)):
                return self._pseudo_key(s.tensor.name, s.indices, s.loc)
        return None

    def _nest(self, f: ir.For):
        """(the Loop, its body, the nest's variables as expressions of the Loop's index): a perfect nest of loops
        (`for di in range(3): for dj in range(3): ...`, a 2-D window) is read as one loop over their product, in the
        same order, each variable computed from its index (`di = t // 3`, `dj = t % 3`)."""
        nest = [f]
        while len(nest[-1].body) == 1 and isinstance(nest[-1].body[0], ir.For):
            nest.append(nest[-1].body[0])
        for g in nest:
            _whole_range(g)
        if len(nest) == 1:
            return Loop(f.var, f.stop, f.loc), list(f.body), {}
        names = {g.var.name for g in nest}
        for g in nest:
            if any(isinstance(x, ir.Var) and x.name in names for x in ir.walk_expr(g.stop)):
                refuse(f"the loop over {g.var.name!r} has a length that depends on an enclosing loop's index", g.loc)
        name = "__".join(g.var.name for g in nest)
        if name in self.free and name not in self.nest_names:
            refuse(f"the kernel uses the name {name!r}, which the backward needs for the index of the loops over "
                   f"{', '.join(g.var.name for g in nest)}; rename it", f.loc)
        self.free.add(name)
        self.nest_names.add(name)
        it = f.var.type
        index = ir.Var(name, it)

        def times(a, b):
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                return ir.Const(a.value * b.value, it)
            return ir.Binary("mul", a, b, it)
        env = {}
        inner_size = None
        for k in reversed(range(len(nest))):
            g = nest[k]
            e = index if inner_size is None else ir.Binary("floordiv", index, inner_size, it)
            env[g.var.name] = e if k == 0 else ir.Binary("mod", e, g.stop, it)
            inner_size = g.stop if inner_size is None else times(g.stop, inner_size)
        return Loop(index, inner_size, f.loc), list(nest[-1].body), env

    def inner(self, f: ir.For):
        loop, body, nest_env = self._nest(f)
        body = convert_ifs(body, set(self.cur) | self.free)
        running = {}
        for s in body:
            key = self._acc_key(s, loop.var.name)
            if key is not None:
                if key in running:
                    refuse(f"{key!r} is updated twice in one loop", s.loc)
                running[key] = s
        env: dict = dict(nest_env)
        for s in body:
            self.at = s.loc
            if isinstance(s, ir.For):
                refuse("loops nested inside an inner loop are not differentiated (one level of loops per row, or a "
                       "perfect nest of them)", s.loc)
            if not isinstance(s, (ir.Assign, ir.Store)):
                self.row([s])           # refuses with the statement's reason
            key = self._acc_key(s, loop.var.name)
            if key is not None:
                self._reduction(s, key, loop, env, set(running))
            elif isinstance(s, ir.Assign):
                if s.var.name in self.cur:
                    refuse(f"the row variable {s.var.name!r} is reassigned inside the loop (it would keep the last "
                           f"iteration's value)", s.loc)
                env[s.var.name] = self.subst(s.value, loop, env, set(running))
            else:
                kind = self._index_kind(s.indices, loop.var.name)
                shown = f"[{', '.join(py(i) for i in s.indices)}]"
                if kind != "elem":
                    refuse(f"{s.tensor.name!r} is written at {shown}, not at the loop indices", s.loc)
                if s.tensor.name in self.pseudo_index:
                    refuse(f"{s.tensor.name!r} is written both per row and per element", s.loc)
                self.elem[s.tensor.name] = (loop, self.subst(s.value, loop, env, set(running)))
                self.elem_index[s.tensor.name] = s.indices
        for name in env:
            self.dead_locals[name] = f.loc
        self.defs.append(loop)

    def _reduction(self, s, key, loop, env, running):
        if isinstance(s, ir.Assign):
            acc = ir.Var(s.var.name, s.var.type)

            def is_acc(e):
                return isinstance(e, ir.Var) and e.name == s.var.name
            t = s.var.type
            base = s.var.name
        else:
            me = (s.tensor.name, tuple(py(i) for i in s.indices))

            def is_acc(e):
                return isinstance(e, ir.Load) and (e.tensor.name, tuple(py(i) for i in e.indices)) == me
            t = ir.ScalarType(s.tensor.type.dtype)
            base = s.tensor.name
            acc = None
        op, elem = match_reduction(s.value, is_acc)
        if op is None:
            refuse(f"{key!r} is updated in a form that is not differentiated (use acc += e, acc -= e, "
                   f"acc = max(acc, e) or acc = min(acc, e))", s.loc)
        if any(is_acc(x) for x in ir.walk_expr(elem)):
            refuse(f"{key!r} appears more than once in its update", s.loc)
        elem = self.subst(elem, loop, env, running)
        if key in self.cur:
            prev = self.cur[key]
        elif acc is None:
            prev = self._unwritten(s.tensor.name, ir.Load(s.tensor, s.indices, t, s.loc))
        else:
            refuse(f"{key!r} is used before it is assigned", s.loc)
        v = self._new_version(key, base, t)
        # the update as the forward wrote it (max(m, e) and max(e, m), lang.maximum, differ on NaN)
        # (the accumulator, first replaced by a name no program has, reads the new version)
        update = ir.map_expr(s.value, lambda x: ir.Var("<acc>", t) if is_acc(x) else None)
        update = self.subst(update, loop, {**env, "<acc>": v}, running)
        loop.reductions.append(Reduction(v.name, key, prev, op, elem, s.loc, update))


def kernel_allocs(k: ir.Kernel):
    """(name -> Alloc of every tensor the kernel allocates, the returned tensors' names in return order); refuses
    kernels returning arguments or scalars, and allocations inside loops."""
    if any(o.kind != "alloc" for o in k.outputs):
        refuse("the kernel must return new tensors (not arguments or scalars)", k.entry.loc)
    body = k.entry.body
    allocs = {}
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.Alloc):
            if s not in body:
                refuse(f"the tensor {s.var.name!r} is allocated inside a loop", s.loc)
            allocs[s.var.name] = s
    return allocs, [next(n for n, a in allocs.items() if a.output == o.index) for o in k.outputs]


def _strip(e):
    while isinstance(e, ir.Cast) and not e.explicit:
        e = e.x
    return e


def match_reduction(value, is_acc):
    """(op, element expression) when `value` is acc + e, e + acc, acc - e, max/min(acc, e) in any spelling."""
    v = _strip(value)
    if isinstance(v, ir.Binary):
        a, b = _strip(v.a), _strip(v.b)
        if v.op == "add" and is_acc(a):
            return "add", v.b
        if v.op == "add" and is_acc(b):
            return "add", v.a
        if v.op == "sub" and is_acc(a):
            return "sub", v.b
        return None, None
    if isinstance(v, ir.Call) and v.fn in ("maximum", "minimum") and len(v.args) == 2:
        a, b = (_strip(x) for x in v.args)
        op = "max" if v.fn == "maximum" else "min"
        if is_acc(a):
            return op, v.args[1]
        if is_acc(b):
            return op, v.args[0]
        return None, None
    if isinstance(v, ir.Select):
        op, e = _ternary_extremum(v, is_acc)
        return (op, e) if op is not None else _guarded(v, is_acc)
    return None, None


def _guarded(v: ir.Select, is_acc):
    """`(acc + e) if c else acc` (an update under an if statement, see ifs.py) and its mirror: the update's operator,
    with `e if c else <the operator's identity>` as the element, so the condition guards e's reads."""
    if any(is_acc(x) for x in ir.walk_expr(v.cond)):
        return None, None
    for upd, keep, holds in ((v.a, v.b, True), (v.b, v.a, False)):
        if is_acc(_strip(keep)) and not is_acc(_strip(upd)):
            op, e = match_reduction(upd, is_acc)
            if op is None:
                return None, None
            t = e.type
            if op in ("add", "sub"):
                ident = 0.0 if t.dtype.kind == "f" else 0
            elif t.dtype.kind == "f":
                ident = -math.inf if op == "max" else math.inf
            elif t.dtype.kind in "iu":
                info = np.iinfo(t.dtype.np_name)
                ident = int(info.min if op == "max" else info.max)
            else:
                return None, None
            z = ir.Const(ident, ir.ScalarType(t.dtype, weak=True) if t.dtype.kind == "f" else t)
            return op, (ir.Select(v.cond, e, z, t) if holds else ir.Select(v.cond, z, e, t))
    return None, None


def _ternary_extremum(v: ir.Select, is_acc):
    """`e if e > acc else acc` and its spellings: Python's max and min of floats."""
    if isinstance(v.cond, ir.Compare) and v.cond.op in ("lt", "le", "gt", "ge"):
        a, b = _strip(v.a), _strip(v.b)
        p, q = _strip(v.cond.a), _strip(v.cond.b)
        if is_acc(b) and not is_acc(a):       # picks e when the condition holds
            e, acc_first = v.a, False
        elif is_acc(a) and not is_acc(b):     # keeps acc when the condition holds
            e, acc_first = v.b, True
        else:
            return None, None
        greater = v.cond.op in ("gt", "ge")
        se = _strip(e)
        if p == se and is_acc(q):             # cond: e ? acc
            e_better = greater
        elif is_acc(p) and q == se:           # cond: acc ? e
            e_better = not greater
        else:
            return None, None
        # picks e when e is greater -> max; keeps acc when e is greater -> min
        is_max = e_better != acc_first
        return ("max" if is_max else "min"), e
    return None, None


def rename(e, old: str, new: ir.Var):
    """`e` with variable `old` replaced by `new`."""
    return ir.map_expr(e, lambda x: new if isinstance(x, ir.Var) and x.name == old else None)


def read(k: ir.Kernel) -> RowProgram:
    return _program(_Reader.of_kernel(k), k.entry.body)


def read_stage(body, params, allocs, output_names, loc, symbols, old) -> RowProgram:
    """A part of a kernel (the statements between two matrix products) as a row program: see _Reader."""
    return _program(_Reader(body, params, allocs, output_names, loc, symbols, old), body)


def _program(r: _Reader, body) -> RowProgram:
    outputs = []
    for name in r.output_names:
        shape = r.allocs[name].var.type.shape
        if name in r.elem:
            loop, expr = r.elem[name]
            idx = r.elem_index[name]
            if not covers(idx, r.outer + [loop], shape):
                refuse(f"{name!r} is written at [{', '.join(py(i) for i in idx)}], which does not cover its shape "
                       f"once", r.allocs[name].loc)
            outputs.append(Output(name, idx, loop=loop, expr=expr))
        elif name in r.pseudo_index:
            ver = r.cur[f"{name}[{', '.join(r.pseudo_index[name])}]"]
            idx = _row_index(body, name)
            if not covers(idx, r.outer, shape):
                refuse(f"{name!r} is written at [{', '.join(py(i) for i in idx)}], which does not cover its shape "
                       f"once", r.allocs[name].loc)
            outputs.append(Output(name, idx, ver=ver.name))
        else:
            refuse(f"output {name!r} is never written", r.allocs[name].loc)
    return RowProgram(r.outer, r.defs, outputs, r.types, r.params)


def _row_index(body, name):
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.Store) and s.tensor.name == name:
            return s.indices
    raise AssertionError(name)
