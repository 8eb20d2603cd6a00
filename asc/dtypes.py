"""DSL dtypes (`lang.float32`, ...), tensor annotations (`lang.float32[N, D]`), `lang.dim` and `lang.Tensor`."""
from __future__ import annotations

import contextvars
import math
import sys

import numpy as np

from . import ir

# the sizes bound by the running interpreted kernel, for Dim.__index__ (set by asc.runtime.interpreter)
BOUND_DIMS: contextvars.ContextVar = contextvars.ContextVar("asc_bound_dims", default=None)

_BF16: list = []      # [NumPy's bfloat16 dtype] once ml_dtypes is imported (bfloat16_np)


def bfloat16_np() -> np.dtype:
    """NumPy's bfloat16 dtype (ml_dtypes'), importing ml_dtypes on first use: its extension takes up to 1.3 s to
    import (0.7.0), so `import asc.language` leaves it to the first bfloat16 value a program uses."""
    if not _BF16:
        import ml_dtypes
        d = np.dtype(ml_dtypes.bfloat16)
        bfloat16._np = d
        _BY_NP[d] = bfloat16
        _BF16.append(d)
    return _BF16[0]


def bfloat16_imported() -> bool:
    """Whether ml_dtypes is imported (by asc or by the program): until then no NumPy value is bfloat16."""
    return bool(_BF16) or "ml_dtypes" in sys.modules


def is_bfloat16(dt) -> bool:
    """Whether the NumPy dtype `dt` is bfloat16, without importing ml_dtypes: no array has that dtype before
    ml_dtypes is imported (it is the module that registers it with NumPy)."""
    if not _BF16:
        if "ml_dtypes" not in sys.modules:
            return False
        bfloat16_np()
    return dt == _BF16[0]


class DTypeHandle:
    """A dtype of the kernel language. `dt[N, 4]` is a tensor type; a bare `dt` annotates a scalar;
    `dt(x)` converts a scalar."""

    __slots__ = ("ir", "_np")

    def __init__(self, d: ir.DType):
        self.ir = d
        self._np = None if d.name == "bfloat16" else np.dtype(d.np_name)   # bfloat16: on first use

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype (bfloat16: ml_dtypes', imported here the first time)."""
        return self._np if self._np is not None else bfloat16_np()

    def __repr__(self) -> str:
        return f"lang.{self.ir.name if self.ir.name != 'bool' else 'bool_'}"

    def __getitem__(self, dims) -> "TensorAnnotation":
        if not isinstance(dims, tuple):
            dims = (dims,)
        return TensorAnnotation(self, dims)

    def __call__(self, x):
        return convert(x, self)

    def __eq__(self, other) -> bool:
        if isinstance(other, DTypeHandle):
            return self.ir == other.ir
        h = as_dtype(other)
        if h is None:
            return NotImplemented
        return self.ir == h.ir

    def __hash__(self) -> int:
        return hash(self.ir)


float16 = DTypeHandle(ir.float16)
bfloat16 = DTypeHandle(ir.bfloat16)
float32 = DTypeHandle(ir.float32)
float64 = DTypeHandle(ir.float64)
int8 = DTypeHandle(ir.int8)
int16 = DTypeHandle(ir.int16)
int32 = DTypeHandle(ir.int32)
int64 = DTypeHandle(ir.int64)
uint8 = DTypeHandle(ir.uint8)
bool_ = DTypeHandle(ir.bool_)

HANDLES = {h.ir: h for h in (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool_)}
_BY_NP = {h._np: h for h in HANDLES.values() if h._np is not None}    # bfloat16 joins when ml_dtypes is imported


def as_dtype(x) -> DTypeHandle | None:
    """A DTypeHandle from a handle, a NumPy dtype or scalar type, a torch dtype, or Python int/float/bool."""
    if isinstance(x, DTypeHandle):
        return x
    if x is float:
        return float64
    if x is int:
        return int64
    if x is bool:
        return bool_
    if type(x).__module__ == "torch":
        x = str(x).replace("torch.", "")
        if x == "bfloat16":
            return bfloat16
    if isinstance(x, str) and x == "bfloat16":       # NumPy knows the name only once ml_dtypes is imported
        return bfloat16
    try:
        d = np.dtype(x)
    except TypeError:
        return None
    h = _BY_NP.get(d)
    if h is None and is_bfloat16(d):
        return bfloat16
    return h


class Dim:
    """A symbolic size: `N = lang.dim("N")`. One name is one size across all the arguments of a call.
    Inside an interpreted kernel it behaves as the bound int."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"lang.dim needs an identifier, got {name!r}")
        self.name = name

    def __repr__(self) -> str:
        return f"lang.dim({self.name!r})"

    def __index__(self) -> int:
        bound = BOUND_DIMS.get()
        if bound is None or self.name not in bound:
            raise TypeError(f"size {self.name} is only known inside a running kernel")
        return bound[self.name]

    __int__ = __index__

    def _v(self):
        return self.__index__()

    def __add__(self, o): return self._v() + o
    def __radd__(self, o): return o + self._v()
    def __sub__(self, o): return self._v() - o
    def __rsub__(self, o): return o - self._v()
    def __mul__(self, o): return self._v() * o
    def __rmul__(self, o): return o * self._v()
    def __floordiv__(self, o): return self._v() // o
    def __rfloordiv__(self, o): return o // self._v()
    def __truediv__(self, o): return self._v() / o
    def __rtruediv__(self, o): return o / self._v()
    def __mod__(self, o): return self._v() % o
    def __lt__(self, o): return self._v() < o
    def __le__(self, o): return self._v() <= o
    def __gt__(self, o): return self._v() > o
    def __ge__(self, o): return self._v() >= o
    def __float__(self): return float(self._v())

    def __eq__(self, o):
        if isinstance(o, Dim):
            return self.name == o.name
        return self._v() == o

    def __hash__(self):
        return hash(("Dim", self.name))


def dim(name: str) -> Dim:
    """A symbolic dimension: `N = lang.dim("N")`, then `x: lang.float32[N]`."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("asc_"):
        raise ValueError(f"lang.dim({name!r}): a size is named by a Python identifier that does not start with "
                         f"'asc_' (reserved for asc's own names)")
    return Dim(name)


class TensorAnnotation:
    """The type of a tensor parameter or result: dtype (None: any) and dims (None: any rank; each dim an int,
    a Dim, a bare name, or None for any size)."""

    __slots__ = ("dtype", "dims")

    def __init__(self, dtype, dims):
        self.dtype, self.dims = dtype, dims

    def __repr__(self) -> str:
        d = "Tensor" if self.dtype is None else repr(self.dtype)
        if self.dims is None:
            return d
        return f"{d}[{', '.join(x.name if isinstance(x, Dim) else str(x) for x in self.dims)}]"

    def __getitem__(self, dims):
        """lang.Tensor[lang.float32]: that dtype, any shape; lang.Tensor[N, 4]: that shape, any dtype (the call's)."""
        if self.dtype is None and self.dims is None:
            if isinstance(dims, DTypeHandle):
                return TensorAnnotation(dims, None)
            dims = dims if isinstance(dims, tuple) else (dims,)
            if any(isinstance(d, DTypeHandle) for d in dims):
                raise TypeError(f"lang.Tensor[{', '.join(map(repr, dims))}]: lang.Tensor takes a dtype "
                                f"(lang.Tensor[lang.float32]) or sizes (lang.Tensor[N, 4]); for both write "
                                f"lang.float32[N, 4]")
            return TensorAnnotation(None, dims)
        raise TypeError(f"{self!r} cannot be subscripted")


Tensor = TensorAnnotation(None, None)


# How the interpreter carries a 16-bit float scalar: as its float32 value (precision="float32": arithmetic on it is
# float32), or as the 16-bit scalar itself (precision="mixed": NumPy's float16 / ml_dtypes' bfloat16 arithmetic,
# each operation rounded). Set by the interpreter for the kernel it runs (asc/runtime/interpreter.py).
mixed16: contextvars.ContextVar = contextvars.ContextVar("asc_mixed16", default=False)


def carried16(v):
    """A 16-bit NumPy scalar (an element read) as the interpreter carries it (see mixed16): itself, or its float32
    value (a NaN's payload exactly)."""
    if mixed16.get():
        return v
    f = np.float32(v)
    return f if f == f else widen16(v)[()]


def scalar16(r, dt):
    """A 0-d result of 16-bit operands (computed wide, the 16-bit dtype `dt` its type) as the interpreter carries
    it: rounded to the 16-bit scalar (precision="mixed"), else as it is."""
    if not mixed16.get():
        return r
    return narrow16(np.asarray(r), as_dtype(dt))[()]


def convert(x, h: DTypeHandle):
    """x (a scalar or an array) converted to dtype `h`, as compiled code converts: float to int truncates toward
    zero, to 16-bit floats rounds to nearest even (a NaN as narrow16 says), and 16-bit values are carried in
    float32 (in 16 bits with precision="mixed": mixed16)."""
    a = np.asarray(x)
    if h.ir.name in ("float16", "bfloat16"):
        if mixed16.get():
            r = narrow16(a, h)
            return r[()] if r.ndim == 0 else r
        r = widen16(narrow16(a, h))
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            r = widen16(a).astype(h.np) if _nan16_name(a.dtype) else a.astype(h.np)
    return r[()] if r.ndim == 0 else r


# ------------------------------------------------------------------ the bits of 16-bit NaNs (docs/tensors.md, "NaN")
# Every target converts a NaN the way NumPy converts float32 to float16, bfloat16 included: widening keeps the sign
# and the payload exactly (shifted up, a signalling NaN not quieted), narrowing keeps the sign and the payload's
# top bits (not quieted; a payload with none of them set becomes 1, so the value stays a NaN). A 16-bit value
# widened and narrowed back keeps its bits, so a copy keeps them whatever path it takes. ml_dtypes' own float32 ->
# bfloat16 conversion would make every NaN 0x7fc0 with its sign, and NumPy built with F16C as its baseline would
# quiet float16 NaNs: the interpreter converts NaNs here instead.
_NAN16 = {"float16": (13, 0x7c00, 0x3ff), "bfloat16": (16, 0x7f80, 0x7f)}    # payload shift, exponent, payload


def _nan16_name(dt) -> str | None:
    dt = np.dtype(dt)
    return "float16" if dt == np.float16 else "bfloat16" if is_bfloat16(dt) else None


def widen16(a) -> np.ndarray:
    """A float16 or bfloat16 array (or scalar) as float32, exactly, NaN payloads included; other arrays as
    they are."""
    a = np.asarray(a)
    name = _nan16_name(a.dtype)
    if name is None:
        return a
    a = np.asarray(a, order="C")                           # (reshape(-1) below: a view)
    f = a.astype(np.float32)
    nan = np.isnan(f)
    if nan.any():
        shift, _, mask = _NAN16[name]
        b = a.reshape(-1).view(np.uint16)[nan.reshape(-1)].astype(np.uint32)
        f = f.copy()
        f.reshape(-1).view(np.uint32)[nan.reshape(-1)] = ((b & 0x8000) << 16) | 0x7f800000 | ((b & mask) << shift)
    return f


def narrow16(a, h: DTypeHandle) -> np.ndarray:
    """The values of `a` (floats, ints or the other 16-bit dtype) as float16 / bfloat16 (h): rounded once to
    nearest even, and a NaN by the rule above (a float64 NaN becomes float32 first, as hardware converts it)."""
    a = np.asarray(a)
    name = h.ir.name
    if a.dtype == h.np:
        return a
    if _nan16_name(a.dtype):
        a = widen16(a)                                     # float16 <-> bfloat16: through float32, exactly
    a = np.asarray(a, order="C")                           # (reshape(-1) below: a view)
    with np.errstate(invalid="ignore", over="ignore"):
        if name == "bfloat16" and a.dtype == np.float64:
            r = round_to_odd_f32(a).astype(h.np)          # once from the double, whatever the ml_dtypes version
        else:
            r = a.astype(h.np)
        if a.dtype.kind != "f":
            return r
        nan = np.isnan(a)
        if not nan.any():
            return r
        u = a.reshape(-1)[nan.reshape(-1)].astype(np.float32).view(np.uint32)
    shift, exp, mask = _NAN16[name]
    p = (u >> shift) & mask
    r = r.copy()
    r.reshape(-1).view(np.uint16)[nan.reshape(-1)] = (((u >> 16) & 0x8000) | exp | p | (p == 0)).astype(np.uint16)
    return r


def round_to_odd_f32(v):
    """float64 value(s) as float32 rounded toward zero with the lowest bit set when inexact (round to odd):
    rounding that to a narrower float gives the correctly rounded result of v itself (float32 keeps 16 more bits
    than bfloat16). NaN and infinities stay as they are."""
    a = np.asarray(v, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = a.astype(np.float32)
        back = f.astype(np.float64)
    inexact = np.isfinite(a) & (back != a)
    bits = f.view(np.uint32).copy()
    bits -= (inexact & (np.abs(back) > np.abs(a))).astype(np.uint32)   # toward zero (inf: the largest finite)
    bits |= inexact.astype(np.uint32)
    r = bits.view(np.float32)
    return r[()] if r.ndim == 0 else r


def to_bfloat16(value):
    """A Python or NumPy number as bfloat16, rounded once to nearest even from its exact value (as NumPy rounds
    float64 to float16; ml_dtypes before 0.7 rounded through float32, twice). Ints of any size are exact."""
    bf16 = bfloat16_np()
    if isinstance(value, (np.float16, np.float32)) or (isinstance(value, np.generic) and value.dtype == bf16):
        return np.array(value).astype(bf16)[()]       # float16 / float32 / bfloat16: one rounding already
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        n = int(value)
        shift = max(abs(n).bit_length() - 53, 0)
        m = abs(n) >> shift
        m |= 1 if abs(n) & ((1 << shift) - 1) else 0          # round to odd into 53 bits: exact in a double
        v = math.ldexp(-m if n < 0 else m, shift)    # OverflowError beyond a double, as float(n) and float16
    else:
        v = float(value)
    return np.array(round_to_odd_f32(v)).astype(bf16)[()]


def scalar_as(value, d: ir.DType):
    """A Python or NumPy number as a NumPy scalar of dtype `d`, as a kernel parameter of that dtype receives it."""
    if d.name == "bfloat16":
        return to_bfloat16(value)
    return HANDLES[d].np.type(value)
