"""Messages of the ascend targets name sizes as the user wrote them. A dynamic_shape kernel's run-time sizes are
asc's own symbols inside (asc_dim_x_0 for a free axis of x, asc_dim_G_s for an int argument G that sizes an
allocation, asc_dim_expr1 for an expression of sizes); the refusal of a temporary tensor whose size is known only at
run time, and the scalar fallback's warning, showed those names. They now say x.shape[0], G, G * 2 (on ascend-sim,
and in the source generated for the ascend target)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend import AscendFallbackWarning
from asc.errors import CompileError


def by_int(x: lang.float32[None], G: int):
    t = lang.empty((G,), dtype=lang.float32)
    out = lang.empty_like(x)
    for g in range(G):
        t[g] = 1.0
    for i in range(x.shape[0]):
        out[i] = x[i] * t[0]
    return out


def by_free_axis(x: lang.float32[None]):
    u = lang.empty((x.shape[0] + 1,), dtype=lang.float32)
    out = lang.empty_like(x)
    for i in range(x.shape[0] + 1):
        u[i] = 2.0
    for i in range(x.shape[0]):
        out[i] = x[i] * u[i + 1]
    return out


def by_expression(x: lang.float32[None], G: int):
    t = lang.empty((G * 2,), dtype=lang.float32)
    for i in range(x.shape[0]):
        t[i] = x[i] * 2.0
    out = lang.empty((G * 2,), dtype=lang.float32)
    for i in range(G * 2):
        out[i] = t[i] + x[i]
    return out


REFUSED = [(by_int, (np.ones(3, np.float32), 2), "'t': (G,)"),
           (by_free_axis, (np.ones(3, np.float32),), "'u': (x.shape[0] + 1,)"),
           (by_expression, (np.ones(8, np.float32), 4), "'t': (G * 2,)")]


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


@pytest.mark.parametrize("fn,args,shown", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_a_temporary_of_run_time_size_is_refused_naming_the_users_sizes(fn, args, shown):
    msg = f"ascend target: a temporary tensor whose size is known only at run time ({shown}) has no scalar form"
    kern = lang.kernel(target="ascend-sim", dynamic_shape=True)(fn)
    with pytest.raises(CompileError) as info:
        _quiet(kern, *args)
    assert info.value.msg.startswith(msg) and "asc_" not in str(info.value)
    with pytest.raises(CompileError) as info:          # the source for an NPU says the same
        _quiet(lang.kernel(dynamic_shape=True)(fn).source, "ascend", *args)
    assert info.value.msg.startswith(msg) and "asc_" not in str(info.value)


def reads_past_its_loop(x: lang.float32[None], G: int):
    out = lang.empty((G * 2,), dtype=lang.float32)
    for i in range(G * 2):
        out[i] = x[i] * 2.0
    return out


def test_the_fallback_warning_names_the_users_sizes():
    kern = lang.kernel(target="ascend-sim", dynamic_shape=True)(reads_past_its_loop)
    x = np.arange(8, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = kern(x, 3)
    np.testing.assert_array_equal(got, x[:6] * 2)
    texts = [str(w.message) for w in caught if issubclass(w.category, AscendFallbackWarning)]
    assert len(texts) == 1, texts
    assert "kernel 'reads_past_its_loop': 'x' has shape (x.shape[0],), not the loop's; on the ascend target it " \
           "runs as scalar code" in texts[0] and "asc_" not in texts[0]
