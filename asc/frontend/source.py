"""The source and AST of a Python function, with positions in its file."""
from __future__ import annotations

import ast
import linecache
import os
import threading
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
_files: dict = {}
# CPython 3.11 before 3.11.8 counts the depth of AST conversions in one global (gh-106905): two threads parsing or
# compiling an AST at once can fail with "SystemError: AST constructor recursion depth mismatch". asc's own AST
# parses and compiles hold this lock.
AST_LOCK = threading.Lock()


def _file_tree(filename: str):
    """The parsed module of a file, cached while the file is unchanged (one parse serves all its kernels)."""
    try:
        stamp = os.stat(filename).st_mtime_ns
    except OSError:
        stamp = None
    hit = _files.get(filename)
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    if not lines:
        return None, ()
    with AST_LOCK:
        tree = ast.parse("".join(lines), filename)
    _files[filename] = (stamp, tree, tuple(lines))
    return tree, tuple(lines)


def remember_source(code, src: Source) -> None:
    """Makes `src` the source of the function with code object `code` (a function asc compiled from a rewritten
    AST, such as an SPMD kernel's, whose lines are those of the user's function)."""
    _cache[code] = src


def closure_values(fn) -> dict:
    """The values of a function's free variables (cells not yet filled are left out)."""
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    return out


def get_source(fn) -> Source:
    code = fn.__code__
    hit = _cache.get(code)
    if hit is not None:
        return hit
    tree, lines = _file_tree(code.co_filename)
    fdef = None
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                if code.co_firstlineno in (first, node.lineno):
                    fdef = node
                    break
    if fdef is None:
        raise CompileError(f"cannot read the source of {fn.__qualname__!r}; kernels must be defined in a file")
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise CompileError("unsupported Python feature: async def", Loc(code.co_filename, fdef.lineno, 0))
    src = Source(fdef, code.co_filename, lines, 1)
    _cache[code] = src
    return src
