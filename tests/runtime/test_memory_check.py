"""Memory check: every index is checked, an out-of-bounds access raises IndexError naming the kernel, the line, the
tensor, the index and the shape; nothing outside a tensor is read or written; with checks off there are none."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.language as lang


def line_of(marker: str) -> int:
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "line_of" not in text)


def make(target, check=True):
    opts = {"target": target} if target != "cpu" else {"memory_check": check}

    @lang.kernel(**opts)
    def reads(x: lang.float32[N], k: int) -> lang.float32[N]:
        out = lang.zeros_like(x)
        for i in range(N):
            out[i] = x[i + k]  # READ
        return out

    @lang.kernel(**opts)
    def writes(x: lang.float32[N], k: int):
        for i in range(N):
            x[i + k] = 7.0  # WRITE

    @lang.kernel(**opts)
    def rows(a: lang.float32[R, C], c: int) -> lang.float32:
        s = 0.0
        for i in range(R):
            s += a[i, c]  # AXIS1
        return s
    return reads, writes, rows


TARGETS = ["cpu", "interpret", "ascend-sim"]     # ascend-sim always checks GM accesses


def guarded(n):
    """An n-element float32 view with sentinel elements on both sides, to see any write outside it."""
    buf = np.full(n + 32, -1.0, np.float32)
    return buf, buf[16:16 + n]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("k,index", [(1, 8), (-1, -1)])
def test_reads_past_either_end(target, k, index):
    reads, _, _ = make(target)
    buf, x = guarded(8)
    x[:] = np.arange(8)
    before = buf.copy()
    with pytest.raises(IndexError) as ei:
        reads(x, k)
    e = ei.value
    assert isinstance(e, asc.MemoryCheckError)
    msg = str(e)
    assert f"test_memory_check.py:{line_of('# READ')}" in msg and "'reads'" in msg and "'x'" in msg
    assert f"index {index} is out of bounds for axis 0" in msg and "(8,)" in msg
    np.testing.assert_array_equal(buf, before)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("k,index", [(1, 8), (-3, -3)])
def test_writes_past_either_end_touch_nothing_outside(target, k, index):
    _, writes, _ = make(target)
    buf, x = guarded(8)
    with pytest.raises(asc.MemoryCheckError) as ei:
        writes(x, k)
    msg = str(ei.value)
    assert f":{line_of('# WRITE')}" in msg and f"index {index}" in msg and "'x'" in msg
    assert (buf[:16] == -1).all() and (buf[24:] == -1).all()      # the sentinels around the tensor


def test_constant_index_out_of_bounds_is_a_compile_error():
    @lang.kernel
    def const_index(a: lang.float32[R, C]) -> lang.float32:
        return a[0, C]  # CONST
    with pytest.raises(asc.CompileError) as ei:
        const_index(np.ones((3, 5), np.float32))
    assert ei.value.loc.line == line_of("# CONST") and "index 5 is out of bounds for axis 1" in str(ei.value)


@pytest.mark.parametrize("target", ["cpu", "interpret"])    # ascend-sim checks each tensor's extent, not each axis
def test_second_axis(target):
    _, _, rows = make(target)
    with pytest.raises(asc.MemoryCheckError) as ei:
        rows(np.ones((3, 5), np.float32), 5)
    msg = str(ei.value)
    assert "index 5 is out of bounds for axis 1" in msg and "(3, 5)" in msg and f":{line_of('# AXIS1')}" in msg


def test_in_bounds_calls_agree_with_unchecked_code():
    reads_c, _, _ = make("cpu", True)
    reads_u, _, _ = make("cpu", False)
    x = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(reads_c(x, 0), reads_u(x, 0))
    assert "asc_inb" in reads_c.source("cpu", x, 0)
    assert "asc_inb" not in reads_u.source("cpu", x, 0) and "ASC_MEMORY_CHECK" not in reads_u.source("cpu", x, 0)


@lang.kernel
def global_mode(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[N - i]
    return out


def test_enable_and_disable_globally():
    x = np.arange(4, dtype=np.float32)
    try:
        lang.enable_memory_check()
        with pytest.raises(asc.MemoryCheckError, match="index 4 is out of bounds"):
            global_mode(x)
        with pytest.raises(asc.MemoryCheckError):   # again: through the compiled launcher too
            global_mode(x)
    finally:
        lang.disable_memory_check()
    assert "asc_inb" not in global_mode.source("cpu", x)


def test_environment_variable(tmp_path):
    p = tmp_path / "k.py"
    p.write_text("from __future__ import annotations\nimport numpy as np, asc.language as lang\n"
                 "@lang.kernel\ndef f(x: lang.float32[N]):\n    for i in range(N):\n        x[i + 1] = 0.0\n"
                 "f(np.ones(3, np.float32))\n")
    r = subprocess.run([sys.executable, str(p)], capture_output=True, text=True,
                       env=dict(os.environ, ASC_MEMORY_CHECK="1"))
    assert r.returncode != 0 and "MemoryCheckError" in r.stderr and "k.py:6" in r.stderr
    assert "index 3 is out of bounds" in r.stderr


def test_interpreter_names_a_local_tensor():
    @lang.kernel(target="interpret")
    def local(x: lang.float32[N]) -> lang.float32[N]:
        tmp = lang.zeros(3, dtype=lang.float32)
        for i in range(N):
            tmp[i] = x[i]
        return x
    with pytest.raises(asc.MemoryCheckError, match="index 3 is out of bounds for axis 0 of 'tmp' with shape"):
        local(np.ones(5, np.float32))


def make_stoppers(target):
    opts = {"target": target} if target != "cpu" else {"memory_check": True}

    @lang.kernel(**opts)
    def shift_in_place(x: lang.float32[N], y: lang.float32[N], k: int):
        for i in range(N):
            x[i] = y[i + k] + 1.0          # a bad read in the middle of a loop that writes an argument

    @lang.kernel(**opts)
    def write_at(x: lang.float32[N], k: int):
        for i in range(N):
            x[i + k] = lang.float32(i)

    @lang.kernel(**opts)
    def rows_in_place(a: lang.float32[R, C], c: int):
        for i in range(R):
            for j in range(C):
                a[i, j] = a[i, j] * 2.0 + a[i, j + c]
    return shift_in_place, write_at, rows_in_place


@pytest.mark.parametrize("target", ["cpu", "ascend-sim"])
@pytest.mark.parametrize("n,k", [(8, 1), (8, -3), (1 << 17, 1000), (1 << 17, -1), (100_003, 77)])
def test_the_check_stops_the_kernel_as_the_interpreter_does(target, n, k):
    """cpu: after the first bad access nothing more is written, the arguments hold exactly what the interpreter
    leaves (the loops are large enough to run in parallel without the check). ascend-sim: the kernel ran on device
    copies, which a failed launch never copies back: every argument is as it was."""
    comp, ref = make_stoppers(target), make_stoppers("interpret")
    rng = np.random.default_rng(n + k)
    y = rng.standard_normal(n).astype(np.float32)
    for kc, kr in zip(comp[:2], ref[:2]):
        args = (y,) if kc is comp[0] else ()
        results = []
        for kern in (kc, kr):
            buf, x = guarded(n)
            x[:] = -5.0
            with pytest.raises(asc.MemoryCheckError):
                kern(x, *args, k)
            results.append(buf)
        if target == "ascend-sim":
            results[1] = guarded(n)[0]
            results[1][16:16 + n] = -5.0
        np.testing.assert_array_equal(results[0], results[1])
        assert (results[0][:16] == -1).all() and (results[0][16 + n:] == -1).all()


@pytest.mark.parametrize("c", [1, 3])
def test_the_check_stops_a_nested_loop_on_cpu(c):
    comp, ref = make_stoppers("cpu"), make_stoppers("interpret")
    a0 = np.arange(300 * 257, dtype=np.float32).reshape(300, 257)
    got, want = a0.copy(), a0.copy()
    for kern, a in ((comp[2], got), (ref[2], want)):
        with pytest.raises(asc.MemoryCheckError, match="axis 1"):
            kern(a, c)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, a0)         # the rows before the bad access were written


def test_checked_calls_from_threads_each_report_their_own_error():
    """Python threads calling one checked kernel at once: each call raises for its own bad index (or returns its own
    result), whatever the others do."""
    import threading
    reads, _, _ = make("cpu")
    x = np.arange(1 << 18, dtype=np.float32)      # long enough calls to overlap (the GIL is released in them)
    failures = []

    def worker(t):
        for r in range(30):
            k = (t + r) % 3 - 1          # -1 and 1 are bad, 0 is fine
            try:
                out = reads(x, k)
                if k != 0 or not np.array_equal(out, x):
                    failures.append((t, r, k, "no error"))
            except asc.MemoryCheckError as e:
                want = f"index {x.size if k == 1 else -1} is out of bounds"
                if k == 0 or want not in str(e):
                    failures.append((t, r, k, str(e)))
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]
