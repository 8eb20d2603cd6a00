"""Type promotion follows NumPy 2 (NEP 50): checked against NumPy itself, for every pair of dtypes and for weak
Python scalars."""
import itertools

import ml_dtypes
import numpy as np
import pytest

from asc import ir
from asc.dtypes import HANDLES

NP_DTYPES = [d for d in ir.ALL_DTYPES if d != ir.bfloat16]


@pytest.mark.parametrize("a,b", list(itertools.product(NP_DTYPES, NP_DTYPES)))
def test_strong_pairs_match_numpy(a, b):
    expected = np.result_type(HANDLES[a].np, HANDLES[b].np)
    assert HANDLES[ir.promote_dtypes(a, b)].np == expected


@pytest.mark.parametrize("a", NP_DTYPES)
@pytest.mark.parametrize("weak,value", [(ir.WEAK_INT, 3), (ir.WEAK_FLOAT, 1.5), (ir.WEAK_BOOL, True)])
def test_weak_python_scalars_match_numpy(a, weak, value):
    got = ir.promote(ir.ScalarType(a), weak)
    assert not got.weak
    x = np.ones(2, HANDLES[a].np)
    expected = (x + value).dtype if a != ir.bool_ or not isinstance(value, bool) else np.dtype(bool)
    if a == ir.bool_ and isinstance(value, bool):
        expected = (x | value).dtype
    assert HANDLES[got.dtype].np == expected


def test_bfloat16_promotion():
    bf = ir.ScalarType(ir.bfloat16)
    assert ir.promote(bf, ir.WEAK_FLOAT) == bf
    assert ir.promote_dtypes(ir.bfloat16, ir.float16) == ir.float32
    assert ir.promote_dtypes(ir.bfloat16, ir.float32) == ir.float32
    assert HANDLES[ir.bfloat16].np == np.dtype(ml_dtypes.bfloat16)


def test_weak_with_weak_stays_weak():
    assert ir.promote(ir.WEAK_INT, ir.WEAK_FLOAT) == ir.WEAK_FLOAT
    assert ir.promote(ir.WEAK_INT, ir.WEAK_INT) == ir.WEAK_INT


def test_unify_rules():
    f32 = ir.ScalarType(ir.float32)
    assert ir.unify(ir.WEAK_FLOAT, f32) == f32          # acc = 0.0; acc += x[i]
    assert ir.unify(ir.WEAK_INT, f32) == f32
    assert ir.unify(f32, ir.ScalarType(ir.int32)) is None
    assert ir.unify(ir.ScalarType(ir.int32), ir.WEAK_FLOAT) is None
