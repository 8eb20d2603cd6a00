"""The pass `cpu_blocks`: which element loops of the cpu target run in blocks (asc_blocks.h), and over which
accesses. It sets their schedule's `blocked` (ir.Blocked); asc/backends/cpu_loops.py renders it.

Two things are done a block at a time, around a vectorized body that runs on small float32 buffers in L1:

- 16-bit float conversion. Converting a float16 value by value costs 6-12 integer operations inside the body; a
  block is converted with one F16C / AVX-512 instruction per 8 or 16 values, before the body (loads) and after it
  (stores). bfloat16 blocks are converted by loops of their own (a shift in, a rounding add out), which also keeps
  the 16-bit widening and narrowing out of the body: GELU on bfloat16 in cache 1.03 -> 0.83 ns per element on AVX2.
- streaming stores. A large output written with ordinary stores is first read from memory (write-allocate), which
  costs a third of a simple kernel's memory traffic; a block of it is written with non-temporal stores instead. This
  happens only at run time, for outputs of at least ASC_STREAM_MIN_BYTES (asc_blocks.h), which no cache would
  keep anyway, written in runs of at least ASC_STREAM_MIN_RUN iterations, and only for tensors the kernel never
  reads (so nothing is waiting for them in the cache). The blocks then start on the output's cache lines
  (asc_stream_lead), so that no line is written both ways. Compute-heavy loops stream too: with blocks of 128 and
  their inputs asked for ahead (asc/passes/prefetch_ahead.py), GELU erf float32 on 2 threads ran at 89% of triad on
  AVX2 and 124% on AVX-512, against 72% / 73% with ordinary stores (blocks of 512 without the prefetch had been
  13% slower than ordinary stores).

The results are the same bits as the plain loop: a block only changes when a 16-bit value is converted and how
a value reaches memory, never what is computed. A loop qualifies when that is plainly true:

- an innermost element loop (parallel or simd, no reduction), step 1, no memory or numeric checks;
- its body is assignments, stores and expression statements only (no if / while / break / print), so every access
  runs for every iteration and a block reads or writes exactly the elements the loop would;
- every blocked access is contiguous in the loop variable (the last index is `i` or `i + c`, the other indices do
  not change in the loop), and an element read under a ternary or `and` / `or` (which would not always evaluate it)
  is also read unconditionally, as in `x[i] if x[i] > 0 else 0.0`;
- no float16 or bfloat16 tensor is both read and written in the loop (a read would have to see the rounded store), each
  blocked output is written at one index, and no device function called in the loop is handed a tensor.
"""
from __future__ import annotations

from .. import ir
from .rewrite import checked, each_function, map_loops, with_body

BLOCK = 128               # iterations per block: 512 bytes of float32 per buffer, in L1 beside the loop's other data
_PLAIN_STMTS = (ir.Assign, ir.Store, ir.ExprStmt)


def cpu_blocks(k: ir.Kernel, options: dict) -> ir.Kernel:
    """`k` with the element loops that run in blocks scheduled so (none in checked builds: the checks are per
    access)."""
    if checked(options):
        return k
    write_only = write_only_tensors(k)

    def annotate(loop: ir.For) -> ir.For:
        accesses = blocked_accesses(loop, write_only)
        return ir.scheduled(loop, blocked=ir.Blocked(BLOCK, tuple(accesses))) if accesses else loop
    return each_function(k, lambda f: with_body(f, map_loops(f.body, annotate)))


def blocked_accesses(loop: ir.For, write_only: frozenset) -> list | None:
    """The accesses to run in blocks (ir.BlockedAccess), one per distinct (tensor, index): float16 and bfloat16
    loads and stores, and stores to the tensors in `write_only` (those the kernel never reads: candidates for
    streaming). None when the loop does not qualify (the module docstring says when it does) or has nothing to
    block."""
    if loop.reduce or loop.kind not in ("parallel", "simd"):
        return None
    if not (isinstance(loop.step, ir.Const) and loop.step.value == 1):
        return None
    body = list(ir.walk_stmts(loop.body))
    if not all(isinstance(s, _PLAIN_STMTS) for s in body):
        return None
    varying = {loop.var.name} | {s.var.name for s in body if isinstance(s, ir.Assign)}
    found: dict = {}
    direct = set()          # outputs also written at an index that is not contiguous: stored as written
    conditional_loads = set()
    ok = [True]

    def visit(e, conditional: bool):
        if not ok[0] or e is None:
            return
        if isinstance(e, ir.FuncCall) and any(isinstance(a.type, ir.TensorType) for a in e.args):
            ok[0] = False
            return
        if isinstance(e, ir.Load) and _is_half(e.tensor):
            if not contiguous(e.indices, loop.var.name, varying):
                ok[0] = False
                return
            key = (e.tensor.name, tuple(e.indices), False)
            if conditional:                 # fine if the same element is also read unconditionally (checked below)
                conditional_loads.add(key)
            else:
                found.setdefault(key, ir.BlockedAccess(e.tensor, e.indices, False))
        if isinstance(e, ir.Select):
            visit(e.cond, conditional)
            visit(e.a, True)
            visit(e.b, True)
            return
        if isinstance(e, ir.Logical):
            visit(e.a, conditional)
            visit(e.b, True)
            return
        for name in ir.EXPR_CHILDREN[type(e)]:
            if name == "tensor":
                continue
            v = getattr(e, name)
            for x in (v if isinstance(v, tuple) else (v,)):
                visit(x, conditional)

    for s in body:
        if isinstance(s, ir.Store):
            for i in s.indices:
                visit(i, False)
            visit(s.value, False)
            if _is_half(s.tensor) or s.tensor.name in write_only:
                if not contiguous(s.indices, loop.var.name, varying):
                    if _is_half(s.tensor) or not ok[0]:
                        return None
                    direct.add(s.tensor.name)
                    continue
                stream = s.tensor.name in write_only
                found.setdefault((s.tensor.name, tuple(s.indices), True),
                                 ir.BlockedAccess(s.tensor, s.indices, True, stream))
        else:
            visit(s.value if isinstance(s, ir.Assign) else s.expr, False)
        if not ok[0]:
            return None
    if not conditional_loads <= set(found):
        return None                     # a 16-bit float element read only under a condition: a block would read it always
    found = {key: a for key, a in found.items() if a.converted or a.tensor.name not in direct}
    if not found:
        return None
    read = {name for name, _, store in found if not store}
    written = [name for name, _, store in found if store]
    if read & set(written) or len(written) != len(set(written)):
        return None
    return list(found.values())


def write_only_tensors(kernel: ir.Kernel) -> frozenset:
    """Names of the entry's tensors that no code of the kernel reads (loads, views, products, calls): outputs whose
    stores may stream past the cache."""
    read = set()
    for f in kernel.funcs + (kernel.entry,):
        for s in ir.walk_stmts(f.body):
            if isinstance(s, ir.MatMul):
                read.update(v.tensor.name for v in (s.a, s.b))
                if s.accumulate:
                    read.add(s.dst.tensor.name)
            for e in ir.stmt_exprs(s):
                if isinstance(e, (ir.Load, ir.View)):
                    read.add(e.tensor.name)
                elif isinstance(e, ir.FuncCall):
                    read.update(a.name for a in e.args if isinstance(a, ir.Var) and isinstance(a.type, ir.TensorType))
    if kernel.funcs:        # a device function's parameters may alias any entry tensor: stream none
        return frozenset()
    written = ir.written_params(kernel)[kernel.entry.name]
    allocs = {s.var.name for s in ir.walk_stmts(kernel.entry.body) if isinstance(s, ir.Alloc) and s.space != "local"}
    return frozenset((set(written) | allocs) - read)


def _is_half(t: ir.Var) -> bool:
    """A 16-bit float tensor (float16 or bfloat16): its accesses are converted a block at a time."""
    return isinstance(t.type, ir.TensorType) and t.type.dtype.name in ("float16", "bfloat16")


def invariant(e, varying: set) -> bool:
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Var) and x.name in varying:
            return False
        if not isinstance(x, (ir.Const, ir.Var, ir.Binary, ir.Unary, ir.Cast)):
            return False
    return True


def contiguous(indices, var: str, varying: set) -> bool:
    """The last index is the loop variable plus a loop-invariant offset; the others are loop-invariant."""
    if not indices or not all(invariant(i, varying) for i in indices[:-1]):
        return False
    last = indices[-1]
    if isinstance(last, ir.Var) and last.name == var:
        return True
    if isinstance(last, ir.Binary) and last.op in ("add", "sub"):
        a, b = last.a, last.b
        if isinstance(a, ir.Var) and a.name == var and invariant(b, varying):
            return True
        if last.op == "add" and isinstance(b, ir.Var) and b.name == var and invariant(a, varying):
            return True
    return False
