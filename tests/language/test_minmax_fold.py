"""Python's min / max with three or more arguments in a kernel is a fold, as numpy.minimum / maximum nested:
min(a, b, c) is min(min(a, b), c), the inner result in its own type (a float32 and a Python float give float32).
Found by tests/test_fuzz.py (seeds 5034, 5057): the interpreter converted the chosen operand once to the type of
all the arguments (min(y_f32, 0.1, x_f64) gave an exact 0.1; compiled code, and the nested form everywhere,
0.1 rounded to float32)."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

N = lang.dim("N")
TARGETS = ("interpret", "cpu", "cpu-checked")


def folds(x: lang.float64[N], y: lang.float32[N]):
    a = lang.empty_like(x, lang.float64)
    b = lang.empty_like(x, lang.float64)
    c = lang.empty_like(x, lang.float64)
    d = lang.empty_like(x, lang.float64)
    for i in range(N):
        a[i] = min(y[i], 0.1, x[i])
        b[i] = min(min(y[i], 0.1), x[i])
        c[i] = max(y[i], -0.1, x[i], 0.3)
        d[i] = max(-0.1, y[i], x[i])
    return a, b, c, d


@pytest.mark.parametrize("target", TARGETS)
def test_three_argument_min_max_fold_pairwise(target):
    x = np.array([12.0, -5.0, 0.05, np.nan, -0.2], np.float64)
    y = np.array([2.0 ** 24, -1.0, 0.5, 1.0, np.nan], np.float32)
    got = on_target(target, folds)(x, y)
    f32, tenth = np.float32, 0.1
    with np.errstate(invalid="ignore"):
        want = (np.minimum(np.minimum(y, tenth), x), np.minimum(np.minimum(y, tenth), x),
                np.maximum(np.maximum(np.maximum(y, -tenth), x), 0.3), np.maximum(np.maximum(-tenth, y), x))
    assert want[0].dtype == np.float64 and np.minimum(y, tenth).dtype == f32
    for name, g, w in zip("abcd", got, want):
        np.testing.assert_array_equal(g.view(np.uint64), w.view(np.uint64), err_msg=f"output {name} on {target}")
