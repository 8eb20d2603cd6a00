"""pyasc's host tiling library (`import asc.lib.host as host`): the Matmul tiling classes (MatmulApiTiling,
MultiCoreMatmulTiling, BatchMatmulTiling), the platform they budget against (`get_ascendc_platform()`), their
enumerations, and TCubeTiling, the structure they fill and a kernel reads.

The tiling algorithm is asc's own (docs/pyasc.md, "Host tiling"): a core split of M and N (and K when
enabled) chosen by a roofline estimate, base blocks in whole fractals chosen by the same estimate within L0A / L0B /
L0C with ping-pong, and L1 residency (steps and depths) within L1. Every tiling get_tiling returns is checked
against those budgets (`check_tiling`) before it is written.

As in pyasc, the setters and get_tiling return 0 on success and -1 on failure; a failure also issues a
TilingWarning naming the call and the argument ("MatmulApi Tiling: set_shape: m must be ...") and is kept in
`tiling.error`. An argument of the wrong kind (a string for a size, a torch dtype for a host.DataType) is a
TypeError naming it."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from ..ascendc import dtypes as _kdt
from ..ascendc.enums import TPosition
from ..ascendc.tiling import TCubeTiling

__all__ = ["BatchMatmulTiling", "CoreMemType", "CubeFormat", "DataType", "DequantType", "MatmulApiTiling",
           "MatmulApiTilingBase", "MatmulConfigParams", "MatrixMadType", "MatrixTraverse", "MultiCoreMatmulTiling",
           "PlatformAscendC", "PlatformAscendCManager", "ScheduleType", "TCubeTiling", "TPosition",
           "TilingWarning", "check_tiling", "get_ascendc_platform"]


class TilingWarning(UserWarning):
    """A host tiling call that returned -1: the message names the call and the argument."""


# ------------------------------------------------------------------ enumerations (matmul_tiling's, same values)

class CubeFormat(Enum):
    """The data format of a Matmul operand."""
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 0          # an alias of ND
    COLUMN_MAJOR = 8


class DataType(Enum):
    """The data types of matmul_tiling (ge::DataType values)."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_BFLOAT16 = 33
    DT_MAX = 40


class MatrixTraverse(Enum):
    """The order of a core's base blocks: M first (FIRSTM) or N first (FIRSTN); NOSET lets the tiling choose."""
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(Enum):
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(Enum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(Enum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


class CoreMemType(Enum):
    """The memories PlatformAscendC.get_core_mem_size reports."""
    L0_A = 0
    L0_B = 1
    L0_C = 2
    L1 = 3
    L2 = 4
    UB = 5
    HBM = 6


# bytes per element of the Matmul operand types asc tiles; the rest of DataType is refused by name
_SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_BFLOAT16: 2,
         DataType.DT_INT8: 1, DataType.DT_INT32: 4}
_INPUT_TYPES = (DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_BFLOAT16, DataType.DT_FLOAT, DataType.DT_INT8)
_BF16 = (DataType.DT_BF16, DataType.DT_BFLOAT16)
# the C (output) types per input type (Fixpipe converts the float32 / int32 accumulator)
_C_TYPES = {"float": (DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_BFLOAT16),
            "int8": (DataType.DT_INT32, DataType.DT_FLOAT16, DataType.DT_INT8, DataType.DT_BF16,
                     DataType.DT_BFLOAT16)}
_BIAS_TYPES = {"float": (DataType.DT_FLOAT, DataType.DT_FLOAT16, DataType.DT_BF16, DataType.DT_BFLOAT16),
               "int8": (DataType.DT_INT32,)}
# asc's kernel data types (asc.float16, ...) are taken where a host.DataType is expected
_FROM_KERNEL = {"float32": DataType.DT_FLOAT, "float16": DataType.DT_FLOAT16, "bfloat16": DataType.DT_BF16,
                "int8": DataType.DT_INT8, "int32": DataType.DT_INT32}
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)
_AB_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC, TPosition.TSCM)
_C_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC, TPosition.CO1)
_BIAS_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


# ------------------------------------------------------------------ platform

class PlatformAscendC:
    """The SoC a tiling is computed for: its core counts and the sizes of its memories (asc.backends.ascend.soc)."""

    def __init__(self, soc_version=None):
        from ..backends.ascend import soc
        from ..runtime import config
        if soc_version is None:
            soc_version = config.state.platform
        name = soc_version.value if isinstance(soc_version, Enum) else soc_version
        if not isinstance(name, str):
            raise TypeError(f"PlatformAscendC: soc_version is a SoC name such as 'Ascend910B1', got {soc_version!r}")
        info = soc.soc_info(name)      # ValueError naming the known SoCs
        self.soc_version = next(k for k in soc.SOCS if k.lower() == name.lower())
        self._aic, self._aiv = info["aic"], info["aiv"]
        self._mem = {CoreMemType.L0_A: soc.L0A_BYTES, CoreMemType.L0_B: soc.L0B_BYTES,
                     CoreMemType.L0_C: soc.L0C_BYTES, CoreMemType.L1: soc.L1_BYTES, CoreMemType.UB: soc.UB_BYTES,
                     CoreMemType.L2: 192 * 1024 * 1024, CoreMemType.HBM: 64 * 1024 ** 3}
        self.l1_reserved, self.bt_size = soc.L1_RESERVED, soc.BT_BYTES
        self.clock_ghz, self.hbm_gbs = info["clock_ghz"], info["hbm_gbs"]

    def get_soc_version(self) -> str:
        return self.soc_version

    def get_core_num(self) -> int:
        """The cores a kernel may launch on (the vector cores on the 910B's split AIC/AIV architecture)."""
        return self._aiv

    def get_core_num_aic(self) -> int:
        return self._aic

    def get_core_num_aiv(self) -> int:
        return self._aiv

    def get_core_mem_size(self, mem_type: CoreMemType) -> int:
        if not isinstance(mem_type, CoreMemType):
            raise TypeError(f"get_core_mem_size: mem_type is a host.CoreMemType, got {mem_type!r}")
        return self._mem[mem_type]

    def __repr__(self) -> str:
        return f"<asc.lib.host.PlatformAscendC {self.soc_version}: {self._aic} AIC, {self._aiv} AIV>"


class PlatformAscendCManager:
    """pyasc's PlatformAscendCManager.get_instance([soc_version]): one PlatformAscendC per SoC."""
    _instances: dict = {}

    @staticmethod
    def get_instance(soc_version=None) -> PlatformAscendC:
        p = PlatformAscendC(soc_version)
        return PlatformAscendCManager._instances.setdefault(p.soc_version, p)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the current SoC (asc.lib.runtime.get_soc_version(); Ascend910B1 by default)."""
    from . import runtime
    return PlatformAscendCManager.get_instance(runtime.get_soc_version())


@dataclass
class MatmulConfigParams:
    """The MatmulConfig facts a tiling must agree with (pyasc's host.MatmulConfigParams)."""
    mm_config_type: int = 1
    enable_l1_cache_ub: bool = False
    schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT
    traverse: MatrixTraverse = MatrixTraverse.NOSET
    en_vec_nd2nz: bool = False


# ------------------------------------------------------------------ the problem and the budgets

@dataclass
class _Operand:
    pos: TPosition = TPosition.GM
    fmt: CubeFormat = CubeFormat.ND
    dtype: DataType = DataType.DT_FLOAT
    trans: bool = False


class _Failure(Exception):
    """get_tiling's reason for -1."""


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _ceil(a, b) * b


def _c0(dtype: DataType) -> int:
    """Elements in 32 bytes: the inner side of a fractal (16 rows x 32 bytes)."""
    return 32 // _SIZE[dtype]


def alignments(a: _Operand, b: _Operand) -> tuple:
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
class _Budget:
    l1: int
    l0a: int
    l0b: int
    l0c: int
    ub: int
    bt: int


def block_bytes(t, a: _Operand, b: _Operand, bias: Optional[_Operand]) -> dict:
    """The bytes each buffer of a tiling holds, with every block padded to whole fractals (what check_tiling and
    the tests compare against the budgets): l0a, l0b, l0c (with their ping-pong), l1 (A1 + B1 + the bias row),
    bt (the bias row in the BiasTable)."""
    m_al, n_al, k_al = alignments(a, b)
    sa, sb = _SIZE[a.dtype], _SIZE[b.dtype]
    bm, bn, bk = _align(t.base_m, m_al), _align(t.base_n, n_al), _align(t.base_k, k_al)
    a_blk, b_blk = bm * bk * sa, bn * bk * sb
    bias_row = t.base_n * _SIZE[bias.dtype] if (t.is_bias and bias is not None) else 0
    l1 = 0 if a.pos == TPosition.TSCM else t.depth_a1 * a_blk
    l1 += 0 if b.pos == TPosition.TSCM else t.depth_b1 * b_blk
    if a.pos == TPosition.TSCM:
        l1 += _align(t.single_core_m, m_al) * _align(t.single_core_k, k_al) * sa
    if b.pos == TPosition.TSCM:
        l1 += _align(t.single_core_n, n_al) * _align(t.single_core_k, k_al) * sb
    return {"l0a": a_blk * t.db_l0a, "l0b": b_blk * t.db_l0b, "l0c": bm * bn * 4 * t.db_l0c,
            "l1": l1 + bias_row, "bt": bias_row}


def check_tiling(t, a: _Operand, b: _Operand, bias: Optional[_Operand], budget: _Budget, max_cores: int,
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
class _Machine:
    hbm_bytes_per_cycle: float
    core_bytes_per_cycle: float = 128.0     # one core's GM -> L1 path (MTE2); an assumption, docs/pyasc.md
    l1_l0_bytes_per_cycle: float = 256.0    # L1 -> L0A/L0B (MTE1)
    block_overhead: int = 200               # cycles per base block: issue, sync, Fixpipe start


def _macs_per_cycle(a: _Operand) -> int:
    """The cube unit does one 16 x c0 x 16 fractal product per cycle (c0: 16 float16, 8 float32, 32 int8)."""
    return 16 * 16 * _c0(a.dtype)


def _split_cycles(sm, sn, sk, used, m, n, k, a, b, c, mach: _Machine, chip: bool = True) -> float:
    """The roofline estimate of a core split: the slowest of one core's cube work (padded to fractals), one core's
    GM traffic (its A and B panels once, its C block) and the chip's HBM traffic (every byte once)."""
    m_al, n_al, k_al = alignments(a, b)
    compute = _align(sm, m_al) * _align(sn, n_al) * _align(sk, k_al) / _macs_per_cycle(a)
    sa, sb, sc = _SIZE[a.dtype], _SIZE[b.dtype], _SIZE.get(c.dtype, 4)
    core = (sm * sk * sa + sk * sn * sb + sm * sn * sc) / mach.core_bytes_per_cycle
    hbm = (m * k * sa + k * n * sb + m * n * sc) / mach.hbm_bytes_per_cycle if chip else 0.0
    return max(compute, core, hbm)


def _base_cycles(bm, bn, sm, sn, sk, a, b, mach: _Machine) -> float:
    """One core's time for base blocks bm x bn: the cube work with the padding of the last blocks, or the L1 ->
    L0 traffic where that is slower (they overlap with ping-pong), plus a fixed cost per block."""
    m_al, n_al, k_al = alignments(a, b)
    blocks = _ceil(sm, bm) * _ceil(sn, bn)
    skp = _align(sk, k_al)
    compute = blocks * bm * bn * skp / _macs_per_cycle(a)
    move = blocks * (bm * _SIZE[a.dtype] + bn * _SIZE[b.dtype]) * skp / mach.l1_l0_bytes_per_cycle
    return max(compute, move) + blocks * mach.block_overhead


# ------------------------------------------------------------------ the tiling classes

def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) or type(x).__module__ == "numpy" and hasattr(x, "dtype") \
        and x.dtype.kind in "iu"


class MatmulApiTilingBase:
    """The setters and get_tiling common to the three tiling classes."""

    _batch = False

    def __init__(self, ascendc_platform: Optional[PlatformAscendC] = None):
        if ascendc_platform is None:
            ascendc_platform = get_ascendc_platform()
        if not isinstance(ascendc_platform, PlatformAscendC):
            raise TypeError(f"{type(self).__name__}: ascendc_platform is a host.PlatformAscendC "
                            f"(host.get_ascendc_platform()), got {ascendc_platform!r}")
        self.platform = ascendc_platform
        self.a, self.b = _Operand(), _Operand()
        self.c, self.bias = _Operand(), _Operand()
        self.shape = [-1, -1, -1]            # m, n, k of this matmul (-1: the original's)
        self.org = [-1, -1, -1, -1]          # M, N, Ka, Kb of the original matrices
        self.is_bias = False
        self.fixed = [-1, -1, -1]            # set_fix_split
        self.space = [-1, -1, -1, -1]        # set_buffer_space: l1, l0c, ub, bt
        self.traverse = MatrixTraverse.NOSET
        self.mad_type = MatrixMadType.NORMAL
        self.dequant_type = DequantType.SCALAR
        self.double_buffer = (False, False, False, False, True, True)
        self.config = MatmulConfigParams()
        self.sparse = False
        self.layouts = {"a": (0,) * 5, "b": (0,) * 5, "c": (0,) * 5}
        self.batch_num = 0
        self.errors: list = []               # the setters' failures, reported again by get_tiling
        self.error: Optional[str] = None     # the last failure
        self.result: Optional[dict] = None   # the last tiling's fields and split
        self.dims = None                     # (used, m_dim, n_dim, k_dim) after get_tiling

    # -------------------------------------------------------------- failures

    def _fail(self, call: str, msg: str, setter: bool = True) -> int:
        self.error = f"{call}: {msg}"
        if setter:
            self.errors.append(self.error)
        warnings.warn(f"MatmulApi Tiling: {self.error}", TilingWarning, stacklevel=3)
        return -1

    @staticmethod
    def _enum(call, name, value, cls, kernel_types=False):
        if kernel_types and cls is DataType and isinstance(value, _kdt.DataType) and value.name in _FROM_KERNEL:
            return _FROM_KERNEL[value.name]
        if not isinstance(value, cls):
            raise TypeError(f"{call}: {name} is a host.{cls.__name__} (host.{cls.__name__}."
                            f"{next(iter(cls.__members__))}, ...), got {value!r}")
        return value

    @staticmethod
    def _int(call, name, value) -> int:
        if not _is_int(value):
            raise TypeError(f"{call}: {name} is an int, got {value!r}")
        return int(value)

    def _set_operand(self, call, which, pos, fmt, data_type, is_trans, positions, types):
        pos = self._enum(call, "pos", pos, TPosition)
        fmt = self._enum(call, "type", fmt, CubeFormat)
        data_type = self._enum(call, "data_type", data_type, DataType, kernel_types=True)
        if not isinstance(is_trans, bool):
            raise TypeError(f"{call}: is_trans is a bool, got {is_trans!r}")
        if pos not in positions:
            return self._fail(call, f"pos TPosition.{pos.name} is not a position of this operand (one of "
                                    f"{', '.join(p.name for p in positions)})")
        if data_type not in types:
            return self._fail(call, f"data_type {data_type.name} is not a type asc tiles for this operand (one of "
                                    f"{', '.join(t.name for t in types)})")
        setattr(self, which, _Operand(pos, fmt, data_type, is_trans))
        return 0

    # -------------------------------------------------------------- types

    def set_a_type(self, pos, type, data_type, is_trans: bool = False) -> int:  # noqa: A002 -- pyasc's name
        """A's position, format, data type and whether it is transposed (K x M in memory)."""
        return self._set_operand("set_a_type", "a", pos, type, data_type, is_trans, _AB_POSITIONS, _INPUT_TYPES)

    def set_b_type(self, pos, type, data_type, is_trans: bool = False) -> int:  # noqa: A002
        """B's position, format, data type and whether it is transposed (N x K in memory)."""
        return self._set_operand("set_b_type", "b", pos, type, data_type, is_trans, _AB_POSITIONS, _INPUT_TYPES)

    def set_c_type(self, pos, type, data_type, is_trans: bool = False) -> int:  # noqa: A002
        """C's position (GM, or VECIN/VECCALC/VECOUT: the UB of a mixed kernel), format and data type."""
        return self._set_operand("set_c_type", "c", pos, type, data_type, is_trans, _C_POSITIONS,
                                 _C_TYPES["float"] + _C_TYPES["int8"])

    def set_bias_type(self, pos, type, data_type) -> int:  # noqa: A002
        return self._set_operand("set_bias_type", "bias", pos, type, data_type, False, _BIAS_POSITIONS,
                                 _BIAS_TYPES["float"] + _BIAS_TYPES["int8"])

    def set_dequant_type(self, dequant_type) -> int:
        self.dequant_type = self._enum("set_dequant_type", "dequant_type", dequant_type, DequantType)
        return 0

    def set_mad_type(self, mad_type) -> int:
        mad_type = self._enum("set_mad_type", "mad_type", mad_type, MatrixMadType)
        if mad_type != MatrixMadType.NORMAL:
            return self._fail("set_mad_type", f"mad_type {mad_type.name} is not supported (MatrixMadType.NORMAL)")
        self.mad_type = mad_type
        return 0

    # -------------------------------------------------------------- shapes

    def _sizes(self, call, names, values, allow_unset):
        out = []
        for n, v in zip(names, values):
            v = self._int(call, n, v)
            if v == -1 and allow_unset:
                out.append(v)
                continue
            if v <= 0:
                return self._fail(call, f"{n} must be a positive number of elements"
                                        f"{' (or -1: the original shape)' if allow_unset else ''}, got {v}"), None
            if v >= 2 ** 31:
                return self._fail(call, f"{n} = {v} does not fit the int32 fields of TCubeTiling"), None
            out.append(v)
        return 0, out

    def set_shape(self, m, n, k) -> int:
        """The m, n, k this matmul computes (a part of the original matrices, or all of them); -1 takes the
        original's (set_org_shape)."""
        rc, v = self._sizes("set_shape", ("m", "n", "k"), (m, n, k), True)
        if rc == 0:
            self.shape = v
        return rc

    def set_org_shape(self, org_m_in, org_n_in, org_ka_in=None, org_kb_in=None, org_k_in=None) -> int:
        """The original matrices' M, N and K (set_org_shape(m, n, k), or org_k_in=k) or Ka and Kb: the row
        strides the kernel steps by."""
        if org_ka_in is None:
            if org_k_in is None:
                raise TypeError("set_org_shape: takes (org_m_in, org_n_in, org_k_in) or (org_m_in, org_n_in, "
                                "org_ka_in, org_kb_in)")
            org_ka_in = org_k_in
        if org_kb_in is None:
            org_kb_in = org_ka_in
        rc, v = self._sizes("set_org_shape", ("org_m_in", "org_n_in", "org_ka_in", "org_kb_in"),
                            (org_m_in, org_n_in, org_ka_in, org_kb_in), False)
        if rc == 0:
            self.org = v
        return rc

    def enable_bias(self, is_bias_in: bool = False) -> int:
        if not isinstance(is_bias_in, bool):
            raise TypeError(f"enable_bias: is_bias_in is a bool, got {is_bias_in!r}")
        self.is_bias = is_bias_in
        return 0

    def set_bias(self, is_bias_in: bool = False) -> int:
        return self.enable_bias(is_bias_in)

    def set_fix_split(self, base_m_in=-1, base_n_in=-1, base_k_in=-1) -> int:
        """Fixes base_m / base_n / base_k (-1: the tiling chooses). get_tiling checks them against the budgets."""
        rc, v = self._sizes("set_fix_split", ("base_m_in", "base_n_in", "base_k_in"),
                            (base_m_in, base_n_in, base_k_in), True)
        if rc == 0:
            self.fixed = v
        return rc

    def set_buffer_space(self, l1_size=-1, l0_c_size=-1, ub_size=-1, bt_size=-1) -> int:
        """The bytes of L1, L0C, UB and BiasTable the Matmul may use (-1: all of the core's)."""
        rc, v = self._sizes("set_buffer_space", ("l1_size", "l0_c_size", "ub_size", "bt_size"),
                            (l1_size, l0_c_size, ub_size, bt_size), True)
        if rc == 0:
            self.space = v
        return rc

    def set_traverse(self, traverse) -> int:
        self.traverse = self._enum("set_traverse", "traverse", traverse, MatrixTraverse)
        return 0

    def set_split_range(self, max_base_m=-1, max_base_n=-1, max_base_k=-1, min_base_m=-1, min_base_n=-1,
                        min_base_k=-1) -> int:
        """Accepted and ignored, as in pyasc ("the tiling does not support it yet")."""
        for n, v in (("max_base_m", max_base_m), ("max_base_n", max_base_n), ("max_base_k", max_base_k),
                     ("min_base_m", min_base_m), ("min_base_n", min_base_n), ("min_base_k", min_base_k)):
            self._int("set_split_range", n, v)
        return 0

    def set_double_buffer(self, a, b, c, bias, trans_nd2nz=True, trans_nz2nd=True) -> int:
        self.double_buffer = (a, b, c, bias, trans_nd2nz, trans_nz2nd)
        return 0

    def set_matmul_config_params(self, mm_config_type_in=1, enable_l1_cache_ub_in=False,
                                 schedule_type_in=ScheduleType.INNER_PRODUCT, traverse_in=MatrixTraverse.NOSET,
                                 en_vec_nd2nz_in=False) -> None:
        if isinstance(mm_config_type_in, MatmulConfigParams):
            self.config = mm_config_type_in
        else:
            self.config = MatmulConfigParams(mm_config_type_in, enable_l1_cache_ub_in,
                                             self._enum("set_matmul_config_params", "schedule_type_in",
                                                        schedule_type_in, ScheduleType),
                                             self._enum("set_matmul_config_params", "traverse_in", traverse_in,
                                                        MatrixTraverse), en_vec_nd2nz_in)
        return None

    def set_sparse(self, is_sparse_in: bool = False) -> int:
        self.sparse = bool(is_sparse_in)
        return 0

    def _layout(self, call, key, names, values) -> int:
        v = [self._int(call, n, x) for n, x in zip(names, values)]
        bad = [n for n, x in zip(names, v) if x <= 0]
        if bad:
            return self._fail(call, f"{bad[0]} must be positive, got {v[names.index(bad[0])]}")
        self.layouts[key] = tuple(v)
        return 0

    def set_a_layout(self, b, s, n, g, d) -> int:
        return self._layout("set_a_layout", "a", ("b", "s", "n", "g", "d"), (b, s, n, g, d))

    def set_b_layout(self, b, s, n, g, d) -> int:
        return self._layout("set_b_layout", "b", ("b", "s", "n", "g", "d"), (b, s, n, g, d))

    def set_c_layout(self, b, s, n, g, d) -> int:
        return self._layout("set_c_layout", "c", ("b", "s", "n", "g", "d"), (b, s, n, g, d))

    def set_batch_num(self, batch) -> int:
        batch = self._int("set_batch_num", "batch", batch)
        if batch <= 0:
            return self._fail("set_batch_num", f"batch must be positive, got {batch}")
        self.batch_num = batch
        return 0

    def set_batch_info_for_normal(self, batch_a, batch_b, m, n, k) -> int:
        """The NORMAL layout's batches and M, N, K: the layouts of A (batch_a x m x k), B (batch_b x k x n) and C."""
        names = ("batch_a", "batch_b", "m", "n", "k")
        rc, v = self._sizes("set_batch_info_for_normal", names, (batch_a, batch_b, m, n, k), False)
        if rc:
            return rc
        ba, bb, m, n, k = v
        self.layouts = {"a": (ba, m, 1, 1, k), "b": (bb, k, 1, 1, n), "c": (max(ba, bb), m, 1, 1, n)}
        self.batch_num = max(ba, bb)
        self.shape = [m, n, k]
        return 0

    def get_base_m(self) -> int:
        return self.result["base_m"] if self.result else max(self.fixed[0], 0)

    def get_base_n(self) -> int:
        return self.result["base_n"] if self.result else max(self.fixed[1], 0)

    def get_base_k(self) -> int:
        return self.result["base_k"] if self.result else max(self.fixed[2], 0)

    # -------------------------------------------------------------- get_tiling

    def _budget(self) -> _Budget:
        p = self.platform
        l1, l0c, ub, bt = self.space
        full_l1 = p.get_core_mem_size(CoreMemType.L1) - p.l1_reserved
        return _Budget(l1=full_l1 if l1 == -1 else min(l1, full_l1),
                       l0a=p.get_core_mem_size(CoreMemType.L0_A), l0b=p.get_core_mem_size(CoreMemType.L0_B),
                       l0c=p.get_core_mem_size(CoreMemType.L0_C) if l0c == -1 else
                       min(l0c, p.get_core_mem_size(CoreMemType.L0_C)),
                       ub=p.get_core_mem_size(CoreMemType.UB) if ub == -1 else min(ub, p.get_core_mem_size(
                           CoreMemType.UB)),
                       bt=p.bt_size if bt == -1 else min(bt, p.bt_size))

    def _max_cores(self) -> int:
        return 1

    def _problem(self):
        """(m, n, k, M, N, Ka, Kb) with the -1s resolved; _Failure naming the argument otherwise."""
        if self.errors:
            raise _Failure(f"an earlier call failed ({self.errors[0]})")
        org, shape = list(self.org), list(self.shape)
        if org[0] == -1 and all(v == -1 for v in shape):
            raise _Failure("no shape: call set_shape(m, n, k) or set_org_shape(m, n, k)")
        if org[0] == -1:
            if -1 in shape:
                raise _Failure("set_shape takes -1 only with an original shape (set_org_shape)")
            org = [shape[0], shape[1], shape[2], shape[2]]
        m = org[0] if shape[0] == -1 else shape[0]
        n = org[1] if shape[1] == -1 else shape[1]
        k = min(org[2], org[3]) if shape[2] == -1 else shape[2]
        for name, v, lim in (("m", m, org[0]), ("n", n, org[1]), ("k", k, min(org[2], org[3]))):
            if v > lim:
                raise _Failure(f"set_shape: {name} = {v} exceeds the original shape's {lim} (set_org_shape)")
        a, b, c = self.a, self.b, self.c
        kind = "int8" if a.dtype == DataType.DT_INT8 else "float"
        same = (a.dtype == b.dtype) or (a.dtype in _BF16 and b.dtype in _BF16)
        if not same:
            raise _Failure(f"set_b_type: data_type {b.dtype.name} differs from A's {a.dtype.name}")
        if c.dtype not in _C_TYPES[kind]:
            raise _Failure(f"set_c_type: data_type {c.dtype.name} is not an output of {a.dtype.name} inputs (one "
                           f"of {', '.join(t.name for t in _C_TYPES[kind])})")
        if self.is_bias:
            ok = _BIAS_TYPES[kind] if kind == "int8" else (DataType.DT_FLOAT, a.dtype) + \
                ((DataType.DT_BF16, DataType.DT_BFLOAT16) if a.dtype in _BF16 else ())
            if self.bias.dtype not in ok:
                raise _Failure(f"set_bias_type: data_type {self.bias.dtype.name} is not a bias of {a.dtype.name} "
                               f"inputs (one of {', '.join(t.name for t in ok)})")
        return m, n, k, org

    def _single_limits(self):
        return (-1, -1, -1), (1, 1, 1), False

    def get_tiling(self, tiling) -> int:
        """Computes the tiling and writes it into `tiling` (a TCubeTiling): 0, or -1 (and a TilingWarning naming
        the cause; tiling is left as it was)."""
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"get_tiling: tiling is an asc.adv.TCubeTiling (host.TCubeTiling), got {tiling!r}")
        try:
            fields, dims = self._compute()
        except _Failure as e:
            self.result = self.dims = None
            return self._fail("get_tiling", str(e), setter=False)
        for k, v in fields.items():
            setattr(tiling, k, int(v))
        self.result, self.dims = fields, dims
        self.error = None
        return 0

    def _compute(self):
        m, n, k, org = self._problem()
        a, b = self.a, self.b
        bias = self.bias if self.is_bias else None
        budget = self._budget()
        m_al, n_al, k_al = alignments(a, b)
        p = self.platform
        mach = _Machine(hbm_bytes_per_cycle=p.hbm_gbs / p.clock_ghz)
        fm, fn, fk = self.fixed
        (sm_fix, sn_fix, sk_fix), (am, an, ak), k_split = self._single_limits()
        if k_split and self.is_bias and getattr(self, "split_k", False):
            raise _Failure("enable_multi_core_split_k: the K split takes no bias (enable_bias(False))")
        for name, v, al in (("base_m_in", fm, m_al), ("base_n_in", fn, n_al)):
            if v != -1 and v % al:
                raise _Failure(f"set_fix_split: {name} = {v} is not a multiple of {al} (whole fractals)")
        if fk != -1 and fk % _c0(a.dtype):
            raise _Failure(f"set_fix_split: base_k_in = {fk} is not a multiple of {_c0(a.dtype)} "
                           f"(32 bytes of {a.dtype.name})")
        # the core split: every (m_dim, n_dim, k_dim) within the cores, each block rounded up to its granule
        gm = _lcm(m_al if fm == -1 else fm, am)
        gn = _lcm(n_al if fn == -1 else fn, an)
        gk = _lcm(k_al if fk == -1 else fk, ak)
        cands = {}
        cores = self._max_cores()
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
            raise _Failure(f"set_single_shape: the single-core shape needs more than the {cores} cores")
        # the fastest by the roofline estimate; within 1% of it: no tails, then the fastest core (its own work and
        # traffic, without the chip's HBM bound), then fewer cores
        scored = []
        for (sm, sn, sk), used in cands.items():
            t = _split_cycles(sm, sn, sk, used, m, n, k, a, b, self.c, mach)
            core = _split_cycles(sm, sn, sk, used, m, n, k, a, b, self.c, mach, chip=False)
            tails = (m % sm != 0) + (n % sn != 0) + (k % sk != 0)
            scored.append((t, tails, core, used, (sm, sn, sk)))
        fastest = min(x[0] for x in scored)
        pick = min((x[1:] for x in scored if x[0] <= fastest * 1.01))[-1]
        sm, sn, sk = pick
        used = cands[pick]
        base = self._bases(sm, sn, sk, a, b, bias, budget, mach)
        fields = self._fields(m, n, k, org, sm, sn, sk, used, base, a, b, bias, budget)
        t = TCubeTiling(**fields)
        bad = check_tiling(t, a, b, bias, budget, cores, k_split)
        if bad:     # asc's own choices always pass; a fixed split or single shape may not
            raise _Failure("the tiling breaks " + "; ".join(bad) + " (set_fix_split / set_single_shape)")
        dims = (used, _ceil(m, sm), _ceil(n, sn), _ceil(k, sk))
        return fields, dims

    def _bases(self, sm, sn, sk, a, b, bias, budget, mach):
        """(base_m, base_n, base_k, db_l0a, db_l0b, db_l0c): the fastest bm x bn by _base_cycles that fits L0C
        (and the BiasTable), with the largest base_k that fits L0A and L0B with ping-pong, split evenly over K."""
        m_al, n_al, k_al = alignments(a, b)
        fm, fn, fk = self.fixed
        sa, sb = _SIZE[a.dtype], _SIZE[b.dtype]
        bt_cap = budget.bt // _SIZE[bias.dtype] if bias is not None else 1 << 30
        ms = [fm] if fm != -1 else range(m_al, min(_align(sm, m_al), 1024) + 1, m_al)
        ns = [fn] if fn != -1 else range(n_al, min(_align(sn, n_al), 1024, bt_cap) + 1, n_al)
        skp = _align(sk, k_al)
        best = None
        for bm in ms:
            for bn in ns:
                if bm * bn * 4 > budget.l0c:
                    continue
                kb = self._base_k(bm, bn, skp, sa, sb, k_al, budget, fk)
                if kb is None:
                    continue
                cost = _base_cycles(bm, bn, sm, sn, sk, a, b, mach)
                key = (cost, -(bm * bn), abs(bm - bn))
                if best is None or key < best[0]:
                    best = (key, (bm, bn) + kb)
        if best is None:
            raise _Failure(f"no base block fits L0A {budget.l0a} B / L0B {budget.l0b} B / L0C {budget.l0c} B"
                           + (" with set_fix_split's values" if self.fixed != [-1, -1, -1] else ""))
        bm, bn, bk, dba, dbb = best[1]
        dbc = 2 if bm * bn * 4 * 2 <= budget.l0c else 1
        return bm, bn, bk, dba, dbb, dbc

    @staticmethod
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

    def _fields(self, m, n, k, org, sm, sn, sk, used, base, a, b, bias, budget) -> dict:
        bm, bn, bk, dba, dbb, dbc = base
        m_al, n_al, k_al = alignments(a, b)
        sa, sb = _SIZE[a.dtype], _SIZE[b.dtype]
        a_blk, b_blk = _align(bm, m_al) * _align(bk, k_al) * sa, _align(bn, n_al) * _align(bk, k_al) * sb
        bias_row = bn * _SIZE[bias.dtype] if bias is not None else 0
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
        if self.traverse == MatrixTraverse.FIRSTM:
            order = 0
        elif self.traverse == MatrixTraverse.FIRSTN:
            order = 1
        else:                       # keep the larger block in L1 while the other side moves
            order = 1 if bm * sa > bn * sb else 0
        trans = 0
        for op, blk in ((a, bm * bk * sa), (b, bn * bk * sb)):
            if op.pos in _UB_POSITIONS:
                trans = max(trans, blk)
        if bias is not None and bias.pos in _UB_POSITIONS:
            trans = max(trans, bias_row)
        if trans > budget.ub:
            raise _Failure(f"UB: an operand block in UB ({trans} bytes) exceeds {budget.ub} bytes")
        l1_used = db1 * stepk * (step_m * ua + step_n * ub_) + (budget.l1 - room)
        f = dict(used_core_num=used, m=m if self.org[0] == -1 else org[0], n=n if self.org[0] == -1 else org[1],
                 k_a=k if self.org[0] == -1 else org[2], k_b=k if self.org[0] == -1 else org[3],
                 single_core_m=sm, single_core_n=sn, single_core_k=sk, base_m=bm, base_n=bn, base_k=bk,
                 depth_a1=db1 * stepk * step_m, depth_b1=db1 * stepk * step_n, step_m=step_m, step_n=step_n,
                 is_bias=int(bias is not None), trans_length=trans, iterate_order=order, share_mode=0,
                 share_l1_size=l1_used, share_l0c_size=bm * bn * 4 * dbc, share_ub_size=trans,
                 step_k_a=stepk, step_k_b=stepk, depth_a_l1_cache_ub=0, depth_b_l1_cache_ub=0,
                 db_l0a=dba, db_l0b=dbb, db_l0c=dbc, batch_num=self.batch_num)
        for key, names in (("a", ("b", "s", "n", "g", "d")), ("b", ("b", "s", "n", "g", "d")),
                           ("c", ("b", "s1", "n", "g", "s2"))):
            for nm, v in zip(names, self.layouts[key]):
                f[f"{key}_layout_info_{nm}"] = v
        # CANN's tilings start batchM, batchN, singleBatchM and singleBatchN at 1 (MatmulApiTilingBase's
        # constructors) and write them into every TCubeTiling; so does this one
        bm_, bn_ = self.batch_mn if self._batch else (1, 1)
        sbm, sbn = self.single_batch if self._batch else (1, 1)
        f.update(batch_m=bm_, batch_n=bn_, single_batch_m=sbm, single_batch_n=sbn)
        return f

    def check(self, tiling) -> list:
        """check_tiling for this object's operands, budgets and cores: the rules `tiling` breaks (empty: valid)."""
        return check_tiling(tiling, self.a, self.b, self.bias if self.is_bias else None, self._budget(),
                            self._max_cores(), self._single_limits()[2])


def _lcm(a: int, b: int) -> int:
    from math import gcd
    return a * b // gcd(a, b)


class MatmulApiTiling(MatmulApiTilingBase):
    """The tiling of a matmul on one core (single_core_* = the whole m, n, k)."""


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """The tiling of a matmul over up to set_dim(dim) cores (all of the platform's by default)."""

    def __init__(self, ascendc_platform: Optional[PlatformAscendC] = None):
        super().__init__(ascendc_platform)
        self.dim = -1
        self.single = [-1, -1, -1]
        self.align_split = [-1, -1, -1]
        self.split_k = False

    def set_dim(self, dim) -> int:
        """The cores the matmul may use: cube cores for a cube-only kernel, vector cores for a mixed one (each
        drives its own Matmul; two share one cube core on the 910B)."""
        dim = self._int("set_dim", "dim", dim)
        cap = self.platform.get_core_num()
        if not 1 <= dim <= cap:
            return self._fail("set_dim", f"dim must be 1..{cap} (the cores of {self.platform.soc_version}), got {dim}")
        self.dim = dim
        return 0

    def set_single_shape(self, single_m_in=-1, single_n_in=-1, single_k_in=-1) -> int:
        rc, v = self._sizes("set_single_shape", ("single_m_in", "single_n_in", "single_k_in"),
                            (single_m_in, single_n_in, single_k_in), True)
        if rc == 0:
            self.single = v
        return rc

    def set_single_range(self, max_m=-1, max_n=-1, max_k=-1, min_m=-1, min_n=-1, min_k=-1) -> int:
        """Accepted and ignored (pyasc documents no effect on its tilings either)."""
        for nm, v in (("max_m", max_m), ("max_n", max_n), ("max_k", max_k), ("min_m", min_m), ("min_n", min_n),
                      ("min_k", min_k)):
            self._int("set_single_range", nm, v)
        return 0

    def set_align_split(self, align_m, align_n, align_k) -> int:
        """single_core_m / n / k become multiples of these (-1 or 0: the tiling's own granule)."""
        v = [self._int("set_align_split", nm, x) for nm, x in (("align_m", align_m), ("align_n", align_n),
                                                                ("align_k", align_k))]
        for nm, x in zip(("align_m", "align_n", "align_k"), v):
            if x < -1:
                return self._fail("set_align_split", f"{nm} must be positive, 0 or -1, got {x}")
        self.align_split = [x if x > 0 else 1 for x in v]
        return 0

    def enable_multi_core_split_k(self, flag: bool) -> None:
        """Lets the cores split K too (the kernel zeroes C and accumulates with atomic adds; no bias)."""
        self.split_k = bool(flag)

    def set_split_k(self, flag: bool) -> None:
        self.enable_multi_core_split_k(flag)

    def _max_cores(self) -> int:
        return self.dim if self.dim != -1 else self.platform.get_core_num()

    def _single_limits(self):
        al = [x if x > 0 else 1 for x in self.align_split]
        # a fixed single_core_k below K splits K as enable_multi_core_split_k does (the cores' parts are summed)
        return tuple(self.single), tuple(al), self.split_k or self.single[2] != -1

    def get_single_shape(self):
        """(single_core_m, single_core_n, single_core_k) of the last get_tiling, or None before one."""
        if self.result is None:
            return None
        return self.result["single_core_m"], self.result["single_core_n"], self.result["single_core_k"]

    def get_core_num(self):
        """(dim, m_dim, n_dim) of the last get_tiling (dim = m_dim * n_dim, times the K split), or None."""
        if self.dims is None:
            return None
        used, md, nd, _ = self.dims
        return used, md, nd


class BatchMatmulTiling(MatmulApiTilingBase):
    """The tiling of a batched matmul (IterateBatch) on one core: one batch's m x n x k tiled as MatmulApiTiling,
    with the batch counts and layouts recorded for the kernel."""

    _batch = True

    def __init__(self, ascendc_platform: Optional[PlatformAscendC] = None):
        super().__init__(ascendc_platform)
        self.batch_mn = (1, 1)
        self.single_batch = (1, 1)

    def set_batch(self, batch_m_in=1, batch_n_in=1) -> int:
        rc, v = self._sizes("set_batch", ("batch_m_in", "batch_n_in"), (batch_m_in, batch_n_in), False)
        if rc == 0:
            self.batch_mn = tuple(v)
        return rc

    def set_single_batch(self, single_m_in=-1, single_n_in=-1) -> int:
        rc, v = self._sizes("set_single_batch", ("single_m_in", "single_n_in"), (single_m_in, single_n_in), True)
        if rc == 0:
            self.single_batch = tuple(x if x != -1 else 1 for x in v)
        return rc

    def get_core_num(self):
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n) of the last get_tiling, or None."""
        if self.dims is None:
            return None
        used, md, nd, _ = self.dims
        return used, md, nd, 1, 1
