"""The benchmark's kernels written for Numba (@njit(parallel=True) with prange), the peer that compiles Python the
way asc does. Imported by run.py only when numba is installed."""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

SQRT1_2 = 1.0 / math.sqrt(2.0)
C_TANH = math.sqrt(2.0 / math.pi)


@njit(parallel=True, cache=True)
def gelu_erf_out(x, out):
    for i in prange(x.shape[0]):
        out[i] = 0.5 * x[i] * (1.0 + math.erf(x[i] * np.float32(SQRT1_2)))


@njit(parallel=True, cache=True)
def gelu_tanh_out(x, out):
    for i in prange(x.shape[0]):
        xi = x[i]
        out[i] = 0.5 * xi * (1.0 + math.tanh(np.float32(C_TANH) * (xi + np.float32(0.044715) * xi * xi * xi)))


@njit(parallel=True, cache=True)
def swiglu_out(a, b, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            z = a[i, j]
            out[i, j] = z / (np.float32(1.0) + math.exp(-z)) * b[i, j]


@njit(parallel=True, cache=True)
def saxpy_out(a, x, y, out):
    for i in prange(x.shape[0]):
        out[i] = a * x[i] + y[i]


@njit(parallel=True, cache=True)
def softmax(x):
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
        s = np.float32(0.0)
        for j in range(x.shape[1]):
            e = math.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        inv = np.float32(1.0) / s
        for j in range(x.shape[1]):
            out[i, j] *= inv
    return out


@njit(parallel=True, cache=True)
def layernorm(x, w, b):
    out = np.empty_like(x)
    C = x.shape[1]
    for i in prange(x.shape[0]):
        s = np.float32(0.0)
        for j in range(C):
            s += x[i, j]
        mean = s / C
        v = np.float32(0.0)
        for j in range(C):
            d = x[i, j] - mean
            v += d * d
        rstd = np.float32(1.0) / math.sqrt(v / C + np.float32(1e-5))
        for j in range(C):
            out[i, j] = (x[i, j] - mean) * rstd * w[j] + b[j]
    return out


@njit(parallel=True, cache=True)
def parallel_sum(x):
    acc = np.float32(0.0)
    for i in prange(x.shape[0]):
        acc += x[i]
    return acc


@njit(cache=True)
def saxpy_serial(a, x, y, out):
    """For the dispatch cost: a serial loop (a parallel one would add its thread launch)."""
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]


def warm():
    x = np.ones(64, np.float32)
    o = np.empty_like(x)
    saxpy_serial(np.float32(2.0), x, x, o)
    gelu_erf_out(x, o)
    gelu_tanh_out(x, o)
    saxpy_out(np.float32(2.0), x, x, o)
    m = np.ones((4, 16), np.float32)
    swiglu_out(m, m, np.empty_like(m))
    softmax(m)
    layernorm(m, x[:16], x[:16])
    parallel_sum(x)
    numba.set_num_threads(min(numba.config.NUMBA_NUM_THREADS, int(__import__("os").environ.get("OMP_NUM_THREADS", 2))))
