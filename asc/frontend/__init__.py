"""Frontend: a Python kernel function and the types of its arguments -> typed IR, at the tensor level (whole-tensor
statements are kept: the tensor passes (passes.TENSOR_PASSES) lowers them to loops)."""
from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..errors import CompileError, KernelTypeError
from ..ir.sizes import user_text
from .builder import FunctionBuilder
from .context import MAX_ROUNDS, UNKNOWN, BuildContext, function_locals
from .signature import ParamSpec, ReturnSpec, read_signature  # noqa: F401
from .source import get_source


def build_kernel_ir(pyfunc, arg_types: list, symbols: dict, dynamic: bool, ret_spec=None, fused=False,
                    cube=False, precision: str = "float32") -> ir.Kernel:
    """The tensor-level IR of a kernel (asc/ir/tensor.py), checked; the tensor passes (passes.TENSOR_PASSES) lowers it.
    arg_types: the ir type of each Python parameter; symbols: size name -> int (or ir.Sym when dynamic);
    fused: a @lang.fused_kernel (tensor expressions are inlined and fused around matrix products); cube: a
    @lang.cube_kernel (an elementwise expression of a matrix product runs as the product's epilogue); precision:
    the kernel's option, kept on the IR (the tensor pass `mixed_precision` reads it)."""
    ctx = BuildContext(symbols, dynamic, fused, ret_spec, cube)
    try:
        k = _build(ctx, pyfunc, arg_types, symbols, ret_spec)
        return k if precision == "float32" else replace(k, precision=precision)
    except CompileError as e:          # a shape in the message, such as (asc_dim_x_0,), as the user wrote it
        raise e.reworded(lambda m: user_text(m, ctx.sizes.values()))


def _build(ctx: BuildContext, pyfunc, arg_types: list, symbols: dict, ret_spec) -> ir.Kernel:
    import inspect
    names = list(inspect.signature(pyfunc).parameters)
    params = [ir.Var(n, t) for n, t in zip(names, arg_types)]
    var_types: dict = {}
    consts: dict = {}
    for _ in range(MAX_ROUNDS):
        fb = FunctionBuilder(ctx, pyfunc, params, True, pyfunc.__name__, var_types, consts=consts)
        body = fb.build()
        if not fb.changed:
            break
    else:
        raise CompileError("the variable types of this kernel do not settle", fb.loc(fb.src.tree))
    for n, t in var_types.items():
        if t == UNKNOWN:
            raise CompileError(f"cannot infer the type of {n!r}", fb.loc(fb.src.tree))
    body, outputs, returns_tuple, ret = _outputs(fb, body, params, ret_spec)
    locals_ = function_locals(fb, var_types, names)
    entry = ir.Function(_c_name(pyfunc.__name__), pyfunc.__name__,
                        tuple(ir.Param(v, i) for i, v in enumerate(params)), body, ret, locals_,
                        fb.loc(fb.src.tree))
    funcs = tuple(ctx.funcs[k] for k in ctx.order)
    syms = tuple(n for n, v in symbols.items() if isinstance(v, ir.Sym))
    kernel = ir.Kernel(entry, funcs, tuple(outputs), returns_tuple, syms, fb.src.file,
                       tuple(sorted(fb.conversions.items())), tuple(ctx.sizes.values()))
    _check_call_aliasing(kernel)
    return kernel


def _check_call_aliasing(kernel: ir.Kernel):
    """Refuses a device function handed one tensor for two parameters when it writes either: compiled code takes
    its tensor parameters as distinct memory (as the kernel's own arguments, which the runtime checks)."""
    written = ir.written_params(kernel)
    fns = {f.name: f for f in kernel.funcs}
    for f in kernel.funcs + (kernel.entry,):
        for s in ir.walk_stmts(f.body):
            for e in ir.stmt_exprs(s):
                if not (isinstance(e, ir.FuncCall) and e.func in fns):
                    continue
                callee = fns[e.func]
                seen: dict = {}
                for p, a in zip(callee.params, e.args):
                    if not (isinstance(a, ir.Var) and isinstance(a.type, ir.TensorType)):
                        continue
                    if a.name in seen:
                        q = seen[a.name]
                        w = [n for n in (q, p.var.name) if n in written[e.func]]
                        if w:
                            raise CompileError(f"{callee.pyname}() is given {ir.display_name(a.name)!r} for both "
                                               f"{q!r} and "
                                               f"{p.var.name!r} and writes {w[0]!r}: pass separate tensors "
                                               f"(compiled code takes its tensor parameters as distinct memory)",
                                               e.loc)
                    seen[a.name] = p.var.name


def _c_name(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _outputs(fb: FunctionBuilder, body, params, ret_spec):
    """Decides what the kernel returns: new tensors (allocated by the runtime), arguments, or scalars."""
    rets = fb.returns
    if not rets or all(v is None for v, _ in rets):
        if ret_spec is not None and ret_spec.kind not in ("none",):
            raise CompileError("the kernel is annotated to return a value but returns nothing", fb.loc(fb.src.tree))
        return body, [], False, ir.NONE
    first, node0 = rets[0]
    if any(v is None for v, _ in rets):
        raise fb.error("the kernel returns a value on some paths and nothing on others", node0)
    is_tuple = isinstance(first, ir.TupleExpr)
    shape = lambda v: len(v.elems) if isinstance(v, ir.TupleExpr) else None  # noqa: E731
    for v, n in rets[1:]:
        if shape(v) != shape(first):
            raise fb.error("every return of a kernel must return the same kind of value", n)
    elems0 = first.elems if is_tuple else (first,)
    allocs = _top_allocs(body)
    param_names = {p.name: i for i, p in enumerate(params)}
    outputs = []
    alloc_index = {}
    scalar_types = []
    for k, e in enumerate(elems0):
        spec = None
        if ret_spec is not None:
            spec = ret_spec.elems[k] if ret_spec.kind == "tuple" and k < len(ret_spec.elems) else (
                ret_spec if not is_tuple else None)
        if isinstance(e.type, ir.TensorType):
            for v, n in rets:
                ek = v.elems[k] if is_tuple else v
                if not (isinstance(ek, ir.Var) and ek.name == e.name):
                    raise fb.error("every return of a kernel must return the same tensor", n)
            _check_tensor_ret(fb, e, spec, node0)
            if e.name in param_names and e.name not in allocs:
                outputs.append(ir.Output("param", param_names[e.name], e.type))
            elif e.name in allocs:
                alloc_index[e.name] = len(alloc_index)
                outputs.append(ir.Output("alloc", alloc_index[e.name], e.type))
            else:
                raise fb.error(f"the returned tensor {ir.display_name(e.name)!r} must be an argument or allocated at "
                               f"the top level of the kernel (not inside a loop or branch)", node0)
        else:
            types = []
            for v, n in rets:
                ek = v.elems[k] if is_tuple else v
                if isinstance(ek.type, ir.TensorType):
                    raise fb.error("every return of a kernel must return the same kind of value", n)
                types.append(ek.type)
            t = types[0]
            for t2 in types[1:]:
                u = ir.unify(t, t2)
                if u is None:
                    raise fb.error(f"the kernel returns {t!r} and {t2!r}", node0, KernelTypeError)
                t = u
            if spec is not None and spec.kind == "scalar":
                t = ir.ScalarType(spec.dtype, spec.weak)
            elif spec is not None:
                raise fb.error(f"the kernel is annotated to return a {spec.kind} but returns a scalar", node0)
            if t.weak:  # a Python number comes back as a NumPy scalar of its default type
                t = ir.ScalarType(t.dtype)
            outputs.append(ir.Output("scalar", len(scalar_types), t))
            scalar_types.append(t)
    body = _mark_outputs(body, alloc_index)
    ret = ir.TupleType(tuple(o.type for o in outputs)) if is_tuple else outputs[0].type
    return body, outputs, is_tuple, ret


def _check_tensor_ret(fb, v, spec, node):
    if spec is None:
        return
    if spec.kind != "tensor":
        raise fb.error(f"the kernel is annotated to return a {spec.kind} but returns a tensor", node, KernelTypeError)
    if spec.dtype is not None and spec.dtype != v.type.dtype:
        raise fb.error(f"the kernel is annotated to return {spec.dtype!r} but returns {v.type!r}", node,
                       KernelTypeError)
    if spec.dims is not None:
        if len(spec.dims) != v.type.ndim:
            raise fb.error(f"the kernel is annotated to return {len(spec.dims)} dimension(s) but returns "
                           f"{v.type!r}", node, KernelTypeError)
        for want, have in zip(spec.dims, v.type.shape):
            if want is None:
                continue
            if isinstance(want, str):
                want = fb.ctx.symbols.get(want, ir.Sym(want))
            if isinstance(want, int) and isinstance(have, int) and want != have:
                raise fb.error(f"the kernel is annotated to return shape {tuple(spec.dims)} but returns "
                               f"{v.type!r}", node, KernelTypeError)


def _top_allocs(body):
    return {s.var.name for s in body if isinstance(s, ir.Alloc)}


def _mark_outputs(body, alloc_index):
    out = []
    for s in body:
        if isinstance(s, ir.Alloc) and s.var.name in alloc_index:
            s = ir.Alloc(s.var, s.init, s.fill, alloc_index[s.var.name], s.loc)
        out.append(s)
    return tuple(out)
