"""asc's layers import only downward, no module imports another's private names, and there is no import cycle,
counting imports inside functions too (docs/architecture.md draws the layers). Also: every module imports first,
in a fresh interpreter."""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "asc"

# bottom to top; a module may import its own layer or a lower one. A prefix names a package and its modules.
LAYERS = [
    ("bottom", ["asc.errors", "asc.environment", "asc.version", "asc.ir", "asc.dtypes", "asc.marks", "asc.chip"]),
    ("builtins", ["asc.builtins"]),
    ("frontend", ["asc.frontend"]),
    ("passes", ["asc.passes"]),
    ("backends", ["asc.backends"]),
    ("runtime", ["asc.runtime"]),
    ("compiler", ["asc.compiler"]),
    ("dispatch", ["asc.dispatch"]),
    ("pyasc", ["asc.ascendc", "asc.lib"]),    # pyasc's Ascend C API in Python, and its host runtime
    ("tools", ["asc.tools", "asc.autodiff", "asc.torch", "asc.math", "asc.debugger"]),
    ("language", ["asc.language"]),
    ("apps", ["asc", "asc.examples", "asc.demo", "asc.cli", "asc.__main__"]),   # programs written in the language
]


def layer_of(module: str) -> int:
    best, rank = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:        # "asc" names the package's __init__ only; other names cover their submodules
            if (module == p or (p != "asc" and module.startswith(p + "."))) and len(p) > best:
                best, rank = len(p), k
    assert rank is not None, f"module {module} is in no layer of tests/test_layers.py"
    return rank


def modules() -> dict:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODS = modules()


def imports(name: str, path: pathlib.Path):
    """(imported module, imported name or None, line) for every import of an asc module, at any depth."""
    tree = ast.parse(path.read_text())
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "asc" or a.name.startswith("asc."):
                    yield a.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not (mod == "asc" or mod.startswith("asc.")):
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                yield (sub, None, node.lineno) if sub in MODS else (mod, a.name, node.lineno)


EDGES = [(m, tgt, what, line) for m, p in sorted(MODS.items()) for tgt, what, line in imports(m, p)]


def test_every_module_has_a_layer():
    for m in MODS:
        layer_of(m)


def test_imports_go_down():
    bad = [f"{m}:{line} imports {t} ({LAYERS[layer_of(t)][0]} is above {LAYERS[layer_of(m)][0]})"
           for m, t, _, line in EDGES if layer_of(t) > layer_of(m)]
    assert not bad, "\n".join(bad)


def test_no_private_names_across_modules():
    bad = [f"{m}:{line} imports {t}.{w}" for m, t, w, line in EDGES
           if w and w.startswith("_") and not w.startswith("__") and t != m]
    assert not bad, "\n".join(bad)


def _reaches(graph, a, b) -> bool:
    seen, todo = set(), [a]
    while todo:
        x = todo.pop()
        if x == b:
            return True
        if x not in seen:
            seen.add(x)
            todo.extend(graph.get(x, ()))
    return False


def test_no_cycles():
    graph: dict = {m: set() for m in MODS}
    for m, t, _, _ in EDGES:
        if t in MODS and t != m:
            graph[m].add(t)
    for m in MODS:              # a package's modules may import its __init__, unless that __init__ imports them back
        for t in [t for t in graph[m] if m.startswith(t + ".")]:
            if not _reaches(graph, t, m):
                graph[m].discard(t)
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                cycles.append(sorted(scc))
    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


PUBLIC = ["asc", "asc.language", "asc.torch", "asc.autodiff", "asc.math", "asc.debugger", "asc.cli", "asc.compiler",
          "asc.dispatch", "asc.frontend", "asc.passes", "asc.backends.cpu", "asc.backends.ascend", "asc.ir", "asc.builtins"]


@pytest.mark.parametrize("module", PUBLIC)
def test_imports_first(module):
    if module == "asc.torch":
        pytest.importorskip("torch")
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


def test_no_two_modules_share_a_name():
    """A module's file name says what it holds, once: `config` or `cost` alone does not say which."""
    seen: dict = {}
    for name in MODS:
        path = MODS[name]
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(name)
    assert {n: m for n, m in seen.items() if len(m) > 1} == {}


def test_no_source_file_over_600_lines_without_saying_why():
    """A long file is one job that reads better whole: its opening comment says so ("Over 600 lines ...")."""
    long = []
    for path in sorted(ROOT.rglob("*")):
        if path.suffix in (".py", ".h", ".c", ".cpp") and path.is_file():
            text = path.read_text(errors="replace")
            if text.count("\n") > 600 and "Over 600 lines" not in "\n".join(text.split("\n")[:40]):
                long.append(f"{path.relative_to(ROOT.parent)} ({text.count(chr(10))} lines)")
    assert long == []
