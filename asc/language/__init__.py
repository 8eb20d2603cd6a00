"""The asc kernel language: `import asc.language as lang`."""
from ..runtime.kernel import kernel, func  # noqa: F401
from .builtins import (BUILTINS, cast, ceil, cos, empty, empty_like, erf, exp, floor, full, log, maximum,  # noqa: F401
                       minimum, pi, rsqrt, sigmoid, sin, sqrt, tanh, zeros, zeros_like)
from .builtins import abs_ as abs, pow_ as pow, range_ as range  # noqa: F401
from .dtypes import (Dim, Tensor, bfloat16, bool_, dim, float16, float32, float64, int8, int16, int32,  # noqa: F401
                     int64, uint8)
