"""The scalar kind: the fallback, scalar code on one AI core reading GM with GetValue / SetValue, for what no
vector kind takes (with the reason and its line: a warning). Parts: ScalarPlan (plans.py), scalar_tiling
(budget.py), render_scalar (scalar_render.py), and its cost here."""
from __future__ import annotations

from ... import ir
from ...passes.cost import static_value
from .budget import scalar_tiling
from .cost_model import SCALAR_GM, Estimate, LAUNCH_US, Launch
from .plan_kind import Kind
from .plans import ScalarPlan
from .scalar_render import render_scalar


def scalar_cost(src, symbols: dict, launch: Launch):
    """SCALAR_GM cycles per GM access, one per arithmetic operation, from the loops' trip counts."""
    p = src.plan
    waves, _ = launch.cores()
    loads, ops = scalar_work(p.kernel, symbols)
    parts = {"scalar": (loads * SCALAR_GM + ops) / launch.clock}
    total = parts["scalar"] * waves + LAUNCH_US * 1e-6
    return Estimate(total, "scalar", launch.soc, launch.block_dim, parts, p.kind)


def scalar_work(k: ir.Kernel, symbols: dict):
    """(GM accesses, arithmetic operations) of the scalar fallback, from loop trip counts."""
    def walk(stmts, env):
        loads = ops = 0
        for s in stmts:
            if isinstance(s, ir.For):
                a, b, c = (static_value(x, env) for x in (s.start, s.stop, s.step))
                trips = len(range(int(a), int(b), int(c))) if None not in (a, b, c) and c else 1
                l2, o2 = walk(s.body, env)
                loads += trips * l2
                ops += trips * o2
            elif isinstance(s, (ir.While,)):
                l2, o2 = walk(s.body, env)
                loads, ops = loads + l2, ops + o2
            elif isinstance(s, ir.If):
                l1, o1 = walk(s.then, env)
                l2, o2 = walk(s.orelse, env)
                loads, ops = loads + max(l1, l2), ops + max(o1, o2)
            else:
                for e in ir.stmt_exprs(s):
                    if isinstance(e, ir.Load):
                        loads += 1
                    elif isinstance(e, (ir.Binary, ir.Unary, ir.Compare)):
                        ops += 1
                if isinstance(s, ir.Store):
                    loads += 1
        return loads, ops
    return walk(k.entry.body, dict(symbols))


KIND = Kind("scalar", ScalarPlan, scalar_tiling, render_scalar, scalar_cost,
            "scalar code on one AI core", fallback=True)
