"""The one convention both frontends walk Python's AST by (the seed language's FunctionBuilder and the pyasc
translator, asc/ascendc/translate.py): a statement node of class `X` goes to the method `stmt_X`, an expression
node to `expr_X`. `visit_method` finds it; a class without one is not in the language, and each frontend raises its
own error, at the node."""
from __future__ import annotations

import ast


def visit_method(visitor, node: ast.AST):
    """`visitor.stmt_X` for a statement node of class X, `visitor.expr_X` for an expression node; None when the
    visitor has no such method."""
    kind = "stmt" if isinstance(node, ast.stmt) else "expr"
    return getattr(visitor, f"{kind}_{type(node).__name__}", None)
