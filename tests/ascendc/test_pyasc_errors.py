"""Errors of pyasc kernels: translation errors name the Python line and column with a caret; ascend-sim's rule
violations name the API call, the rule and the Python line; bad arguments and options are clear errors; a failed
run leaves the caller's data unchanged."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.errors import ArgumentError, CompileError, KernelTypeError, MemoryCheckError, UnsupportedError
from asc.runtime.ascend_sim import AscendSimError

import bad_kernels as B

X = np.zeros(64, np.float32)


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def test_unsupported_construct_has_line_col_and_caret():
    with pytest.raises(UnsupportedError) as e:
        B.uses_try[1](X)
    msg = str(e.value)
    assert "bad_kernels.py:7:5" in msg and "Try" in msg
    assert "    try:\n    ^" in msg


def test_no_overload_names_the_forms():
    with pytest.raises(KernelTypeError) as e:
        B.wrong_arity[1](X, 64)
    msg = str(e.value)
    assert "bad_kernels.py:21:5" in msg and "asc.add" in msg and "(dst, src0, src1, count)" in msg
    assert "^~~~" in msg


def test_print_in_compiled_kernel_points_to_printf():
    with pytest.raises(UnsupportedError, match=r"print\(\) does not run inside a compiled pyasc kernel: use "
                                               r"asc.printf"):
        B.prints[1](X)


def test_asc_debug_refuses_pyasc_kernels_clearly(monkeypatch):
    """ASC_DEBUG=1 has no interpreter for pyasc kernels yet: a clear error, never a silent compiled run."""
    from asc import environment as config
    import dataclasses
    monkeypatch.setattr(config, "config", dataclasses.replace(config.config, debug=True))
    with pytest.raises(UnsupportedError, match="pyasc .*have no interpreter yet: unset ASC_DEBUG"):
        B.prints[1](X)


def test_api_outside_a_kernel_is_an_error():
    import asc
    with pytest.raises(UnsupportedError, match=r"asc.add is the Ascend C API: call it inside an @asc.jit"):
        asc.add(None, None, None, 8)
    with pytest.raises(UnsupportedError, match=r"asc.TPipe is the Ascend C API"):
        asc.TPipe()


def test_assert_runtime_value_refused_compile_time_assert_checked():
    with pytest.raises(UnsupportedError, match="decidable at compile time"):
        B.runtime_assert[1](X, 3)
    with pytest.raises(CompileError, match="x and y differ"):
        B.static_assert[1](X, np.zeros(4, np.int32))
    B.static_assert[1](X, X)


def test_ub_capacity_names_rule_and_line():
    with pytest.raises(AscendSimError) as e:
        B.ub_overflow[1](X, 60000)
    msg = str(e.value)
    assert "bad_kernels.py:29" in msg and "TPipe::InitBuffer" in msg and "Unified Buffer over capacity" in msg


def test_queue_protocol_names_line():
    with pytest.raises(AscendSimError) as e:
        B.deque_empty[1](X)
    assert "bad_kernels.py:37" in str(e.value) and "DeQue of an empty queue" in str(e.value)


def test_cross_block_write_race_and_data_unchanged():
    x = np.arange(256, dtype=np.float32)
    z = np.full(256, 7.0, np.float32)
    with pytest.raises(AscendSimError) as e:
        B.overlapping_blocks[4](x, z, 64, 40)       # blocks write overlapping 32-byte GM blocks
    assert "bad_kernels.py:55" in str(e.value) and "both write the 32-byte GM block" in str(e.value)
    assert (z == 7.0).all()                          # the caller's data is unchanged
    B.overlapping_blocks[4](x, z, 64, 64)
    np.testing.assert_array_equal(z, x)


def test_gm_write_outside_argument():
    x = np.arange(256, dtype=np.float32)
    z = np.full(64, 7.0, np.float32)
    # block 1 writes z[64:128] of a 64-element z: its GlobalTensor has no size, the argument bounds it (the line)
    with pytest.raises(MemoryCheckError, match=r"bad_kernels.py:55:5: .*index 64 is out of bounds for axis 0 of "
                                               r"'z' with shape \(64,\) \(ascend-sim: DataCopy: GM access of "
                                               r"elements \[64, 128\)"):
        B.overlapping_blocks[2](x, z, 64, 64)
    assert (z == 7.0).all()


def test_unknown_jit_option():
    with pytest.raises(ArgumentError, match="unknown option 'insert_synk'.*insert_sync"):
        @asc.jit(insert_synk=True)
        def k(x):
            pass


def test_bad_launch_and_arguments():
    with pytest.raises(ArgumentError, match="core_num"):
        B.deque_empty[0]
    with pytest.raises(ArgumentError, match="ConstExpr"):
        B.ub_overflow[1](X, np.zeros(3))
    with pytest.raises(ArgumentError, match="str"):
        B.deque_empty[1]("x")
    with pytest.raises(UnsupportedError, match=r"deque_empty\[core_num\]"):
        B.deque_empty(X)


def test_kernel_only_names_outside_a_kernel():
    with pytest.raises(UnsupportedError, match="inside an @asc.jit function"):
        asc.GlobalTensor()
    with pytest.raises(UnsupportedError, match="inside an @asc.jit function"):
        asc.add(1, 2, 3, 4)
