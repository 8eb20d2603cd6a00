"""The one table from asc's builtin math functions to the Ascend C vector API that computes them.

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

OPS = {
    "exp": {"api": "Exp", "args": 1, "tmp": False, "scalar_api": None, "cmp": None, "cost": 1},
    "log": {"api": "Ln", "args": 1, "tmp": False, "scalar_api": None, "cmp": None, "cost": 1},
    "sqrt": {"api": "Sqrt", "args": 1, "tmp": False, "scalar_api": None, "cmp": None, "cost": 1},
    "rsqrt": {"api": "Rsqrt", "args": 1, "tmp": False, "scalar_api": None, "cmp": None, "cost": 1},
    "abs": {"api": "Abs", "args": 1, "tmp": False, "scalar_api": None, "cmp": None, "cost": 1},
    "tanh": {"api": "Tanh", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 10},
    "erf": {"api": "Erf", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 12},
    "sigmoid": {"api": "Sigmoid", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 4},
    "sin": {"api": "Sin", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 12},
    "cos": {"api": "Cos", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 12},
    "floor": {"api": "Floor", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 2},
    "ceil": {"api": "Ceil", "args": 1, "tmp": True, "scalar_api": None, "cmp": None, "cost": 2},
    "maximum": {"api": "Max", "args": 2, "tmp": False, "scalar_api": "Maxs", "cmp": ">", "cost": 1},
    "minimum": {"api": "Min", "args": 2, "tmp": False, "scalar_api": "Mins", "cmp": "<", "cost": 1},
}

# derived from OPS (not a second table): the APIs that take a sharedTmpBuffer
TMP_APIS = frozenset(op["api"] for op in OPS.values() if op["tmp"])
