"""The source and AST of a Python function, with positions in its file."""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from ..errors import CompileError
from ..ir import Loc


@dataclass(frozen=True)
class Source:
    tree: ast.FunctionDef
    file: str
    indent: int          # columns removed by dedent

    def loc(self, node) -> Loc | None:
        if not hasattr(node, "lineno"):
            return None
        end = getattr(node, "end_col_offset", None)
        same_line = getattr(node, "end_lineno", node.lineno) == node.lineno
        return Loc(self.file, node.lineno, node.col_offset + self.indent,
                   end + self.indent if (end is not None and same_line) else None)


_cache: dict = {}


def get_source(fn) -> Source:
    code = fn.__code__
    hit = _cache.get(code)
    if hit is not None:
        return hit
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise CompileError(f"cannot read the source of {fn.__qualname__!r} ({e}); kernels must be defined in a "
                           f"file") from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != text else 0
    tree = ast.parse(dedented)
    ast.increment_lineno(tree, first - 1)
    fdef = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise CompileError("unsupported Python feature: async def", Loc(code.co_filename, fdef.lineno, indent))
    src = Source(fdef, code.co_filename, indent)
    _cache[code] = src
    return src
