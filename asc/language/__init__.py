"""The asc kernel language: `import asc.language as lang`. Re-exports only: the decorators (asc.dispatch), the builtin
table (asc.builtins), the dtypes (asc.dtypes), SPMD (asc.dispatch.parallel), vectorize and the profiler."""
from ..builtins import (BUILTINS, cast, ceil, cos, empty, empty_like, erf, exp, floor, full, log, maximum,  # noqa: F401
                        minimum, pi, rsqrt, sigmoid, sin, sqrt, tanh, zeros, zeros_like)
from ..builtins import abs_ as abs, pow_ as pow, range_ as range, round_ as round  # noqa: F401
from ..builtins import isfinite, isinf, isnan, where  # noqa: F401
from ..builtins import (gelu, global_buffer, load_2d, local_buffer, matmul, relu, silu, softmax,  # noqa: F401
                        store_2d, transpose)
from ..builtins import max_ as max, min_ as min, sum_ as sum  # noqa: F401
from ..dtypes import (Dim, Tensor, bfloat16, bool_, dim, float16, float32, float64, int8, int16, int32,  # noqa: F401
                      int64, uint8)
from ..dispatch import (cube_kernel, disable_memory_check, disable_numeric_check, enable_memory_check,  # noqa: F401
                   enable_numeric_check, func, fused_kernel, kernel)
from ..dispatch.parallel import allreduce, distributed_range, num_workers, parallel, worker_id  # noqa: F401
from ..dispatch.vectorize import vectorize  # noqa: F401
from ..tools.profiler import profiler  # noqa: F401
