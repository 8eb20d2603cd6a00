"""The one table from asc's builtin math functions to the Ascend C vector API that computes them, made from the
builtin declarations (asc/builtins/math_functions.py: `ascend=Ascend(api, form, tensor_scalar, cost)`).

Every path that lowers a builtin call reads it: the map path (a call on tiles, or on a loop-invariant scalar
broadcast to a tile), the row path (math on a per-row scalar, as an 8-element vector instruction) and the cost
model. A builtin that is not here has no vector lowering on the ascend target.

Per builtin:
- "api": the Ascend C function of the vector form (count form: dst, src..., count);
- "args": how many operands the builtin takes;
- "tmp": an advanced math API that takes a sharedTmpBuffer (`api(dst, src, tmp, count)`);
- "scalar_api": the tensor-scalar form for a loop-invariant second operand (two-operand builtins), else None;
- "cmp": the C comparison that picks the result in scalar code (maximum / minimum), else None;
- "cost": the cost model's price, in basic vector instructions (docs/ascend.md, "Estimated NPU time").
"""
from __future__ import annotations

from ...builtins import ADVANCED, ascend_declarations

_CMP = {"maximum": ">", "minimum": "<"}        # the comparison scalar code picks a two-operand result with

OPS = {name: {"api": a.api, "args": arity, "tmp": a.form == ADVANCED, "scalar_api": a.tensor_scalar,
              "cmp": _CMP.get(name), "cost": a.cost or 1}
       for name, (arity, a) in ascend_declarations().items()}

# derived from OPS (not a second table): the APIs that take a sharedTmpBuffer
TMP_APIS = frozenset(op["api"] for op in OPS.values() if op["tmp"])
