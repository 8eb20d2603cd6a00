"""docs/pyasc.md, generated from the declaration table (api.py): every pyasc 1.1.1 API with its Ascend C name and
status. `python -m asc.ascendc.docs > docs/pyasc.md` regenerates it; tests/ascendc/test_docs.py checks it is up
to date."""
from __future__ import annotations

from . import api

HEAD = """# pyasc programs on asc

asc runs programs written against pyasc 1.1.1 (Huawei's Python binding of Ascend C: `import asc`, `@asc.jit`,
`kernel[core_num, stream](...)`) unmodified on the CPU. Each `@asc.jit` function, and each `@asc.jit` helper it
calls, is translated 1:1 to Ascend C: specialized on its `asc.ConstExpr` values and the arguments' dtypes, with
the Python line as a comment and a `#line` directive above each statement. On the CPU twin that source is compiled
with the system C++ compiler against ascend-sim (asc's emulation of the Ascend C API, which enforces the
hardware's rules and reports a violation with the API call, the rule and the Python line); `asc compile
FILE.py::KERNEL --target ascend -o DIR` writes the same source as a CANN project for a real NPU.

- Backends (`asc.runtime.config`): `Backend.CPU` runs on the CPU twin; `Backend.Model` (CANN's simulator in
  pyasc) runs on the CPU twin too, with a one-time notice; `Backend.NPU` without an NPU is an error saying what
  to run instead.
- `LocalTensorAuto` (and `@asc.jit(insert_sync=True)`): each LocalTensorAuto becomes a `TBuf` of a kernel TPipe,
  and the translator inserts the `SetFlag`/`WaitFlag` pairs (MTE2->V, V->MTE3, MTE2->S, and the next iteration's
  V/MTE3->MTE2) a real build needs.
- Arguments: NumPy arrays and torch CPU tensors (global memory), Python scalars, `asc.language.core.struct`
  structs, and compile-time values for `asc.ConstExpr` parameters.
- The API below is generated from `asc/ascendc/api.py`, the one declaration table the translator reads.
  "supported" means asc translates the call (every form listed in the table) to its Ascend C; running it on the
  CPU twin also needs ascend-sim's emulation of that Ascend C API (asc/include/ascend_sim/), which covers the count
  forms of the vector API, the repeat/mask forms (bit and continuous masks, block and repeat strides) of the
  binary, unary and scalar families and Duplicate, Copy, Axpy, Transpose (16 x 16 and NCHW <-> NHWC),
  DataCopy/DataCopyPad, the queues and TBuf (TPipe Init/Destroy/Reset), LocalTensor at an address, Cast,
  Compare/Select, the reductions, TransDataTo5HD (16-bit elements; tensor lists, uint64_t address arrays and the
  address-tensor form, whose element type asc takes from the addresses stored with
  `set_value(i, t[k].get_phy_addr())`), SetAippFunctions (the configuration, checked as documented; LoadImageToLocal,
  which applies it, is not yet) and SoftMax (ND, last axis, from the ShapeInfo), and is growing to LeakyRelu, AddRelu/SubRelu, the bitwise and shift APIs and the repeat form of
  Cast. A call whose emulation is missing fails to compile for the CPU twin, naming the Python line.

"""


def render() -> str:
    out = [HEAD]
    for module, title in (("core", "asc.language.core: tensors"), ("basic", "asc.language.basic: the basic API"),
                          ("fwk", "asc.language.fwk: TPipe, TQue, TBuf"), ("adv", "asc.language.adv: advanced APIs")):
        rows = sorted((a for a in api.TABLE if a.module == module), key=lambda a: a.name)
        n = sum(a.status == api.SUPPORTED for a in rows)
        out.append(f"## {title} ({n} of {len(rows)} supported)\n")
        out.append("| pyasc | Ascend C | status | note |")
        out.append("| --- | --- | --- | --- |")
        for a in rows:
            name = a.name if a.name.startswith("adv.") or module != "basic" else a.name
            cls = a.name.split(".")[0] if "." in a.name and not a.name.startswith("adv.") else None
            c = "" if not a.cname or a.status != api.SUPPORTED else \
                (f"`{cls}::{a.cname}`" if cls else f"`AscendC::{a.cname}`")
            out.append(f"| `asc.{name}` | {c} | {a.status} | {a.note} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
