"""The interpreter: runs the user's Python function itself over NumPy, with the compiled typing rules (the IR
built for this signature decides the result types), so print() and breakpoint() work inside kernels."""
from __future__ import annotations

import ast
import builtins as pybuiltins
import contextvars
import copy
import types

import numpy as np

import os

from .. import ir
from ..errors import OVERFLOW_HINT, IntegerOverflowError, MemoryCheckError, NumericCheckError
from ..dtypes import BOUND_DIMS, HANDLES, is_bfloat16, mixed16, narrow16, scalar_as
from ..builtins.array import KernelArray, drop_wide, finite_stores, kernel_max, kernel_min, stored_value
from ..builtins.clipping import zero_padded
from . import binding


_ASC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _to_kernel_array(a):
    if a.kind == "ndarray":
        return a.value.view(KernelArray)
    t = a.value.detach()
    if a.dtype == ir.bfloat16:
        import torch
        return t.view(torch.int16).numpy().view(HANDLES[ir.bfloat16].np).view(KernelArray)
    return t.numpy().view(KernelArray)


def _as_dtype(r, d: ir.DType) -> np.ndarray:
    """A result converted to its declared dtype (a 16-bit NaN by asc's rule: docs/tensors.md, "NaN")."""
    h = HANDLES[d]
    return narrow16(r, h) if d.is_16bit_float else np.asarray(r).astype(h.np)


def _scalar_in(value, t: ir.ScalarType, mixed: bool):
    if t.weak:
        return {"b": bool, "i": int, "u": int, "f": float}[t.dtype.kind](value)
    v = scalar_as(value, t.dtype)
    if t.dtype.is_16bit_float:      # 16-bit values are carried in float32 (precision="mixed": in 16 bits)
        return narrow16(np.asarray(v), HANDLES[t.dtype])[()] if mixed else np.float32(v)
    return v


def _from_numpy(arr, use_torch: bool):
    arr = np.asarray(arr).view(np.ndarray)
    if not use_torch:
        return arr
    import torch
    if is_bfloat16(arr.dtype):
        return torch.from_numpy(np.ascontiguousarray(arr).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(arr))


_WEAK_AST = {ast.Div: "truediv", ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}   # the WeakOp keys' names
_NP_OPS = {"truediv": np.true_divide, "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power}


def _weak_op(op: str):
    """`a op b` as NumPy computes it when a and b are Python numbers (float64, or int64 for two ints); anything
    else (an array element, a NumPy scalar) already has NumPy's meaning and is left to Python's operator."""
    f = _NP_OPS[op]
    py = {"truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
          "pow": lambda a, b: a ** b}[op]

    def run(a, b):
        if type(a) not in (int, float, bool) or type(b) not in (int, float, bool):
            return py(a, b)
        if op != "truediv" and type(a) is not float and type(b) is not float:
            if op == "pow" and b < 0:
                raise ValueError("Integers to negative integer powers are not allowed.")
            if b != 0:
                return py(a, b)                       # Python's int // and % are NumPy's (floor, sign of b)
            return 0                                  # NumPy: an integer // or % by zero is 0
        with np.errstate(all="ignore"):
            return float(f(np.float64(a), np.float64(b)))
    return run


def _converter(t, mixed: bool):
    if isinstance(t, ir.WeakOp):
        return _weak_op(t.op)
    if t.weak:
        return {"b": bool, "i": int, "u": int, "f": float}[t.dtype.kind]
    if t.dtype.is_16bit_float and mixed:      # precision="mixed": a 16-bit value in 16 bits
        h = HANDLES[t.dtype]

        def conv16(v):
            return narrow16(np.asarray(v), h)[()]
        return conv16
    npt = np.float32 if t.dtype.is_16bit_float else HANDLES[t.dtype].np.type   # 16-bit: carried in float32

    def conv(v):
        with np.errstate(all="ignore"):
            return npt(v)
    return conv


def _span(node) -> tuple:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


class _Wrap(ast.NodeTransformer):
    """Wraps the ternaries and min/max calls that need a conversion, `__asc_as(expr, k)`, and the values assigned to
    a scalar variable of another type (keyed by the target name's span): `m = -1e30` with `m` a float32 variable
    runs as `m = __asc_as(-1e30, k)`, `s += v` as `s = __asc_as(s + v, k)`. A value bound to a name is
    `__asc_bind(value)`: a named product of 16-bit floats is a tensor of its dtype (see builtins.array)."""

    def __init__(self, keys):
        self.keys = keys

    @staticmethod
    def _call(node, k):
        call = ast.Call(ast.Name("__asc_as", ast.Load()), [node, ast.Constant(k)], [])
        return ast.copy_location(call, node)

    @staticmethod
    def _bind(node):
        call = ast.Call(ast.Name("__asc_bind", ast.Load()), [node], [])
        return ast.copy_location(call, node)

    def _wrap(self, node):
        k = self.keys.get(_span(node))
        return node if k is None else self._call(node, k)

    def _target_key(self, target):
        return self.keys.get(_span(target)) if isinstance(target, ast.Name) else None

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1:
            t = node.targets[0]
            k = self._target_key(t)
            if k is not None:
                node.value = self._call(node.value, k)
            elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) and \
                    len(t.elts) == len(node.value.elts):
                node.value.elts = [v if self._target_key(e) is None else self._call(v, self._target_key(e))
                                   for e, v in zip(t.elts, node.value.elts)]
            if isinstance(t, (ast.Name, ast.Tuple)):
                node.value = self._bind(node.value)
            return node
        if all(self._target_key(t) is None for t in node.targets):
            return node
        # a = b = v: evaluate v once, convert it for each target
        value = self._bind(node.value) if all(isinstance(t, (ast.Name, ast.Tuple)) for t in node.targets) else node.value
        tmp = ast.copy_location(ast.Assign([ast.Name("__asc_tmp", ast.Store())], value), node)
        out = [tmp]
        for t in node.targets:
            k = self._target_key(t)
            v = ast.copy_location(ast.Name("__asc_tmp", ast.Load()), node.value)
            out.append(ast.copy_location(ast.Assign([t], v if k is None else self._call(v, k)), node))
        return out

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        k = self._target_key(node.target)
        if k is not None and node.value is not None:
            node.value = self._call(node.value, k)
        if isinstance(node.target, ast.Name) and node.value is not None:
            node.value = self._bind(node.value)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        k = self._target_key(node.target)
        w = self.keys.get(_span(node) + (_WEAK_AST.get(type(node.op)),))    # `s /= n` of two Python numbers
        if (k is None and w is None) or not isinstance(node.target, ast.Name):
            return node
        cur = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
        value = ast.copy_location(ast.BinOp(cur, node.op, node.value) if w is None else
                                  self._weak(cur, node.value, w), node)
        return ast.copy_location(ast.Assign([node.target], value if k is None else self._call(value, k)), node)

    def _weak(self, left, right, k):
        return ast.Call(ast.Name("__asc_weak", ast.Load()), [left, right, ast.Constant(k)], [])

    def visit_BinOp(self, node):
        self.generic_visit(node)
        k = self.keys.get(_span(node) + (_WEAK_AST.get(type(node.op)),))
        return node if k is None else ast.copy_location(self._weak(node.left, node.right, k), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return self._wrap(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        return self._wrap(node)


_REWRITTEN: dict = {}      # (the kernel's code, its conversions) -> the rewritten module, compiled


def _converting_function(fn, conversions, g, mixed: bool):
    """fn's code with the conversions of the typing applied; the same file and lines, so pdb shows the kernel."""
    key = (fn.__code__, conversions)
    code = _REWRITTEN.get(key)
    if code is None:
        from ..frontend.source import AST_LOCK, get_source
        src = get_source(fn)
        with AST_LOCK:      # (AST objects made and compiled: one thread at a time on CPython 3.11)
            keys = {pos: k for k, (pos, _) in enumerate(conversions)}
            fdef = copy.deepcopy(src.tree)
            fdef.decorator_list = []
            fdef = _Wrap(keys).visit(fdef)
            free = fn.__code__.co_freevars
            args = ast.arguments([], [ast.arg(n) for n in free], None, [], [], None, [])
            outer = ast.FunctionDef("__asc_outer", args, [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], [], None)
            ast.copy_location(outer, fdef)
            mod = ast.fix_missing_locations(ast.Module([outer], []))
            code = compile(mod, fn.__code__.co_filename, "exec")
        if len(_REWRITTEN) > 256:
            _REWRITTEN.clear()
        _REWRITTEN[key] = code
    convs = [_converter(t, mixed) for _, t in conversions]
    ns = g
    ns["__asc_as"] = lambda v, k: convs[k](v)
    ns["__asc_weak"] = lambda a, b, k: convs[k](a, b)
    ns["__asc_bind"] = drop_wide
    exec(code, ns)  # noqa: S102 - the user's own kernel source
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    return ns.pop("__asc_outer")(*cells)


_BINDS: dict = {}       # id of a kernel's IR -> (the IR, whether it binds 16-bit products): one walk per IR


def _binds_products(k) -> bool:
    """Whether the kernel has 16-bit float tensors (so maybe a product or reduction of them, whose value bound to a
    name is rounded to its dtype). Computed once per IR, not on every interpreted call."""
    hit = _BINDS.get(id(k))
    if hit is not None and hit[0] is k:
        return hit[1]
    types = [p.var.type for p in k.entry.params]
    types += [s.var.type for f in (k.entry,) + tuple(k.funcs) for s in ir.walk_stmts(f.body) if isinstance(s, ir.Alloc)]
    got = any(isinstance(t, ir.TensorType) and t.dtype.is_16bit_float for t in types)
    if len(_BINDS) > 256:
        _BINDS.clear()
    _BINDS[id(k)] = (k, got)
    return got


def _located(e: Exception, name: str, cls, hint: str = ""):
    """The interpreter's bounds error, with the kernel's line (the innermost frame in a kernel source file)."""
    tb, where = e.__traceback__, ""
    while tb is not None:
        f = tb.tb_frame
        if not f.f_code.co_filename.startswith(_ASC_DIR):
            where = f"{f.f_code.co_filename}:{tb.tb_lineno}: "
        tb = tb.tb_next
    return cls(f"{where}kernel {name!r}: {e}{hint}")


def _python_builtins() -> dict:
    """The Python builtins asc declares with its own meaning in kernels (round: keeps a float a float, as
    numpy.round): name -> the declaration, which the interpreter runs in their place."""
    from ..builtins import BUILTINS, python_aliases
    return {f.__name__: BUILTINS[name] for f, name in python_aliases().items()
            if getattr(pybuiltins, f.__name__, None) is f}


def kernel_globals(fn) -> dict:
    """The globals a kernel or device function runs with in the interpreter: its module's, with the declared
    Python builtins (unless the module defines the name itself)."""
    g = dict(fn.__globals__)
    for name, b in _python_builtins().items():
        g.setdefault(name, b)
    # Python's max/min on floats propagate nan in kernels (numpy.maximum), unless the module defines its own
    g.setdefault("max", kernel_max)
    g.setdefault("min", kernel_min)
    return g


_active = contextvars.ContextVar("asc_interpreting", default=False)


def interpreting() -> bool:
    """Is a kernel running in the interpreter in this thread (device functions then run with kernel_globals)?"""
    return _active.get()


def call_device(pyfunc, args, kwargs):
    """A device function called from an interpreted kernel: its own code, with the kernel language's builtins."""
    run_fn = types.FunctionType(pyfunc.__code__, kernel_globals(pyfunc), pyfunc.__name__, pyfunc.__defaults__,
                                pyfunc.__closure__)
    run_fn.__kwdefaults__ = pyfunc.__kwdefaults__
    return run_fn(*args, **kwargs)


def run(spec, bound, symbols):
    k = spec.ir
    mixed = k.precision == "mixed"      # 16-bit scalars carried in 16 bits (asc.dtypes.mixed16)
    fn = spec.kernel.pyfunc
    args, kwargs = [], {}
    for p, a, ps in zip(k.entry.params, bound, spec.kernel.specs):
        v = _scalar_in(a.value, p.var.type, mixed) if a.kind == "scalar" else _to_kernel_array(a)
        if a.kind != "scalar":
            v._asc_name = ps.name
        if ps.kwonly:
            kwargs[ps.name] = v
        else:
            args.append(v)
    g = kernel_globals(fn)
    # sizes named in annotations are plain ints inside the kernel (free axes have no name there)
    g.update({n: v for n, v in symbols.items() if not binding.is_free_dim(n)})
    if k.conversions or _binds_products(k):
        run_fn = _converting_function(fn, k.conversions, g, mixed)
    else:
        run_fn = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    run_fn.__defaults__, run_fn.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    token = BOUND_DIMS.set(dict(symbols))
    mixed_token = mixed16.set(mixed)
    finite = finite_stores.set(bool(spec.key[-1][1]))
    active = _active.set(True)
    try:
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):  # as compiled code
            try:
                result = run_fn(*args, **kwargs)
            except IndexError as e:
                raise _located(e, spec.kernel.__name__, MemoryCheckError) from e
            except FloatingPointError as e:
                raise _located(e, spec.kernel.__name__, NumericCheckError) from e
            except OverflowError as e:
                if "out of bounds for" not in str(e):     # NumPy's words for a Python int that does not fit
                    raise
                raise _located(e, spec.kernel.__name__, IntegerOverflowError, f" ({OVERFLOW_HINT})") from e
    finally:
        _active.reset(active)
        BOUND_DIMS.reset(token)
        mixed16.reset(mixed_token)
        finite_stores.reset(finite)
    use_torch = any(a.kind == "torch" for a in bound)
    elems = result if k.returns_tuple else (result,)
    out = []
    for o, r in zip(k.outputs, elems):
        if o.kind == "param":
            out.append(bound[o.index].value)
        elif o.kind == "alloc":
            r = zero_padded(r)          # a returned edge tile: its compile-time shape (docs/tensors.md, "Edge tiles")
            r = np.asarray(stored_value(r, HANDLES[o.type.dtype].np))   # a 16-bit product: kept wide, if so declared
            if r.dtype != HANDLES[o.type.dtype].np:     # a returned expression takes the annotated dtype
                r = _as_dtype(r, o.type.dtype)
            out.append(_from_numpy(r, use_torch))
        else:
            out.append(narrow16(r, HANDLES[o.type.dtype])[()] if o.type.dtype.is_16bit_float else
                       HANDLES[o.type.dtype].np.type(r))
    if k.returns_tuple:
        return tuple(out)
    return out[0] if out else None
