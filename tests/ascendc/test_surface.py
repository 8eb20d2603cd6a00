"""pyasc's names at pyasc's import paths, beside asc's own (none collide); backends; the CLI's pyasc path."""
import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc import ascendc

import pyasc_kernels as K


def test_names_do_not_collide_with_asc():
    own = {"language", "grad", "__version__", "AscError", "ArgumentError", "CacheMissError", "CompileError",
           "KernelTypeError", "MemoryCheckError", "NumericCheckError", "ShapeError", "ToolchainError",
           "UnsupportedError"}
    assert not own & set(ascendc.PUBLIC)
    for n in ("jit", "GlobalTensor", "LocalTensor", "LocalTensorAuto", "TPipe", "TQue", "TBuf", "TPosition",
              "HardEvent", "PipeID", "data_copy", "add", "adv", "float16", "ConstExpr", "GlobalAddress", "range",
              "ceildiv", "property", "ONE_BLK_SIZE"):
        assert hasattr(asc, n), n
    assert asc.language.__name__ == "asc.language" and callable(asc.grad)


def test_import_paths_and_dtypes():
    from asc.language.core.dtype import KnownTypes as KT
    from asc.language.core.struct import Field, Struct, StructField  # noqa: F401
    assert KT.int32 is asc.int32 and asc.DataType("int32") is asc.int32
    assert asc.float16.sizeof() == 2 and asc.float32.sizeof() == 4 and asc.int16.sizeof() == 2
    assert rt.current_stream() is rt.current_stream()
    assert config.Backend("Model") is config.Backend.Model and "CPU" in config.Backend.__members__
    assert config.KernelType.AIV_ONLY.value == 0 and config.Platform("Ascend910B1")


def test_npu_without_npu_is_a_clear_error():
    with pytest.raises(config.NoDeviceError, match="Backend.CPU"):
        config.set_platform(config.Backend.NPU)
    config.set_platform(config.Backend.CPU)


def test_model_runs_on_cpu_twin_with_a_notice():
    from asc.runtime import config as rconfig
    rconfig.state.model_noticed = False
    config.set_platform(config.Backend.Model)
    x = np.arange(256, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.warns(ascendc.ModelNotice, match="CPU twin"):
        K.vadd_queues[2](x, x, z, 128, 64)
    np.testing.assert_array_equal(z, 2 * x)
    config.set_platform(config.Backend.CPU)


def test_struct_argument():
    from asc.language.core.struct import Field, Struct
    from asc.language.core.dtype import KnownTypes as KT

    class Cfg(Struct):
        n = Field(dtype=KT.int32, default=0)

    c = Cfg(n=5)
    assert c.n == 5 and Cfg.c_declarations() == ["struct Cfg { int32_t n; };"]
    with pytest.raises(AttributeError):
        c.m = 1


def test_cli_emits_source_and_project(tmp_path):
    ref = f"{K.__file__}::vadd_queues"
    args = [sys.executable, "-m", "asc", "compile", ref, "--target", "ascend", "--tensor", "x=float32:1024",
            "--tensor", "y=float32:1024", "--tensor", "z=float32:1024", "--scalar", "block_length=512",
            "--scalar", "tile=128"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    assert 'extern "C" __global__ __aicore__ void vadd_queues(GM_ADDR x, GM_ADDR y, GM_ADDR z)' in out
    files = subprocess.run(args + ["-o", str(tmp_path), "--blocks", "2"], capture_output=True, text=True,
                           check=True).stdout.split()
    assert sorted(p.rsplit("/", 1)[1] for p in files) == ["CMakeLists.txt", "README.md", "main.cpp",
                                                          "vadd_queues.cpp"]
    assert "vadd_queues<<<blockDim, nullptr, stream>>>" in (tmp_path / "vadd_queues.cpp").read_text()
    bad = subprocess.run(args[:6] + ["cpu"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--target ascend" in bad.stderr


def test_pyasc_api_loads_on_first_use_only():
    """`import asc.language` does not load the pyasc translator (import time); `asc.jit` and `from asc import
    GlobalTensor` load it."""
    import subprocess
    import sys
    code = ("import sys, asc.language\nassert 'asc.ascendc' not in sys.modules, 'loaded by import asc.language'\n"
            "from asc import GlobalTensor\nimport asc\nassert asc.jit is sys.modules['asc.ascendc'].jit\n"
            "assert 'data_copy' in dir(asc)\n"
            "try:\n    asc.no_such_name\nexcept AttributeError as e:\n    assert 'no_such_name' in str(e)\n"
            "else:\n    raise AssertionError('no AttributeError')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
