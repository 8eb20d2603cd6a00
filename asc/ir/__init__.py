"""The typed IR. It imports no other layer of asc."""
from .types import *  # noqa: F401,F403
from .types import DType, ScalarType, TensorType, TupleType, NoneType, Sym, promote, promote_dtypes, unify  # noqa: F401
from .nodes import *  # noqa: F401,F403
from .schedule import Blocked, BlockedAccess, Prefetch, Schedule, scheduled  # noqa: F401
from .tensor import *  # noqa: F401,F403
from .printer import format_kernel  # noqa: F401
