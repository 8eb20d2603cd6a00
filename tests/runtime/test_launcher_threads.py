"""Calls from several threads at once get their own results: a call running with the GIL released keeps the
launcher row it matched while other threads add rows (the table is copy-on-write, rows are never moved or freed
under a running call), and the Python path keeps each call's argument slots to that call. Each test runs for a
bounded time and checks every result's value and dtype."""
from __future__ import annotations

import shutil
import sys
import threading
import time

import numpy as np
import pytest

import asc.language as lang

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: the launcher cannot be built")

SECONDS = 2.0
# more dtypes than the launcher's table holds rows: calls keep pushing rows out and adding them back
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64]
SIZE = 1 << 16


@lang.kernel
def largest(x):
    m = x[0]
    for i in range(len(x)):
        m = max(m, x[i])
    return m


@lang.kernel
def shifted(x, k):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] + k
    return out


def _run_threads(work, n: int):
    """Runs work(thread index, deadline) in n threads; re-raises the first failure."""
    failures = []
    deadline = time.monotonic() + SECONDS

    def body(t):
        try:
            work(t, deadline)
        except BaseException as e:      # noqa: BLE001 - reported below, with the thread's message
            failures.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)         # switch threads often: the interleavings a loaded machine gives
    try:
        threads = [threading.Thread(target=body, args=(t,)) for t in range(n)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        sys.setswitchinterval(old)
    if failures:
        raise failures[0]


def _input(dtype, t: int):
    """An array whose largest element (at a place and of a value that depend on dtype and thread) is known."""
    x = (np.arange(SIZE) % 50).astype(dtype)
    want = dtype(60 + DTYPES.index(dtype) + t)
    x[(7919 * (t + 1) + 13 * DTYPES.index(dtype)) % SIZE] = want
    return x, want


def test_calls_keep_their_row_while_other_threads_add_rows():
    for d in DTYPES:                                  # compiled up front: the threads race calls, not compiles
        largest(_input(d, 0)[0])
    calls = [0]

    def work(t, deadline):
        r = t
        while time.monotonic() < deadline:
            d = DTYPES[r % len(DTYPES)]
            r += 1
            x, want = _input(d, t)
            got = largest(x)
            assert type(got) is d, (d, type(got), got)
            assert got == want, (d, got, want)
            calls[0] += 1

    before = largest._launcher.calls
    _run_threads(work, 4)
    assert calls[0] > 100
    assert largest._launcher.calls > before           # the fast path served some of them (rows were re-added)


def test_python_path_calls_have_their_own_argument_slots():
    """Keyword arguments take the Python path: four threads calling one specialization at once."""
    xs = [np.full(SIZE, 10 * (t + 1), np.int32) for t in range(4)]
    shifted(x=xs[0], k=1)
    count = [0]

    def work(t, deadline):
        k = 0
        while time.monotonic() < deadline:
            k += 1
            out = shifted(x=xs[t], k=k)
            assert out.dtype == np.int32
            if not (out == 10 * (t + 1) + k).all():
                bad = np.flatnonzero(out != 10 * (t + 1) + k)[0]
                raise AssertionError(f"thread {t}, k={k}: out[{bad}] = {out[bad]}, expected {10 * (t + 1) + k}")
            count[0] += 1

    _run_threads(work, 4)
    assert count[0] > 100
    assert shifted.cache_info()["specializations"] == 1


def test_calls_keep_their_row_while_another_thread_empties_and_refills_the_table():
    """refresh_launcher() (as when numeric checks are switched) clears the table and adds every row again."""
    for d in DTYPES[:5]:
        largest(_input(d, 0)[0])
    calls = [0]

    def work(t, deadline):
        r = t
        while time.monotonic() < deadline:
            if t == 0:
                largest.refresh_launcher()
                continue
            d = DTYPES[r % 5]
            r += 1
            x, want = _input(d, t)
            got = largest(x)
            assert type(got) is d and got == want, (d, got, want)
            calls[0] += 1

    before = largest._launcher.calls
    _run_threads(work, 4)
    assert calls[0] > 100 and largest._launcher.calls > before
