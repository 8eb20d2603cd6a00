"""Type errors of dynamic_shape kernels name sizes as the user wrote them: shapes that cannot be broadcast together
said `(asc_dim_x_0,) and (asc_dim_y_0,)` (asc's own symbols for free axes, int arguments that size allocations and
expressions of sizes) and `axis 0: asc_dim_x_0, vs asc_dim_y_0,`; they now say `x.shape[0]`, `G + 1`. The frontend
is every target's: checked on cpu with and without memory checks, the interpreter and ascend-sim."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.errors import KernelTypeError

TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]


def free_axes(x: lang.float32[None], y: lang.float32[None]):
    return x + y


def int_size(x: lang.float32[None], G: int):
    t = lang.zeros((G,), dtype=lang.float32)
    return x * t


def size_expression(x: lang.float32[None, None], G: int):
    t = lang.zeros((x.shape[0], G + 1), dtype=lang.float32)
    return x - t


CASES = [(free_axes, (np.ones(3, np.float32), np.ones(4, np.float32)),
          "add: shapes (x.shape[0],) and (y.shape[0],) cannot be broadcast together (axis 0: x.shape[0] vs "
          "y.shape[0])"),
         (int_size, (np.ones(3, np.float32), 2),
          "mul: shapes (x.shape[0],) and (G,) cannot be broadcast together (axis 0: x.shape[0] vs G)"),
         (size_expression, (np.ones((2, 3), np.float32), 3),
          "sub: shapes (x.shape[0], x.shape[1]) and (x.shape[0], G + 1) cannot be broadcast together (axis 1: "
          "x.shape[1] vs G + 1)")]


@pytest.mark.parametrize("fn,args,msg", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_broadcast_errors_name_the_users_sizes(fn, args, msg, target, checked):
    opts = {"memory_check": True} if checked else {}
    kern = lang.kernel(target=target, dynamic_shape=True, **opts)(fn)
    with pytest.raises(KernelTypeError) as info:
        kern(*args)
    assert info.value.msg == msg
    assert "asc_" not in str(info.value)


def test_a_specialized_kernel_names_numbers():
    kern = lang.kernel(target="interpret")(free_axes)
    with pytest.raises(KernelTypeError) as info:
        kern(np.ones(3, np.float32), np.ones(4, np.float32))
    assert info.value.msg == "add: shapes (3,) and (4,) cannot be broadcast together (axis 0: 3 vs 4)"
