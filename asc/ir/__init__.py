"""The typed IR. It imports no other layer of asc.

The types (asc/ir/types.py) load with the package; the nodes, the schedules, the tensor statements and the printer
load at the first use of one of their names (`ir.Kernel`, `from asc.ir import Binary`), with the same names as
before: `import asc.language` needs only the types, and each of their ~50 dataclasses costs about a millisecond to
create (docs/architecture.md, "Import time")."""
import importlib as _importlib

from .types import *  # noqa: F401,F403
from .types import DType, ScalarType, TensorType, TupleType, NoneType, Sym, promote, promote_dtypes, unify  # noqa: F401

_SUBMODULES = ("nodes", "schedule", "tensor", "printer")
# what each submodule gives the package: all its public names (as `from .x import *`), or the names listed
_EXPORTS = (("nodes", None), ("schedule", ("Ahead", "Blocked", "BlockedAccess", "Prefetch", "Schedule", "scheduled")),
            ("tensor", None), ("printer", ("format_kernel",)))


def _load() -> None:
    g = globals()
    for sub, names in _EXPORTS:
        m = _importlib.import_module(f"{__name__}.{sub}")
        if names is None:
            names = getattr(m, "__all__", None) or [k for k in vars(m) if not k.startswith("_")]
        for k in names:
            g[k] = getattr(m, k)


def __getattr__(name: str):
    if name in _SUBMODULES:     # (`from . import nodes` asks the package first: no _load, which would recurse)
        return _importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("__"):
        _load()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    _load()
    return sorted(globals())
