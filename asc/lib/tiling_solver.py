"""The Matmul host tiling's solver: for one matmul problem (the shapes, the operands' positions, formats, types and
transposes, the budgets of the core's memories, the cores, and what the caller fixed), the TCubeTiling fields asc
chooses, and the rules a tiling must keep (`check_tiling`). Pure: no setters, no warnings, no platform lookups; the
pyasc-facing classes in asc/lib/host.py gather a Problem from their setters and call `solve`.

The algorithm is asc's own (docs/pyasc.md, "Host tiling"): a core split of M and N (and K when enabled) chosen by a
roofline estimate, base blocks in whole fractals chosen by the same estimate within L0A / L0B / L0C with ping-pong,
and L1 residency (steps and depths) within L1. Every tiling `solve` returns has passed `check_tiling`."""
from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd
from typing import Optional

from .. import chip
from ..ascendc.enums import TPosition
from ..ascendc.tiling import TCubeTiling
from .tiling_enums import CubeFormat, DataType, MatrixTraverse

# bytes per element of the Matmul operand types asc tiles
SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_BFLOAT16: 2,
        DataType.DT_INT8: 1, DataType.DT_INT32: 4}
UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


# ------------------------------------------------------------------ the operands and the budgets

@dataclass
class Operand:
    pos: TPosition = TPosition.GM
    fmt: CubeFormat = CubeFormat.ND
    dtype: DataType = DataType.DT_FLOAT
    trans: bool = False


class Infeasible(Exception):
    """No tiling: the reason (get_tiling's -1)."""


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _ceil(a, b) * b


def _c0(dtype: DataType) -> int:
    """Elements in 32 bytes: the inner side of a fractal (16 rows x 32 bytes)."""
    return chip.C0_BYTES // SIZE[dtype]


def alignments(a: Operand, b: Operand) -> tuple:
    """(M, N, K) granules asc's tilings use: a base block is whole fractals of every operand it feeds. M and N
    are the 16-row side of a fractal, or its 32-byte side (int8: 32) where that axis is the operand's inner one;
    K is the 32-byte side (float32: 8) only when it is the inner axis of both A (not transposed) and B
    (transposed), else also a multiple of 16."""
    c0 = _c0(a.dtype)
    m_al = c0 if a.trans and c0 > 16 else 16
    n_al = c0 if not b.trans and c0 > 16 else 16
    k_al = c0 if (not a.trans and b.trans) else max(16, c0)
    return m_al, n_al, k_al


@dataclass
class Budget:
    l1: int
    l0a: int
    l0b: int
    l0c: int
    ub: int
    bt: int


def block_bytes(t, a: Operand, b: Operand, bias: Optional[Operand]) -> dict:
    """The bytes each buffer of a tiling holds, with every block padded to whole fractals (what check_tiling and
    the tests compare against the budgets): l0a, l0b, l0c (with their ping-pong), l1 (A1 + B1 + the bias row),
    bt (the bias row in the BiasTable)."""
    m_al, n_al, k_al = alignments(a, b)
    sa, sb = SIZE[a.dtype], SIZE[b.dtype]
    bm, bn, bk = _align(t.base_m, m_al), _align(t.base_n, n_al), _align(t.base_k, k_al)
    a_blk, b_blk = bm * bk * sa, bn * bk * sb
    bias_row = t.base_n * SIZE[bias.dtype] if (t.is_bias and bias is not None) else 0
    l1 = 0 if a.pos == TPosition.TSCM else t.depth_a1 * a_blk
    l1 += 0 if b.pos == TPosition.TSCM else t.depth_b1 * b_blk
    if a.pos == TPosition.TSCM:
        l1 += _align(t.single_core_m, m_al) * _align(t.single_core_k, k_al) * sa
    if b.pos == TPosition.TSCM:
        l1 += _align(t.single_core_n, n_al) * _align(t.single_core_k, k_al) * sb
    return {"l0a": a_blk * t.db_l0a, "l0b": b_blk * t.db_l0b, "l0c": bm * bn * 4 * t.db_l0c,
            "l1": l1 + bias_row, "bt": bias_row}


def check_tiling(t, a: Operand, b: Operand, bias: Optional[Operand], budget: Budget, max_cores: int,
                 k_split: bool = False) -> list:
    """The rules a TCubeTiling breaks, as sentences (empty: valid). The budgets are those of block_bytes; the
    split rules: every one of used_core_num cores has work (used = ceil(M / single_core_m) * ceil(N /
    single_core_n) * ceil(K / single_core_k)), base blocks are whole fractals no larger than the core's block,
    depth_a1 = step_m * step_ka * (1 or 2), and K not resident in L1 loads one base block of M (N) at a time."""
    bad = []
    m_al, n_al, k_al = alignments(a, b)
    k_user = _c0(a.dtype)
    for f in ("m", "n", "k_a", "k_b", "single_core_m", "single_core_n", "single_core_k", "base_m", "base_n",
              "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "step_k_a", "step_k_b", "used_core_num"):
        if getattr(t, f) <= 0:
            bad.append(f"{f} = {getattr(t, f)} is not positive")
    if bad:
        return bad
    k = min(t.k_a, t.k_b)
    mb, nb, kb = _ceil(t.m, t.single_core_m), _ceil(t.n, t.single_core_n), _ceil(k, t.single_core_k)
    if kb > 1 and not k_split:
        bad.append(f"single_core_k = {t.single_core_k} < K = {k} without the multi-core K split")
    if t.used_core_num != mb * nb * kb:
        bad.append(f"used_core_num = {t.used_core_num}, but the split gives {mb} x {nb} x {kb} blocks")
    if t.used_core_num > max_cores:
        bad.append(f"used_core_num = {t.used_core_num} > {max_cores} cores")
    for f, al in (("base_m", m_al), ("base_n", n_al)):
        if getattr(t, f) % al:
            bad.append(f"{f} = {getattr(t, f)} is not a multiple of {al} (whole fractals)")
    if t.base_k % k_user:
        bad.append(f"base_k = {t.base_k} is not a multiple of {k_user} (32 bytes of {a.dtype.name})")
    for f, s, al in (("base_m", "single_core_m", m_al), ("base_n", "single_core_n", n_al),
                     ("base_k", "single_core_k", k_al)):
        if getattr(t, f) > _align(getattr(t, s), al):
            bad.append(f"{f} = {getattr(t, f)} exceeds {s} = {getattr(t, s)} (aligned to {al})")
    for f in ("db_l0a", "db_l0b", "db_l0c"):
        if getattr(t, f) not in (1, 2):
            bad.append(f"{f} = {getattr(t, f)} is neither 1 nor 2")
    if t.iterate_order not in (0, 1):
        bad.append(f"iterate_order = {t.iterate_order} is neither 0 nor 1")
    if t.is_bias not in (0, 1):
        bad.append(f"is_bias = {t.is_bias} is neither 0 nor 1")
    if bad:
        return bad
    use = block_bytes(t, a, b, bias)
    for key, cap in (("l0a", budget.l0a), ("l0b", budget.l0b), ("l0c", budget.l0c), ("l1", budget.l1),
                     ("bt", budget.bt)):
        if use[key] > cap:
            bad.append(f"{key.upper()}: {use[key]} bytes > {cap}")
    if t.trans_length > budget.ub:
        bad.append(f"UB: trans_length {t.trans_length} bytes > {budget.ub}")
    for depth, step, stepk in (("depth_a1", "step_m", "step_k_a"), ("depth_b1", "step_n", "step_k_b")):
        d, s = getattr(t, depth), getattr(t, step) * getattr(t, stepk)
        if d not in (s, 2 * s):
            bad.append(f"{depth} = {d} is not {step} * {stepk} (* 2)")
    kblocks = _ceil(t.single_core_k, t.base_k)
    if t.step_k_a < kblocks and t.step_m != 1:
        bad.append("K of A is not resident in L1 (step_ka * base_k < single_core_k), but step_m > 1")
    if t.step_k_b < kblocks and t.step_n != 1:
        bad.append("K of B is not resident in L1 (step_kb * base_k < single_core_k), but step_n > 1")
    ia, ib = _ceil(t.single_core_k, t.base_k * t.step_k_a), _ceil(t.single_core_k, t.base_k * t.step_k_b)
    if ia % ib and ib % ia:
        bad.append(f"the K loads of A ({ia}) and B ({ib}) are not multiples of one another")
    if t.step_m > _ceil(t.single_core_m, t.base_m) or t.step_n > _ceil(t.single_core_n, t.base_n):
        bad.append("step_m / step_n hold more base blocks than the core's block has")
    return bad


# ------------------------------------------------------------------ the cost estimate

@dataclass(frozen=True)
class Machine:
    hbm_bytes_per_cycle: float
    core_bytes_per_cycle: float = 128.0     # one core's GM -> L1 path (MTE2); an assumption, docs/pyasc.md
    l1_l0_bytes_per_cycle: float = 256.0    # L1 -> L0A/L0B (MTE1)
    block_overhead: int = 200               # cycles per base block: issue, sync, Fixpipe start


def _macs_per_cycle(a: Operand) -> int:
    """The cube unit does one 16 x c0 x 16 fractal product per cycle (c0: 16 float16, 8 float32, 32 int8)."""
    return 16 * 16 * _c0(a.dtype)


def _split_cycles(sm, sn, sk, used, m, n, k, a, b, c, mach: Machine, whole_chip: bool = True) -> float:
    """The roofline estimate of a core split: the slowest of one core's cube work (padded to fractals), one core's
    GM traffic (its A and B panels once, its C block) and the chip's HBM traffic (every byte once)."""
    m_al, n_al, k_al = alignments(a, b)
    compute = _align(sm, m_al) * _align(sn, n_al) * _align(sk, k_al) / _macs_per_cycle(a)
    sa, sb, sc = SIZE[a.dtype], SIZE[b.dtype], SIZE.get(c.dtype, 4)
    core = (sm * sk * sa + sk * sn * sb + sm * sn * sc) / mach.core_bytes_per_cycle
    hbm = (m * k * sa + k * n * sb + m * n * sc) / mach.hbm_bytes_per_cycle if whole_chip else 0.0
    return max(compute, core, hbm)


def _base_cycles(bm, bn, sm, sn, sk, a, b, mach: Machine) -> float:
    """One core's time for base blocks bm x bn: the cube work with the padding of the last blocks, or the L1 ->
    L0 traffic where that is slower (they overlap with ping-pong), plus a fixed cost per block."""
    m_al, n_al, k_al = alignments(a, b)
    blocks = _ceil(sm, bm) * _ceil(sn, bn)
    skp = _align(sk, k_al)
    compute = blocks * bm * bn * skp / _macs_per_cycle(a)
    move = blocks * (bm * SIZE[a.dtype] + bn * SIZE[b.dtype]) * skp / mach.l1_l0_bytes_per_cycle
    return max(compute, move) + blocks * mach.block_overhead


# ------------------------------------------------------------------ the problem

@dataclass(frozen=True)
class Problem:
    """One matmul to tile: m x n x k (a part of the original matrices `org` = (M, N, Ka, Kb), which the tiling's
    m, n, k_a, k_b report when `org_given`), the operands (bias None: no bias), the budgets, the machine, and the
    caller's limits: at most `cores` cores, `fixed` base_m / base_n / base_k and `single` single_core_m / n / k
    (-1: free), single-core sizes in multiples of `align`, K split over cores (`k_split`), the traversal, and the
    batch fields written through (batch_num, the layouts, batch_mn and single_batch)."""
    m: int
    n: int
    k: int
    org: tuple
    org_given: bool
    a: Operand
    b: Operand
    c: Operand
    bias: Optional[Operand]
    budget: Budget
    machine: Machine
    cores: int
    fixed: tuple = (-1, -1, -1)
    single: tuple = (-1, -1, -1)
    align: tuple = (1, 1, 1)
    k_split: bool = False
    traverse: MatrixTraverse = MatrixTraverse.NOSET
    batch_num: int = 0
    layouts: dict = field(default_factory=lambda: {"a": (0,) * 5, "b": (0,) * 5, "c": (0,) * 5})
    batch_mn: tuple = (1, 1)
    single_batch: tuple = (1, 1)


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


# ------------------------------------------------------------------ the search

def solve(p: Problem) -> tuple:
    """(the TCubeTiling fields, (used cores, m_dim, n_dim, k_dim)) of the fastest tiling by the estimate;
    Infeasible naming the reason when there is none."""
    m, n, k = p.m, p.n, p.k
    a, b, bias, budget, mach = p.a, p.b, p.bias, p.budget, p.machine
    m_al, n_al, k_al = alignments(a, b)
    fm, fn, fk = p.fixed
    (sm_fix, sn_fix, sk_fix), (am, an, ak), k_split = p.single, p.align, p.k_split
    for name, v, al in (("base_m_in", fm, m_al), ("base_n_in", fn, n_al)):
        if v != -1 and v % al:
            raise Infeasible(f"set_fix_split: {name} = {v} is not a multiple of {al} (whole fractals)")
    if fk != -1 and fk % _c0(a.dtype):
        raise Infeasible(f"set_fix_split: base_k_in = {fk} is not a multiple of {_c0(a.dtype)} "
                         f"(32 bytes of {a.dtype.name})")
    # the core split: every (m_dim, n_dim, k_dim) within the cores, each block rounded up to its granule
    gm = _lcm(m_al if fm == -1 else fm, am)
    gn = _lcm(n_al if fn == -1 else fn, an)
    gk = _lcm(k_al if fk == -1 else fk, ak)
    cands = {}
    cores = p.cores
    for md in range(1, min(cores, _ceil(m, 16)) + 1):
        sm = min(sm_fix if sm_fix != -1 else _align(_ceil(m, md), gm), m)
        for nd in range(1, cores // md + 1):
            sn = min(sn_fix if sn_fix != -1 else _align(_ceil(n, nd), gn), n)
            for kd in (range(1, cores // (md * nd) + 1) if k_split else (1,)):
                sk = min(sk_fix if sk_fix != -1 else (k if kd == 1 else _align(_ceil(k, kd), gk)), k)
                used = _ceil(m, sm) * _ceil(n, sn) * _ceil(k, sk)
                if used <= cores:
                    cands[(sm, sn, sk)] = used
    if not cands:
        raise Infeasible(f"set_single_shape: the single-core shape needs more than the {cores} cores")
    # the fastest by the roofline estimate; within 1% of it: no tails, then the fastest core (its own work and
    # traffic, without the chip's HBM bound), then fewer cores
    scored = []
    for (sm, sn, sk), used in cands.items():
        t = _split_cycles(sm, sn, sk, used, m, n, k, a, b, p.c, mach)
        core = _split_cycles(sm, sn, sk, used, m, n, k, a, b, p.c, mach, whole_chip=False)
        tails = (m % sm != 0) + (n % sn != 0) + (k % sk != 0)
        scored.append((t, tails, core, used, (sm, sn, sk)))
    fastest = min(x[0] for x in scored)
    pick = min((x[1:] for x in scored if x[0] <= fastest * 1.01))[-1]
    sm, sn, sk = pick
    used = cands[pick]
    base = _bases(p, sm, sn, sk)
    fields = _fields(p, sm, sn, sk, used, base)
    t = TCubeTiling(**fields)
    bad = check_tiling(t, a, b, bias, budget, cores, k_split)
    if bad:     # asc's own choices always pass; a fixed split or single shape may not
        raise Infeasible("the tiling breaks " + "; ".join(bad) + " (set_fix_split / set_single_shape)")
    dims = (used, _ceil(m, sm), _ceil(n, sn), _ceil(k, sk))
    return fields, dims


def _bases(p: Problem, sm, sn, sk):
    """(base_m, base_n, base_k, db_l0a, db_l0b, db_l0c): the fastest bm x bn by _base_cycles that fits L0C
    (and the BiasTable), with the largest base_k that fits L0A and L0B with ping-pong, split evenly over K."""
    a, b, bias, budget, mach = p.a, p.b, p.bias, p.budget, p.machine
    m_al, n_al, k_al = alignments(a, b)
    fm, fn, fk = p.fixed
    sa, sb = SIZE[a.dtype], SIZE[b.dtype]
    bt_cap = budget.bt // SIZE[bias.dtype] if bias is not None else 1 << 30
    ms = [fm] if fm != -1 else range(m_al, min(_align(sm, m_al), 1024) + 1, m_al)
    ns = [fn] if fn != -1 else range(n_al, min(_align(sn, n_al), 1024, bt_cap) + 1, n_al)
    skp = _align(sk, k_al)
    best = None
    for bm in ms:
        for bn in ns:
            if bm * bn * 4 > budget.l0c:
                continue
            kb = _base_k(bm, bn, skp, sa, sb, k_al, budget, fk)
            if kb is None:
                continue
            cost = _base_cycles(bm, bn, sm, sn, sk, a, b, mach)
            key = (cost, -(bm * bn), abs(bm - bn))
            if best is None or key < best[0]:
                best = (key, (bm, bn) + kb)
    if best is None:
        raise Infeasible(f"no base block fits L0A {budget.l0a} B / L0B {budget.l0b} B / L0C {budget.l0c} B"
                         + (" with set_fix_split's values" if tuple(p.fixed) != (-1, -1, -1) else ""))
    bm, bn, bk, dba, dbb = best[1]
    dbc = 2 if bm * bn * 4 * 2 <= budget.l0c else 1
    return bm, bn, bk, dba, dbb, dbc


def _base_k(bm, bn, skp, sa, sb, k_al, budget, fk):
    """(base_k, db_l0a, db_l0b), ping-pong where it fits."""
    for db in (2, 1):
        if fk != -1:
            bk_pad = _align(fk, k_al)
            if bm * bk_pad * sa * db <= budget.l0a and bn * bk_pad * sb * db <= budget.l0b:
                return fk, db, db
            continue
        cap = min(budget.l0a // (bm * sa * db), budget.l0b // (bn * sb * db), skp)
        cap -= cap % k_al
        if cap >= k_al:
            count = _ceil(skp, cap)
            return _align(_ceil(skp, count), k_al), db, db
    return None


def _fields(p: Problem, sm, sn, sk, used, base) -> dict:
    """The TCubeTiling fields of a split and its base blocks: L1 steps and depths (ping-pong first, then the
    fewest K loads; with K resident, more base blocks of M and N while they fit), the order, the UB transfers."""
    m, n, k, org = p.m, p.n, p.k, p.org
    a, b, bias, budget = p.a, p.b, p.bias, p.budget
    bm, bn, bk, dba, dbb, dbc = base
    m_al, n_al, k_al = alignments(a, b)
    sa, sb = SIZE[a.dtype], SIZE[b.dtype]
    a_blk, b_blk = _align(bm, m_al) * _align(bk, k_al) * sa, _align(bn, n_al) * _align(bk, k_al) * sb
    bias_row = bn * SIZE[bias.dtype] if bias is not None else 0
    room = budget.l1 - bias_row
    if a.pos == TPosition.TSCM:
        room -= _align(sm, m_al) * _align(sk, k_al) * sa
    if b.pos == TPosition.TSCM:
        room -= _align(sn, n_al) * _align(sk, k_al) * sb
    ua = 0 if a.pos == TPosition.TSCM else a_blk
    ub_ = 0 if b.pos == TPosition.TSCM else b_blk
    kblocks, mblocks, nblocks = _ceil(sk, bk), _ceil(sm, bm), _ceil(sn, bn)
    steps = None
    for db in (2, 1):           # L1 ping-pong first, then the fewest K loads, balanced
        fits = [x for x in range(kblocks, 0, -1) if db * x * (ua + ub_) <= room]
        if fits:
            loads = _ceil(kblocks, fits[0])
            steps = (db, _ceil(kblocks, loads))
            break
    db1, stepk = steps
    step_m = step_n = 1
    if stepk == kblocks:        # K resident: keep more base blocks of M and N in L1 while they fit
        grown = True
        while grown:
            grown = False
            for side in ("m", "n"):
                nm, nn = step_m + (side == "m"), step_n + (side == "n")
                if nm > mblocks or nn > nblocks:
                    continue
                if db1 * stepk * (nm * ua + nn * ub_) <= room:
                    step_m, step_n, grown = nm, nn, True
    if p.traverse == MatrixTraverse.FIRSTM:
        order = 0
    elif p.traverse == MatrixTraverse.FIRSTN:
        order = 1
    else:                       # keep the larger block in L1 while the other side moves
        order = 1 if bm * sa > bn * sb else 0
    trans = 0
    for op, blk in ((a, bm * bk * sa), (b, bn * bk * sb)):
        if op.pos in UB_POSITIONS:
            trans = max(trans, blk)
    if bias is not None and bias.pos in UB_POSITIONS:
        trans = max(trans, bias_row)
    if trans > budget.ub:
        raise Infeasible(f"UB: an operand block in UB ({trans} bytes) exceeds {budget.ub} bytes")
    l1_used = db1 * stepk * (step_m * ua + step_n * ub_) + (budget.l1 - room)
    f = dict(used_core_num=used, m=m if not p.org_given else org[0], n=n if not p.org_given else org[1],
             k_a=k if not p.org_given else org[2], k_b=k if not p.org_given else org[3],
             single_core_m=sm, single_core_n=sn, single_core_k=sk, base_m=bm, base_n=bn, base_k=bk,
             depth_a1=db1 * stepk * step_m, depth_b1=db1 * stepk * step_n, step_m=step_m, step_n=step_n,
             is_bias=int(bias is not None), trans_length=trans, iterate_order=order, share_mode=0,
             share_l1_size=l1_used, share_l0c_size=bm * bn * 4 * dbc, share_ub_size=trans,
             step_k_a=stepk, step_k_b=stepk, depth_a_l1_cache_ub=0, depth_b_l1_cache_ub=0,
             db_l0a=dba, db_l0b=dbb, db_l0c=dbc, batch_num=p.batch_num)
    for key, names in (("a", ("b", "s", "n", "g", "d")), ("b", ("b", "s", "n", "g", "d")),
                       ("c", ("b", "s1", "n", "g", "s2"))):
        for nm, v in zip(names, p.layouts[key]):
            f[f"{key}_layout_info_{nm}"] = v
    # CANN's tilings start batchM, batchN, singleBatchM and singleBatchN at 1 (MatmulApiTilingBase's
    # constructors) and write them into every TCubeTiling; so does this one
    bm_, bn_ = p.batch_mn
    sbm, sbn = p.single_batch
    f.update(batch_m=bm_, batch_n=bn_, single_batch_m=sbm, single_batch_n=sbn)
    return f
