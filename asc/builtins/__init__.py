"""The builtin layer: every function a kernel can call, declared once (asc/builtins/table.py says what a
declaration holds), and the tables other layers read, derived from the declarations (asc/builtins/queries.py).
Imports only the bottom layer."""
from .array import KernelArray, finite_stores  # noqa: F401
from .composites import INTERPRETER, InterpreterOps, IROps, SourceOps, gelu, relu, silu, softmax  # noqa: F401
from .math_functions import (abs_, ceil, cos, erf, exp, floor, log, maximum, minimum, pi, pow_, round_,  # noqa: F401
                   rsqrt, sigmoid, sin, sqrt, tanh)
from .predicates import isfinite, isinf, isnan, where  # noqa: F401
from .memory import (cast, empty, empty_like, full, global_buffer, load_2d, local_buffer, range_,  # noqa: F401
                     store_2d, zeros, zeros_like)
from .queries import (ascend_declarations, ascend_ops, ascend_tensor_scalar_ops, cpu_fused_templates,  # noqa: F401
                      composites, cpu_int_templates, cpu_scaled_templates, cpu_templates, derivative,
                      math_names, python_aliases, scaled_name)
from .reductions import matmul, max_, min_, sum_, transpose  # noqa: F401
from .table import (ADVANCED, BASIC, BINARY, BUILTINS, Ascend, Builtin, Cpu,  # noqa: F401
                    builtin)

MATH_NAMES = math_names()
