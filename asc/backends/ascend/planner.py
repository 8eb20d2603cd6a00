"""`plan(kernel)`: which shape an (after the ascend pipeline's passes) kernel has on the ascend target, and its
program. Pure: it reads the IR and writes no C++.

- a matrix product: the cube plan (cube_lowering), or the scalar fallback with the product as element loops;
- one loop nest over all elements, at the loop's own index: a map plan (this module, with lowering and regalloc);
- a loop over the rows of [R, C] tensors: a row plan (row_lowering);
- anything else: the scalar plan, with the reason and its line."""
from __future__ import annotations

from ... import ir
from ...errors import CompileError
from .budget import check_budget, check_row_budget
from .ctext import cname
from .cube_lowering import cube_plan, products_as_loops
from .half_ops import half_ops
from .host_scalars import evaluate, field_name, hoisted, host_expr, sample
from .lowering import Lowerer, assigned_names, same_dim, simple_range
from .phases import phased_plan
from .plans import GmTensor, MapPlan, Plan, S, ScalarPlan, Unsupported
from .regalloc import finalize
from .row_lowering import row_plan
from .scalar_math import PreScalars
from .window_lowering import window_plan


def plan(k: ir.Kernel) -> Plan:
    """The plan for kernel `k`: a cube, map or row program, else the scalar fallback with its reason."""
    try:
        return _vector_plan(k)
    except Unsupported as u:
        if u.kernel is None:
            w = _window_or_none(k)
            if w is not None:
                return w
        k = u.kernel or k
        return ScalarPlan(**gm_interface(k).interface(), reason=u.reason, reason_loc=u.loc)


def _window_or_none(k: ir.Kernel):
    """The window plan (shifted tiles over sub-ranges, boundary statements: window_lowering) of a kernel that the
    map / row / cube plans do not take, or None."""
    if k.funcs or any(o.kind == "scalar" for o in k.outputs):
        return None
    scalar_names = {name: f"{cname(name)}_" for name, _ in gm_interface(k).scalars}
    for sym in k.symbols:
        scalar_names[sym] = f"static_cast<float>({cname(sym)}_)"
    try:
        return window_plan(k, gm_interface(k), scalar_names)
    except Unsupported:
        return None


def gm_interface(k: ir.Kernel) -> Plan:
    """The kernel's GM tensors (parameters, then returned allocations in the order they are returned: the order
    the launchers pass them in) and scalar parameters, as a bare Plan."""
    p = Plan(kernel=k)
    fn = k.entry
    for prm in fn.params:
        t = prm.var.type
        if isinstance(t, ir.TensorType):
            p.tensors.append(GmTensor(prm.var.name, t.dtype, t.shape, "param", prm.index))
        else:
            p.scalars.append((prm.var.name, t))
    allocs = []
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.Alloc) and s.output is not None:
            allocs.append(GmTensor(s.var.name, s.var.type.dtype, s.var.type.shape, "alloc", s.output, loc=s.loc,
                                   init=s.init, fill=s.fill))
        if isinstance(s, ir.Return) and p.return_loc is None:
            p.return_loc = s.loc
    p.tensors += sorted(allocs, key=lambda t: t.index)
    return p


def _element_nest(loop: ir.For):
    """The 1-D or 2-D element loop nest: (indices, body statements, loops) or None."""
    if not simple_range(loop):
        return None
    body = loop.body
    if len(body) == 1 and isinstance(body[0], ir.For) and simple_range(body[0]):
        inner = body[0]
        if any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(inner.body)):
            return None
        return (loop.var.name, inner.var.name), inner.body, (loop, inner)
    if any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(body)):
        return None
    return (loop.var.name,), body, (loop,)


def _cube_or_loops(base: Plan, mm: ir.MatMul) -> Plan:
    try:
        return cube_plan(base, mm)
    except (CompileError, Unsupported) as e:
        looped = products_as_loops(base.kernel)
        if looped is None:
            raise
        why = e.msg if isinstance(e, CompileError) else e.reason
        raise Unsupported(f"{why.removeprefix('ascend target: ')} (the product runs as element loops)",
                          e.loc, kernel=looped) from None


def _vector_plan(k: ir.Kernel) -> Plan:
    fn = k.entry
    if k.funcs:
        raise Unsupported("@lang.func device functions have no vector lowering", fn.loc)
    if any(o.kind == "scalar" for o in k.outputs):
        raise Unsupported("returning a scalar has no vector lowering", fn.loc)
    base = gm_interface(k)
    products = [s for s in fn.body if isinstance(s, ir.MatMul)]
    if products:
        if any(not isinstance(s, (ir.Alloc, ir.MatMul, ir.Return)) for s in fn.body) or len(products) > 1:
            try:
                return phased_plan(k, base, _vector_plan, cube_plan, gm_interface)
            except (CompileError, Unsupported):
                pass
        return _cube_or_loops(base, products[0])
    scalar_names = {name: f"{cname(name)}_" for name, _ in base.scalars}
    for sym in k.symbols:                      # dynamic sizes: fields of the tiling, members of the kernel class
        scalar_names[sym] = f"static_cast<float>({cname(sym)}_)"
    tensors = {t.name: t for t in base.tensors}
    pre, loops, host = [], [], []
    pre_math: dict = {}                        # the scalar math helpers the scalars before the loop call
    known = {name: sample(t) for name, t in base.scalars} | {sym: 1 for sym in k.symbols}
    for s in hoisted(list(fn.body), known):
        if isinstance(s, ir.Alloc):
            if s.output is None:
                raise Unsupported("temporary tensors have no vector lowering yet", s.loc)
        elif isinstance(s, ir.Assign) and isinstance(s.var.type, ir.ScalarType):
            if loops:
                raise Unsupported("statements after the element loop", s.loc)
            if s.var.type.dtype.kind != "f":
                raise Unsupported(f"the scalar {s.var.name!r} before the loop", s.loc)
            if host_expr(s.value, known):       # known on the host: computed there in float64, in the tiling
                host.append((s.var.name, s.value))
                known[s.var.name] = evaluate(s.value, known)
                pre.append((s.loc, s.var.name, "float", f"t.{field_name(s.var.name)}"))
            else:
                pre.append((s.loc, s.var.name, "float", _pre_text(tensors, scalar_names, s, pre_math)))
            scalar_names[s.var.name] = f"{cname(s.var.name)}_"
        elif isinstance(s, ir.For):
            loops.append(s)
        elif isinstance(s, ir.Return):
            pass
        else:
            raise Unsupported(f"the statement {type(s).__name__} outside the element loop", getattr(s, "loc", None))
    if len(loops) != 1:
        raise Unsupported("a vector kernel has exactly one loop nest over the elements" if loops else
                          "the kernel has no loop", loops[1].loc if len(loops) > 1 else fn.loc)
    loop = loops[0]
    for x in ir.walk_stmts(loop.body):
        if isinstance(x, ir.While):
            raise Unsupported("control flow (`while`) inside the loop has no vector lowering", x.loc)
        if isinstance(x, (ir.Break, ir.Continue, ir.Return)):
            raise Unsupported(f"`{type(x).__name__.lower()}` inside the loop has no vector lowering", x.loc)
    nest = _element_nest(loop)
    if nest is None:
        return _with_host(_with_pre_math(row_plan(base, pre, loop, scalar_names), pre_math, loop), host)
    indices, body, nest_loops = nest
    for t in base.tensors:
        if len(t.shape) != len(indices) or not all(same_dim(lp.stop, d) for lp, d in zip(nest_loops, t.shape)):
            if len(indices) == 2:
                return _with_host(_with_pre_math(row_plan(base, pre, loop, scalar_names), pre_math, loop), host)
            raise Unsupported(f"{t.name!r} has shape {t.shape}, not the loop's", loop.loc)
    low = Lowerer(tensors, indices, scalar_names)
    low.unit = {lp.var.name for lp in nest_loops if isinstance(lp.stop, ir.Const) and lp.stop.value == 1}
    low.carried = assigned_names(body)
    low.block(body)
    for t in base.tensors:
        if t.kind == "alloc" and not t.writes:
            raise Unsupported(f"the output {t.name!r} is not written by the element loop", loop.loc)
    dtypes = {t.name: t.dtype for t in base.tensors}
    alloc = finalize(half_ops(low.out, dtypes), dtypes)
    p = MapPlan(**base.interface(), pre=pre, loop_loc=loop.loc, loop_locs=[lp.loc for lp in nest_loops],
                numel=base.tensors[0].shape, instrs=alloc.instrs, nslots=alloc.nslots, slot_of=alloc.slot_of,
                adv=low.adv, select=low.select, pre_math=pre_math, host=host)
    check_budget(p, loop.loc)
    return p


def _pre_text(tensors, scalar_names, s: ir.Assign, pre_math: dict) -> str:
    """C++ text of a float scalar computed before the element loop: plain arithmetic as the lowerer writes it, math
    (`sqrt(bc2)`, `beta1 ** step`) through the one-block helpers of scalar_math (recorded in `pre_math`)."""
    try:
        v = Lowerer(tensors, (), scalar_names).value(s.value)
        if isinstance(v, S):
            return v.text
    except Unsupported:
        pass
    return PreScalars(scalar_names, pre_math).text(s.value)


def _with_host(p, host: list):
    """A row plan with the scalars before its loop that the host computes (host_scalars.py)."""
    p.host = host
    return p


def _with_pre_math(p, pre_math: dict, loop):
    """A row plan with the scalar math helpers of its scalars before the loop (their UB blocks in its budget)."""
    if pre_math:
        p.pre_math = pre_math
        check_row_budget(p, loop.loc)
    return p
