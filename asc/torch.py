"""asc kernels as PyTorch custom operators: `asc.torch.op(kernel, name="mylib::gelu")`.

The operator is a `torch.library` custom op: its fake (meta) implementation comes from the kernel's shape
annotations, so it runs under `torch.compile(fullgraph=True)` without a graph break and under `torch.export`.
A backward kernel makes it differentiable:

    gelu_op = asc.torch.op(gelu, name="mylib::gelu", backward=gelu_backward)

    @asc.torch.op(name="mylib::swiglu")          # the decorator form
    @lang.kernel
    def swiglu(a: lang.float32[N, D], b: lang.float32[N, D]) -> lang.float32[N, D]: ...

    @swiglu.register_backward
    @lang.kernel
    def swiglu_backward(a, b, grad): ...          # the inputs, then the output gradient(s); returns input grads

A plain kernel call (`swiglu(a, b)`, not through the operator) is not part of the autograd graph: given tensors that
require grad, its result does not require grad, and the kernel warns once (`asc.GradDetachedWarning`). The operator
is the differentiable form.
"""
from __future__ import annotations

import keyword

import torch

from .errors import AscError
from .frontend.signature import read_signature
from .dispatch.kernels import Kernel

_TORCH_DTYPE = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float64": torch.float64, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool}


class OpError(AscError, TypeError):
    """A kernel that cannot be registered as a torch operator as it is (the message says what to annotate)."""


def _schema_type(spec) -> str:
    if spec.kind == "scalar":
        if spec.dtype.kind == "f":
            return "float"
        return "bool" if spec.dtype.kind == "b" else "int"
    if spec.kind == "tensor":
        return "Tensor"
    raise OpError(f"parameter {spec.name!r} needs an annotation (lang.float32[N] or a scalar type) to become a "
                  f"torch operator")


class AscOp:
    """A registered operator: call it with torch tensors (and numbers); it dispatches through torch."""

    def __init__(self, kernel: Kernel, name: str, backward=None, autodiff: bool = False):
        if not isinstance(kernel, Kernel):
            raise OpError(f"asc.torch.op needs a @lang.kernel, got {kernel!r}")
        if "::" not in name:
            raise OpError(f"an operator name is 'namespace::name', got {name!r}")
        self.kernel, self.name = kernel, name
        self.specs, self.ret = read_signature(kernel.pyfunc)
        if self.ret is None or self.ret.kind not in ("tensor", "tuple"):
            raise OpError(f"kernel {kernel.__name__!r} needs a return annotation with a shape, such as "
                          f"-> lang.float32[N, D], so that torch can know its output without running it")
        rets = self.ret.elems if self.ret.kind == "tuple" else (self.ret,)
        for r in rets:
            if r.kind != "tensor" or r.dtype is None or r.dims is None or any(d is None for d in r.dims):
                raise OpError(f"kernel {kernel.__name__!r}: every returned tensor needs a dtype and a size for each "
                              f"dimension in its annotation")
        self.rets = rets
        params = ", ".join(f"{_schema_type(s)} {s.name}" for s in self.specs)
        out = "Tensor" if len(rets) == 1 and self.ret.kind != "tuple" else \
            "(" + ", ".join("Tensor" for _ in rets) + ")"
        names = [s.name for s in self.specs]
        if any(keyword.iskeyword(n) for n in names):
            raise OpError("parameter names must not be Python keywords")
        # a function with the kernel's own parameter names, which torch.library binds and calls
        ns = {"_k": kernel}
        exec(f"def _impl({', '.join(names)}):\n    return _k({', '.join(names)})\n", ns)  # noqa: S102
        impl = ns["_impl"]
        self.op = torch.library.custom_op(name, impl, mutates_args=(), schema=f"({params}) -> {out}")
        self.op.register_fake(self._fake)
        self._backward = None
        if backward is not None and autodiff:
            raise OpError("give either backward= or autodiff=True, not both")
        if autodiff:
            from .autodiff import grad
            g = grad(kernel)
            g._backward_for  # noqa: B018 - refusals surface at the first backward, with the kernel's line
            backward = g
        if backward is not None:
            self.register_backward(backward)

    def _fake(self, *args):
        """The outputs' shapes and dtypes from the annotations: sizes bound by the inputs."""
        sizes = {}
        for spec, a in zip(self.specs, args):
            if spec.kind == "tensor" and spec.dims is not None:
                for d, n in zip(spec.dims, a.shape):
                    if isinstance(d, str):
                        sizes.setdefault(d, n)
        outs = []
        like = next(a for a in args if isinstance(a, torch.Tensor))
        for r in self.rets:
            shape = [d if isinstance(d, int) else sizes[d] for d in r.dims]
            outs.append(like.new_empty(shape, dtype=_TORCH_DTYPE[r.dtype.name]))
        return outs[0] if self.ret.kind != "tuple" else tuple(outs)

    def register_backward(self, backward):
        """The backward: a kernel (or any function of torch tensors) taking the forward's inputs, then the
        gradient of each output, and returning the gradient of each tensor input (None for the others).

        It becomes an operator of its own (`<name>_backward`, its fake outputs shaped like the inputs), so that
        torch.compile and AOT autograd trace the backward without running it."""
        self._backward = backward
        tensor_inputs = [i for i, s in enumerate(self.specs) if s.kind == "tensor"]
        diff = [i for i in tensor_inputs if self.specs[i].dtype is None or self.specs[i].dtype.kind == "f"]
        if not diff:
            raise OpError(f"kernel {self.kernel.__name__!r} has no float tensor input to differentiate")
        n_in = len(self.specs)
        names = [s.name for s in self.specs]
        gnames = [f"grad{k}__" for k in range(len(self.rets))]
        params = ", ".join([f"{_schema_type(s)} {s.name}" for s in self.specs] + [f"Tensor {g}" for g in gnames])
        out = "Tensor" if len(diff) == 1 else "(" + ", ".join("Tensor" for _ in diff) + ")"

        def run(*args):
            res = backward(*args)
            res = res if isinstance(res, tuple) else (res,)
            if len(res) != len(tensor_inputs):
                raise OpError(f"the backward of {self.name} returned {len(res)} gradient(s) for "
                              f"{len(tensor_inputs)} tensor input(s)")
            by = dict(zip(tensor_inputs, res))
            outs = tuple(by[i] for i in diff)
            return outs if len(diff) > 1 else outs[0]

        def fake(*args):
            outs = tuple(torch.empty_like(args[i]) for i in diff)
            return outs if len(diff) > 1 else outs[0]

        ns = {"_run": run}
        exec(f"def _impl({', '.join(names + gnames)}):\n    return _run({', '.join(names + gnames)})\n", ns)  # noqa: S102
        bop = torch.library.custom_op(f"{self.name}_backward", ns["_impl"], mutates_args=(),
                                      schema=f"({params}) -> {out}")
        bop.register_fake(fake)
        self.backward_op = bop

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*[inputs[i] for i in tensor_inputs])
            ctx.scalars = {i: inputs[i] for i in range(n_in) if i not in tensor_inputs}

        def grad_fn(ctx, *grads):
            saved = iter(ctx.saved_tensors)
            inputs = [ctx.scalars[i] if i in ctx.scalars else next(saved) for i in range(n_in)]
            res = bop(*inputs, *[g.contiguous() for g in grads])
            it = iter(res if isinstance(res, tuple) else (res,))
            return tuple(next(it) if i in diff else None for i in range(n_in))

        self.op.register_autograd(grad_fn, setup_context=setup_context)
        return backward

    def __call__(self, *args, **kwargs):
        return self.op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<asc torch op {self.name} from kernel {self.kernel.__name__}>"


def op(kernel=None, name: str | None = None, *, backward=None, autodiff: bool = False, precision: str | None = None):
    """Registers `kernel` as the torch custom operator `name` ("namespace::name"); also a decorator:
    `@asc.torch.op(name="mylib::gelu")` above `@lang.kernel`. With a backward (or autodiff=True) the operator is
    differentiable; calling the kernel itself with tensors that require grad is not (its result is detached, and
    the kernel says so once with asc.GradDetachedWarning). `precision` ("float32" or "mixed", docs/tensors.md):
    the operator runs the kernel compiled with that precision (default: the kernel's own)."""
    if kernel is None:
        return lambda k: op(k, name, backward=backward, autodiff=autodiff, precision=precision)
    if precision is not None:
        from .dispatch.options import Options
        Options(precision=precision)            # a bad value named at this line
        if precision != kernel.options.precision:
            from .dispatch.kernels import Kernel
            opts = {k: getattr(kernel.options, k) for k in Options.__slots__}
            kernel = Kernel(kernel.pyfunc, kernel.mode, **{**opts, "precision": precision})
    if name is None:
        name = f"asc::{kernel.__name__}"
    return AscOp(kernel, name, backward, autodiff)


__all__ = ["op", "AscOp", "OpError"]
