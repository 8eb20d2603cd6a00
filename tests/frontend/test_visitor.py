"""Both frontends walk the AST by one convention (asc/frontend/visitor.py): a statement of class X goes to
`stmt_X`, an expression to `expr_X`. Every such method names a real AST class of its category, and a construct
neither language has is refused at its line by each frontend."""
from __future__ import annotations

import ast

import pytest

from asc.ascendc.translate import FuncTranslator
from asc.frontend.builder import FunctionBuilder
from asc.frontend.visitor import visit_method


@pytest.mark.parametrize("cls", [FunctionBuilder, FuncTranslator], ids=["seed", "pyasc"])
def test_every_visit_method_names_an_ast_class_of_its_category(cls):
    methods = [m for m in dir(cls) if m.startswith(("stmt_", "expr_"))]
    assert any(m.startswith("stmt_") for m in methods) and any(m.startswith("expr_") for m in methods)
    for m in methods:
        kind, _, node = m.partition("_")
        node_cls = getattr(ast, node, None)
        assert isinstance(node_cls, type), f"{cls.__name__}.{m}: ast has no class {node}"
        assert issubclass(node_cls, ast.stmt if kind == "stmt" else ast.expr), f"{cls.__name__}.{m}"


def test_visit_method_finds_by_category():
    class V:
        def stmt_Pass(self, node):
            return "pass"

        def expr_Name(self, node):
            return "name"

    v = V()
    assert visit_method(v, ast.parse("pass").body[0])(None) == "pass"
    assert visit_method(v, ast.parse("x", mode="eval").body)(None) == "name"
    assert visit_method(v, ast.parse("x = 1").body[0]) is None


def test_each_frontend_refuses_what_it_lacks_at_its_line():
    import numpy as np
    import asc
    import asc.language as lang
    from asc.errors import AscError

    def seed(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            with open("f"):
                out[i] = x[i]
        return out

    with pytest.raises(AscError) as e:
        lang.kernel(target="interpret")(seed)(np.ones(4, np.float32))
    line = seed.__code__.co_firstlineno + 3
    assert f":{line}:" in str(e.value) and "with statement" in str(e.value) and "^" in str(e.value)

    @asc.jit
    def pyasc_kernel(x: asc.GlobalAddress):
        async def f():
            pass

    with pytest.raises(AscError) as e:
        pyasc_kernel[1](np.ones(4, np.float32))
    line = pyasc_kernel.fn.__code__.co_firstlineno + 2 if hasattr(pyasc_kernel, "fn") else None
    assert "unsupported Python feature in a kernel: AsyncFunctionDef" in str(e.value) and "^" in str(e.value)
    if line is not None:
        assert f":{line}:" in str(e.value)
