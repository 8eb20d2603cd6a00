"""The source and AST of a Python function, with positions in its file."""
from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass

from ..errors import CompileError
from ..ir import Loc


@dataclass(frozen=True)
class Source:
    tree: ast.FunctionDef
    file: str
    lines: tuple         # the function's source lines, by line number - first

    first: int = 1

    def _col(self, line: int, byte_col: int) -> int:
        """ast columns count UTF-8 bytes; carets count characters."""
        k = line - self.first
        if 0 <= k < len(self.lines):
            return len(self.lines[k].encode()[:byte_col].decode(errors="replace"))
        return byte_col

    def loc(self, node) -> Loc | None:
        if not hasattr(node, "lineno"):
            return None
        end = getattr(node, "end_col_offset", None)
        same_line = getattr(node, "end_lineno", node.lineno) == node.lineno
        return Loc(self.file, node.lineno, self._col(node.lineno, node.col_offset),
                   self._col(node.lineno, end) if (end is not None and same_line) else None)


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
    # parsed inside an `if` block, so that an indented (nested) definition keeps the file's own columns
    nested = lines[0][:1].isspace()
    tree = ast.parse(("if 1:\n" if nested else "") + "".join(lines))
    ast.increment_lineno(tree, first - 1 - nested)
    body = tree.body[0].body if nested else tree.body
    fdef = next(n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise CompileError("unsupported Python feature: async def", Loc(code.co_filename, fdef.lineno, 0))
    src = Source(fdef, code.co_filename, tuple(lines), first)
    _cache[code] = src
    return src
