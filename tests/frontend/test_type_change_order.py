"""A variable that changes type is refused at the assignment that changes it, naming the types in the order they are
assigned. `v = 0.5` then `v = x[0]` (int32) said "changes type from int32 to float" at `v = 0.5`: the frontend
types a kernel in rounds, and the float assignment, folded as a constant in the first round, met the int32 type a
later line had given v. Every target (cpu with and without memory checks, the interpreter, ascend-sim) reads the
same frontend; each case is checked on all of them."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import asc.language as lang
from asc.errors import KernelTypeError

TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]


def float_then_int(x: lang.int32[4]):
    out = lang.empty((1,), dtype=lang.float32)
    v = 0.5
    v = x[0]  # <refused>
    out[0] = v
    return out


def int_then_float(x: lang.int32[4]):
    out = lang.empty((1,), dtype=lang.float32)
    v = x[0]
    v = 0.5  # <refused>
    out[0] = v
    return out


def float_then_int_in_a_loop(x: lang.int32[4]):
    out = lang.empty((1,), dtype=lang.float32)
    v = 0.5
    for i in range(4):
        v = x[i]  # <refused>
    out[0] = v
    return out


def float32_then_bool(x: lang.int32[4]):
    out = lang.empty((1,), dtype=lang.float32)
    v = lang.float32(0.5)
    v = x[0] > 1  # <refused>
    out[0] = v
    return out


def floats_then_ints_unpacked(x: lang.int32[4]):
    out = lang.empty((1,), dtype=lang.float32)
    w, v = 1.5, 2.5
    v, w = x[0], x[1]  # <refused>
    out[0] = v + w
    return out


CASES = [(float_then_int, "v", "float", "int32"), (int_then_float, "v", "int32", "float"),
         (float_then_int_in_a_loop, "v", "float", "int32"), (float32_then_bool, "v", "float32", "bool"),
         (floats_then_ints_unpacked, "v", "float", "int32")]


def _marked_line(fn) -> int:
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, text in enumerate(lines) if "# <refused>" in text]
    assert len(hits) == 1
    return hits[0]


@pytest.mark.parametrize("fn,name,before,after", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_the_types_in_the_order_they_are_assigned(fn, name, before, after, target, checked):
    opts = {"memory_check": True} if checked else {}
    kern = lang.kernel(target=target, **opts)(fn)
    with pytest.raises(KernelTypeError) as info:
        kern(np.arange(4, dtype=np.int32))
    e = info.value
    assert e.msg == f"variable {name!r} changes type from {before} to {after}"
    assert e.loc.line == _marked_line(fn)             # the assignment that changes it, not the first one
