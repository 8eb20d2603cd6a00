"""fork() after parallel kernels (multiprocessing's fork start method, DataLoader workers): the children run every
kind of kernel (parallel element loops, parallel reductions, products, kernels first loaded in the child) on one
thread and get the parent's bits. Each scenario runs in a fresh interpreter under a timeout: before the fix the
child hung forever in the OpenMP runtime."""
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")

KERNELS = '''
import numpy as np
import asc.language as lang

@lang.kernel
def scale(x: lang.float32[lang.dim("n")]) -> lang.float32[lang.dim("n")]:
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0 + 1.0
    return out

@lang.kernel
def total(x: lang.float32[lang.dim("n")]) -> lang.float32:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s

@lang.kernel
def mm(a: lang.float32[256, 256], b: lang.float32[256, 256]) -> lang.float32[256, 256]:
    return a @ b

@lang.kernel
def later(x: lang.float32[lang.dim("n")]) -> lang.float32[lang.dim("n")]:
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] - 3.0
    return out

rng = np.random.default_rng(0)
x = rng.standard_normal(1 << 21).astype(np.float32)
a = rng.standard_normal((256, 256)).astype(np.float32)
b = rng.standard_normal((256, 256)).astype(np.float32)

def work():
    return scale(x), np.float32(total(x)), mm(a, b)
'''


def run(script: str, tmp_path):
    p = tmp_path / "fork_case.py"
    p.write_text(KERNELS + textwrap.dedent(script))
    env = dict(os.environ, OMP_NUM_THREADS="2")
    try:
        proc = subprocess.run([sys.executable, str(p)], capture_output=True, text=True, timeout=240, env=env,
                              cwd=tmp_path)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the forked child hung (OpenMP pool after fork):\n{e.stdout}\n{e.stderr}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_os_fork_after_parallel_kernels(tmp_path):
    out = run('''
        import os
        from asc.runtime import forking
        ref = work()
        assert not forking.single_threaded()
        pid = os.fork()
        if pid == 0:
            ok = forking.single_threaded()
            got = work()
            ok = ok and all(np.array_equal(g, r) for g, r in zip(got, ref))
            ok = ok and np.array_equal(later(x), x - np.float32(3))      # a kernel first compiled in the child
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        assert all(np.array_equal(g, r) for g, r in zip(work(), ref))   # the parent keeps its threads
        print("ok")
    ''', tmp_path)
    assert "ok" in out


def test_multiprocessing_fork_pool(tmp_path):
    out = run('''
        import multiprocessing as mp

        def job(k):
            s, t, m = work()
            return float(s.sum()) + k, float(t), float(m[17, 33])

        if __name__ == "__main__":
            ref = work()
            with mp.get_context("fork").Pool(2) as pool:
                res = pool.map(job, range(4))
            for k, (s, t, m) in enumerate(res):
                assert s == float(ref[0].sum()) + k and t == float(ref[1]) and m == float(ref[2][17, 33]), (k, s, t, m)
            print("ok")
    ''', tmp_path)
    assert "ok" in out


def test_fork_before_any_kernel_keeps_threads(tmp_path):
    """A child of a process that never ran OpenMP code is an ordinary process: its kernels use its threads."""
    out = run('''
        import os
        from asc.runtime import forking
        pid = os.fork()
        if pid == 0:
            ok = forking.single_threaded() == forking._openmp_loaded()   # asc and NumPy load none: threads kept
            s, t, m = work()
            ok = ok and np.array_equal(s, x * np.float32(2) + np.float32(1))
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        print("ok")
    ''', tmp_path)
    assert "ok" in out
