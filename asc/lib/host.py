"""pyasc's host tiling library (`import asc.lib.host as host`): the Matmul tiling classes (MatmulApiTiling,
MultiCoreMatmulTiling, BatchMatmulTiling) with pyasc's setters, the platform they budget against
(`get_ascendc_platform()`), their enumerations (asc/lib/tiling_enums.py), and TCubeTiling, the structure they fill
and a kernel reads.

get_tiling gathers what the setters recorded into a tiling_solver.Problem and writes what tiling_solver.solve
chooses (asc's own algorithm, docs/pyasc.md "Host tiling"; every tiling it returns is checked against the budgets by
`check_tiling` before it is written).

As in pyasc, the setters and get_tiling return 0 on success and -1 on failure; a failure also issues a
TilingWarning naming the call and the argument ("MatmulApi Tiling: set_shape: m must be ...") and is kept in
`tiling.error`. An argument of the wrong kind (a string for a size, a torch dtype for a host.DataType) is a
TypeError naming it."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from .. import chip
from ..ascendc import data_types as _kdt
from ..ascendc.enums import TPosition
from ..ascendc.tiling import TCubeTiling
from .tiling_enums import (CoreMemType, CubeFormat, DataType, DequantType, MatrixMadType, MatrixTraverse,
                           ScheduleType)
from .tiling_solver import Budget, Infeasible, Machine, Operand, Problem, check_tiling, solve

__all__ = ["BatchMatmulTiling", "CoreMemType", "CubeFormat", "DataType", "DequantType", "MatmulApiTiling",
           "MatmulApiTilingBase", "MatmulConfigParams", "MatrixMadType", "MatrixTraverse", "MultiCoreMatmulTiling",
           "PlatformAscendC", "PlatformAscendCManager", "ScheduleType", "TCubeTiling", "TPosition",
           "TilingWarning", "check_tiling", "get_ascendc_platform"]


class TilingWarning(UserWarning):
    """A host tiling call that returned -1: the message names the call and the argument."""


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
_AB_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC, TPosition.TSCM)
_C_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC, TPosition.CO1)
_BIAS_POSITIONS = (TPosition.GM, TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


# ------------------------------------------------------------------ platform

class PlatformAscendC:
    """The SoC a tiling is computed for: its core counts and the sizes of its memories (asc/chip.py)."""

    def __init__(self, soc_version=None):
        from ..runtime import config
        if soc_version is None:
            soc_version = config.state.platform
        name = soc_version.value if isinstance(soc_version, Enum) else soc_version
        if not isinstance(name, str):
            raise TypeError(f"PlatformAscendC: soc_version is a SoC name such as 'Ascend910B1', got {soc_version!r}")
        self.soc_version = chip.soc_name(name)      # ValueError naming the known SoCs
        info = chip.SOCS[self.soc_version]
        self._aic, self._aiv = info["aic"], info["aiv"]
        self._mem = {CoreMemType.L0_A: chip.L0A_BYTES, CoreMemType.L0_B: chip.L0B_BYTES,
                     CoreMemType.L0_C: chip.L0C_BYTES, CoreMemType.L1: chip.L1_BYTES, CoreMemType.UB: chip.UB_BYTES,
                     CoreMemType.L2: info["l2_mb"] * 1024 * 1024, CoreMemType.HBM: chip.HBM_BYTES}
        self.l1_reserved, self.bt_size = chip.L1_RESERVED, chip.BT_BYTES
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
        self.a, self.b = Operand(), Operand()
        self.c, self.bias = Operand(), Operand()
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
        setattr(self, which, Operand(pos, fmt, data_type, is_trans))
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

    def _budget(self) -> Budget:
        p = self.platform
        l1, l0c, ub, bt = self.space
        full_l1 = p.get_core_mem_size(CoreMemType.L1) - p.l1_reserved
        return Budget(l1=full_l1 if l1 == -1 else min(l1, full_l1),
                       l0a=p.get_core_mem_size(CoreMemType.L0_A), l0b=p.get_core_mem_size(CoreMemType.L0_B),
                       l0c=p.get_core_mem_size(CoreMemType.L0_C) if l0c == -1 else
                       min(l0c, p.get_core_mem_size(CoreMemType.L0_C)),
                       ub=p.get_core_mem_size(CoreMemType.UB) if ub == -1 else min(ub, p.get_core_mem_size(
                           CoreMemType.UB)),
                       bt=p.bt_size if bt == -1 else min(bt, p.bt_size))

    def _max_cores(self) -> int:
        return 1

    def _problem(self):
        """(m, n, k, M, N, Ka, Kb) with the -1s resolved; Infeasible naming the argument otherwise."""
        if self.errors:
            raise Infeasible(f"an earlier call failed ({self.errors[0]})")
        org, shape = list(self.org), list(self.shape)
        if org[0] == -1 and all(v == -1 for v in shape):
            raise Infeasible("no shape: call set_shape(m, n, k) or set_org_shape(m, n, k)")
        if org[0] == -1:
            if -1 in shape:
                raise Infeasible("set_shape takes -1 only with an original shape (set_org_shape)")
            org = [shape[0], shape[1], shape[2], shape[2]]
        m = org[0] if shape[0] == -1 else shape[0]
        n = org[1] if shape[1] == -1 else shape[1]
        k = min(org[2], org[3]) if shape[2] == -1 else shape[2]
        for name, v, lim in (("m", m, org[0]), ("n", n, org[1]), ("k", k, min(org[2], org[3]))):
            if v > lim:
                raise Infeasible(f"set_shape: {name} = {v} exceeds the original shape's {lim} (set_org_shape)")
        a, b, c = self.a, self.b, self.c
        kind = "int8" if a.dtype == DataType.DT_INT8 else "float"
        same = (a.dtype == b.dtype) or (a.dtype in _BF16 and b.dtype in _BF16)
        if not same:
            raise Infeasible(f"set_b_type: data_type {b.dtype.name} differs from A's {a.dtype.name}")
        if c.dtype not in _C_TYPES[kind]:
            raise Infeasible(f"set_c_type: data_type {c.dtype.name} is not an output of {a.dtype.name} inputs (one "
                           f"of {', '.join(t.name for t in _C_TYPES[kind])})")
        if self.is_bias:
            ok = _BIAS_TYPES[kind] if kind == "int8" else (DataType.DT_FLOAT, a.dtype) + \
                ((DataType.DT_BF16, DataType.DT_BFLOAT16) if a.dtype in _BF16 else ())
            if self.bias.dtype not in ok:
                raise Infeasible(f"set_bias_type: data_type {self.bias.dtype.name} is not a bias of {a.dtype.name} "
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
            fields, dims = self._solve()
        except Infeasible as e:
            self.result = self.dims = None
            return self._fail("get_tiling", str(e), setter=False)
        for k, v in fields.items():
            setattr(tiling, k, int(v))
        self.result, self.dims = fields, dims
        self.error = None
        return 0

    def _solve(self):
        """What the setters recorded, checked (Infeasible naming the call), as a tiling_solver.Problem, solved."""
        m, n, k, org = self._problem()
        (single, align, k_split) = self._single_limits()
        if k_split and self.is_bias and getattr(self, "split_k", False):
            raise Infeasible("enable_multi_core_split_k: the K split takes no bias (enable_bias(False))")
        p = self.platform
        return solve(Problem(
            m, n, k, tuple(org), self.org[0] != -1, self.a, self.b, self.c, self.bias if self.is_bias else None,
            self._budget(), Machine(hbm_bytes_per_cycle=p.hbm_gbs / p.clock_ghz), self._max_cores(),
            tuple(self.fixed), tuple(single), tuple(align), k_split, self.traverse, self.batch_num,
            dict(self.layouts), self.batch_mn if self._batch else (1, 1),
            self.single_batch if self._batch else (1, 1)))

    def check(self, tiling) -> list:
        """check_tiling for this object's operands, budgets and cores: the rules `tiling` breaks (empty: valid)."""
        return check_tiling(tiling, self.a, self.b, self.bias if self.is_bias else None, self._budget(),
                            self._max_cores(), self._single_limits()[2])


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
