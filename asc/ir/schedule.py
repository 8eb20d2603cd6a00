"""Schedule annotations: how a target runs a loop, decided by a pass and only rendered by the backend.

A loop's `schedule` (ir.For.schedule) is None until a target's passes decide something about it. It changes how the
loop is run, never what it computes: the element values are those of the plain loop. The cpu target's passes set:

- `blocked` (asc/passes/cpu_blocks.py): the element loop runs in blocks of `size` iterations over small buffers,
  float16 accesses converted a block at a time, large write-only outputs possibly streamed past the cache;
- `prefetch` (asc/passes/cpu_prefetch.py): the last element pass of a row loop runs in chunks, each first asking
  for the same columns of the next row of the row loop's inputs;
- `split` (asc/passes/reduce_split.py): a parallel reduction is reduced in fixed blocks of `split` iterations, one
  partial each, combined in block order (the same bits for every thread count);
- `lanes` (asc/passes/reduce_lanes.py): a vectorized reduction keeps `lanes` partial results per accumulator,
  iteration i adding into partial i mod `lanes`, combined by a fixed tree (independent chains of vector adds, and
  the same bits on every instruction set);
- `ahead` (asc/passes/prefetch_ahead.py): a blocked loop or a lanes reduction asks for its contiguous loads some
  iterations before it reads them (the hardware's prefetcher alone leaves a compute-heavy loop waiting on memory).

ir.format_kernel prints them beside the loop's kind, e.g. `[simd; blocked 512 (load x[i] f16, store out[i] f16)]`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from .nodes import Expr, Var
from .types import TensorType


@dataclass(frozen=True)
class BlockedAccess:
    """One tensor access of a blocked loop, by its tensor and indices as written (in terms of the loop variable)."""
    tensor: Var
    indices: tuple
    store: bool
    stream: bool = False    # a store that may stream past the cache (decided at run time by the output's size)

    @property
    def half(self) -> bool:
        """A float16 access: converted a block at a time."""
        return isinstance(self.tensor.type, TensorType) and self.tensor.type.dtype.name == "float16"

    @property
    def bf16(self) -> bool:
        """A bfloat16 access: converted a block at a time."""
        return isinstance(self.tensor.type, TensorType) and self.tensor.type.dtype.name == "bfloat16"

    @property
    def converted(self) -> bool:
        """A 16-bit float access (float16 or bfloat16): its block buffer holds float32."""
        return self.half or self.bf16


@dataclass(frozen=True)
class Blocked:
    size: int               # iterations per block
    accesses: tuple         # of BlockedAccess, one per distinct (tensor, indices), in the order found


@dataclass(frozen=True)
class Ahead:
    """Each block (of a blocked loop) or group of lanes (of a lanes reduction) first asks for the elements that its
    contiguous `loads` will read `iterations` iterations later."""
    loads: tuple            # ((tensor Var, indices), ...): loads whose last index is the loop variable plus a constant
    iterations: int


@dataclass(frozen=True)
class Prefetch:
    """This loop, a pass of row loop `row`, runs in chunks of `chunk` iterations; each chunk first asks for the same
    columns of row `row + 1` (when `row + 1 < stop`) of each tensor in `loads`."""
    chunk: int
    row: Var                # the row loop's variable
    stop: Expr              # the row loop's bound
    loads: tuple            # ((tensor Var, (row index, column index)), ...): one per input tensor


@dataclass(frozen=True)
class Schedule:
    blocked: Optional[Blocked] = None
    prefetch: Optional[Prefetch] = None
    split: Optional[int] = None     # a parallel reduction: iterations per partial
    lanes: Optional[int] = None     # a vectorized reduction: partial results per accumulator
    ahead: Optional[Ahead] = None   # a blocked loop or lanes reduction: loads prefetched ahead


def scheduled(loop, **changes):
    """`loop` (an ir.For) with the given fields of its schedule changed; the schedule is None when nothing is left."""
    s = replace(loop.schedule or Schedule(), **changes)
    return replace(loop, schedule=None if s == Schedule() else s)
