"""Generated code compiles for every kernel of the test suite's corpus on every target that accepts it (issue 15,
item 7): the examples (asc/examples: the seed's kernels, element and tensor level) and the PyTorch-integration
operators with their hand-written backwards (tests/autodiff/torch_kernels.py), each with specialized shapes and with
dynamic_shape=True (one build for every size). cpu and ascend-sim are compiled
(the C++ compiler, against asc's headers / its Ascend C emulation), ascend is rendered (its CANN build needs the
toolkit). A target may refuse a kernel with a CompileError naming the construct; a ToolchainError ("a bug in asc")
or any other exception fails."""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

from asc.backends.ascend.rendering import AscendFallbackWarning
from asc import compiler
from asc.errors import CompileError, ToolchainError
from asc.dispatch.kernels import Kernel
from asc.examples import seed, seed_tensor
from autodiff import torch_kernels

SIZES = {"N": 37, "R": 5, "C": 33, "M": 6, "K": 7, "D": 9}
NP = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32, "float64": np.float64}


def _rand(shape, dtype, seed_=0):
    return np.random.default_rng(seed_).standard_normal(shape).astype(dtype)


def _annotated_args(kernel):
    """Example arguments from the kernel's annotations (sizes by dim name, SIZES)."""
    args = []
    for k, s in enumerate(kernel.specs):
        if s.kind == "scalar":
            args.append(NP.get(s.dtype.name, np.float32)(1.5) if s.dtype.kind == "f" else 3)
        elif s.kind == "tensor":
            shape = tuple(d if isinstance(d, int) else SIZES[d] for d in s.dims)
            args.append(_rand(shape, NP[s.dtype.name], k))
        else:
            return None
    return args


f16, f32 = np.float16, np.float32
HAND = {     # kernels with unannotated parameters: example arguments
    "add": lambda: (_rand(37, f32), _rand(37, f32, 1)),
    "gelu_any": lambda: (_rand(37, f16),),
    "gelu_tanh_any": lambda: (_rand(37, f32),),
    "swiglu_any": lambda: (_rand((5, 33), f32), _rand((5, 33), f32, 1)),
    "matmul_naive": lambda: (_rand((6, 7), f32), _rand((7, 9), f32, 1)),
    "matmul_opt": lambda: (_rand((64, 32), f32), _rand((32, 64), f32, 1)),
    "fused_mlp": lambda: (_rand((8, 16), f32), _rand((16, 32), f32, 1), _rand((32, 8), f32, 2)),
    "matmul_any": lambda: (_rand((8, 16), f16), _rand((16, 8), f16, 1)),
    "mlp_unfused": lambda: (_rand((8, 16), f32), _rand((16, 32), f32, 1), _rand((32, 8), f32, 2)),
}


def _options(kernel) -> dict:
    o = kernel.options
    return {"target": o.target, "precision": o.precision, "fastmath": o.fastmath, "num_threads": o.num_threads}


def _corpus():
    out = []
    for mod in (seed, seed_tensor, torch_kernels.load("float32")):
        for name, obj in vars(mod).items():
            if isinstance(obj, Kernel) and obj.__module__ == mod.__name__:
                out.append(pytest.param(obj, id=f"{mod.__name__.rsplit('.', 1)[-1]}.{name}"))
    return out


def _args(kernel):
    if kernel.__name__ in HAND:
        return HAND[kernel.__name__]()
    args = _annotated_args(kernel)
    assert args is not None, f"give example arguments for {kernel.__name__} in HAND"
    return args


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("target", ["cpu", "ascend-sim", "ascend"])
@pytest.mark.parametrize("kernel", _corpus())
def test_generated_code_compiles(kernel, target, dynamic):
    args = _args(kernel)
    if dynamic != kernel.options.dynamic_shape:      # the same kernel with the other shape rule
        kernel = Kernel(kernel.pyfunc, kernel.mode, **{**_options(kernel), "dynamic_shape": dynamic})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AscendFallbackWarning)
        try:
            spec, _, _ = kernel.specialization(tuple(args), {})
            if target == "ascend":
                assert "__aicore__" in spec.source("ascend")
            else:
                b = compiler.build(spec.ir, target, spec.options, "corpus test", spec.describe())
                assert b.entry is not None
        except ToolchainError as e:                    # generated code that does not compile: a bug in asc
            pytest.fail(f"{kernel.__name__} on {target}: {e}")
        except CompileError as e:                      # a refusal: it must say what and where
            assert e.loc is not None or "ascend target" in e.msg, e

