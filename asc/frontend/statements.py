"""Python statements -> typed IR: blocks, expression statements and print, assignments (annotated and augmented
ones included; the binding of names is in assignment.py), if, while, for over range, break, continue, return."""
from __future__ import annotations

import ast
import builtins

from .. import ir
from ..builtins import Builtin
from ..dtypes import as_dtype
from ..errors import KernelTypeError, UnsupportedError
from .context import PendingAlloc
from .expressions import BINOPS, UNSUPPORTED
from .scalars import py_const
from .visitor import visit_method


class StatementsMixin:
    """The statement part of FunctionBuilder."""

    def build(self) -> tuple:
        body = self.block(self.src.tree.body)
        return body

    def block(self, stmts, scoped: bool = True) -> tuple:
        out = []
        self.blocks.append(id(stmts))
        try:
            for s in stmts:
                out += self.stmt(s)
        finally:
            self.blocks.pop()
        if stmts is not self.src.tree.body:
            # a tensor allocated in a loop body or a branch is allocated there (each iteration gets its own): it is
            # not visible after the block, where Python would read the last one. The taken branch of a folded `if`
            # is not a block of its own: its allocations belong to the enclosing block.
            for name, where in list(self.alloc_block.items()):
                if where == id(stmts):
                    if not scoped:
                        self.alloc_block[name] = self.blocks[-1]
                        continue
                    del self.alloc_block[name]
                    if name in self.env:
                        self.out_of_block[name] = self.env.pop(name).loc
        return tuple(out)

    def stmt(self, node) -> list:
        if type(node) in UNSUPPORTED:
            raise self.error(f"unsupported Python feature: {UNSUPPORTED[type(node)]}", node, UnsupportedError)
        visit = visit_method(self, node)
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

    def stmt_If(self, node):
        cond = self.condition(node.test)
        if isinstance(cond, ir.Const):        # folded: only the taken branch is compiled
            return list(self.block(node.body if cond.value else node.orelse, scoped=False))
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
            for n in (node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]):
                if isinstance(n, ast.Name) and n.id in self.out_of_block:
                    raise self.error(f"the returned tensor {n.id!r} must be an argument or allocated at the top level "
                                     f"of the kernel (not inside a loop or branch: line "
                                     f"{self.out_of_block[n.id].line})", node)
            value = self.expr(node.value)
            if isinstance(value, PendingAlloc):
                tmp = self.fresh("ret")
                stmts = self.bind(tmp, value, node, node)
                value = self.env[tmp]
                self.returns.append((value, node))
                return stmts + [ir.Return(value, self.loc(node))]
            if isinstance(value, tuple):
                elems = []
                pre = []
                for e, enode in zip(value, node.value.elts):
                    if isinstance(e, PendingAlloc):
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
        if isinstance(e, ir.TensorValue) or (isinstance(e, ir.Var) and isinstance(e.type, ir.TensorType) and (
                e.type.dtype != self._ret_dtype(k, e.type.dtype) or e.name in self.clipped_temps)):
            e = self.as_tvalue(e)
            if isinstance(e, ir.TensorView) and e.is_whole() and e.dtype == self._ret_dtype(k, e.dtype):
                return e.base
            if isinstance(e, ir.TensorReduce) and not e.shape:
                return self.reduce_scalar(e, node)
            dt = self._ret_dtype(k, e.dtype)
            tmp = self.fresh("ret")
            # an edge tile (clipped at run time) comes back with its compile-time shape, zeros past its extents
            init = "empty" if all(ir.is_dim(x, d) for x, d in zip(e.extents, e.shape)) else "zeros"
            self.pre += self.bind(tmp, PendingAlloc(ir.TensorType(dt, e.shape), init, None, self.loc(node)), node,
                                  node)
            self.store_into(self.whole(self.env[tmp]), e, node)
            return self.env[tmp]
        if isinstance(e, ir.Expr):
            return e
        c = py_const(e, self.loc(node))
        if c is None:
            raise self.error(f"cannot return {self.describe(e)} from a kernel", node)
        return c

    def _ret_dtype(self, k, default):
        """The dtype a returned tensor expression is stored in: the kernel's annotation, else its own."""
        spec = self.ctx.ret_spec if self.is_kernel else None
        if spec is not None and spec.kind == "tuple":
            spec = spec.elems[k] if k is not None and k < len(spec.elems) else None
        if spec is not None and spec.kind == "tensor" and spec.dtype is not None:
            return spec.dtype
        return default
