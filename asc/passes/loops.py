"""Loop classification: which loops are parallel-safe (each iteration writes disjoint elements and keeps its
scalars to itself), which innermost loops can be vectorized, and which stay serial."""
from __future__ import annotations

from .. import ir
from ..ir.printer import format_expr
from .rewrite import each_function
from .scopes import declaration_blocks

PARALLEL_MIN_WORK = 1 << 15     # iterations x inner work below which a loop stays on one thread
UNKNOWN_TRIP = 256


def impure_functions(k: ir.Kernel) -> set:
    """Names of device functions that write a tensor argument or print (directly or through callees): a loop
    calling one is not parallel-safe."""
    written = ir.written_params(k)
    impure = {f.name for f in k.funcs if written[f.name] or any(isinstance(s, ir.Print) for s in ir.walk_stmts(f.body))}
    calls = {f.name: {e.func for s in ir.walk_stmts(f.body) for e in ir.stmt_exprs(s) if isinstance(e, ir.FuncCall)}
             for f in k.funcs}
    changed = True
    while changed:
        changed = False
        for name, cs in calls.items():
            if name not in impure and cs & impure:
                impure.add(name)
                changed = True
    return impure


def classify_kernel(k: ir.Kernel, options: dict) -> ir.Kernel:
    """The pass `classify`: every loop of `k` marked parallel, simd or serial (with its reductions)."""
    impure = impure_functions(k)
    return each_function(k, lambda f: classify(f, impure))


def classify(fn: ir.Function, impure: set) -> ir.Function:
    decl = declaration_blocks(fn)
    body = _classify_block(fn.body, decl, impure, in_parallel=False)
    return ir.Function(fn.name, fn.pyname, fn.params, body, fn.ret, fn.locals, fn.loc)


def _classify_block(block, decl, impure, in_parallel):
    out = []
    for s in block:
        if isinstance(s, ir.For):
            safe, red = _parallel_safe(s, decl, impure)
            innermost = not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(s.body))
            positive_step = isinstance(s.step, ir.Const) and s.step.value > 0
            if red and not positive_step:
                safe = False
            if safe and not in_parallel and _work(s) >= PARALLEL_MIN_WORK:
                body = _classify_block(s.body, decl, impure, True)
                s = ir.For(s.var, s.start, s.stop, s.step, body, "parallel", s.loc, red)
            elif safe and innermost:
                s = ir.For(s.var, s.start, s.stop, s.step, s.body, "simd", s.loc, red)
            else:
                body = _classify_block(s.body, decl, impure, in_parallel)
                s = ir.For(s.var, s.start, s.stop, s.step, body, "serial", s.loc)
        elif isinstance(s, ir.While):
            s = ir.While(s.cond, _classify_block(s.body, decl, impure, in_parallel), s.loc)
        elif isinstance(s, ir.If):
            s = ir.If(s.cond, _classify_block(s.then, decl, impure, in_parallel),
                      _classify_block(s.orelse, decl, impure, in_parallel), s.loc)
        out.append(s)
    return tuple(out)


def trip_count(loop: ir.For):
    if all(isinstance(x, ir.Const) for x in (loop.start, loop.stop, loop.step)):
        n = len(range(loop.start.value, loop.stop.value, loop.step.value))
        return n
    return None


def _work(loop: ir.For) -> int:
    n = trip_count(loop)
    if n is None:       # known at run time only: taken as enough, and the target decides then (cpu: an if() clause)
        n = PARALLEL_MIN_WORK
    return n * max(_inner_work(loop.body), 1)


def _inner_work(block) -> int:
    """The largest work of the loops nested in `block` (looking through branches), 1 when there are none."""
    inner = 1
    for s in block:
        if isinstance(s, ir.For):
            inner = max(inner, _work(s))
        elif isinstance(s, ir.While):
            inner = max(inner, UNKNOWN_TRIP)
        elif isinstance(s, ir.If):
            inner = max(inner, _inner_work(s.then), _inner_work(s.orelse))
    return inner


def _parallel_safe(loop: ir.For, decl, impure):
    """(safe, reductions): safe when iterations are independent but for the accumulators in `reductions`."""
    v = loop.var.name
    body_ids = set()
    assigned, private_tensors = set(), set()
    accesses: dict = {}          # tensor name -> list of index tuples
    stored = set()

    def visit(block, depth):
        body_ids.add(id(block))
        for s in block:
            if isinstance(s, (ir.Return, ir.Print, ir.MatMul)):   # (a matrix product has threads of its own)
                return False
            if isinstance(s, ir.Break) and depth == 0:
                return False
            if isinstance(s, ir.Assign):
                assigned.add(s.var.name)
            if isinstance(s, ir.Alloc):
                private_tensors.add(s.var.name)
            if isinstance(s, ir.Store):
                stored.add(s.tensor.name)
                accesses.setdefault(s.tensor.name, []).append(s.indices)
            for e in ir.stmt_exprs(s):
                if isinstance(e, ir.Load):
                    accesses.setdefault(e.tensor.name, []).append(e.indices)
                if isinstance(e, ir.FuncCall) and e.func in impure:
                    return False
            if isinstance(s, ir.For):
                assigned.add(s.var.name)
                if visit(s.body, depth + 1) is False:
                    return False
            elif isinstance(s, ir.While):
                if visit(s.body, depth + 1) is False:
                    return False
            elif isinstance(s, ir.If):
                if visit(s.then, depth) is False or visit(s.orelse, depth) is False:
                    return False
        return True

    if visit(loop.body, 0) is False:
        return False, ()
    carried = {name for name in assigned if name in decl and decl[name] not in body_ids}
    reductions = []
    for name in sorted(carried):
        op = _reduction_op(loop.body, name)
        if op is None:
            return False, ()       # a scalar carried across iterations that is not an accumulator: serial
        var = next(s.var for s in ir.walk_stmts(loop.body) if isinstance(s, ir.Assign) and s.var.name == name)
        reductions.append((var, op))
    variant = assigned | {v}
    for t in stored - private_tensors:
        if not _disjoint(accesses[t], v, variant):
            return False, ()
    return True, tuple(reductions)


def _is_var(e, name):
    return isinstance(e, ir.Var) and e.name == name


def update_op(value, name):
    """The reduction operator if `value` is acc + e, e + acc, acc * e, max(acc, e) or min(acc, e) (Python's
    max/min, as selects) with e free of acc; else None."""
    def free(e):
        return not any(_is_var(x, name) for x in ir.walk_expr(e))
    if isinstance(value, ir.Binary) and value.op in ("add", "mul"):
        for a, b in ((value.a, value.b), (value.b, value.a)):
            if _is_var(a, name) and free(b):
                return value.op
    if isinstance(value, ir.Call) and value.fn in ("maximum", "minimum") and len(value.args) == 2:
        # numpy.maximum(acc, e) / (e, acc), also Python's max/min of floats: NaN-propagating and commutative
        # (up to which nan), so any order of the elements gives the same value: a reduction
        for a, b in ((value.args[0], value.args[1]), (value.args[1], value.args[0])):
            if _is_var(a, name) and free(b):
                return "max" if value.fn == "maximum" else "min"
    if isinstance(value, ir.Select) and isinstance(value.cond, ir.Compare) and value.cond.op in ("gt", "lt"):
        c = value.cond
        # integers only: `e > acc ? e : acc` (a ternary, Python's max of ints). On floats a ternary keeps
        # Python's order-dependent NaN rule (`x if x > m else m` skips a NaN element, while a NaN `m` stays), which
        # a reordered (vectorized) loop does not keep: such a loop stays serial.
        if value.type.dtype.kind != "f" and _same(c.a, value.a) and _same(c.b, value.b) and _is_var(c.b, name) \
                and free(c.a):
            return "max" if c.op == "gt" else "min"
    return None




def _same(a, b):
    return format_expr(a) == format_expr(b)


def _reduction_op(body, name):
    """The one operator every assignment to `name` in `body` accumulates with, if `name` is read nowhere else."""
    ops = set()
    for s in ir.walk_stmts(body):
        uses = [e for e in ir.stmt_exprs(s) if _is_var(e, name)]
        if isinstance(s, ir.Assign) and s.var.name == name:
            op = update_op(s.value, name)
            if op is None:
                return None
            ops.add(op)
            n_reads = sum(1 for e in ir.walk_expr(s.value) if _is_var(e, name))
            if n_reads != (2 if isinstance(s.value, ir.Select) else 1):    # a select reads acc twice
                return None
        elif uses:
            return None
    return ops.pop() if len(ops) == 1 else None


def _offset(e, v, variant):
    """The loop-invariant c if e is v or v + c (c + v), else None."""
    if isinstance(e, ir.Var) and e.name == v:
        return "0"
    if isinstance(e, ir.Binary) and e.op == "add":
        for a, b in ((e.a, e.b), (e.b, e.a)):
            if isinstance(a, ir.Var) and a.name == v and not _uses(b, variant):
                return format_expr(b)
    return None


def _uses(e, names) -> bool:
    return any(isinstance(x, ir.Var) and x.name in names for x in ir.walk_expr(e))


def _disjoint(index_lists, v, variant) -> bool:
    ndim = len(index_lists[0])
    for axis in range(ndim):
        offs = {_offset(idx[axis], v, variant) for idx in index_lists}
        if None not in offs and len(offs) == 1:
            return True
    return False
