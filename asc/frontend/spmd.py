"""`@lang.parallel(num_workers=n)`: an SPMD kernel, rewritten (on its AST, keeping the user's lines) into an
ordinary kernel where the workers are the iterations of one loop:

    @lang.parallel(num_workers=4)                         def parallel_sum(arr):
    def parallel_sum(arr):                                    local_sum = lang.zeros((4, 1), dtype=lang.float32)
        local_sum = lang.zeros(1, dtype=lang.float32)  ->      for __asc_w in range(4):
        for i in lang.distributed_range(1024):                     for i in range(__asc_w * 1024 // 4, ...):
            local_sum[0] += arr[i]                                     local_sum[__asc_w, 0] += arr[i]
        return lang.allreduce(local_sum)                       __asc_r0 = <local_sum combined over workers, in order>
                                                               return __asc_r0[0]

- A tensor the kernel allocates is private to each worker (stacked: one row per worker) unless the kernel returns
  it directly, in which case it is shared (workers write disjoint parts of it, through `distributed_range`).
- `lang.distributed_range(n)` / `(start, stop)`: the worker's contiguous chunk, sizes differing by at most one.
- `lang.worker_id()`, `lang.num_workers()`: the worker's index and the count.
- `lang.allreduce(x, op="sum"|"max"|"min")`, in the return statement: x's per-worker values combined in worker
  order, so the result has the same bits on every run and any thread count.

The worker loop is an ordinary loop for the compiler: it runs in parallel when its iterations are independent (each
worker writes its own row and its own chunk), and the interpreter runs the workers one after the other.
"""
from __future__ import annotations

import __future__
import ast
import copy

from ..errors import CompileError, UnsupportedError
from .source import AST_LOCK, Source, get_source, remember_source

W_VAR = "__asc_w"
_ALLOCS = ("zeros", "empty", "full")
_OPS = ("sum", "max", "min")


def _attr_name(node) -> str | None:
    """`lang.f` / `f` called: 'f'."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _is_call(node, *names) -> bool:
    return isinstance(node, ast.Call) and _attr_name(node.func) in names


def _loc(node, src: Source):
    return src.loc(node)


def _name(n, ctx=None):
    return ast.Name(n, ctx or ast.Load())


def _int(v):
    return ast.Constant(v)


class _Rewriter(ast.NodeTransformer):
    """Inside the worker body: chunked ranges, worker queries, per-worker tensors indexed by the worker."""

    def __init__(self, src, workers, private):
        self.src, self.W, self.private = src, workers, private

    def visit_For(self, node):
        it = node.iter
        if _is_call(it, "distributed_range"):
            node.iter = ast.copy_location(self._chunk(it), it)
            node.target = self.visit(node.target)
            node.body = [self.visit(s) for s in node.body]
            node.orelse = [self.visit(s) for s in node.orelse]
            return node
        return self.generic_visit(node)

    def _chunk(self, call):
        if call.keywords or not 1 <= len(call.args) <= 2:
            raise CompileError("lang.distributed_range takes (n) or (start, stop)", _loc(call, self.src))
        args = [self.visit(a) for a in call.args]
        start, stop = (_int(0), args[0]) if len(args) == 1 else (args[0], args[1])
        n = ast.BinOp(stop, ast.Sub(), start)
        W = _int(self.W)

        def bound(k):   # start + k * n // W
            return ast.BinOp(start, ast.Add(), ast.BinOp(ast.BinOp(k, ast.Mult(), n), ast.FloorDiv(), W))
        lo = bound(_name(W_VAR))
        hi = bound(ast.BinOp(_name(W_VAR), ast.Add(), _int(1)))
        return ast.Call(_name("range"), [lo, hi], [])

    def visit_Call(self, node):
        what = _attr_name(node.func)
        if what == "distributed_range":
            raise CompileError("lang.distributed_range can only be iterated by a for loop", _loc(node, self.src))
        if what == "worker_id" and not node.args:
            return ast.copy_location(_name(W_VAR), node)
        if what == "num_workers" and not node.args:
            return ast.copy_location(_int(self.W), node)
        if what == "allreduce":
            raise CompileError("lang.allreduce may only appear in the kernel's return statement (its result is the "
                               "same for every worker)", _loc(node, self.src))
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.private:
            sl = self.visit(node.slice)
            elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
            node.slice = ast.copy_location(ast.Tuple([_name(W_VAR)] + elts, ast.Load()), node.slice)
            return node
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.private:
            raise CompileError(f"the per-worker tensor {node.id!r} can only be indexed (x[i]) inside a "
                               f"@lang.parallel kernel", _loc(node, self.src))
        return node


class _SetupRewriter(ast.NodeTransformer):
    """Statements run once before the workers (allocations, plain assignments): `lang.num_workers()` is the count;
    `lang.worker_id()` has no value there."""

    def __init__(self, src, workers):
        self.src, self.W = src, workers

    def visit_Call(self, node):
        what = _attr_name(node.func)
        if what == "num_workers" and not node.args:
            return ast.copy_location(_int(self.W), node)
        if what == "worker_id":
            raise CompileError("lang.worker_id() has no value in an allocation of a @lang.parallel kernel (the "
                               "kernel's tensors are allocated once, before the workers run)", _loc(node, self.src))
        return self.generic_visit(node)


def _alloc_of(stmt):
    """(name, call) when stmt is `name = lang.zeros/empty/full(...)` (or *_like)."""
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)):
        what = _attr_name(stmt.value.func)
        if what in _ALLOCS or what in ("zeros_like", "empty_like"):
            return stmt.targets[0].id, stmt.value
    return None


def _shape_arg(call):
    if call.args:
        return call.args[0], ("arg", 0)
    for k in call.keywords:
        if k.arg == "shape":
            return k.value, ("kw", k)
    return None, None


def _stacked(call, W, name, src):
    """The allocation with a leading axis of W workers."""
    if _attr_name(call.func) not in _ALLOCS:
        raise CompileError(f"the per-worker tensor {name!r} needs an explicit shape in a @lang.parallel kernel: "
                           f"lang.zeros(shape, dtype=...)", _loc(call, src))
    shape, where = _shape_arg(call)
    if shape is None:
        raise CompileError(f"the allocation of {name!r} has no shape", _loc(call, src))
    elts = list(shape.elts) if isinstance(shape, ast.Tuple) else [shape]
    new = ast.copy_location(ast.Tuple([_int(W)] + elts, ast.Load()), shape)
    call = copy.deepcopy(call)
    if where[0] == "arg":
        call.args[0] = new
    else:
        next(k for k in call.keywords if k.arg == "shape").value = new
    return call, elts


def _mentions(node, names) -> bool:
    return any(isinstance(n, ast.Call) and _attr_name(n.func) in names for n in ast.walk(node))


def transform(fdef: ast.FunctionDef, W: int, src: Source) -> ast.FunctionDef:
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        doc, body = [body[0]], body[1:]
    else:
        doc = []
    ret = body[-1] if body and isinstance(body[-1], ast.Return) else None
    work = body[:-1] if ret is not None else body
    for node in ast.walk(ast.Module(work, [])):
        if isinstance(node, ast.Return):
            raise UnsupportedError("a @lang.parallel kernel returns only at its end", _loc(node, src))
    # allocations: shared when returned directly, else one per worker
    allocs = {}
    for s in work:
        a = _alloc_of(s)
        if a is not None:
            allocs[a[0]] = (s, a[1])
    for node in ast.walk(ast.Module(work, [])):
        a = _alloc_of(node) if isinstance(node, ast.stmt) else None
        if a is not None and node not in [v[0] for v in allocs.values()]:
            raise CompileError("a @lang.parallel kernel allocates its tensors at the top of its body (not in a loop "
                               "or branch)", _loc(node, src))
    reduces = []
    returned = set()
    if ret is not None and ret.value is not None:
        inside = set()
        for node in ast.walk(ret.value):
            if _is_call(node, "allreduce"):
                reduces.append(node)
                for sub in ast.walk(node):
                    inside.add(id(sub))
        for node in ast.walk(ret.value):
            if isinstance(node, ast.Name) and id(node) not in inside and node.id in allocs:
                returned.add(node.id)
    private = {n for n in allocs if n not in returned}
    # setup statements run once, before the workers: allocations, and the plain assignments before the first
    # statement that does work
    setup, per_worker = [], []
    started = False
    for s in work:
        a = _alloc_of(s)
        if a is not None:
            name, call = a
            if name in private:
                call, _ = _stacked(call, W, name, src)
                s = ast.copy_location(ast.Assign([_name(name, ast.Store())], call), s)
            setup.append(s)
            continue
        plain = isinstance(s, ast.Assign) and not _mentions(s, ("worker_id", "distributed_range", "allreduce"))
        plain = plain and not any(isinstance(n, ast.Name) and n.id in private for n in ast.walk(s))
        if plain and not started:
            setup.append(s)
        else:
            started = True
            per_worker.append(s)
    # every worker runs the whole body: a setup assignment to a name that a worker assigns again (`s = 0.0`, then
    # `s += x[i]` over the worker's chunk) runs again at the start of each worker, which would otherwise start from
    # the previous worker's value
    rebound = {n.id for s in per_worker for n in ast.walk(s) if isinstance(n, ast.Name)
               and isinstance(n.ctx, (ast.Store, ast.Del))}
    again = [copy.deepcopy(s) for s in setup if _alloc_of(s) is None
             and any(isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and t.id in rebound
                     for n in s.targets for t in ast.walk(n))]
    per_worker = again + per_worker
    rw = _Rewriter(src, W, private)
    per_worker = [rw.visit(s) for s in per_worker]
    setup = [_SetupRewriter(src, W).visit(s) for s in setup]
    anchor = per_worker[0] if per_worker else fdef
    loop = ast.For(_name(W_VAR, ast.Store()), ast.Call(_name("range"), [_int(W)], []),
                   per_worker or [ast.Pass()], [])
    ast.copy_location(loop, anchor)
    out = doc + setup + [loop]
    if ret is not None:
        out += _combine(ret, reduces, allocs, private, W, src, fdef)
    fdef = copy.copy(fdef)
    fdef.body = out
    fdef.decorator_list = []
    return ast.fix_missing_locations(fdef)


def _combine(ret, reduces, allocs, private, W, src, fdef):
    stmts = []
    names = {}
    for k, call in enumerate(reduces):
        if not call.args or len(call.args) > 2 or not isinstance(call.args[0], ast.Name):
            raise CompileError("lang.allreduce(x, op='sum') takes a tensor the kernel allocates", _loc(call, src))
        x = call.args[0].id
        if x not in private:
            raise CompileError(f"lang.allreduce takes a per-worker tensor allocated in the kernel (for example "
                               f"{x} = lang.zeros(1, dtype=lang.float32)); {x!r} is not one", _loc(call, src))
        op = "sum"
        ops = [a for a in call.args[1:]] + [kw.value for kw in call.keywords if kw.arg == "op"]
        if any(kw.arg != "op" for kw in call.keywords) or len(ops) > 1:
            raise CompileError("lang.allreduce takes (x, op='sum')", _loc(call, src))
        if ops:
            if not (isinstance(ops[0], ast.Constant) and ops[0].value in _OPS):
                raise CompileError(f"lang.allreduce: op must be one of {', '.join(map(repr, _OPS))}", _loc(ops[0], src))
            op = ops[0].value
        alloc_call = allocs[x][1]
        shape, _ = _shape_arg(alloc_call)
        elts = list(shape.elts) if isinstance(shape, ast.Tuple) else [shape]
        if len(elts) != 1:
            raise UnsupportedError("lang.allreduce of a tensor with more than one axis is not supported yet",
                                   _loc(call, src))
        r, e, a, v = f"__asc_r{k}", f"__asc_e{k}", f"__asc_a{k}", f"__asc_v{k}"
        names[id(call)] = r
        new_alloc = copy.deepcopy(alloc_call)
        new_alloc.func = ast.Attribute(copy.deepcopy(alloc_call.func.value), "empty", ast.Load()) \
            if isinstance(alloc_call.func, ast.Attribute) else _name("empty")
        if _attr_name(alloc_call.func) == "full":        # full(shape, value, dtype): drop the fill value
            new_alloc.args = new_alloc.args[:1]
            new_alloc.keywords = [kw for kw in new_alloc.keywords if kw.arg != "fill_value"]
        if op == "sum":
            upd = ast.BinOp(_name(a), ast.Add(), ast.Subscript(_name(x), ast.Tuple([_name(v), _name(e)], ast.Load()),
                                                                ast.Load()))
        else:
            upd = ast.Call(_name(op), [_name(a), ast.Subscript(_name(x), ast.Tuple([_name(v), _name(e)], ast.Load()),
                                                               ast.Load())], [])
        block = [
            ast.Assign([_name(r, ast.Store())], new_alloc),
            ast.For(_name(e, ast.Store()), ast.Call(_name("range"), [copy.deepcopy(elts[0])], []), [
                ast.Assign([_name(a, ast.Store())],
                           ast.Subscript(_name(x), ast.Tuple([_int(0), _name(e)], ast.Load()), ast.Load())),
                ast.For(_name(v, ast.Store()), ast.Call(_name("range"), [_int(1), _int(W)], []),
                        [ast.Assign([_name(a, ast.Store())], upd)], []),
                ast.Assign([ast.Subscript(_name(r), _name(e), ast.Store())], _name(a)),
            ], []),
        ]
        for s in block:
            for n in ast.walk(s):
                ast.copy_location(n, call)
        stmts += block
    def scalar(ann):
        return ann is not None and not isinstance(ann, (ast.Subscript, ast.Tuple)) and not (
            isinstance(ann, ast.Constant) and isinstance(ann.value, str) and "[" in ann.value)

    # an allreduce returned where the annotation says a scalar (`-> lang.float32`, or that element of a tuple
    # annotation) returns its one element
    as_scalar = set()
    if scalar(fdef.returns):
        as_scalar.add(id(ret.value))
    elif isinstance(fdef.returns, ast.Tuple) and isinstance(ret.value, ast.Tuple) and \
            len(fdef.returns.elts) == len(ret.value.elts):
        as_scalar |= {id(v) for a, v in zip(fdef.returns.elts, ret.value.elts) if scalar(a)}

    class _Swap(ast.NodeTransformer):
        def visit_Call(self, node):
            if id(node) in names:
                new = _name(names[id(node)])
                if id(node) in as_scalar:
                    new = ast.Subscript(new, _int(0), ast.Load())
                return ast.copy_location(new, node)
            return self.generic_visit(node)
    ret = copy.copy(ret)
    ret.value = _Swap().visit(ret.value)
    return stmts + [ret]


def spmd_function(fn, workers: int):
    """`fn` rewritten for `workers` workers: a new function of the same file and lines, whose source the frontend
    and the interpreter read from the rewritten AST."""
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"num_workers must be a positive int, got {workers!r}")
    src = get_source(fn)
    fdef = transform(copy.deepcopy(src.tree), workers, src)
    free = fn.__code__.co_freevars
    outer = ast.FunctionDef("__asc_spmd_outer", ast.arguments([], [ast.arg(n) for n in free], None, [], [], None, []),
                            [fdef, ast.Return(_name(fdef.name))], [], None)
    ast.copy_location(outer, fdef)
    mod = ast.fix_missing_locations(ast.Module([outer], []))
    flags = fn.__code__.co_flags & __future__.annotations.compiler_flag
    with AST_LOCK:
        code = compile(mod, fn.__code__.co_filename, "exec", flags=flags, dont_inherit=True)
    g = fn.__globals__
    saved = g.get("__asc_spmd_outer", None)
    exec(code, g)  # noqa: S102 - the user's own kernel source, rewritten
    made = g.pop("__asc_spmd_outer")
    if saved is not None:
        g["__asc_spmd_outer"] = saved
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    new = made(*cells)
    new.__qualname__, new.__module__, new.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    remember_source(new.__code__, Source(fdef, src.file, src.lines, src.first))
    return new
