"""Kernels of several phases: matrix products next to element code (a fused epilogue `relu(a @ b + bias)`, attention
`softmax(q @ k^T) @ v`). The kernel body is cut at each product: a product is a cube phase (the cube plan of
cube_lowering), each run of the other statements a vector phase (a map or row plan, as if it were a kernel of its
own; a run of several loop nests is one vector phase per nest). A temporary tensor that one phase writes and a later
one reads lives in a GM workspace (an extra kernel argument, allocated by the host); the product is rounded into it
exactly as the interpreter rounds it into the temporary (Fixpipe's float32 -> dtype conversion), and the epilogue
reads the rounded value, as the interpreter does.

The kernel is KERNEL_TYPE_MIX_AIC_1_2: blockDim logical cores = blockDim AICs + 2 * blockDim AIVs. Cube phases run
on the AICs (`if ASCEND_IS_AIC`), vector phases on the AIVs (`if ASCEND_IS_AIV`), each tiled for its own number of
blocks (at most 2 * blockDim for a vector phase; the cores above it skip the phase), and `SyncAll<false>()` (the hard
all-core barrier of a MIX kernel) separates the phases. Sizes are static (the cube path's rule)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ... import ir
from .plans import Plan, Unsupported


@dataclass(kw_only=True)
class PhasedPlan(Plan):
    """Cube and vector phases separated by all-core barriers, through GM workspaces."""
    kind: ClassVar[str] = "phased"
    phases: list = field(default_factory=list)       # sub-plans (CubePlan, MapPlan, RowPlan), in order
    workspaces: list = field(default_factory=list)   # (name, dtype, shape) of the GM workspaces
    loop_loc: object = None

    def details(self) -> list:
        out = [f"workspace {n}: {d.name}{list(s)} (GM)" for n, d, s in self.workspaces]
        for i, p in enumerate(self.phases):
            out.append(f"phase {i} ({p.kind}, on the {'AIC' if p.kind == 'cube' else 'AIV'}s):")
            out.extend("  " + x for x in p.details())
        return out


def _sub_kernel(k: ir.Kernel, i: int, body: list, workspaces: list, names: set) -> ir.Kernel:
    """The kernel of phase i: the Python parameters it uses (and every scalar) and the workspaces it uses as
    parameters, `body` as its body."""
    fn = k.entry

    def used(v):
        return not isinstance(v.type, ir.TensorType) or v.name in names
    params = tuple(p for p in fn.params if used(p.var)) + \
        tuple(ir.Param(v, len(fn.params) + j) for j, v in enumerate(workspaces) if used(v))
    entry = ir.Function(f"{fn.name}_p{i}", fn.pyname, params, tuple(body), fn.ret, fn.locals, fn.loc)
    return ir.Kernel(entry, k.funcs, k.outputs, k.returns_tuple, k.symbols, k.file, k.conversions)


def phased_plan(k: ir.Kernel, base: Plan, vector_plan, cube_plan, gm_interface) -> PhasedPlan:
    """The phases of kernel `k` (`vector_plan`, `cube_plan`, `gm_interface`: the planner's, for each phase);
    Unsupported when a phase has no vector or cube plan."""
    fn = k.entry
    if k.symbols:
        raise Unsupported("a product next to other statements needs static shapes (dynamic_shape=False)", fn.loc)
    temps = [s for s in fn.body if isinstance(s, ir.Alloc) and s.output is None]
    outs = [s for s in fn.body if isinstance(s, ir.Alloc) and s.output is not None]
    groups, cur = [], []
    for s in fn.body:
        if isinstance(s, ir.MatMul):
            if cur:
                groups.append(cur)
                cur = []
            groups.append([s])
        elif isinstance(s, ir.Alloc) or isinstance(s, ir.Return):
            continue
        else:
            if any(isinstance(x, ir.MatMul) for x in ir.walk_stmts((s,))):
                raise Unsupported("a matrix product inside a loop has no lowering on the ascend target yet", s.loc)
            if isinstance(s, ir.For) and any(isinstance(x, ir.For) for x in cur):
                groups.append(cur)             # one loop nest per vector phase: the next starts after a barrier
                cur = []
            cur.append(s)
    if cur:
        groups.append(cur)
    used = set()
    for g in groups:
        used |= _names(g)
    ws = [t.var for t in temps if t.var.name in used]
    for t in temps:
        if not all(isinstance(d, int) for d in t.var.type.shape):
            raise Unsupported("a temporary tensor of dynamic shape", t.loc)
    phases = []
    for i, g in enumerate(groups):
        names = _names(g)
        body = [o for o in outs if o.var.name in names] + list(g)
        sub = _sub_kernel(k, i, body, ws, names)
        if isinstance(g[0], ir.MatMul):
            phases.append(cube_plan(gm_interface(sub), g[0]))
        else:
            phases.append(vector_plan(sub))
    for p in phases:
        if p.kind not in ("cube", "map", "row"):
            raise Unsupported(f"a phase of the kernel takes the {p.kind} plan", fn.loc)
    read = {t.name for p in phases for t in p.tensors if t.reads}
    written = {t.name for p in phases for t in p.tensors if t.writes}
    for t in base.tensors:
        t.reads, t.writes = t.name in read, t.name in written
    return PhasedPlan(**base.interface(), phases=phases, loop_loc=fn.loc,
                      workspaces=[(v.name, v.type.dtype, tuple(v.type.shape)) for v in ws])


def _names(stmts) -> set:
    """The tensor names a list of statements reads or writes."""
    out = set()
    for s in ir.walk_stmts(tuple(stmts)):
        for e in ir.stmt_exprs(s):
            for x in ir.walk_expr(e):
                if isinstance(x, ir.Load):
                    out.add(x.tensor.name)
        if isinstance(s, ir.MatMul):
            out |= {s.dst.tensor.name, s.a.tensor.name, s.b.tensor.name}
        if isinstance(s, ir.Store):
            out.add(s.tensor.name)
    return out
