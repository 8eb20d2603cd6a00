"""Assignment targets and the binding of names: scalar variables (typed to a fixpoint over the builder's
rounds; names assigned one constant fold to it), tensor variables (aliases, allocations, tensor expressions stored
into a new tensor), compile-time objects, element stores and tensor-level stores into views."""
from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelTypeError, UnsupportedError
from .context import UNKNOWN, PendingAlloc
from .scalars import node_span
from .shapes import fmt_shape
from .alloc_sizes import note_assignment


class AssignMixin:
    """The assignment part of FunctionBuilder."""

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
            return cur if isinstance(cur, ir.TensorView) else None
        if not isinstance(target, ast.Subscript):
            return None
        base = self.expr(target.value)
        if not (isinstance(base, ir.TensorView) or (isinstance(base, ir.Var) and isinstance(base.type, ir.TensorType))):
            return None
        if isinstance(base, ir.Var) and not self.has_slices(target) and not self.is_tensor(value):
            sl = target.slice
            if len(sl.elts if isinstance(sl, ast.Tuple) else [sl]) >= base.type.ndim:
                return None
        v = self.subscript_view(base, target)
        if isinstance(v, ir.TensorView):
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
        note_assignment(self, name, value, node)      # `cg = C // G` may be a size of an allocation (alloc_sizes.py)
        if isinstance(value, PendingAlloc):
            if name in self.env or self.bind_count[name] > 1:
                raise self.error(f"tensor variable {name!r} is assigned more than once; use a new name", target,
                                 KernelTypeError)
            var = ir.Var(name, value.type, loc)
            self.env[name] = var
            self.tensor_names.add(name)
            self.alloc_names.add(name)
            self.alloc_block[name] = self.blocks[-1]
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
        if isinstance(value, ir.TensorValue):
            if name in self.env and not self.is_tensor(self.env[name]):
                raise self.error(f"variable {name!r} changes type from {self.describe(self.env[name])} to a "
                                 f"tensor", target, KernelTypeError)
            self.tensor_names.add(name)
            self.rebind_tensor(name, target)
            if isinstance(value, ir.TensorView) and value.is_whole():
                self.env[name] = value.base
            elif isinstance(value, ir.TensorView) or self.ctx.fused:
                if isinstance(value, ir.TensorView):
                    value = self.snapshot_view(value, node)    # NumPy takes a view's bounds when it is bound
                if not isinstance(value, ir.TensorView) and value.dtype.is_16bit_float:
                    # a fused kernel inlines the expression, rounded to its dtype: a named 16-bit value is a tensor
                    # of that dtype under every decorator (docs/tensors.md, "Precision")
                    t = ir.ScalarType(value.dtype)
                    value = self.tmap("round", lambda fb, a: fb.cast(a[0], t, node, explicit=True), [value], node)
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
                self.keep_extents(var, value, node)        # an edge tile's value keeps its clipped shape
                self.env[name] = var
            return []
        if name in self.tensor_names and self.is_tensor(self.env.get(name)):
            raise self.error(f"variable {name!r} changes type from a tensor to {self.describe(value)}", target,
                             KernelTypeError)
        if not isinstance(value, ir.Expr):
            if self.assign_count[name] <= 1:
                self.env[name] = value   # a compile-time object (a dtype, a tuple of sizes, a function)
                return []
            raise self.error(f"variable {name!r} is assigned a compile-time value ({self.describe(value)}) and "
                             f"reassigned", target)
        if self.is_size(value) and name not in self.params_by_name and (
                name == value.name or (self.assign_count[name] <= 1 and name not in self.var_types)):
            # `B, H, N, D = Q.shape` under dynamic_shape: the name is the run-time size itself (as a constant size
            # folds when the shape is specialized), so it works wherever a size does (allocation shapes, ranges)
            self.env[name] = value
            return []
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
        first = name not in self.assigned_vars and name not in self.params_by_name     # in source order, this round
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
            if u is None and first:
                # `old` came from a later assignment (a previous round saw it): this type comes first, and the
                # later assignment is the one refused, naming the types in the order they are assigned
                u = t
            if u is None:
                raise self.error(f"variable {name!r} changes type from {old!r} to {t!r}", target, KernelTypeError)
            if u != old:
                self.var_types[name] = u
                self.changed = True
        var = ir.Var(name, self.var_types[name], loc)
        self.env[name] = var
        if t != var.type and t != UNKNOWN:
            # Python keeps the assigned value's own type (`m = -1e30` stays a Python float until `max` replaces it,
            # which it may never do): the interpreter converts it to the variable's type, as compiled code does
            self.conversions[node_span(target)] = var.type
        return [ir.Assign(var, self.cast(value, var.type, node), loc)]

    def is_size(self, value) -> bool:
        """Is `value` a run-time size symbol (a dynamic shape's size, as `x.shape[k]` gives it)?"""
        return isinstance(value, ir.Var) and value.type == ir.INDEX and isinstance(
            self.ctx.symbols.get(value.name), ir.Sym) and value.name not in self.var_types

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

    def rebind_tensor(self, name, target):
        """Records that `name` is bound to a tensor here; refuses a rebinding in another block."""
        where = self.tensor_block.setdefault(name, self.blocks[-1])
        if where != self.blocks[-1]:
            raise self.error(f"tensor variable {name!r} is bound again inside a branch or loop (its first binding "
                             f"is outside); use a new name", target, KernelTypeError)
