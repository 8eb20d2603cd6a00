"""The emitted Ascend C: golden files, Python line comments, API conformance, compile-time UB budget, the project
directory of `asc compile --target ascend`, and kernel.estimate()."""
import importlib.util
import os
import re
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import CompileError, compiler
from asc.backends import ascend
from asc.backends.ascend import emitted_api as ascend_api
from asc.examples import seed as sk
from asc.runtime import ascend_sim
from helpers import BF16, close, interpreted, rand

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")


def _golden_kernels():
    spec = importlib.util.spec_from_file_location("ascend_golden_kernels", os.path.join(GOLDEN, "kernels.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _golden_kernels()
GOLDEN_CASES = {
    "scaled_silu_float16.cpp": (G.scaled_silu, lambda: (np.zeros(1000, np.float16), np.float32(0.5))),
    "rmsnorm_float32.cpp": (G.rmsnorm, lambda: (np.zeros((8, 100), np.float32), np.zeros(100, np.float32))),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_source(name):
    """The emitted source of two small kernels, pinned: a change to it shows in review (regenerate with
    ASC_UPDATE_GOLDEN=1 after checking the difference)."""
    kernel, args = GOLDEN_CASES[name]
    text = kernel.source("ascend", *args())
    path = os.path.join(GOLDEN, name)
    if os.environ.get("ASC_UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"the emitted Ascend C of {name} changed; see {path}"


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_golden_kernels_run_on_the_sim(dtype):
    x = rand(1000, dtype, 1)
    k = lang.kernel(target="ascend-sim")(G.scaled_silu.pyfunc)
    close(k(x, np.float32(0.5)), interpreted(G.scaled_silu)(x, np.float32(0.5)), dtype, ulps=2)
    xr, w = rand((8, 100), dtype, 2), rand(100, dtype, 3)
    r = lang.kernel(target="ascend-sim")(G.rmsnorm.pyfunc)
    with ascend_sim.configured(cores=3):
        close(r(xr, w), interpreted(G.rmsnorm)(xr, w), dtype, ulps=4)


# ---- Python lines as comments

def _render(kernel, *args):
    """(kernel, its IR for these arguments, the emitted Ascend C)."""
    from asc.runtime import binding
    bound, _ = binding.bind(kernel.__name__, kernel.specs, args, {})
    text = kernel.source("ascend", *args)
    key = binding.spec_key(bound, kernel.options.dynamic_shape) + (kernel.options.checked(),)
    return kernel, kernel._cache[key].ir, text


def _sources():
    x1, x2 = rand(1000, np.float32, 1), rand((16, 40), np.float16, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "saxpy": _render(sk.saxpy, np.float32(2), x1, x1),
            "gelu_approx": _render(sk.gelu_approx, x1),
            "gelu_any": _render(sk.gelu_any, x1.astype(np.float16)),
            "gelu_naive": _render(sk.gelu_naive, x1),
            "swish_glu": _render(sk.swish_glu, x2, x2),
            "swiglu_any": _render(sk.swiglu_any, x2.astype(BF16), x2.astype(BF16)),
            "vector_add": _render(sk.vector_add, np.zeros(1024, np.float32), np.zeros(1024, np.float32)),
            "softmax": _render(sk.softmax, x2.astype(np.float32)),
            "layernorm": _render(sk.layernorm, x2.astype(np.float32), x1[:40], x1[:40]),
            "matmul": _render(sk.matmul, x2, x2.T.copy()),
            "rmsnorm": _render(G.rmsnorm, x2, x2[0]),
            "scaled_silu": _render(G.scaled_silu, x1, np.float32(1)),
            "leaky_pick": _render(G.leaky_pick, x1.astype(np.float16), x1.astype(np.float16)),
            "matmul_cube": _render(__import__("asc.examples.seed_tensor", fromlist=["x"]).matmul_cube,
                                   np.zeros((256, 256), np.float16), np.zeros((256, 256), np.float16)),
            "dequant_q8_0": _render(__import__("ascend_corpus").dequant_q8_0, np.zeros((61, 32), np.int8),
                                    np.ones(61, np.float16)),
        }


SOURCES = _sources()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_statement_has_its_python_line(name):
    kernel, k, text = SOURCES[name]
    import inspect
    from asc import ir
    lines, first = inspect.getsourcelines(kernel.pyfunc)
    body = {s.loc.line for s in ir.walk_stmts(k.entry.body) if s.loc is not None}
    fname = os.path.basename(kernel.pyfunc.__code__.co_filename)
    commented = {int(m) for m in re.findall(rf"// {re.escape(fname)}:(\d+)  ", text)}
    assert body <= commented, f"statements without a // {fname}:line comment: {sorted(body - commented)}"
    # every vector instruction or copy sits under a comment naming a line of the kernel
    last = None
    for ln in text.splitlines():
        m = re.match(rf"\s*// {re.escape(fname)}:(\d+)  ", ln)
        if m:
            last = int(m.group(1))
        elif re.match(r"\s*(Add|Sub|Mul|Div|Muls|Adds|Exp|Cast|Duplicate|ReduceSum|ReduceMax|DataCopy|Sigmoid|Tanh|Erf)"
                      r"\(", ln):
            assert last is not None and first <= last < first + len(lines), ln


# ---- API conformance

def _strip(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"[^"\n]*"', '""', text)


def _calls(text):
    """(name, args) of every call in the C++ text."""
    out = []
    for m in re.finditer(r"(?<![\w.])\.?\b([A-Za-z_]\w*)\s*(<[^()]*>)?\s*\(", text):
        depth, k, start = 0, m.end(), m.end()
        args, cur = [], ""
        while k < len(text):
            ch = text[k]
            if ch in "(<[" and not (ch == "<" and text[k - 1] == " "):
                depth += 1 if ch != "<" else 0
                if ch != "<":
                    cur += ch
                    k += 1
                    continue
            if ch == ")" and depth == 0:
                break
            if ch in ")]":
                depth -= 1
            if ch == "," and depth == 0:
                args.append(cur.strip())
                cur = ""
            else:
                cur += ch
            k += 1
        if cur.strip():
            args.append(cur.strip())
        out.append((m.group(1), args))
    return out


def test_the_renderer_emits_only_the_api_table():
    allowed = set(ascend_api.API) | ascend_api.NON_API
    table_text = " ".join(ascend_api.API.values())
    for name, (_, _, text) in SOURCES.items():
        code = _strip(text.split("#ifndef ASCENDC_CPU_DEBUG")[0])      # the host-side <<<>>> wrapper is not API
        ours = set(re.findall(r"\b(?:class|struct)\s+(\w+)", code)) | \
            set(re.findall(r"\b(?:void|inline)\s+(\w+)\s*\(", code)) | {m for m in re.findall(r"(\w+)\(\)\s*\{\}", code)}
        for ident in set(re.findall(r"\b([A-Z][a-z]\w*)\b", code)):
            assert ident in allowed or ident in ours, f"{name}: {ident} is not in the API table"
        for ident in set(re.findall(r"\b([A-Z][A-Z0-9_]{2,})\b", code)):
            assert ident in allowed or ident in table_text, f"{name}: {ident} is not in the API table"
        for fn, args in _calls(code):
            if fn in ascend_api.ARITY and fn not in ours:
                arity = ascend_api.ARITY[fn]
                assert len(args) in (arity if isinstance(arity, tuple) else (arity,)), \
                    f"{name}: {fn}({', '.join(args)})"


def test_the_sim_implements_the_api_table():
    header = "".join(open(os.path.join(root, f)).read() for root, _, files in os.walk(ascend_sim.SIM_DIR)
                     for f in sorted(files) if f.endswith(".h"))
    for name in ascend_api.API:
        pattern = (rf"(\b(namespace|void|bool|class|struct|enum class|enum|int64_t|TEventID|TPipe\*|LocalTensor<T>|LocalTensor<U>|T)\s+{name}\b"
                   rf"|ASC_SIM_\w+\({name},|#define {name}\b)")
        assert re.search(pattern, header), f"ascend-sim does not implement {name}"


# ---- compile-time Unified Buffer budget

def test_map_over_budget_is_refused_with_the_line_and_a_tile_size(tmp_path):
    n = 200
    src = ["import asc.language as lang", "", "@lang.kernel", "def wide(x):", "    out = lang.empty_like(x)",
           "    for i in range(len(x)):"]
    src += [f"        t{k} = lang.exp(x[i] + {k}.0)" for k in range(n)]
    src += ["        out[i] = " + " + ".join(f"t{k}" for k in range(n)), "    return out", ""]
    path = tmp_path / "wide_kernel.py"
    path.write_text("\n".join(src))
    spec = importlib.util.spec_from_file_location("wide_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError, match=r"wide_kernel\.py:6:\d+: ascend target: the loop body needs \d+ B of "
                                           r"Unified Buffer per element(.|\n)*suggested tile size: \d+ elements"):
        mod.wide.source("ascend", np.zeros(64, np.float32))


def test_row_over_budget_is_refused_with_the_line_and_a_tile_size():
    k = lang.kernel(target="ascend-sim")(sk.softmax.pyfunc)
    with pytest.raises(CompileError, match=r"seed\.py:\d+:\d+: ascend target: a row of 100000 elements needs \d+ B "
                                           r"(.|\n)*suggested tile size: rows of at most \d+ elements"):
        k(np.zeros((2, 100000), np.float32))


# ---- the project directory

def test_asc_compile_writes_the_ascend_project(tmp_path):
    from asc.cli import main
    out = tmp_path / "proj"
    assert main(["compile", f"{sk.__file__}::saxpy", "--target", "ascend", "--shape", "N=4096", "-o", str(out)]) == 0
    files = sorted(os.listdir(out))
    assert files == ["CMakeLists.txt", "README.md", "main.cpp", "saxpy.cpp"]
    kernel_cpp = (out / "saxpy.cpp").read_text()
    z = np.zeros(4096, np.float32)
    assert kernel_cpp == sk.saxpy.source("ascend", np.float32(0), z, z)
    assert '#include "kernel_operator.h"' in kernel_cpp
    assert 'extern "C" __global__ __aicore__ void saxpy(float a, GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR tiling)' \
        in kernel_cpp
    assert "saxpy<<<blockDim, nullptr, stream>>>(a, x, y, out, tiling);" in kernel_cpp
    main_cpp = (out / "main.cpp").read_text()
    for needle in ("aclInit(nullptr)", "aclrtSetDevice(0)", "aclrtCreateStream(&stream)", "aclrtMalloc(&xDev",
                   "ACL_MEMCPY_HOST_TO_DEVICE", "saxpy_do(blockDim, stream, a,", "aclrtSynchronizeStream(stream)",
                   "ACL_MEMCPY_DEVICE_TO_HOST", "SaxpyTiling tiling = {4096, 88, 48, 256};",
                   "const uint32_t blockDim = 47;"):
        assert needle in main_cpp, needle
    cmake = (out / "CMakeLists.txt").read_text()
    assert 'set(SOC_VERSION "Ascend910B1"' in cmake and "ascendc_library(kernels STATIC saxpy.cpp)" in cmake
    readme = (out / "README.md").read_text()
    assert "cmake -B build -DSOC_VERSION=Ascend910B1" in readme and "| `tile` | 256 |" in readme
    # the written kernel compiles unchanged against ascend-sim and computes saxpy with the README's tiling
    spec = sk.saxpy.specialization((np.float32(1.5), rand(4096, np.float32, 4), rand(4096, np.float32, 5)), {})[0]
    src = compiler.render(spec.ir, "ascend")
    lib, _, _ = ascend_sim.build(kernel_cpp, "saxpy", src.entry_params)
    x, y = rand(4096, np.float32, 4), rand(4096, np.float32, 5)
    res = ascend_sim.device_empty(4096 * 4).view(np.float32)      # 512-byte aligned, as aclrtMalloc gives
    a = np.array(1.5, np.float32)
    ascend_sim.launch(lib, [a.ctypes.data, x.ctypes.data, y.ctypes.data, res.ctypes.data],
                      np.array([4096, 88, 48, 256], np.uint32), 47, src, "saxpy")
    close(res, 1.5 * x.astype(np.float64) + y, np.float32)


# ---- estimate

def test_estimate():
    x = np.zeros(1 << 20, np.float32)
    e = sk.saxpy.estimate("ascend", np.float32(2), x, x, soc="Ascend910B1")
    ideal = 3 * x.nbytes / 1.6e12                  # three arrays over HBM at the model's 1.6 TB/s
    assert e.bound == "GM" and ideal < e.seconds < 3 * ideal
    assert e.block_dim == 48 and "not a measurement" in repr(e)
    slower = sk.saxpy.estimate("ascend", np.float32(2), x, x, soc="Ascend910B4")
    assert slower.seconds > e.seconds                # less HBM bandwidth, fewer cores
    heavy = sk.gelu_tanh_any.estimate("ascend", x)
    assert heavy.parts["vector"] > e.parts["vector"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = np.zeros((32, 32), np.float16)
        fallback = sk.matmul.estimate("ascend", A, A)
    assert fallback.bound == "scalar" and fallback.block_dim == 1
    from asc.examples import seed_tensor
    A = np.zeros((1024, 1024), np.float16)
    cube = seed_tensor.matmul_any.estimate("ascend", A, A)
    assert cube.kind == "cube" and cube.block_dim == 24 and cube.parts["cube"] > 0
    assert cube.parts["cube"] >= 2 * 1024 ** 3 / (24 * 16 ** 3 * 2 * 1.85e9)     # not faster than the cube peak
    with pytest.raises(ValueError):
        sk.saxpy.estimate("cpu")
