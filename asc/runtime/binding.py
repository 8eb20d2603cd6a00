"""Argument binding: checks each argument against its parameter (kind, dtype, rank, shape, contiguity, device),
binds the size symbols, and gives the specialization key. Nothing here modifies an argument."""
from __future__ import annotations

import sys

import numpy as np

from .. import ir
from ..errors import ArgumentError, ShapeError
from ..ir.sizes import SIZE_PREFIX
from ..frontend.signature import NO_DEFAULT
from ..dtypes import HANDLES, as_dtype

_PY_SCALARS = (bool, int, float)


class Arg:
    """One bound argument. kind: "ndarray" | "torch" | "scalar"."""
    __slots__ = ("kind", "value", "dtype", "shape", "ptr", "nbytes", "pyweak")

    def __init__(self, kind, value, dtype, shape=None, ptr=0, nbytes=0, pyweak=False):
        self.kind, self.value, self.dtype, self.shape = kind, value, dtype, shape
        self.ptr, self.nbytes, self.pyweak = ptr, nbytes, pyweak


def _torch():
    return sys.modules.get("torch")


def _array_arg(spec, v, kernel_name):
    name = spec.name
    if isinstance(v, np.ndarray):
        if not v.dtype.isnative and as_dtype(v.dtype.newbyteorder("=")) is not None:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} has dtype {v.dtype.str}, whose byte order is not "
                                f"this machine's; asc does not convert silently: pass "
                                f"{name}.astype({name}.dtype.newbyteorder('='))")
        h = as_dtype(v.dtype)
        if h is None:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} has dtype {v.dtype}, which asc does not support")
        if not v.flags.c_contiguous:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} is not C-contiguous (strides {v.strides}); "
                                f"asc does not copy silently: pass np.ascontiguousarray({name})")
        return Arg("ndarray", v, h.ir, v.shape, v.ctypes.data if v.size else 0, v.nbytes)
    t = _torch()
    if t is not None and isinstance(v, t.Tensor):
        if v.device.type != "cpu":
            raise ArgumentError(f"{kernel_name}(): argument {name!r} is on {v.device}; the cpu target needs a CPU "
                                f"tensor (use {name}.cpu())")
        h = as_dtype(v.dtype)
        if h is None:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} has dtype {v.dtype}, which asc does not support")
        if not v.is_contiguous():
            raise ArgumentError(f"{kernel_name}(): argument {name!r} is not contiguous (strides {v.stride()}); "
                                f"asc does not copy silently: pass {name}.contiguous()")
        if v.is_neg():
            raise ArgumentError(neg_view_message(kernel_name, name))
        shape = tuple(v.shape)
        ptr = v.data_ptr() if type(v) is t.Tensor or v.numel() == 0 else _subclass_data_ptr(v)
        if ptr == 0 and v.numel() > 0:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} is a {type(v).__name__} of shape {shape} with no "
                                f"memory behind it (its storage was freed or never allocated, as for a fake or meta "
                                f"tensor); pass a tensor that holds its data")
        return Arg("torch", v, h.ir, shape, ptr, v.numel() * v.element_size())
    return None


def neg_view_message(kernel_name, name) -> str:
    """The refusal of a torch tensor with the negative bit (torch._neg_view, the .imag of a conj() view): its
    memory holds the values without their sign, which torch applies lazily; asc reads and writes memory."""
    return (f"{kernel_name}(): argument {name!r} is a torch tensor with the negative bit set (a lazily negated view, "
            f"as torch._neg_view(t) or t.conj().imag give): its memory holds the values without their sign. asc "
            f"does not copy silently: pass {name}.resolve_neg() (a copy; for an argument the kernel writes, copy the "
            f"result back yourself)")


def _subclass_data_ptr(v) -> int:
    """The data pointer of a tensor subclass (a FakeTensor outside its mode, ...), 0 when it has none to give."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch warns that a fake tensor's pointer is meaningless: it is 0 here
        try:
            return v.data_ptr()
        except RuntimeError:
            return 0


def requires_grad(bound) -> bool:
    """Whether a torch argument requires grad while grad mode is on: a plain call's result is detached from it."""
    return any(a.kind == "torch" and a.value.requires_grad for a in bound) and _torch().is_grad_enabled()


def _check_dtype(spec, a, kernel_name):
    if spec.dtype is not None and a.dtype != spec.dtype:
        hint = f"{spec.name}.astype(np.{spec.dtype.np_name})" if a.kind == "ndarray" else \
            f"{spec.name}.to(torch.{spec.dtype.name})"
        raise ArgumentError(f"{kernel_name}(): argument {spec.name!r} must be {spec.dtype.name}, got "
                            f"{a.dtype.name} (asc does not cast silently: use {hint})")


FREE_DIM_PREFIX = SIZE_PREFIX     # reserved: lang.dim refuses names starting with "asc_"


def free_dim(param: str, axis: int) -> str:
    """The size symbol of an axis the annotation leaves free (no annotation, or None): dynamic kernels take it as a
    run-time size. Its name cannot be a user's size, and the interpreter does not show it to the kernel."""
    return f"{FREE_DIM_PREFIX}{param}_{axis}"


def is_free_dim(name: str) -> bool:
    return name.startswith(FREE_DIM_PREFIX)


def _check_shape(spec, a, symbols, where, kernel_name):
    if spec.dims is None:
        for k, have in enumerate(a.shape):
            symbols.setdefault(free_dim(spec.name, k), have)
        return
    if len(spec.dims) != len(a.shape):
        raise ShapeError(f"{kernel_name}(): argument {spec.name!r} must have {len(spec.dims)} dimension(s) "
                         f"{_fmt_dims(spec.dims)}, got shape {tuple(a.shape)}")
    for k, (want, have) in enumerate(zip(spec.dims, a.shape)):
        if want is None:
            symbols.setdefault(free_dim(spec.name, k), have)
            continue
        if isinstance(want, int):
            if want != have:
                raise ShapeError(f"{kernel_name}(): argument {spec.name!r} must have shape {_fmt_dims(spec.dims)}, "
                                 f"got {tuple(a.shape)} (axis {k} is {have}, expected {want})")
        else:
            if want in symbols and symbols[want] != have:
                raise ShapeError(f"{kernel_name}(): {want} is {symbols[want]} for {where[want]!r} but {have} for "
                                 f"{spec.name!r}")
            if want not in symbols:
                symbols[want] = have
                where[want] = spec.name


def _fmt_dims(dims):
    return "[" + ", ".join("*" if d is None else str(d) for d in dims) + "]"


def _scalar_arg(spec, v, kernel_name):
    name = spec.name
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, np.generic):
        h = as_dtype(v.dtype)
        if h is None:
            raise ArgumentError(f"{kernel_name}(): argument {name!r} has unsupported type {v.dtype}")
        return Arg("scalar", v, h.ir)
    if isinstance(v, _PY_SCALARS):
        d = ir.bool_ if isinstance(v, bool) else ir.int64 if isinstance(v, int) else ir.float64
        return Arg("scalar", v, d, pyweak=True)
    t = _torch()
    if t is not None and isinstance(v, t.Tensor) and v.ndim == 0:
        return _scalar_arg(spec, v.item(), kernel_name)
    return None


_KIND_ORDER = "biuf"


def _check_scalar(spec, a, kernel_name):
    if spec.dtype is None:
        return
    have = _KIND_ORDER.index(a.dtype.kind if a.dtype.kind != "u" else "i")
    want = _KIND_ORDER.index(spec.dtype.kind if spec.dtype.kind != "u" else "i")
    if have > want:
        want_name = ("int" if spec.dtype.kind in "iu" else "bool") if spec.weak else spec.dtype.name
        raise ArgumentError(f"{kernel_name}(): argument {spec.name!r} must be {want_name}, got "
                            f"{type(a.value).__name__} {a.value!r}")


def _check_range(spec, a, kernel_name):
    if spec.dtype is None or spec.dtype.kind not in "iu":
        return
    info = np.iinfo(HANDLES[spec.dtype].np)
    if not info.min <= int(a.value) <= info.max:
        raise ArgumentError(f"{kernel_name}(): argument {spec.name!r} = {a.value!r} is out of range for "
                            f"{spec.dtype.name if not spec.weak else 'int64'}")


def bind(kernel_name, specs, args, kwargs):
    """-> (list of Arg, symbols: dict name -> int)."""
    n = len(specs)
    npos = sum(1 for s in specs if not s.kwonly)
    if len(args) > npos:
        raise ArgumentError(f"{kernel_name}() takes {npos} positional argument(s) but {len(args)} were given")
    values = list(args)
    if kwargs or len(args) < n:
        for spec in specs[len(args):]:
            if spec.name in kwargs:
                values.append(kwargs.pop(spec.name))
            elif spec.default is not NO_DEFAULT:
                values.append(spec.default)
            else:
                raise ArgumentError(f"{kernel_name}() missing argument {spec.name!r}")
        if kwargs:
            k = next(iter(kwargs))
            if any(s.name == k for s in specs):
                raise ArgumentError(f"{kernel_name}() got multiple values for argument {k!r}")
            raise ArgumentError(f"{kernel_name}() got an unexpected keyword argument {k!r}")
    out = []
    symbols: dict = {}
    where: dict = {}
    for spec, v in zip(specs, values):
        if spec.kind == "scalar":
            a = _scalar_arg(spec, v, kernel_name)
            if a is None:
                raise ArgumentError(f"{kernel_name}(): argument {spec.name!r} must be a scalar, got "
                                    f"{type(v).__name__}")
            _check_scalar(spec, a, kernel_name)
            _check_range(spec, a, kernel_name)
        else:
            a = _array_arg(spec, v, kernel_name)
            if a is None:
                if spec.kind == "any":
                    a = _scalar_arg(spec, v, kernel_name)
                if a is None:
                    raise ArgumentError(f"{kernel_name}(): argument {spec.name!r} must be a NumPy array or a torch "
                                        f"tensor, got {type(v).__name__}")
            else:
                _check_dtype(spec, a, kernel_name)
                _check_shape(spec, a, symbols, where, kernel_name)
        out.append(a)
    return out, symbols


def spec_key(bound, dynamic: bool) -> tuple:
    """What a compiled specialization depends on (not the values of scalars)."""
    parts = []
    for a in bound:
        if a.kind == "scalar":
            parts.append(("s", a.dtype, a.pyweak))
        else:
            parts.append(("t", a.dtype, len(a.shape) if dynamic else tuple(a.shape)))
    return tuple(parts)


def arg_types(specs, bound, symbols, dynamic: bool):
    """The ir type of each parameter, and the size symbols (ints, or ir.Sym when dynamic)."""
    types = []
    syms = dict(symbols)
    if dynamic:
        syms = {n: ir.Sym(n) for n in symbols}
    for spec, a in zip(specs, bound):
        if a.kind == "scalar":
            if spec.kind == "scalar":
                types.append(ir.ScalarType(spec.dtype, spec.weak))
            else:
                types.append(ir.ScalarType(a.dtype, a.pyweak))
            continue
        if not dynamic:
            types.append(ir.TensorType(a.dtype, tuple(a.shape)))
            continue
        shape = []
        for k in range(len(a.shape)):
            d = spec.dims[k] if spec.dims is not None else None
            if isinstance(d, int):
                shape.append(d)
            elif isinstance(d, str):
                shape.append(syms[d])
            else:
                nm = free_dim(spec.name, k)
                syms[nm] = ir.Sym(nm)
                shape.append(syms[nm])
        types.append(ir.TensorType(a.dtype, tuple(shape)))
    return types, syms


def check_writes(kernel_name, specs, bound, written: set):
    """Refuses, before anything runs: a written argument that is read-only or needs grad, and arguments that share
    memory when the kernel writes one of them (compiled code assumes no aliasing)."""
    arrays = []
    for s, a in zip(specs, bound):
        if a.kind == "scalar":
            continue
        if s.name in written:
            if a.kind == "ndarray" and not a.value.flags.writeable:
                raise ArgumentError(f"{kernel_name}(): argument {s.name!r} is read-only and the kernel writes it")
            if a.kind == "torch" and a.value.requires_grad and _torch().is_grad_enabled():
                raise ArgumentError(f"{kernel_name}(): argument {s.name!r} requires grad and the kernel writes it in "
                                    f"place; run under torch.no_grad() or pass a tensor that does not require grad")
        if a.nbytes:
            arrays.append((s.name, a))
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            (n1, a1), (n2, a2) = arrays[i], arrays[j]
            if (n1 in written or n2 in written) and a1.ptr < a2.ptr + a2.nbytes and a2.ptr < a1.ptr + a1.nbytes:
                raise ArgumentError(f"{kernel_name}(): arguments {n1!r} and {n2!r} share memory and the kernel "
                                    f"writes {n1 if n1 in written else n2!r}; pass separate arrays")
