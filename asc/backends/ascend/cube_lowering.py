"""Matrix products on the ascend target: the cube plan of `A @ B` (`@lang.cube_kernel`, `lang.matmul`), and the
element-loop form of a product the cube path does not take, for the scalar fallback.

The cube path takes one product of whole 2-D float16/bfloat16 (or float32) tensors into float16, bfloat16 or
float32, with static M, N and K up to 65535 (tails that are not whole fractals are padded in L1: cube_stages.py),
B stored as it is or transposed (`x @ lang.transpose(w)`, w [N, K]), and nothing else in the kernel; or a batch of
such products over whole 3-D tensors with the same leading (batch) dimension, each [M, K] @ [K, N] -> [M, N] (the
tiles of every product of the batch share the cube cores)."""
from __future__ import annotations

from ... import ir
from ...errors import CompileError
from .plans import CubePlan, Plan, Unsupported

QUANT = {"float16": "F322F16", "bfloat16": "F322BF16", "float32": "NoQuant"}    # Fixpipe's float32 -> C conversion


def _whole(view: ir.View, ndim: int = 2) -> bool:
    """Whether `view` is a whole, row-major `ndim`-D tensor of static shape."""
    t = view.tensor.type
    if not (isinstance(view.offset, ir.Const) and view.offset.value == 0) or len(view.shape) != ndim:
        return False
    shape = tuple(s.value if isinstance(s, ir.Const) else None for s in view.shape)
    strides = tuple(s.value if isinstance(s, ir.Const) else None for s in view.strides)
    if not all(isinstance(d, int) for d in t.shape):
        return False
    want = tuple(int(_prod(t.shape[i + 1:])) for i in range(ndim))
    return shape == tuple(t.shape) and strides == want


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _transposed(view: ir.View) -> bool:
    """Whether `view` is the transpose of a whole, row-major 2-D tensor of static shape."""
    t = view.tensor.type
    if not (isinstance(view.offset, ir.Const) and view.offset.value == 0) or len(view.shape) != 2 or t.ndim != 2:
        return False
    shape = tuple(s.value if isinstance(s, ir.Const) else None for s in view.shape)
    strides = tuple(s.value if isinstance(s, ir.Const) else None for s in view.strides)
    return all(isinstance(d, int) for d in t.shape) and shape == tuple(t.shape)[::-1] and strides == (1, t.shape[1])


def _batch(mm: ir.MatMul):
    """The batch count of a product of whole tensors: 0 for 2-D operands (B whole or transposed), B for
    [B, M, K] @ [B, K, N] -> [B, M, N]; None for anything else."""
    views = (mm.dst, mm.a, mm.b)
    if not all(isinstance(v.tensor.type, ir.TensorType) for v in views):
        return None
    if all(v.tensor.type.ndim == 2 for v in views) and _whole(mm.dst) and _whole(mm.a) and \
            (_whole(mm.b) or _transposed(mm.b)):
        return 0
    if all(v.tensor.type.ndim == 3 and _whole(v, 3) for v in views):
        lead = {v.tensor.type.shape[0] for v in views}
        if len(lead) == 1:
            return lead.pop()
    return None


def cube_plan(base: Plan, mm: ir.MatMul) -> CubePlan:
    """The cube plan of the kernel's product `mm` (`base`: the kernel and its GM interface); CompileError or
    Unsupported with the reason when the cube path does not take it."""
    fn = base.kernel.entry
    loc = mm.loc
    for s in fn.body:
        if not isinstance(s, (ir.Alloc, ir.MatMul, ir.Return)) or (isinstance(s, ir.MatMul) and s is not mm):
            raise Unsupported("a matrix product next to other statements has no lowering on the ascend target "
                              "yet", getattr(s, "loc", None))
    if mm.accumulate or mm.epilogue:
        raise CompileError("ascend target: a matrix product with an accumulation or a fused epilogue has no cube "
                           "lowering yet", loc)
    batch = _batch(mm)
    if batch is None:
        raise CompileError("ascend target: the cube path takes products of whole 2-D tensors (B possibly "
                           "transposed), or batches of them over whole 3-D tensors of one batch size (no slices, no "
                           "broadcast batches, no transposed A) in this version of asc", loc)
    a, b, c = mm.a.tensor.type, mm.b.tensor.type, mm.dst.tensor.type
    b_trans = batch == 0 and not _whole(mm.b)
    if a.dtype != b.dtype or a.dtype.name not in ("float16", "bfloat16", "float32") or c.dtype.name not in QUANT:
        raise CompileError(f"ascend target: the cube path multiplies float16, bfloat16 or float32 matrices into "
                           f"float16, bfloat16 or float32 (got {a.dtype.name} @ {b.dtype.name} -> {c.dtype.name})",
                           loc)
    dims = (a.shape[-2], b.shape[-2] if b_trans else b.shape[-1], a.shape[-1])
    if not all(isinstance(d, int) for d in dims):
        raise CompileError("ascend target: the cube path needs static shapes (dynamic_shape=False)", loc)
    if any(d > 65535 for d in dims):
        raise CompileError(f"ascend target: the cube path needs M, N and K up to 65535 (the ND -> NZ copy's "
                           f"16-bit sizes); got M={dims[0]}, N={dims[1]}, K={dims[2]}", loc)
    for t in base.tensors:
        t.reads = t.name in (mm.a.tensor.name, mm.b.tensor.name)
        t.writes = t.name == mm.dst.tensor.name
    return CubePlan(**base.interface(), mm=mm, dims=dims, batch=batch, b_trans=b_trans, loop_loc=loc)


# ------------------------------------------------------------------ products as element loops

def _matrix_operand(v):
    """(tensor Var, transposed) of a view that is a whole 2-D tensor or its transpose, else None."""
    t = v.tensor.type
    if not (isinstance(t, ir.TensorType) and t.ndim == 2 and isinstance(v.offset, ir.Const) and v.offset.value == 0):
        return None

    def txt(e):
        return str(e.value) if isinstance(e, ir.Const) else (e.name if isinstance(e, ir.Var) else repr(e))
    want = [str(d) if isinstance(d, int) else d.name for d in t.shape]
    shape = [txt(d) for d in v.shape]
    strides = [txt(d) for d in v.strides]
    if shape == want and strides == [want[1], "1"]:
        return v.tensor, False
    if shape == want[::-1] and strides == ["1", want[1]]:
        return v.tensor, True
    return None


def products_as_loops(k: ir.Kernel):
    """`k` with every top-level product of whole 2-D tensors (or transposes) written as element loops that
    accumulate in float32 (its epilogue, if any, applied to each element): the scalar fallback's form of a product
    the cube path does not take. None when a product is not of that form."""
    f32 = ir.ScalarType(ir.float32)
    body = []
    for n, s in enumerate(k.entry.body):
        if not isinstance(s, ir.MatMul):
            if any(isinstance(x, ir.MatMul) for x in ir.walk_stmts((s,))):
                return None
            body.append(s)
            continue
        ops = [_matrix_operand(v) for v in (s.dst, s.a, s.b)]
        if any(o is None for o in ops) or ops[0][1]:
            return None
        (dst, _), (a, ta), (b, tb) = ops
        M, K, N = s.a.shape[0], s.a.shape[1], s.b.shape[1]
        i = s.index[0] if s.index else ir.Var(f"_mm{n}_i", ir.INDEX)
        j = s.index[1] if s.index else ir.Var(f"_mm{n}_j", ir.INDEX)
        kk = ir.Var(f"_mm{n}_k", ir.INDEX)
        acc = ir.Var(f"_mm{n}_acc", f32)

        def elem(t, tr, r, c):
            x = ir.Load(t, (c, r) if tr else (r, c), ir.ScalarType(t.type.dtype), s.loc)
            return x if t.type.dtype == ir.float32 else ir.Cast(x, f32, s.loc)
        start = elem(dst, False, i, j) if s.accumulate else ir.Const(0.0, f32)
        prod = ir.Binary("mul", elem(a, ta, i, kk), elem(b, tb, kk, j), f32, s.loc)
        inner = ir.For(kk, ir.Const(0, ir.INDEX), K, ir.Const(1, ir.INDEX),
                       (ir.Assign(acc, ir.Binary("add", acc, prod, f32, s.loc), s.loc),), "serial", s.loc)
        value = acc if dst.type.dtype == ir.float32 else ir.Cast(acc, ir.ScalarType(dst.type.dtype), s.loc)
        row = (ir.Assign(acc, start, s.loc), inner, ir.Store(dst, (i, j), value, s.loc)) + tuple(s.epilogue)
        body.append(ir.For(i, ir.Const(0, ir.INDEX), M, ir.Const(1, ir.INDEX),
                           (ir.For(j, ir.Const(0, ir.INDEX), N, ir.Const(1, ir.INDEX), row, "serial", s.loc),),
                           "serial", s.loc))
    accs = tuple(ir.Var(f"_mm{n}_acc", f32) for n, s in enumerate(k.entry.body) if isinstance(s, ir.MatMul))
    fn = k.entry
    entry = ir.Function(fn.name, fn.pyname, fn.params, tuple(body), fn.ret, fn.locals + accs, fn.loc)
    return ir.Kernel(entry, k.funcs, k.outputs, k.returns_tuple, k.symbols, k.file, k.conversions)
