"""SPMD kernels: `@lang.parallel(num_workers=n)`, `lang.distributed_range`, `lang.allreduce`, `lang.worker_id`,
`lang.num_workers` (the rewrite is in asc/frontend/spmd.py)."""
from __future__ import annotations

from ..errors import UnsupportedError
from .decorators import kernel
from .options import Options


def parallel(fn=None, *, num_workers: int | None = None, **options):
    """Decorator: the kernel body runs once per worker (SPMD), `num_workers` of them (default: the thread count).
    `lang.distributed_range(n)` gives each worker its contiguous chunk of a range, `lang.worker_id()` and
    `lang.num_workers()` say which worker and how many, and `return lang.allreduce(x, op="sum")` combines the
    workers' per-worker tensor x in worker order (the same bits on every run). A tensor the kernel allocates is
    private to each worker unless it is returned directly. Other options as @lang.kernel.

        @lang.parallel(num_workers=4)
        def parallel_sum(arr: lang.float32[1024]) -> lang.float32:
            local_sum = lang.zeros(1, dtype=lang.float32)
            for i in lang.distributed_range(1024):
                local_sum[0] += arr[i]
            return lang.allreduce(local_sum)
    """
    Options(**options)

    def make(f):
        from .. import environment as config
        from ..frontend.spmd import spmd_function
        n = num_workers if num_workers is not None else config.config.num_threads
        k = kernel(**options)(spmd_function(f, n))
        k.num_workers = n
        return k
    if fn is not None:
        if not callable(fn):
            raise TypeError("use @lang.parallel or @lang.parallel(num_workers=n)")
        return make(fn)
    return make


def _outside(name):
    def f(*args, **kwargs):
        raise UnsupportedError(f"lang.{name} is only available inside a @lang.parallel kernel")
    f.__name__ = name
    f.__doc__ = "Inside a @lang.parallel kernel (see lang.parallel)."
    return f


distributed_range = _outside("distributed_range")
allreduce = _outside("allreduce")
worker_id = _outside("worker_id")
num_workers = _outside("num_workers")
