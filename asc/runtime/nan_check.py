"""Numeric check: after a call, nan or inf in an output is an error naming the kernel, the output and the first bad
index with its value."""
from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import NumericCheckError


def _as_numpy(v):
    if isinstance(v, np.ndarray) or np.isscalar(v):
        return np.asarray(v)
    import torch
    t = v.detach()
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    return t.numpy()


def check_outputs(kernel, spec, bound, result):
    k: ir.Kernel = spec.ir
    outs = list(result) if k.returns_tuple else ([result] if k.outputs else [])
    checked = [(f"returned value {j}" if k.returns_tuple else "the returned value", o, v)
               for j, (o, v) in enumerate(zip(k.outputs, outs))]
    returned_params = {o.index for o in k.outputs if o.kind == "param"}
    for p, a in zip(k.entry.params, bound):
        if p.var.name in spec.written and p.index not in returned_params:
            checked.append((f"argument {p.var.name!r} (written in place)", None, a.value))
    for what, _, value in checked:
        arr = _as_numpy(value)
        if arr.dtype.kind != "f" and arr.dtype.name != "bfloat16":
            continue
        a32 = arr.astype(np.float64) if arr.dtype.itemsize < 4 else arr
        bad = np.flatnonzero(~np.isfinite(a32))
        if bad.size:
            idx = np.unravel_index(bad[0], arr.shape) if arr.ndim else ()
            raise NumericCheckError(f"kernel {kernel.__name__!r}: {what} has {a32.reshape(-1)[bad[0]]} at index "
                                    f"{tuple(int(i) for i in idx)} (the first of {bad.size} non-finite values); "
                                    f"enable_numeric_check(intermediates=True) finds the line that produced it")
