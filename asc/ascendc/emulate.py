"""ASC_DEBUG=1: a pyasc kernel runs as Python over a NumPy emulation of the API (print() and breakpoint() work).
Not built yet: this module says so clearly."""
from __future__ import annotations

from ..errors import UnsupportedError


def call(a, args, kwargs):
    raise UnsupportedError(f"asc.{a.name} is the Ascend C API: call it inside an @asc.jit function")


def run(jf, core_num, args, kwargs):
    raise UnsupportedError(f"ASC_DEBUG=1 (the NumPy emulation of pyasc kernels) is not available yet for "
                           f"{jf.fn.__name__!r}; unset ASC_DEBUG to run it on the CPU twin")
