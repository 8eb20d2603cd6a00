"""Python AST -> typed IR. The one place that knows Python syntax; every error points at the user's line."""
from __future__ import annotations

import ast
import builtins
import math as pymath
import types as pytypes
from collections import Counter

import numpy as np

from .. import ir
from ..errors import CompileError, KernelTypeError, UnsupportedError
from ..builtins import BUILTINS, Builtin
from ..marks import DeviceCallable
from ..dtypes import Dim, DTypeHandle, HANDLES, as_dtype
from .source import get_source
from .tensors import TensorMixin, TMap, TMatMul, TReduce, TSoftmax, TValue, TView, fmt_shape

UNSUPPORTED = {
    ast.Try: "try-except", ast.Lambda: "lambda", ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Dict: "dict literal", ast.List: "list literal",
    ast.Set: "set literal", ast.Yield: "yield (generators)", ast.YieldFrom: "yield from (generators)",
    ast.ClassDef: "class definition inside a kernel", ast.FunctionDef: "nested function definition",
    ast.AsyncFunctionDef: "nested function definition", ast.With: "with statement", ast.Raise: "raise",
    ast.Assert: "assert", ast.Import: "import", ast.ImportFrom: "import", ast.Delete: "del",
    ast.Await: "await", ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.Starred: "starred expression",
    ast.JoinedStr: "f-string", ast.NamedExpr: "assignment expression (:=)", ast.Match: "match statement",
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED[ast.TryStar] = "try-except"

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
          ast.LShift: "lshift", ast.RShift: "rshift"}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne", ast.Gt: "gt", ast.GtE: "ge"}
PYMATH = {pymath.exp: "exp", pymath.log: "log", pymath.sqrt: "sqrt", pymath.tanh: "tanh", pymath.erf: "erf",
          pymath.sin: "sin", pymath.cos: "cos", pymath.floor: "floor", pymath.ceil: "ceil", pymath.fabs: "abs",
          pymath.pow: "pow"}
_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
         "pow": lambda a, b: a ** b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
         "xor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
         "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "eq": lambda a, b: a == b,
         "ne": lambda a, b: a != b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}

UNKNOWN = ir.ScalarType(ir.DType("unknown", "?", 0, "void"))   # the type of a recursive call not yet typed


class DeviceFunc:
    """A Python function callable from kernels (a @lang.func, or a @staticmethod of a namespace class)."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc


class _Alloc:
    """A pending allocation, named when it is assigned."""

    def __init__(self, type_, init, fill, loc, space="global"):
        self.type, self.init, self.fill, self.loc, self.space = type_, init, fill, loc, space


class BuildContext:
    """State shared by the kernel and the device functions it calls: options, sizes, specializations."""

    def __init__(self, symbols: dict, dynamic: bool, fused: bool = False, ret_spec=None, cube: bool = False):
        self.symbols = symbols          # size name -> int (specialized) or ir.Sym (dynamic)
        self.dynamic = dynamic
        self.fused = fused              # @lang.fused_kernel: tensor expressions inline and fuse around matmuls
        self.epilogues = bool(fused or cube)    # an expression of a matmul becomes its epilogue (fused, cube)
        self.ret_spec = ret_spec        # the kernel's return annotation (the dtype of a returned expression)
        self.funcs: dict = {}           # key -> ir.Function (finished)
        self.order: list = []           # finished function keys, callees first
        self.in_progress: dict = {}     # key -> (unique name, current return type guess)
        self.names: Counter = Counter()

    def unique(self, base: str) -> str:
        self.names[base] += 1
        return base if self.names[base] == 1 else f"{base}_{self.names[base]}"


def _py_const(v, loc):
    if isinstance(v, bool):
        return ir.Const(v, ir.WEAK_BOOL, loc)
    if isinstance(v, int):
        return ir.Const(v, ir.WEAK_INT, loc)
    if isinstance(v, float):
        return ir.Const(v, ir.WEAK_FLOAT, loc)
    if isinstance(v, np.generic):
        h = as_dtype(v.dtype)
        if h is not None:
            return ir.Const(v.item(), ir.ScalarType(h.ir), loc)
    return None


def _assigned_names(fdef) -> Counter:
    """How many assignment statements target each name (for folding names assigned once to constants)."""
    c = Counter()

    def count(t):
        if isinstance(t, ast.Name):
            c[t.id] += 1
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                count(e)

    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                count(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            count(node.target)
    return c


class FunctionBuilder(TensorMixin):
    def __init__(self, ctx: BuildContext, pyfunc, params: list, is_kernel: bool, name: str, var_types: dict,
                 ret_guess=None, consts: dict | None = None):
        self.ctx, self.pyfunc, self.is_kernel, self.name = ctx, pyfunc, is_kernel, name
        # names assigned more than once, but only ever the same constant (as in `M, K = A.shape; K, N = B.shape`):
        # consts[name] is that Const, or None once any other value is seen. Shared across rounds.
        self.consts = consts if consts is not None else {}
        self.assigned_vars: set = set()
        self.conversions: dict = {}            # (line, col) -> result type, for the interpreter (see ir.Kernel)
        self.src = get_source(pyfunc)
        self.var_types = var_types            # scalar variable -> type (grows until the fixpoint)
        self.changed = False
        self.assign_count = _assigned_names(self.src.tree)
        self.env: dict = {}
        self.tensor_names: set = set()
        self.loop_vars: list = []              # names of the enclosing loops' variables
        self.loop_var_names: set = set()
        self.returns: list = []                # (value, loc)
        self.ret_guess = ret_guess
        self.ret_type = None
        self.closure = {}
        if pyfunc.__closure__:
            for n, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                try:
                    self.closure[n] = cell.cell_contents
                except ValueError:
                    pass
        self.params = params                   # list of ir.Var, bound in env
        self.params_by_name = {v.name for v in params}
        for v in params:
            self.env[v.name] = v
            if isinstance(v.type, ir.TensorType):
                self.tensor_names.add(v.name)
            else:  # a scalar parameter is a variable that may be reassigned
                var_types.setdefault(v.name, v.type)
                self.env[v.name] = ir.Var(v.name, var_types[v.name])
        self._tmp = 0
        self.pre: list = []                    # statements an expression needs before its statement (tensors)
        self.loop_ranges: dict = {}            # enclosing loop variable -> (start, stop, step)
        self.local_bytes = 0                   # lang.local_buffer bytes so far
        self.alloc_names: set = set()
        # the block (statement list) where each tensor name is bound: a tensor name may be bound again only in the
        # same block (names are bound at compile time: a rebinding inside an `if` or a loop would be wrong)
        self.blocks: list = [id(self.src.tree.body)]
        self.tensor_block: dict = {v.name: id(self.src.tree.body) for v in params
                                   if isinstance(v.type, ir.TensorType)}

    # ------------------------------------------------------------------ errors and helpers

    def loc(self, node):
        return self.src.loc(node)

    def error(self, msg, node, cls=CompileError):
        return cls(msg, self.loc(node))

    def fresh(self, base="t"):
        self._tmp += 1
        return f"{base}{self._tmp}"

    # ------------------------------------------------------------------ statements

    def build(self) -> tuple:
        body = self.block(self.src.tree.body)
        return body

    def block(self, stmts) -> tuple:
        out = []
        self.blocks.append(id(stmts))
        try:
            for s in stmts:
                out += self.stmt(s)
        finally:
            self.blocks.pop()
        return tuple(out)

    def rebind_tensor(self, name, target):
        """Records that `name` is bound to a tensor here; refuses a rebinding in another block."""
        where = self.tensor_block.setdefault(name, self.blocks[-1])
        if where != self.blocks[-1]:
            raise self.error(f"tensor variable {name!r} is bound again inside a branch or loop (its first binding "
                             f"is outside); use a new name", target, KernelTypeError)

    def stmt(self, node) -> list:
        if type(node) in UNSUPPORTED:
            raise self.error(f"unsupported Python feature: {UNSUPPORTED[type(node)]}", node, UnsupportedError)
        visit = getattr(self, "stmt_" + type(node).__name__, None)
        if visit is None:
            raise self.error(f"unsupported Python feature: {type(node).__name__} statement", node, UnsupportedError)
        saved, self.pre = self.pre, []
        try:
            out = visit(node)
            return self.pre + list(out)
        finally:
            self.pre = saved

    def stmt_Pass(self, node):
        return []

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return []  # a docstring
        if isinstance(node.value, ast.Call) and self._is_print(node.value.func):
            return [self.print_call(node.value)]
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and \
                node.value.func.id == "breakpoint" and node.value.func.id not in self.env:
            return []      # stops in the interpreter (ASC_DEBUG=1); compiled code ignores it
        v = self.expr(node.value)
        if isinstance(v, ir.Expr) and not isinstance(v, (ir.Const, ir.Var)):
            return [ir.ExprStmt(v, self.loc(node))]
        return []

    def _is_print(self, fnode):
        return isinstance(fnode, ast.Name) and fnode.id == "print" and fnode.id not in self.env

    def print_call(self, call):
        args = []
        for a in call.args:
            v = self.expr(a)
            if isinstance(v, str):
                args.append(v)
            elif isinstance(v, ir.Expr) and isinstance(getattr(v, "type", None), ir.ScalarType):
                args.append(v)
            else:
                raise self.error("print() in a compiled kernel takes scalars and strings", a)
        kw = {}
        for k in call.keywords:
            v = self.expr(k.value)
            if k.arg not in ("sep", "end") or not isinstance(v, str):
                raise self.error(f"print() keyword {k.arg!r} is not supported in kernels", k.value)
            kw[k.arg] = v
        return ir.Print(tuple(args), kw.get("sep", " "), kw.get("end", "\n"), self.loc(call))

    def stmt_Assign(self, node):
        value = self.expr(node.value)
        out = []
        for target in node.targets:
            out += self.assign(target, value, node)
        return out

    def stmt_AnnAssign(self, node):
        if node.value is None:
            return []
        ann = self.compile_time(node.annotation)
        h = as_dtype(ann) if not isinstance(ann, ir.Expr) else None
        value = self.expr(node.value)
        if h is not None and isinstance(node.target, ast.Name):
            value = self.cast(self.scalar(value, node.value), ir.ScalarType(h.ir, weak=ann in (int, float, bool)),
                              node.value, explicit=True)
        return self.assign(node.target, value, node)

    def stmt_AugAssign(self, node):
        op = BINOPS.get(type(node.op))
        if isinstance(node.op, ast.MatMult):
            op = "matmul"
        if op is None:
            raise self.error(f"unsupported operator {type(node.op).__name__}", node, UnsupportedError)
        dst = self.tensor_target(node.target)
        if dst is not None:
            value = self.expr(node.value)
            if op == "matmul":
                self.store_into(dst, self.tmatmul(dst, value, node), node)
            else:
                self.store_into(dst, value, node, op)
            return []
        if isinstance(node.target, ast.Subscript):
            tensor, idx = self.subscript_target(node.target)
            cur = ir.Load(tensor, idx, ir.ScalarType(tensor.type.dtype), self.loc(node.target))
            value = self.binary(op, cur, self.scalar(self.expr(node.value), node.value), node)
            return [self.store(tensor, idx, value, node)]
        if not isinstance(node.target, ast.Name):
            raise self.error("unsupported augmented assignment target", node.target, UnsupportedError)
        cur = self.name_value(node.target)
        value = self.binary(op, self.scalar(cur, node.target), self.scalar(self.expr(node.value), node.value), node)
        return self.assign(node.target, value, node)

    def assign(self, target, value, node) -> list:
        if isinstance(target, ast.Name):
            return self.bind(target.id, value, target, node)
        if isinstance(target, ast.Tuple):
            if isinstance(value, ir.TupleExpr):
                value = value.elems
            if not isinstance(value, tuple):
                raise self.error("tuple unpacking needs a tuple value (such as A.shape)", node.value)
            if len(value) != len(target.elts):
                raise self.error(f"cannot unpack {len(value)} values into {len(target.elts)} names", target)
            out = []
            for t, v in zip(target.elts, value):
                out += self.assign(t, v, node)
            return out
        if isinstance(target, ast.Subscript):
            dst = self.tensor_target(target, value, getattr(node, "value", None))
            if dst is not None:
                self.store_into(dst, value, node)
                return []
            tensor, idx = self.subscript_target(target)
            return [self.store(tensor, idx, self.scalar(value, node.value), node)]
        raise self.error(f"unsupported assignment target {type(target).__name__}", target, UnsupportedError)

    def tensor_target(self, target, value=None, value_node=None):
        """The view that `target[...] = value` writes when it is a tensor-level store, else None."""
        if isinstance(target, ast.Name):
            cur = self.env.get(target.id)
            if isinstance(cur, ir.Var) and isinstance(cur.type, ir.TensorType):
                return self.whole(cur)
            return cur if isinstance(cur, TView) else None
        if not isinstance(target, ast.Subscript):
            return None
        base = self.expr(target.value)
        if not (isinstance(base, TView) or (isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType))):
            return None
        if isinstance(base, ir.Var) and not self.has_slices(target) and not self.is_tensor(value):
            sl = target.slice
            if len(sl.elts if isinstance(sl, ast.Tuple) else [sl]) >= base.type.ndim:
                return None
        v = self.subscript_view(base, target)
        if isinstance(v, TView):
            return v
        if self.is_tensor(value):
            self.element_of_tensor_error(value, value_node, target)
        return None

    def element_of_tensor_error(self, value, value_node, target):
        """A tensor stored into one element: name the partial index that made it a tensor, if one did."""
        vn = value_node if value_node is not None else target
        if isinstance(vn, ast.Subscript):
            base = self.expr(vn.value)
            sl = vn.slice
            n = len(sl.elts if isinstance(sl, ast.Tuple) else [sl])
            if isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType) and n < base.type.ndim and \
                    not self.has_slices(vn):
                raise self.error(f"tensor {base.name!r} has {base.type.ndim} dimension(s) but is indexed with {n} "
                                 f"(a partial index is a view of shape {fmt_shape(value.type.shape)}, which cannot "
                                 f"be stored into one element)", vn)
        raise self.error(f"cannot store a tensor of shape {fmt_shape(value.type.shape)} into one element", vn,
                         KernelTypeError)

    def bind(self, name, value, target, node) -> list:
        loc = self.loc(node)
        if name in self.loop_var_names and name in self.loop_vars:
            raise self.error(f"loop variable {name!r} is assigned inside its loop", target)
        if isinstance(value, _Alloc):
            if name in self.env or self.assign_count[name] > 1:
                raise self.error(f"tensor variable {name!r} is assigned more than once; use a new name", target,
                                 KernelTypeError)
            var = ir.Var(name, value.type, loc)
            self.env[name] = var
            self.tensor_names.add(name)
            self.alloc_names.add(name)
            return [ir.Alloc(var, value.init, value.fill, None, loc, value.space)]
        if isinstance(value, ir.Var) and isinstance(value.type, ir.TensorType):
            if name in self.env and self.env[name] is not value and not self.is_tensor(self.env[name]):
                raise self.error(f"tensor variable {name!r} is assigned more than once; use a new name", target,
                                 KernelTypeError)
            if name in self.env and self.env[name] is not value:
                self.rebind_tensor(name, target)
            self.env[name] = value  # an alias
            self.tensor_names.add(name)
            return []
        if isinstance(value, TValue):
            if name in self.env and not self.is_tensor(self.env[name]):
                raise self.error(f"variable {name!r} changes type from {self._describe(self.env[name])} to a "
                                 f"tensor", target, KernelTypeError)
            self.tensor_names.add(name)
            self.rebind_tensor(name, target)
            if isinstance(value, TView) and value.is_whole():
                self.env[name] = value.base
            elif isinstance(value, TView) or self.ctx.fused:
                self.env[name] = value        # a view aliases its tensor; a fused kernel inlines expressions
            else:
                cname = name if name not in self.alloc_names and name not in self.params_by_name else \
                    self.fresh(f"{name}_")
                self.alloc_names.add(cname)
                for d in value.shape:
                    if not isinstance(d, (int, ir.Sym)):
                        raise self.error("the size of a tensor must be known at compile time", node)
                var = ir.Var(cname, ir.TensorType(value.dtype, value.shape), loc)
                self.pre.append(ir.Alloc(var, "empty", None, None, loc))
                self.store_into(self.whole(var), value, node)
                self.env[name] = var
            return []
        if name in self.tensor_names and self.is_tensor(self.env.get(name)):
            raise self.error(f"variable {name!r} changes type from a tensor to {self._describe(value)}", target,
                             KernelTypeError)
        if not isinstance(value, ir.Expr):
            if self.assign_count[name] <= 1:
                self.env[name] = value   # a compile-time object (a dtype, a tuple of sizes, a function)
                return []
            raise self.error(f"variable {name!r} is assigned a compile-time value ({self._describe(value)}) and "
                             f"reassigned", target)
        if name not in self.params_by_name:
            seen = self.consts.get(name, value if isinstance(value, ir.Const) else None)
            if not (isinstance(value, ir.Const) and isinstance(seen, ir.Const) and seen == value):
                if name in self.consts and self.consts[name] is not None:
                    self.changed = True
                self.consts[name] = None
            elif name not in self.consts:
                self.consts[name] = value
                if self.assign_count[name] > 1:
                    self.changed = True          # may fold next round, once all assignments are seen
            if isinstance(value, ir.Const) and (self.assign_count[name] <= 1 or self.consts.get(name) is not None) \
                    and (name not in self.var_types or self.consts.get(name) is not None):
                self.env[name] = value       # a constant: folded
                return []
        self.assigned_vars.add(name)
        t = value.type
        if t == UNKNOWN and name not in self.var_types:
            var = ir.Var(name, UNKNOWN, loc)
            self.env[name] = var
            return [ir.Assign(var, value, loc)]
        old = self.var_types.get(name)
        if old is None:
            self.var_types[name] = t
            self.changed = True
        elif t != UNKNOWN:
            u = ir.unify(old, t)
            if u is None:
                raise self.error(f"variable {name!r} changes type from {old!r} to {t!r}", target, KernelTypeError)
            if u != old:
                self.var_types[name] = u
                self.changed = True
        var = ir.Var(name, self.var_types[name], loc)
        self.env[name] = var
        return [ir.Assign(var, self.cast(value, var.type, node), loc)]

    def _describe(self, v):
        if isinstance(v, ir.Expr):
            return repr(v.type)
        if isinstance(v, (_Alloc, TValue)):
            return repr(v.type)
        return type(v).__name__

    def subscript_target(self, node):
        tensor = self.expr(node.value)
        if not (isinstance(tensor, ir.Var) and isinstance(tensor.type, ir.TensorType)):
            raise self.error("only tensors can be assigned by index", node.value)
        return tensor, self.indices(tensor, node)

    def store(self, tensor, idx, value, node):
        if self.is_tensor(value):
            raise self.error("assigning a tensor to an element", node)
        elem = ir.ScalarType(tensor.type.dtype)
        return ir.Store(tensor, idx, self.cast(value, elem, node), self.loc(node))

    def stmt_If(self, node):
        cond = self.condition(node.test)
        if isinstance(cond, ir.Const):        # folded: only the taken branch is compiled
            return list(self.block(node.body if cond.value else node.orelse))
        then = self.block(node.body)
        orelse = self.block(node.orelse)
        return [ir.If(cond, then, orelse, self.loc(node))]

    def stmt_While(self, node):
        if node.orelse:
            raise self.error("unsupported Python feature: while-else", node, UnsupportedError)
        cond = self.condition(node.test)
        if self.pre:
            raise self.error("a while condition cannot compute a tensor expression (compute it into a variable "
                             "before the loop and at the end of its body)", node.test, UnsupportedError)
        body = self.block(node.body)
        return [ir.While(cond, body, self.loc(node))]

    def stmt_For(self, node):
        if node.orelse:
            raise self.error("unsupported Python feature: for-else", node, UnsupportedError)
        if not isinstance(node.target, ast.Name):
            raise self.error("a kernel for loop needs a single loop variable", node.target, UnsupportedError)
        start, stop, step = self.range_args(node.iter)
        name = node.target.id
        if name in self.var_types or name in self.tensor_names:
            raise self.error(f"loop variable {name!r} is also used as an ordinary variable; use another name",
                             node.target, KernelTypeError)
        var = ir.Var(name, ir.INDEX, self.loc(node.target))
        self.env[name] = var
        self.loop_vars.append(name)
        self.loop_var_names.add(name)
        self.loop_ranges[name] = (start, stop, step)
        body = self.block(node.body)
        self.loop_ranges.pop(name, None)
        self.loop_vars.pop()
        # the loop variable is not visible after its loop (asc refuses uses after the loop), even when the name was
        # bound before it (to a folded constant, say): Python would read the loop's last value there
        self.env.pop(name, None)
        return [ir.For(var, start, stop, step, body, "serial", self.loc(node))]

    def range_args(self, it):
        if not isinstance(it, ast.Call):
            raise self.error("a kernel for loop must iterate over range(...) or lang.range(...)", it,
                             UnsupportedError)
        fn = self.compile_time(it.func)
        if getattr(fn, "__name__", None) == "distributed_range":
            raise self.error("lang.distributed_range is only available inside a @lang.parallel kernel", it,
                             UnsupportedError)
        if not (fn is builtins.range or (isinstance(fn, Builtin) and fn.name == "range")):
            raise self.error("a kernel for loop must iterate over range(...) or lang.range(...)", it,
                             UnsupportedError)
        if it.keywords:
            raise self.error("range() takes no keyword arguments", it)
        args = [self.int_scalar(self.expr(a), a) for a in it.args]
        if len(args) == 1:
            args = [ir.Const(0, ir.INDEX), args[0], ir.Const(1, ir.INDEX)]
        elif len(args) == 2:
            args.append(ir.Const(1, ir.INDEX))
        elif len(args) != 3:
            raise self.error(f"range expected 1 to 3 arguments, got {len(args)}", it)
        if isinstance(args[2], ir.Const) and args[2].value == 0:
            raise self.error("range() step must not be zero", it.args[2])
        return tuple(self.cast(a, ir.INDEX, it) for a in args)

    def stmt_Break(self, node):
        return [ir.Break(self.loc(node))]

    def stmt_Continue(self, node):
        return [ir.Continue(self.loc(node))]

    def stmt_Return(self, node):
        if node.value is None:
            value = None
        else:
            value = self.expr(node.value)
            if isinstance(value, _Alloc):
                tmp = self.fresh("ret")
                stmts = self.bind(tmp, value, node, node)
                value = self.env[tmp]
                self.returns.append((value, node))
                return stmts + [ir.Return(value, self.loc(node))]
            if isinstance(value, tuple):
                elems = []
                pre = []
                for e, enode in zip(value, node.value.elts):
                    if isinstance(e, _Alloc):
                        tmp = self.fresh("ret")
                        pre += self.bind(tmp, e, enode, node)
                        e = self.env[tmp]
                    elems.append(self._return_elem(e, enode, len(elems)))
                value = ir.TupleExpr(tuple(elems), ir.TupleType(tuple(e.type for e in elems)), self.loc(node))
                self.returns.append((value, node))
                return pre + [ir.Return(value, self.loc(node))]
            value = self._return_elem(value, node.value)
        self.returns.append((value, node))
        return [ir.Return(value, self.loc(node))]

    def _return_elem(self, e, node, k=None):
        if isinstance(e, TValue) or (isinstance(e, ir.Var) and isinstance(e.type, ir.TensorType) and
                                     e.type.dtype != self._ret_dtype(k, e.type.dtype)):
            e = self.as_tvalue(e)
            if isinstance(e, TView) and e.is_whole() and e.dtype == self._ret_dtype(k, e.dtype):
                return e.base
            if isinstance(e, TReduce) and not e.shape:
                return self.emit_reduce(e, node)
            dt = self._ret_dtype(k, e.dtype)
            tmp = self.fresh("ret")
            self.pre += self.bind(tmp, _Alloc(ir.TensorType(dt, e.shape), "empty", None, self.loc(node)), node,
                                  node)
            self.store_into(self.whole(self.env[tmp]), e, node)
            return self.env[tmp]
        if isinstance(e, ir.Expr):
            return e
        c = _py_const(e, self.loc(node))
        if c is None:
            raise self.error(f"cannot return {self._describe(e)} from a kernel", node)
        return c

    def _ret_dtype(self, k, default):
        """The dtype a returned tensor expression is stored in: the kernel's annotation, else its own."""
        spec = self.ctx.ret_spec if self.is_kernel else None
        if spec is not None and spec.kind == "tuple":
            spec = spec.elems[k] if k is not None and k < len(spec.elems) else None
        if spec is not None and spec.kind == "tensor" and spec.dtype is not None:
            return spec.dtype
        return default

    # ------------------------------------------------------------------ expressions

    def expr(self, node):
        if type(node) in UNSUPPORTED:
            raise self.error(f"unsupported Python feature: {UNSUPPORTED[type(node)]}", node, UnsupportedError)
        visit = getattr(self, "expr_" + type(node).__name__, None)
        if visit is None:
            raise self.error(f"unsupported Python feature: {type(node).__name__} expression", node,
                             UnsupportedError)
        return visit(node)

    def compile_time(self, node):
        """Evaluates `node` where a compile-time object (a function, a dtype) is expected."""
        return self.expr(node)

    def expr_Constant(self, node):
        v = node.value
        if isinstance(v, str) or v is None:
            return v
        c = _py_const(v, self.loc(node))
        if c is None:
            raise self.error(f"unsupported constant {v!r}", node, UnsupportedError)
        return c

    def name_value(self, node):
        name = node.id
        if name in self.env:
            return self.env[name]
        if name in self.loop_var_names:
            raise self.error(f"loop variable {name!r} is used after its loop (asc does not keep its last value)",
                             node)
        if name in self.closure:
            return self.wrap_global(self.closure[name], node)
        g = self.pyfunc.__globals__
        if name in g:
            return self.wrap_global(g[name], node)
        if name in self.ctx.symbols:
            return self.size_value(name, node)
        if hasattr(builtins, name):
            obj = getattr(builtins, name)
            if name in ("eval", "exec", "compile", "globals", "locals", "vars", "open", "input"):
                raise self.error(f"unsupported Python feature: {name}", node, UnsupportedError)
            return obj
        raise self.error(f"name {name!r} is not defined", node)

    expr_Name = name_value

    def size_value(self, name, node):
        v = self.ctx.symbols[name]
        if isinstance(v, ir.Sym):
            return ir.Var(name, ir.INDEX, self.loc(node))
        return ir.Const(v, ir.INDEX, self.loc(node))

    def wrap_global(self, obj, node):
        c = _py_const(obj, self.loc(node))
        if c is not None:
            return c
        if isinstance(obj, Dim):
            if obj.name not in self.ctx.symbols:
                raise self.error(f"size {obj.name} is not bound by any argument of this kernel", node)
            return self.size_value(obj.name, node)
        if isinstance(obj, (np.ndarray,)):
            raise self.error("a kernel cannot use a global array; pass it as an argument", node)
        return obj

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, TValue):
            if attr == "shape":
                return tuple(base.extents)
            if attr == "dtype":
                return HANDLES[base.dtype]
            if attr == "ndim":
                return ir.Const(base.ndim, ir.INDEX, self.loc(node))
            if attr == "T":
                return self.ttranspose(base, None, node)
            raise self.error(f"tensor has no attribute {attr!r} in kernels", node)
        if isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType):
            t = base.type
            if attr == "T":
                return self.ttranspose(base, None, node)
            if attr == "shape":
                return tuple(self.dim_value(base, k, node) for k in range(t.ndim))
            if attr == "dtype":
                return HANDLES[t.dtype]
            if attr == "ndim":
                return ir.Const(t.ndim, ir.INDEX, self.loc(node))
            if attr == "size":
                return self.product([self.dim_value(base, k, node) for k in range(t.ndim)], node)
            raise self.error(f"tensor has no attribute {attr!r} in kernels", node)
        if isinstance(base, ir.Expr) or isinstance(base, (str, tuple)) or base is None:
            raise self.error(f"attribute {attr!r} of a {self._describe(base)} is not supported in kernels", node)
        if not hasattr(base, attr):
            raise self.error(f"{getattr(base, '__name__', base)!r} has no attribute {attr!r}", node)
        if isinstance(base, type):
            raw = base.__dict__.get(attr) if attr in base.__dict__ else None
            obj = getattr(base, attr)
            if isinstance(raw, staticmethod) or (isinstance(obj, pytypes.FunctionType)):
                return DeviceFunc(obj)
            return self.wrap_global(obj, node)
        return self.wrap_global(getattr(base, attr), node)

    def dim_value(self, tensor, k, node):
        d = tensor.type.shape[k]
        if isinstance(d, ir.Sym):
            return ir.Var(d.name, ir.INDEX, self.loc(node))
        return ir.Const(d, ir.INDEX, self.loc(node))

    def product(self, dims, node):
        out = ir.Const(1, ir.INDEX, self.loc(node))
        for d in dims:
            out = self.binary("mul", out, d, node)
        return out

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, TValue) and not isinstance(base, TView):
            base = self.operand(base, node)
            if not isinstance(base, TView):
                base = self.materialize(base, node)
        if isinstance(base, TView):
            return self.subscript_view(base, node)
        if isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType):
            sl = node.slice
            if self.has_slices(node) or len(sl.elts if isinstance(sl, ast.Tuple) else [sl]) < base.type.ndim:
                return self.subscript_view(base, node)
            idx = self.indices(base, node)
            return ir.Load(base, idx, ir.ScalarType(base.type.dtype), self.loc(node))
        if isinstance(base, tuple):
            k = self.expr(node.slice)
            if not (isinstance(k, ir.Const) and isinstance(k.value, int)):
                raise self.error("a tuple (such as x.shape) can only be indexed by a constant", node.slice)
            if not -len(base) <= k.value < len(base):
                raise self.error(f"index {k.value} is out of range for a tuple of {len(base)}", node.slice)
            return base[k.value]
        raise self.error(f"{self._describe(base)} is not subscriptable in kernels", node.value)

    def indices(self, tensor, node):
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        for e in elts:
            if isinstance(e, ast.Slice):
                raise self.error("slicing a tensor (a view) is not supported in element-level code yet; index "
                                 "single elements", e, UnsupportedError)
        if len(elts) != tensor.type.ndim:
            raise self.error(f"tensor {tensor.name!r} has {tensor.type.ndim} dimension(s) but is indexed with "
                             f"{len(elts)}", node)
        out = []
        for k, e in enumerate(elts):
            v = self.int_scalar(self.expr(e), e)
            if isinstance(v, ir.Const):
                if v.value < 0:
                    raise self.error(f"negative index {v.value}: kernels do not wrap negative indices", e)
                d = tensor.type.shape[k]
                if isinstance(d, int) and v.value >= d:
                    raise self.error(f"index {v.value} is out of bounds for axis {k} of {tensor.name!r} with size "
                                     f"{d}", e)
            out.append(self.cast(v, ir.INDEX, e) if v.type.dtype != ir.int64 else v)
        return tuple(out)

    def scalar(self, v, node):
        if isinstance(v, ir.Expr) and isinstance(v.type, ir.ScalarType):
            return v
        if isinstance(v, _Alloc) or self.is_tensor(v):
            raise self.error(f"expected a number, got a tensor {self._describe(v)}", node, KernelTypeError)
        raise self.error(f"expected a number, got {self._describe(v)}", node)

    def int_scalar(self, v, node):
        v = self.scalar(v, node)
        if v.type.dtype.kind not in "iub" and v.type != UNKNOWN:
            raise self.error(f"expected an integer, got {v.type!r}", node, KernelTypeError)
        return v

    def condition(self, node):
        v = self.scalar(self.expr(node), node)
        return self.truth(v, node)

    def truth(self, v, node):
        if v.type.dtype == ir.bool_:
            return v
        if isinstance(v, ir.Const):
            return ir.Const(bool(v.value), ir.WEAK_BOOL, v.loc)
        return ir.Compare("ne", v, ir.Const(0, ir.WEAK_INT), ir.ScalarType(ir.bool_), self.loc(node))

    def cast(self, v, t, node, explicit=False):
        """v converted to t. Implicit conversions (promotion, stores) keep 16-bit floats in float32, as the
        compiled code carries them; explicit ones (lang.cast, lang.float16(x), annotations) round to t."""
        if t == UNKNOWN or v.type == UNKNOWN:
            return v
        if v.type == t and not (explicit and t.dtype.is_16bit_float):
            return v
        if isinstance(v, ir.Const):
            return ir.Const(_convert_const(v.value, t, explicit), t, v.loc)
        return ir.Cast(v, t, v.loc or self.loc(node), explicit)

    def expr_BinOp(self, node):
        a, b = self.expr(node.left), self.expr(node.right)
        if isinstance(node.op, ast.MatMult):
            for v, n in ((a, node.left), (b, node.right)):
                if not self.is_tensor(v):
                    raise self.error(f"matmul (@) needs tensors, got {self._describe(v)}", n, KernelTypeError)
            return self.tmatmul(a, b, node)
        if self.is_tensor(a) or self.is_tensor(b):
            return self.tensor_binary(BINOPS[type(node.op)], a, b, node)
        a = self.scalar(a, node.left)
        b = self.scalar(b, node.right)
        return self.binary(BINOPS[type(node.op)], a, b, node)

    def check_weak_int(self, a, b, node):
        """NumPy 2 refuses a Python int that does not fit the integer dtype it meets (`uint8_value + 300`)."""
        for c, other in ((a, b), (b, a)):
            if isinstance(c, ir.Const) and c.type.weak and c.type.dtype.kind == "i" and not other.type.weak \
                    and other.type.dtype.kind in "iu":
                if not _fits(c.value, other.type.dtype):
                    raise self.error(f"Python integer {c.value} out of bounds for {other.type.dtype.name}", node,
                                     KernelTypeError)

    def binary(self, op, a, b, node):
        self.check_weak_int(a, b, node)
        if UNKNOWN in (a.type, b.type):
            t = b.type if a.type == UNKNOWN else a.type
        else:
            t = ir.promote(a.type, b.type)
        if op == "truediv" and t.dtype.kind in "biu":
            t = ir.ScalarType(ir.float64, weak=t.weak)
        if op in ("and", "or", "xor", "lshift", "rshift") and t.dtype.kind == "f":
            raise self.error(f"bitwise operator needs integer operands, got {a.type!r} and {b.type!r}", node,
                             KernelTypeError)
        if op in ("add", "sub", "mul", "pow") and t.dtype == ir.bool_ and not t.weak:
            t = ir.ScalarType(ir.int64) if op != "mul" else t
        if isinstance(a, ir.Const) and isinstance(b, ir.Const) and t.weak:
            try:
                r = _FOLD[op](a.value, b.value)
                return ir.Const(_convert(r, t.dtype), t, self.loc(node))
            except (ZeroDivisionError, OverflowError, ValueError):
                pass
        return ir.Binary(op, self.cast(a, t, node), self.cast(b, t, node) if op not in ("lshift", "rshift") else b,
                         t, self.loc(node))

    def expr_UnaryOp(self, node):
        v = self.expr(node.operand)
        if self.is_tensor(v):
            if isinstance(node.op, ast.UAdd):
                return v
            return self.tensor_unary({ast.USub: "neg", ast.Invert: "invert"}.get(type(node.op), "not"), v, node)
        v = self.scalar(v, node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            c = self.truth(v, node)
            if isinstance(c, ir.Const):
                return ir.Const(not c.value, ir.WEAK_BOOL, self.loc(node))
            return ir.Unary("not", c, ir.ScalarType(ir.bool_), self.loc(node))
        if isinstance(node.op, ast.USub):
            if isinstance(v, ir.Const) and v.type.weak:
                return ir.Const(-v.value, v.type, self.loc(node))
            return ir.Unary("neg", v, v.type, self.loc(node))
        if v.type.dtype.kind == "f":
            raise self.error("~ needs an integer operand", node, KernelTypeError)
        return ir.Unary("invert", v, v.type, self.loc(node))

    def expr_Compare(self, node):
        if len(node.ops) == 1 and type(node.ops[0]) in CMPOPS:
            a, b = self.expr(node.left), self.expr(node.comparators[0])
            if self.is_tensor(a) or self.is_tensor(b):
                return self.tensor_compare(CMPOPS[type(node.ops[0])], a, b, node)
        left = self.scalar(self.expr(node.left), node.left)
        out = None
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in CMPOPS:
                raise self.error(f"unsupported comparison {type(op).__name__}", node, UnsupportedError)
            right = self.scalar(self.expr(right_node), right_node)
            c = self.compare(CMPOPS[type(op)], left, right, node)
            out = c if out is None else self.logical("and", out, c, node)
            left = right
        return out

    def compare(self, op, a, b, node):
        t = ir.promote(a.type, b.type) if UNKNOWN not in (a.type, b.type) else UNKNOWN
        for c in (a, b):   # NumPy compares a Python int exactly, even one out of the other dtype's range
            if isinstance(c, ir.Const) and c.type.weak and c.type.dtype.kind == "i" and t.dtype.kind in "iu" \
                    and not t.weak and not _fits(c.value, t.dtype):
                t = ir.ScalarType(ir.int64) if _fits(c.value, ir.int64) else ir.ScalarType(ir.float64)
        rt = ir.ScalarType(ir.bool_, weak=a.type.weak and b.type.weak)
        if isinstance(a, ir.Const) and isinstance(b, ir.Const):
            return ir.Const(bool(_FOLD[op](a.value, b.value)), rt, self.loc(node))
        return ir.Compare(op, self.cast(a, t, node), self.cast(b, t, node), rt, self.loc(node))

    def logical(self, op, a, b, node):
        if isinstance(a, ir.Const):
            if op == "and":
                return b if a.value else a
            return a if a.value else b
        return ir.Logical(op, a, b, ir.ScalarType(ir.bool_), self.loc(node))

    def expr_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        vals = []
        for v in node.values:
            e = self.scalar(self.expr(v), v)
            if e.type.dtype != ir.bool_:
                raise self.error(f"operands of '{op}' must be booleans (comparisons), got {e.type!r}", v,
                                 KernelTypeError)
            vals.append(e)
        out = vals[0]
        for v in vals[1:]:
            out = self.logical(op, out, v, node)
        return out

    def expr_IfExp(self, node):
        cond = self.condition(node.test)
        a = self.scalar(self.expr(node.body), node.body)
        b = self.scalar(self.expr(node.orelse), node.orelse)
        if isinstance(cond, ir.Const):
            return a if cond.value else b
        if UNKNOWN in (a.type, b.type):
            t = b.type if a.type == UNKNOWN else a.type
        else:
            t = ir.promote(a.type, b.type)
        self.note_conversion(node, t, a, b)
        return ir.Select(cond, self.cast(a, t, node), self.cast(b, t, node), t, self.loc(node))

    def note_conversion(self, node, t, *operands):
        if any(o.type != t for o in operands) and t != UNKNOWN:
            self.conversions[(node.lineno, node.col_offset)] = t

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    # ------------------------------------------------------------------ calls

    def expr_Call(self, node):
        fn = self.compile_time(node.func)
        if fn is builtins.print:
            raise self.error("print() returns nothing; call it as a statement", node)
        if isinstance(fn, Builtin):
            return self.call_builtin(fn, node)
        if isinstance(fn, DTypeHandle):
            if len(node.args) != 1 or node.keywords:
                raise self.error(f"{fn!r}(x) takes one argument", node)
            x = self.expr(node.args[0])
            if self.is_tensor(x):
                t = ir.ScalarType(fn.ir)
                return self.tmap("cast", lambda fb, a: fb.cast(a[0], t, node, explicit=True), [x], node)
            return self.cast(self.scalar(self.expr(node.args[0]), node.args[0]), ir.ScalarType(fn.ir), node,
                             explicit=True)
        if fn in PYMATH:
            return self.call_builtin(BUILTINS[PYMATH[fn]], node)
        handler = _PY_BUILTINS.get(fn) if _hashable(fn) else None
        if handler is not None:
            return handler(self, node)
        if isinstance(fn, DeviceCallable):
            return self.call_device(fn.pyfunc, node)
        if isinstance(fn, DeviceFunc):
            return self.call_device(fn.pyfunc, node)
        if isinstance(fn, pytypes.FunctionType):
            raise self.error(f"{fn.__name__!r} is a plain Python function; decorate it with @lang.func to call it "
                             f"from a kernel", node.func)
        if isinstance(fn, type):
            raise self.error(f"creating a {fn.__name__} object is not supported in kernels", node, UnsupportedError)
        raise self.error(f"{getattr(fn, '__name__', fn)!r} cannot be called inside a kernel", node.func)

    def call_args(self, b: Builtin, node, names):
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error("unsupported Python feature: starred expression", node, UnsupportedError)
        vals = {}
        for name, a in zip(names, node.args):
            vals[name] = (self.expr(a), a)
        if len(node.args) > len(names):
            raise self.error(f"{b.name}() takes at most {len(names)} arguments", node)
        for k in node.keywords:
            if k.arg not in names:
                raise self.error(f"{b.name}() got an unexpected keyword argument {k.arg!r}", k.value)
            vals[k.arg] = (self.expr(k.value), k.value)
        return vals

    def call_builtin(self, b: Builtin, node):
        if b.kind == "math":
            names = ("x",) if b.arity == 1 else ("a", "b")
            vals = self.call_args(b, node, names)
            if len(vals) != b.arity:
                raise self.error(f"{b.name}() takes {b.arity} argument(s)", node)
            if any(self.is_tensor(vals[k][0]) for k in names):
                return self.tmap(b.name, lambda fb, a: fb.math_call(b, a, node), [vals[k][0] for k in names], node)
            args = [self.scalar(v, n) for v, n in (vals[k] for k in names)]
            return self.math_call(b, args, node)
        if b.kind in ("reduce", "matmul", "activation", "softmax", "transpose", "buffer", "tile"):
            return self.tensor_builtin(b, node)
        if b.kind == "alloc":
            return self.call_alloc(b, node)
        if b.kind == "cast":
            vals = self.call_args(b, node, ("x", "dtype"))
            if "dtype" not in vals or "x" not in vals:
                raise self.error("lang.cast(x, dtype) takes two arguments", node)
            h = as_dtype(vals["dtype"][0])
            if h is None:
                raise self.error(f"not a dtype: {self._describe(vals['dtype'][0])}", vals["dtype"][1])
            if self.is_tensor(vals["x"][0]):
                t = ir.ScalarType(h.ir)
                return self.tmap("cast", lambda fb, a: fb.cast(a[0], t, node, explicit=True), [vals["x"][0]], node)
            return self.cast(self.scalar(*vals["x"]), ir.ScalarType(h.ir), node, explicit=True)
        if b.kind == "range":
            raise self.error("lang.range() can only be used as the iterable of a for loop", node)
        raise self.error(f"lang.{b.name} is not supported in this kind of kernel", node, UnsupportedError)

    def math_call(self, b, args, node):
        if any(a.type == UNKNOWN for a in args):
            return ir.Call(b.name, tuple(args), UNKNOWN, self.loc(node))
        t = b.type_rule(*[a.type for a in args])
        if all(isinstance(a, ir.Const) for a in args) and t.weak:
            r = b.impl(*[a.value for a in args])
            return ir.Const(_convert(r, t.dtype), t, self.loc(node))
        args = [self.cast(a, t, node) for a in args]
        return ir.Call(b.name, tuple(args), t, self.loc(node))

    def shape_arg(self, v, node):
        vals = v if isinstance(v, tuple) else (v,)
        dims = []
        for x in vals:
            x = self.int_scalar(x, node)
            if isinstance(x, ir.Const):
                if x.value < 0:
                    raise self.error(f"negative size {x.value}", node)
                dims.append(int(x.value))
            elif isinstance(x, ir.Var) and x.name in self.ctx.symbols and isinstance(self.ctx.symbols[x.name],
                                                                                      ir.Sym):
                dims.append(self.ctx.symbols[x.name])
            else:
                raise self.error("an allocation's shape must be made of constants and argument sizes", node)
        return tuple(dims)

    def call_alloc(self, b, node):
        loc = self.loc(node)
        if b.name in ("empty_like", "zeros_like"):
            vals = self.call_args(b, node, ("x", "dtype"))
            x, xn = vals.get("x", (None, node))
            if not self.is_tensor(x):
                raise self.error(f"lang.{b.name} needs a tensor", xn)
            dt = x.type.dtype
            if "dtype" in vals and vals["dtype"][0] is not None:
                h = as_dtype(vals["dtype"][0])
                if h is None:
                    raise self.error("not a dtype", vals["dtype"][1])
                dt = h.ir
            for d in x.type.shape:
                if not isinstance(d, (int, ir.Sym)):
                    raise self.error(f"lang.{b.name}: the shape must be known at compile time", xn)
            return _Alloc(ir.TensorType(dt, x.type.shape), "zeros" if b.name == "zeros_like" else "empty", None, loc)
        names = ("shape", "fill_value", "dtype") if b.name == "full" else ("shape", "dtype")
        vals = self.call_args(b, node, names)
        if "shape" not in vals:
            raise self.error(f"lang.{b.name} needs a shape", node)
        shape = self.shape_arg(vals["shape"][0], vals["shape"][1])
        dt = ir.float32
        if "dtype" in vals:
            h = as_dtype(vals["dtype"][0])
            if h is None:
                raise self.error(f"not a dtype: {self._describe(vals['dtype'][0])}", vals["dtype"][1])
            dt = h.ir
        fill = None
        if b.name == "full":
            if "fill_value" not in vals:
                raise self.error("lang.full needs a fill_value", node)
            fill = self.cast(self.scalar(*vals["fill_value"]), ir.ScalarType(dt), node, explicit=True)
        return _Alloc(ir.TensorType(dt, shape), b.name, fill, loc)

    def call_device(self, pyfunc, node):
        if node.keywords:
            raise self.error("keyword arguments to device functions are not supported yet", node, UnsupportedError)
        args = []
        for a in node.args:
            v = self.expr(a)
            if isinstance(v, TView) and v.is_whole():
                v = v.base
            if isinstance(v, TValue):
                raise self.error("device functions take whole tensors (not views or tensor expressions)", a,
                                 UnsupportedError)
            if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
                args.append(v)
            else:
                args.append(self.scalar(v, a))
        from .device import specialize
        try:
            fname, ret = specialize(self.ctx, pyfunc, [a.type for a in args], self.loc(node))
        except CompileError as e:
            if e.loc is not None and e.loc.file == self.src.file and e.loc.line == self.loc(node).line:
                raise
            raise type(e)(e.msg, e.loc, e.notes + (f"called from {self.loc(node)!r}",)) from None
        return ir.FuncCall(fname, tuple(args), ret, self.loc(node))


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _fits(value: int, dt: ir.DType) -> bool:
    info = np.iinfo(dt.np_name)
    return info.min <= value <= info.max


def _convert_const(value, t: ir.ScalarType, explicit: bool):
    """A constant converted as NumPy converts it; a 16-bit float implicitly converted is carried in float32."""
    if t.weak:
        return _convert(value, t.dtype)
    name = t.dtype.np_name
    if t.dtype.is_16bit_float and not explicit:
        name = "float32"
    from ..dtypes import HANDLES
    npdt = HANDLES[t.dtype].np if name != "float32" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        r = np.array(value, dtype=np.float64 if isinstance(value, float) else None).astype(npdt)
    return r.item() if t.dtype.kind != "f" else float(r.astype(np.float64))


def _convert(value, dt: ir.DType):
    if dt.kind == "f":
        return float(value)
    if dt.kind == "b":
        return bool(value)
    v = int(value)
    if dt.bits < 64 or dt.kind == "u":
        m = 1 << dt.bits
        v %= m
        if dt.kind == "i" and v >= m // 2:
            v -= m
    return v


# ------------------------------------------------------------------ Python builtins in kernels

def _py_len(fb: FunctionBuilder, node):
    if len(node.args) != 1:
        raise fb.error("len() takes one argument", node)
    v = fb.expr(node.args[0])
    if isinstance(v, TValue):
        return v.extents[0]
    if isinstance(v, ir.Var) and isinstance(v.type, ir.TensorType):
        if v.type.ndim == 0:
            raise fb.error("len() of a 0-d tensor", node)
        return fb.dim_value(v, 0, node)
    if isinstance(v, tuple):
        return ir.Const(len(v), ir.INDEX, fb.loc(node))
    raise fb.error(f"len() of {fb._describe(v)}", node)


def _py_abs(fb, node):
    return fb.call_builtin(BUILTINS["abs"], node)


def _py_minmax(op):
    def lower(fb: FunctionBuilder, node):
        if node.keywords or len(node.args) < 2:
            raise fb.error(f"{op}() in kernels takes two or more numbers", node)
        vals = [fb.scalar(fb.expr(a), a) for a in node.args]
        if UNKNOWN not in [v.type for v in vals]:
            t_all = vals[0].type
            for v in vals[1:]:
                t_all = ir.promote(t_all, v.type)
            fb.note_conversion(node, t_all, *vals)
        out = vals[0]
        for v in vals[1:]:
            # Python semantics: max(a, b) is a unless b > a (nan stays where it is)
            t = ir.promote(out.type, v.type) if UNKNOWN not in (out.type, v.type) else UNKNOWN
            cond = fb.compare("gt" if op == "max" else "lt", v, out, node)
            if isinstance(cond, ir.Const):
                out = fb.cast(v if cond.value else out, t, node)
            else:
                out = ir.Select(cond, fb.cast(v, t, node), fb.cast(out, t, node), t, fb.loc(node))
        return out
    return lower


def _py_conv(dt):
    def lower(fb, node):
        if len(node.args) != 1:
            raise fb.error("conversion takes one argument", node)
        v = fb.scalar(fb.expr(node.args[0]), node.args[0])
        return fb.cast(v, ir.ScalarType(dt, weak=True), node, explicit=True)
    return lower


def _py_range(fb, node):
    raise fb.error("range() can only be used as the iterable of a for loop", node)


_PY_BUILTINS = {len: _py_len, abs: _py_abs, max: _py_minmax("max"), min: _py_minmax("min"),
                int: _py_conv(ir.int64), float: _py_conv(ir.float64), bool: _py_conv(ir.bool_),
                range: _py_range}
