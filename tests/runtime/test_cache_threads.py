"""Concurrent first calls in one process: threads that call a kernel for the first time at once compile it once
(one build per cache key and process; the others wait and load it), all get the right result, and no call fails
on another thread's temporary file. Run many rounds (bounded in time), each in a fresh cache."""
from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest

import asc.environment
import asc.language as lang
from asc.runtime import cache, toolchain

THREADS = 8


def _scale(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(y)
    for i in range(N):
        out[i] = x[i] * 3.0 + y[i]
    return out


def at_once(fn, n=THREADS):
    """Runs fn(i) in n threads released together; returns the results and the exceptions."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def work(i):
        barrier.wait()
        try:
            results[i] = fn(i)
        except BaseException as e:                # noqa: BLE001 -- every failure is a finding
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results, errors


def counting(monkeypatch):
    """The kernel builds (name, key) that reach the compiler, cpu and ascend-sim alike."""
    builds = []
    real_build, real_run = toolchain.build, toolchain.run

    def build(source, out_path, options, name, key):
        builds.append((name, key))
        return real_build(source, out_path, options, name, key)

    def run(cmd, what):
        if "ascend-sim" in what:
            builds.append(what)
        return real_run(cmd, what)
    monkeypatch.setattr(toolchain, "build", build)
    monkeypatch.setattr(toolchain, "run", run)
    return builds


def rounds(tmp_path, monkeypatch, fn):
    """fn(cache folder) for at least 3 rounds, more while time allows (at most 8, about 40 s)."""
    deadline, n = time.monotonic() + 40, 0
    while n < 3 or (n < 8 and time.monotonic() < deadline):
        monkeypatch.setattr(asc.environment, "config",
                            dataclasses.replace(asc.environment.config, cache_dir=str(tmp_path / f"cache{n}")))
        fn()
        n += 1


@pytest.mark.parametrize("target", ["cpu", "ascend-sim"])
def test_concurrent_first_calls_compile_once(tmp_path, monkeypatch, target):
    builds = counting(monkeypatch)
    x, y = np.arange(64, dtype=np.float32), np.linspace(0, 1, 64, dtype=np.float32)
    want = x * np.float32(3.0) + y

    def one_round():
        kernel = lang.kernel(target=target)(_scale)     # a new kernel object: every thread's call is its first
        del builds[:]
        results, errors = at_once(lambda i: kernel(x, y))
        assert errors == []                            # (was FileNotFoundError: one temporary name per process)
        kernels = [b for b in builds if "precompiled header" not in str(b)]
        assert len(kernels) == 1, builds               # one compile for the one key (was up to one per thread)
        # ascend-sim: its header precompiled once for the new cache, by one thread (sim_pch)
        assert len(builds) - len(kernels) == (target == "ascend-sim"), builds
        info = kernel.cache_info()
        assert info["compiles"] == 1, info
        for r in results:                              # each call's arguments are its own (per-call slots)
            np.testing.assert_array_equal(r, want)
        n = len(builds)
        results, errors = at_once(lambda i: kernel(x, y))   # and the calls that follow
        assert errors == [] and len(builds) == n
        for r in results:
            np.testing.assert_array_equal(r, want)
    rounds(tmp_path, monkeypatch, one_round)


def test_concurrent_generated_modules_share_one_file(tmp_path, monkeypatch):
    for r in range(20):
        monkeypatch.setattr(asc.environment, "config",
                            dataclasses.replace(asc.environment.config, cache_dir=str(tmp_path / f"c{r}")))
        source = f"value = {r}\n"
        results, errors = at_once(lambda i: cache.generated_module("vectorize", "shared", source).value)
        assert errors == [] and results == [r] * THREADS
        names = [p.name for p in (tmp_path / f"c{r}" / "vectorize").iterdir() if p.suffix == ".py"]
        assert len(names) == 1 and not [n for n in names if n.startswith(".tmp-")]


def test_a_child_forked_while_another_thread_builds_can_build(tmp_path):
    """fork() while another thread holds a key's build lock (it is compiling): the child has its own locks."""
    import os
    held, release = threading.Event(), threading.Event()

    def builder():
        with cache._key_lock("the-key"):
            held.set()
            release.wait(30)
    t = threading.Thread(target=builder)
    t.start()
    held.wait(30)
    try:
        pid = os.fork()
        if pid == 0:                                   # the child: the key's lock is free here
            ok = cache._key_lock("the-key").acquire(timeout=5) and cache._key_lock("other").acquire(timeout=5)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        release.set()
        t.join()
