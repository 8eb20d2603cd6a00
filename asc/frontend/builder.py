"""Python AST -> typed IR: FunctionBuilder builds one function (the kernel, or a device function
specialization) in rounds until its variable types settle. It is made of one mixin per part of the language:
statements, assignments, expressions, calls, scalar typing, and the tensor level (expressions, views, builtins,
temporaries). The one place that knows Python syntax; every error points at the user's line."""
from __future__ import annotations

import ast
from collections import Counter

from .. import ir
from ..errors import CompileError
from .assignment import AssignMixin
from .calls import CallsMixin
from .context import BuildContext, size_param_symbol
from .expressions import ExpressionsMixin
from .scalars import ScalarMixin
from .source import closure_values, get_source
from .statements import StatementsMixin
from .tensor_builtins import TensorBuiltinsMixin
from .temporaries import TemporariesMixin
from .tensor_exprs import TensorExprMixin
from .views import ViewsMixin


def _assigned_names(fdef, augmented: bool = True) -> Counter:
    """How many assignment statements target each name (for folding names assigned once to constants); without
    `augmented`, the bindings only (`acc += x` updates a tensor in place: it does not bind `acc` again)."""
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
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) and (augmented or
                                                                            not isinstance(node, ast.AugAssign)):
            count(node.target)
    return c


class FunctionBuilder(StatementsMixin, AssignMixin, ExpressionsMixin, CallsMixin, ScalarMixin, TensorExprMixin,
                      ViewsMixin, TensorBuiltinsMixin, TemporariesMixin):
    def __init__(self, ctx: BuildContext, pyfunc, params: list, is_kernel: bool, name: str, var_types: dict,
                 ret_guess=None, consts: dict | None = None):
        self.ctx, self.pyfunc, self.is_kernel, self.name = ctx, pyfunc, is_kernel, name
        # names assigned more than once, but only ever the same constant (as in `M, K = A.shape; K, N = B.shape`):
        # consts[name] is that Const, or None once any other value is seen. Shared across rounds.
        self.consts = consts if consts is not None else {}
        self.assigned_vars: set = set()
        self.conversions: dict = {}            # node span -> result type, for the interpreter (see ir.Kernel)
        self.src = get_source(pyfunc)
        self.var_types = var_types            # scalar variable -> type (grows until the fixpoint)
        self.changed = False
        self.assign_count = _assigned_names(self.src.tree)
        self.bind_count = _assigned_names(self.src.tree, augmented=False)
        self.env: dict = {}
        self.tensor_names: set = set()
        self.loop_vars: list = []              # names of the enclosing loops' variables
        self.loop_var_names: set = set()
        self.returns: list = []                # (value, loc)
        self.ret_guess = ret_guess
        self.ret_type = None
        self.closure = closure_values(pyfunc)
        self.params = params                   # list of ir.Var, bound in env
        self.params_by_name = {v.name for v in params}
        for v in params:
            self.env[v.name] = v
            if isinstance(v.type, ir.TensorType):
                self.tensor_names.add(v.name)
            else:  # a scalar parameter is a variable that may be reassigned
                var_types.setdefault(v.name, v.type)
                self.env[v.name] = ir.Var(v.name, var_types[v.name])
                size = ctx.symbols.get(size_param_symbol(v.name)) if is_kernel else None
                if isinstance(size, int) and self.assign_count[v.name] == 0:
                    # an int argument bound as a size, shapes specialized: its value, as a lang.dim's (the
                    # specialization is made for it), so loops over it and shapes made from it agree
                    self.env[v.name] = ir.Const(size, var_types[v.name])
        self._tmp = 0
        self.pre: list = []                    # statements an expression needs before its statement (tensors)
        self.loop_ranges: dict = {}            # enclosing loop variable -> (start, stop, step)
        self.local_bytes = 0                   # lang.local_buffer bytes so far
        self.alloc_names: set = set()
        self.size_defs: dict = {}              # names assigned once from an expression of sizes -> it (alloc_sizes.py)
        self.size_src: dict = {}               # names assigned once -> the source of the value (for messages)
        self.alloc_block: dict = {}            # tensor name -> the block its allocation is in
        self.out_of_block: dict = {}           # tensors allocated in a block that ended -> the allocation's loc
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
        """A generated name (numbered for good by the lowering: see asc/ir/tensor.py)."""
        self._tmp += 1
        return ir.generated_name(base, self._tmp)
