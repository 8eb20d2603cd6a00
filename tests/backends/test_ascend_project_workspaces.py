"""`asc compile FILE.py::KERNEL --target ascend` for a phased kernel (a product next to element code: cube and vector
phases through GM workspaces): the host program allocates every workspace at its size and passes it where the
kernel's launch wrapper takes it. main.cpp is compiled and run here against a stand-in acl.h whose device memory
is host memory, and a stand-in launch wrapper that reports the allocation behind each GM argument."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from asc import cli, compiler

KERNEL = """from __future__ import annotations
import asc.language as lang


@lang.kernel
def mm_relu(a: lang.float16[M, K], b: lang.float16[K, N], bias: lang.float16[N]) -> lang.float16[M, N]:
    return lang.maximum(a @ b + bias, 0.0)
"""

# device memory is host memory; every allocation is remembered so that the launch wrapper can report its size
ACL_H = """#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
typedef int aclError;
typedef void* aclrtStream;
enum { ACL_SUCCESS = 0, ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2 };
inline std::map<void*, size_t>& Allocs() { static std::map<void*, size_t> m; return m; }
inline aclError aclInit(const char*) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* s) { *s = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtMalloc(void** p, size_t n, int) { *p = std::malloc(n); Allocs()[*p] = n; return ACL_SUCCESS; }
inline aclError aclrtFree(void* p) { if (!Allocs().erase(p)) return 1; std::free(p); return ACL_SUCCESS; }
inline aclError aclrtMemcpy(void* d, size_t dmax, const void* s, size_t n, int) {
    if (n > dmax) return 2;
    std::memcpy(d, s, n);
    return ACL_SUCCESS;
}
"""


def _wrapper(main_cpp: str) -> str:
    """A launch wrapper with the signature main.cpp declares, printing `NAME BYTES` for each GM argument."""
    m = re.search(r"extern void (\w+)\(uint32_t blockDim, void\* stream, (.*)\);", main_cpp)
    params = [p.split("*")[1].strip() for p in m.group(2).split(", ")]
    body = "\n".join(f'    std::printf("{p} %zu\\n", Allocs().count({p}) ? Allocs()[{p}] : (size_t)0);'
                     for p in params)
    return (f'#include <cstdint>\n#include <cstdio>\n#include "acl/acl.h"\n'
            f"void {m.group(1)}(uint32_t, void*, {m.group(2)})\n{{\n{body}\n}}\n")


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the host program")
def test_phased_project_allocates_its_workspaces(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    out = tmp_path / "proj"
    assert cli.main(["compile", f"{tmp_path}/k.py::mm_relu", "--target", "ascend", "--shape", "M=32", "--shape",
                     "K=48", "--shape", "N=64", "-o", str(out)]) == 0
    kernel_cpp = (out / "mm_relu.cpp").read_text()
    assert "KERNEL_TYPE_MIX_AIC_1_2" in kernel_cpp and "SyncAll<false>();" in kernel_cpp
    # the workspaces as the renderer sizes them (asc's ascend-sim launcher allocates the same)
    spec = cli_spec(tmp_path)
    src = compiler.render(spec.ir, "ascend", warn=False)
    ws = dict(src.workspaces)
    assert ws and all(n in [p for _, p, _ in src.entry_params] for n in ws)
    main_cpp = (out / "main.cpp").read_text()
    (tmp_path / "acl").mkdir()
    (tmp_path / "acl" / "acl.h").write_text(ACL_H)
    (tmp_path / "wrapper.cpp").write_text(_wrapper(main_cpp))
    exe = tmp_path / "main"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-I", str(tmp_path), str(out / "main.cpp"),
                    str(tmp_path / "wrapper.cpp"), "-o", str(exe)], check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    sizes = dict((n, int(b)) for n, b in re.findall(r"^(\w+) (\d+)$", run.stdout, re.M))
    for name, nbytes in ws.items():
        assert sizes[name] >= nbytes > 0, (name, sizes)        # a live device buffer of the workspace's size
    assert sizes["a"] == 32 * 48 * 2 and sizes["b"] == 48 * 64 * 2 and sizes["bias"] == 64 * 2
    assert list(ws.values()) == [32 * 64 * 2]                   # the float16 product between the phases
    readme = (out / "README.md").read_text()
    assert "GM workspaces between the phases" in readme and all(f"`{n}` ({b} bytes)" in readme for n, b in ws.items())


def cli_spec(tmp_path):
    """The specialization `asc compile` made for these sizes (the same kernel from the same file)."""
    import importlib.util
    s = importlib.util.spec_from_file_location("k_ws", tmp_path / "k.py")
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    a, b, bias = np.zeros((32, 48), np.float16), np.zeros((48, 64), np.float16), np.zeros(64, np.float16)
    return mod.mm_relu.specialization((a, b, bias), {}, latest=False)[0]
