"""Reverse-mode differentiation of kernels, from their IR.

`asc.grad(kernel)` gives a callable `grads = g(*inputs, *grad_outputs)` returning the gradient of each float tensor
input. The backward is itself an asc kernel: its Python source is generated from the forward's IR (rows.py reads
the kernel's structure, expr.py differentiates expressions symbolically, emit.py writes the backward), written to
the cache directory and compiled like any kernel, so it runs on every target, the interpreter included, and can be
read (`g.source(*args)`).

Differentiated: element maps (1-D, 2-D), reductions into a scalar or into an output element (`s += e`,
`m = max(m, e)`, `C[i, j] += A[i, k] * B[k, j]`), and row kernels that combine them (softmax, layernorm, RMSNorm:
per-row reductions, then maps that use them), reads under a guard (`x[l - 3 + k] if l - 3 + k >= 0 else 0.0`, an
if statement: the gradient is written under the same guard). Refused, with the line and the reason: writes at
data-dependent or shifted indices, reads of elements another iteration writes (stencils, recurrences), while loops,
in-place updates of an input, a running accumulator read inside its own loop, deeper loop nests.
"""
from __future__ import annotations

from .emit import backward_source as _emit
from .refusals import AutodiffError
from ..errors import ShapeError
from .. import ir
from . import stages
from .rows import read
from ..passes.inline_calls import inline_calls

__all__ = ["AutodiffError", "Grad", "grad", "backward_source"]


def backward_source(k, pyname: str) -> tuple:
    """(source, kernel name, differentiated input names) of the backward of kernel IR `k`."""
    if stages.has_products(k):
        return stages.backward_source(k, pyname)
    return _emit(k, pyname, read(k))


class Grad:
    """`asc.grad(kernel)`: call it with the forward's arguments and the output gradient(s)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self._backwards: dict = {}

    def _forward(self, args):
        """The kernel differentiated for these arguments: the kernel itself, or for an `@lang.vectorize` function
        the elementwise kernel it generates for the arguments' shapes and dtypes (its inputs are the first
        arguments, one per parameter of the function; the last is the output gradient)."""
        from ..dispatch.vectorize import Vectorized
        if isinstance(self.kernel, Vectorized):
            import inspect
            n = len(inspect.signature(self.kernel.fn).parameters)
            return self.kernel.kernel_for(*args[:n])
        return self.kernel

    def _backward_for(self, args):
        kern = self._forward(args)
        n = len(kern.specs)
        # the forward's specialization: its int arguments that size allocations (lang.zeros((B, G))) are bound as
        # sizes there, and their values are in its key when shapes are specialized
        spec, bound, symbols = kern.specialization(args[:n], {}, "grad", latest=False)
        _check_grad_shapes(kern.__name__, spec.ir, symbols, args[n:])
        key = spec.key[:-1]             # without the check switches: one backward serves checked and plain calls
        hit = self._backwards.get(key)
        if hit is not None:
            return hit
        from .. import compiler
        from ..runtime import binding
        derived = {d.name for d in spec.ir.sizes}       # (computed from the others: the frontend names them again)
        types, syms = binding.arg_types(kern.specs, bound, {s: v for s, v in symbols.items() if s not in derived},
                                        kern.options.dynamic_shape)
        types, syms = _named_free_axes(kern.pyfunc, types, syms)
        # the kernel read as plain element code (no fused epilogues: autodiff reads the products as stages)
        k = compiler.element_ir(compiler.frontend(kern.pyfunc, types, syms, kern.options.dynamic_shape,
                                                  kern.return_spec))
        k = inline_calls(k)             # device functions of straight-line scalar code (a vectorized body) inlined
        src, name, wrt = backward_source(k, kern.__name__)
        from ..runtime import cache
        backward = getattr(cache.generated_module("autodiff", name, src), name)
        if backward.options.target != kern.options.target:     # the backward runs where the forward runs
            from ..dispatch import kernel as _k
            backward = _k(target=kern.options.target)(backward.pyfunc)
        self._backwards[key] = (backward, wrt, src)
        return self._backwards[key]

    def __call__(self, *args):
        """The gradient of each tensor input (None for integer tensors), a tuple when there are several."""
        backward, wrt, _ = self._backward_for(args)
        res = backward(*args)
        res = res if isinstance(res, tuple) else (res,)
        by_name = dict(zip(wrt, res))
        out = tuple(by_name.get(s.name) for s in self._forward(args).specs
                    if s.kind == "tensor" or (s.kind == "any" and hasattr(args[s.index], "shape")))
        return out if len(out) > 1 else out[0]

    def source(self, *args) -> str:
        """The generated backward kernel's Python source, for these forward arguments."""
        return self._backward_for(args)[2]


def _named_free_axes(pyfunc, types, syms):
    """(types, syms) with each free axis's size (`x: lang.float32[None]` under dynamic_shape=True, asc_dim_x_0) named
    `x__size0`: the backward is a kernel of its own whose annotations and loops name that size, and an asc_dim_
    name is asc's, which the interpreter does not show to a kernel. A name the forward uses is not taken."""
    from ..runtime import binding
    code = pyfunc.__code__
    taken = set(syms) | _code_names(code) | set(getattr(pyfunc, "__globals__", {}))
    new = {}
    for n, s in syms.items():
        param, _, axis = n[len(binding.FREE_DIM_PREFIX):].rpartition("_")
        if not (isinstance(s, ir.Sym) and binding.is_free_dim(n) and param and axis.isdigit()):
            continue
        name = f"{param}__size{axis}"
        while name in taken:
            name += "_"
        taken.add(name)
        new[n] = ir.Sym(name)
    if not new:
        return types, syms
    types = [ir.TensorType(t.dtype, tuple(new.get(d.name, d) if isinstance(d, ir.Sym) else d for d in t.shape))
             if isinstance(t, ir.TensorType) else t for t in types]
    return types, {new[n].name if n in new else n: new.get(n, s) for n, s in syms.items()}


def _code_names(code) -> set:
    """Every name a function's code (and the code nested in it) reads, writes or binds."""
    out = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) | set(code.co_cellvars)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            out |= _code_names(c)
    return out


def _check_grad_shapes(name: str, k, symbols: dict, grads: tuple):
    """Refuses an output gradient whose shape is not its output's. (The backward's annotations check most shapes;
    not a size computed from int arguments under dynamic_shape=True, such as the G of lang.empty((N, G)).)"""
    if any(o.kind != "alloc" for o in k.outputs):
        return                  # (refused by the reader, with its reason)
    for i, (o, g) in enumerate(zip(k.outputs, grads)):
        want = tuple(d if isinstance(d, int) else symbols[d.name] for d in o.type.shape)
        have = tuple(getattr(g, "shape", ()))
        if have != want:
            raise ShapeError(f"asc.grad({name}): output gradient {i + 1} must have the shape of output {i + 1}, "
                             f"{want}; got {have}")


def grad(kernel) -> Grad:
    """The backward of `kernel`, generated from its IR (see the module docstring for what is differentiated)."""
    return Grad(kernel)
