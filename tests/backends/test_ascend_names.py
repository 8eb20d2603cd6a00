"""Names in the emitted Ascend C: a user's name never collides with one the renderers write of their own.

1. Every kernel of the Ascend source corpus is rendered with each of its names (parameters, locals, the kernel's
   own) replaced by a placeholder; every identifier left in the .cpp and the host main.cpp without a placeholder is
   the renderers' own and must be in ctext.GENERATED (or the API's names or C++'s words), and every identifier with
   one must be the placeholder with a suffix from ctext.DERIVED (or a kernel-name form).
2. Kernels whose parameters and locals are named like those generated names compile and equal the interpreter on
   ascend-sim, for the map, row and scalar plans."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import textwrap
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend import ctext
from asc.backends.cstyle import C_RESERVED

PLACEHOLDER = re.compile(r"[uU]Q\d+Z")


class _Renamer(ast.NodeTransformer):
    """Every name the function binds (parameters, assignments, loops), and the function's own, -> uQ<k>Z."""

    def __init__(self):
        self.names = {}

    def new(self, n):
        return self.names.setdefault(n, f"uQ{len(self.names)}Z")

    def visit_FunctionDef(self, node):
        node.name = self.new(node.name)
        for a in node.args.args:
            a.arg = self.new(a.arg)
        node.body = [self.visit(s) for s in node.body]
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store) or node.id in self.names:
            node.id = self.new(node.id)
        return node


def _placeholder_kernel(kernel, tmp_path):
    fn = kernel.pyfunc
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    _Renamer().visit(tree.body[0])
    path = tmp_path / f"renamed_{fn.__name__}.py"
    path.write_text("from __future__ import annotations\n" + ast.unparse(tree) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update({k: v for k, v in fn.__globals__.items() if not k.startswith("__")})   # its module's names
    spec.loader.exec_module(mod)
    return getattr(mod, tree.body[0].name)


def _corpus():
    import test_ascend_source as T
    got = []
    real = T._render
    try:
        T._render = lambda k, *a: got.append((k, a))
        T._sources()
    finally:
        T._render = real
    x = np.linspace(-3, 3, 300).astype(np.float32)
    got.append((scalar_names, (x, 3)))
    got.append((row_names, (x.reshape(20, 15), np.float32(0.5))))
    return got


def _identifiers(text: str) -> set:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"#include[^\n]*", "", text)
    text = re.sub(r"struct \w+ \{[^}]*\};", "", text)     # the tiling struct's fields are not in a kernel's scope
    # nor is a member after . or ->, or a name qualified by ::
    return set(re.findall(r"(?<![.>:\w])[A-Za-z_]\w*", text))


def test_every_generated_name_is_reserved(tmp_path):
    allowed = ctext.GENERATED | ctext.API_NAMES | C_RESERVED | {"include", "define", "ifndef", "endif", "typedef"}
    derived_ok = re.compile(r"@(" + "|".join(re.escape(s) for s in ctext.DERIVED) + r")?|Kernel@|@Tiling|Load@Tiling"
                            r"|@_do")
    stray, bad_forms = set(), set()
    for kernel, args in _corpus():
        k2 = _placeholder_kernel(kernel, tmp_path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            files = k2.write_project(args, str(tmp_path / kernel.__name__))
        texts = [open(f).read() for f in files if f.endswith(".cpp")]
        assert len(texts) == 2                          # the kernel and the host's main.cpp
        for ident in set().union(*map(_identifiers, texts)):
            if PLACEHOLDER.search(ident):
                if not derived_ok.fullmatch(PLACEHOLDER.sub("@", ident)):
                    bad_forms.add((kernel.__name__, ident))
            elif ident not in allowed and not ctext.GENERATED_FORMS.fullmatch(ident) and \
                    not re.fullmatch(r"ret\d+_v\w*", ident):       # an unnamed returned value's tensor
                stray.add((kernel.__name__, ident))
    assert not stray, f"names the renderers write that ctext.GENERATED lacks: {sorted(stray)}"
    assert not bad_forms, f"names derived from a user's name in a form ctext.DERIVED lacks: {sorted(bad_forms)}"


def test_cname_is_one_to_one_and_never_a_generated_name():
    names = sorted(ctext.GENERATED | ctext.API_NAMES | C_RESERVED) + ["x", "x_v", "x_v_v", "xIn", "xIn_v", "N", "Q",
                                                                       "K", "V", "out", "mean", "tile_", "i"]
    mapped = [ctext.cname(n) for n in names]
    assert len(set(mapped)) == len(set(names))
    assert not (set(mapped) & (ctext.GENERATED | ctext.API_NAMES | C_RESERVED))
    assert [ctext.cname(n) for n in ("x", "out", "N", "Q", "K", "V", "mean", "i", "s")] == \
        ["x", "out", "N", "Q", "K", "V", "mean", "i", "s"]                    # ordinary names stay readable


# ---- kernels named like the renderers' own names


@lang.kernel
def map_names(x: lang.float32[N], t: float, pipe: float, tiling: float, tile: float, base: float):
    xIn = lang.empty_like(x)
    for k in range(N):
        xIn[k] = x[k] * t + pipe - tiling * tile + base
    return xIn


@lang.kernel
def row_names(x: lang.float32[R, C], Add: lang.float32):
    out = lang.empty_like(x)
    for r in range(R):
        n = 0.0
        for k in range(C):
            n += x[r, k]
        red = n / C
        for k in range(C):
            out[r, k] = (x[r, k] - red) * Add
    return out


@lang.kernel
def scalar_names(x: lang.float32[N], k: int):
    loops = lang.empty_like(x)
    for tail in range(N):
        offset = N - 1 - tail              # not the loop's own index: the scalar plan
        loops[offset] = x[tail] + k
    return loops


@pytest.mark.parametrize("case", ["map", "row", "scalar"])
def test_kernels_named_like_generated_names_run_on_ascend_sim(case):
    x = np.linspace(-3, 3, 301).astype(np.float32)
    kern, args = {"map": (map_names, (x, 2.0, 1.0, 0.5, 3.0, 0.25)),
                  "row": (row_names, (x[:300].reshape(20, 15).copy(), np.float32(0.5))),
                  "scalar": (scalar_names, (x, 1))}[case]
    sim = lang.kernel(target="ascend-sim")(kern.pyfunc)
    ref = lang.kernel(target="interpret")(kern.pyfunc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sim(*args)
    np.testing.assert_allclose(got, ref(*args), rtol=2e-6, atol=1e-6)
