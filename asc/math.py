"""Math functions for kernels: `from asc.math import erf, sqrt`. The same objects as `lang.exp`, `lang.erf`, ..."""
from .builtins import (ceil, cos, erf, exp, floor, log, maximum, minimum, pi, rsqrt, sigmoid,  # noqa: F401
                                sin, sqrt, tanh)
from .builtins import abs_ as abs, pow_ as pow  # noqa: F401
from .builtins import isfinite, isinf, isnan  # noqa: F401
