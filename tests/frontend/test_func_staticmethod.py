"""`@lang.func` on a `@staticmethod` (issue 38, item 8): README says a device function may be a class's
@staticmethod; `@lang.func` above `@staticmethod` raised a raw AttributeError ('staticmethod' object has no attribute
'__code__'), and `@staticmethod` above `@lang.func` raised one about 'Func'. Both orders now compile to the same
device function, called as Class.name(...) on every target; a classmethod is refused by name at the decorator."""
import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

N = lang.dim("N")
TARGETS = ("interpret", "cpu", "cpu-checked", "ascend-sim")


class Act:
    @lang.func
    @staticmethod
    def relu(v):
        return max(v, 0.0)

    @staticmethod
    @lang.func
    def square(v):
        return v * v

    @lang.func
    @staticmethod
    def fact(n):                      # recursive, through the class
        return 1 if n <= 1 else n * Act.fact(n - 1)


def act(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = Act.relu(x[i]) + Act.square(x[i])
    return out


def act_rec(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + Act.fact(i % 5)
    return out


class Ops:
    @lang.kernel
    @staticmethod
    def neg(x: lang.float32[N]) -> lang.float32[N]:
        return -x


@pytest.mark.parametrize("target", TARGETS)
def test_func_over_staticmethod_in_both_orders(target):
    k = on_target(target, act)
    x = np.linspace(-3, 3, 41, dtype=np.float32)
    np.testing.assert_array_equal(k(x), np.maximum(x, 0) + x * x)


@pytest.mark.parametrize("target", ("interpret", "cpu"))    # ascend: no scalar form of a call yet (refused by name)
def test_a_recursive_static_func(target):
    x = np.zeros(7, np.float32)
    np.testing.assert_array_equal(lang.kernel(target=target)(act_rec)(x), [1, 1, 2, 6, 24, 1, 1])


def test_the_static_methods_still_run_in_python():
    assert Act.relu(-2.0) == 0.0 and Act.square(3.0) == 9.0 and Act.fact(4) == 24
    assert Act().relu(5.0) == 5.0          # from an instance too, as a static method


def test_kernel_over_staticmethod():
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(Ops.neg(x), -x)


def test_a_classmethod_is_refused_by_name():
    with pytest.raises(TypeError, match=r"@lang.func on the classmethod '.*C.f'.*make it a @staticmethod"):
        class C:
            @lang.func
            @classmethod
            def f(cls, v):
                return v
