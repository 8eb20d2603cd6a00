"""The builtin table: every function a kernel can call, declared once."""
from .core import (BUILTINS, MATH_NAMES, Builtin, abs_, builtin, cast, ceil, cos, empty, empty_like, erf,  # noqa: F401
                   exp, floor, full, gelu, global_buffer, load_2d, local_buffer, log, matmul, max_, maximum, min_,
                   minimum, pi, pow_, range_, relu, rsqrt, sigmoid, silu, sin, softmax, sqrt, store_2d, sum_, tanh,
                   transpose, zeros, zeros_like)
