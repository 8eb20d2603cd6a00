"""The Matmul tiling structure (`asc.adv.TCubeTiling`, also `asc.lib.host.TCubeTiling`): the int32 fields of Ascend
C's TCubeTiling in the order of its declaration (asc-devkit's matmul_tilingdata.h), under pyasc's Python names, each
Field knowing its Ascend C name. The host fills it (asc.lib.host's get_tiling) and passes it to a kernel by value;
a kernel reads and writes its fields (`tiling.base_m`, `tiling.share_l1_size = ...`)."""
from __future__ import annotations

from . import data_types as dtypes
from .kernel_structs import Field, Struct

# (Python name, Ascend C name), in the C struct's order: the layout a kernel receives
TCUBE_FIELDS = (
    ("used_core_num", "usedCoreNum"), ("m", "M"), ("n", "N"), ("k_a", "Ka"), ("k_b", "Kb"),
    ("single_core_m", "singleCoreM"), ("single_core_n", "singleCoreN"), ("single_core_k", "singleCoreK"),
    ("base_m", "baseM"), ("base_n", "baseN"), ("base_k", "baseK"), ("depth_a1", "depthA1"),
    ("depth_b1", "depthB1"), ("step_m", "stepM"), ("step_n", "stepN"), ("is_bias", "isBias"),
    ("trans_length", "transLength"), ("iterate_order", "iterateOrder"), ("share_mode", "shareMode"),
    ("share_l1_size", "shareL1Size"), ("share_l0c_size", "shareL0CSize"), ("share_ub_size", "shareUbSize"),
    ("batch_m", "batchM"), ("batch_n", "batchN"), ("single_batch_m", "singleBatchM"),
    ("single_batch_n", "singleBatchN"), ("step_k_a", "stepKa"), ("step_k_b", "stepKb"),
    ("depth_a_l1_cache_ub", "depthAL1CacheUB"), ("depth_b_l1_cache_ub", "depthBL1CacheUB"), ("db_l0a", "dbL0A"),
    ("db_l0b", "dbL0B"), ("db_l0c", "dbL0C"), ("a_layout_info_b", "ALayoutInfoB"),
    ("a_layout_info_s", "ALayoutInfoS"), ("a_layout_info_n", "ALayoutInfoN"), ("a_layout_info_g", "ALayoutInfoG"),
    ("a_layout_info_d", "ALayoutInfoD"), ("b_layout_info_b", "BLayoutInfoB"), ("b_layout_info_s", "BLayoutInfoS"),
    ("b_layout_info_n", "BLayoutInfoN"), ("b_layout_info_g", "BLayoutInfoG"), ("b_layout_info_d", "BLayoutInfoD"),
    ("c_layout_info_b", "CLayoutInfoB"), ("c_layout_info_s1", "CLayoutInfoS1"), ("c_layout_info_n", "CLayoutInfoN"),
    ("c_layout_info_g", "CLayoutInfoG"), ("c_layout_info_s2", "CLayoutInfoS2"), ("batch_num", "BatchNum"),
    ("mx_type_para", "mxTypePara"),
)


class TCubeTiling(Struct):
    """The Matmul tiling: shapes (m, n, k_a, k_b), the per-core split (used_core_num, single_core_*), the base block
    of one Mmad (base_*), the L1 residency (depth_a1/b1, step_*), ping-pong flags (db_l0a/b/c) and the batch
    layouts. Every field is an int32 and 0 until set: TCubeTiling(m=..., ...) or a host tiling's get_tiling."""

    locals().update({py: Field(dtypes.int32, 0, name=c) for py, c in TCUBE_FIELDS})
    # the C struct is CANN's (kernel_tiling/kernel_tiling.h, global namespace): the source includes that header
    # and a kernel's tiling.base_m is tiling.baseM there
    _asc_header = "kernel_tiling/kernel_tiling.h"

    def c_name(self, field: str) -> str:
        """The Ascend C name of a field (`c_name("base_m")` is "baseM")."""
        return type(self)._asc_fields[field].name

    def as_dict(self) -> dict:
        """The fields by Python name, in the C struct's order."""
        return {k: getattr(self, k) for k in self._asc_fields}
