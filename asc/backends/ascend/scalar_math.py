"""Math of scalars on the AI core, whose scalar unit has no transcendentals: each function runs on the vector unit as
its vector API on one 32-byte block (the value duplicated into 8 lanes, the API, a V -> S flag, lane 0 read back),
in a helper `scalar<Api>_(in, out[, tmp], x)` written into the kernel; a float power `x ** y` is `scalarPow_`
(C99 Annex F's special cases in scalar code, exp(y ln|x|) on the vector unit with the logarithm and the product
carried in two floats, see `POW_HELPER`).

Used by the scalar fallback (scalar_render) for every math call, and by the map and row plans for the scalars
computed before the element loop (`bc1 = 1.0 - beta1 ** step` of Adam): `PreScalars` writes such a statement as
C++ text calling the helpers, and `emit_helpers` / `emit_blocks` write the helpers and the UB blocks they use."""
from __future__ import annotations

from ... import ir
from ..cstyle import int_literal
from .ctext import STORAGE_ROUND, fmt_const
from .instructions import TEMPLATES
from .ops import OPS
from .plans import Unsupported
from .soc import adv_tmp_bytes

SCALAR_TMP_BYTES = adv_tmp_bytes(8)     # the sharedTmpBuffer of an advanced math API over 8 floats
SCALAR_UB_BYTES = 64 + SCALAR_TMP_BYTES     # the scalar math's blocks in the Unified Buffer
POW = "Pow"                               # the key of scalarPow_ among the helpers a kernel uses


def flag(out, event: str):
    out.emit(f"int32_t {event.lower()}Event = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::{event}));")
    out.emit(f"SetFlag<HardEvent::{event}>({event.lower()}Event);")
    out.emit(f"WaitFlag<HardEvent::{event}>({event.lower()}Event);")


def scalar_math_helper(out, api: str, adv: bool, scalar_ub: bool):
    """`scalar<Api>_(in, out[, tmp], x)`: the vector API `api` of the scalar x, on one block of the vector unit
    (`scalar_ub`: the kernel writes the Unified Buffer from the scalar unit, which the vector unit waits for)."""
    tmp = "LocalTensor<uint8_t>& tmp, " if adv else ""
    out.emit(f"__aicore__ inline float scalar{api}_(LocalTensor<float>& in, LocalTensor<float>& out, {tmp}float x)")
    out.emit("{")
    out.depth += 1
    if scalar_ub:
        flag(out, "S_V")
    out.emit("Duplicate(in, x, 8);")
    out.emit(TEMPLATES[api].format(api=api, d="out", s0="in", tmp="tmp", n="8"))
    flag(out, "V_S")
    out.emit("return out.GetValue(0);")
    out.depth -= 1
    out.emit("}")
    out.emit()


# x ** y in float32 as NumPy's float32 power gives it (C99 Annex F), within about 1 ulp (docs/ascend.md):
# - the special cases in scalar code: y == 0 or x == 1 give 1 (even for nan), nan gives nan, y = +-inf, x = +-0,
#   x = +-inf, a negative x with a non-integer y gives nan, a negative x with an odd integer y a negative result;
# - x = 2^e m with m in [sqrt(1/2), sqrt(2)): ln|x| = e ln2 + ln m, ln m on the vector unit (Ln, |ln m| < 0.35, so
#   its error stays below 2^-25), e ln2 from a two-float ln2 (e * LN2_HI exact);
# - y ln|x| as a two-float product (Veltkamp's split, exact products: no FMA), t = k ln2 + r, |r| <= ln2 / 2;
# - exp(r) on the vector unit (Exp), times 2^k in two exact steps (the result may be subnormal or overflow).
POW_HELPER = r"""__aicore__ inline float pwTwo_(int32_t pwK_)
{
    float pwS_ = 1.0f;
    float pwB_ = pwK_ < 0 ? 0.5f : 2.0f;
    uint32_t pwN_ = static_cast<uint32_t>(pwK_ < 0 ? -pwK_ : pwK_);
    while (pwN_ != 0) {
        if ((pwN_ & 1) != 0) pwS_ = pwS_ * pwB_;
        pwB_ = pwB_ * pwB_;
        pwN_ = pwN_ >> 1;
    }
    return pwS_;
}

__aicore__ inline float pwSplit_(float pwA_, float& pwLo_)
{
    float pwC_ = 4097.0f * pwA_;
    float pwHi_ = pwC_ - (pwC_ - pwA_);
    pwLo_ = pwA_ - pwHi_;
    return pwHi_;
}

__aicore__ inline float scalarPow_(LocalTensor<float>& in, LocalTensor<float>& out, float pwX_, float pwY_)
{
    if (pwY_ == 0.0f || pwX_ == 1.0f) return 1.0f;
    if (pwX_ != pwX_ || pwY_ != pwY_) return pwX_ + pwY_;
    const float pwInf_ = 1.0f / 0.0f;
    float pwAy_ = pwY_ < 0.0f ? -pwY_ : pwY_;
    float pwAx_ = pwX_ < 0.0f ? -pwX_ : pwX_;
    if (pwAy_ == pwInf_) {
        if (pwAx_ == 1.0f) return 1.0f;
        return ((pwAx_ < 1.0f) == (pwY_ < 0.0f)) ? pwInf_ : 0.0f;
    }
    bool pwYInt_ = pwAy_ >= 16777216.0f || static_cast<float>(static_cast<int32_t>(pwAy_)) == pwAy_;
    bool pwYOdd_ = pwAy_ < 16777216.0f && pwYInt_ && (static_cast<int32_t>(pwAy_) & 1) != 0;
    bool pwNeg_ = pwX_ < 0.0f || (pwX_ == 0.0f && 1.0f / pwX_ < 0.0f);
    float pwR_;
    if (pwAx_ == pwInf_) {
        pwR_ = pwY_ < 0.0f ? 0.0f : pwInf_;
    } else if (pwX_ < 0.0f && !pwYInt_) {
        return 0.0f / 0.0f;
    } else if (pwAx_ == 0.0f) {
        pwR_ = pwY_ < 0.0f ? pwInf_ : 0.0f;
    } else {
        int32_t pwE_ = 0;
        float pwM_ = pwAx_;
        while (pwM_ >= 1.41421356f) { pwM_ = pwM_ * 0.5f; pwE_ = pwE_ + 1; }
        while (pwM_ < 0.70710678f) { pwM_ = pwM_ * 2.0f; pwE_ = pwE_ - 1; }
        Duplicate(in, pwM_, 8);
        Ln(out, in, 8);
        int32_t pwVsEvent_ = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(pwVsEvent_);
        WaitFlag<HardEvent::V_S>(pwVsEvent_);
        float pwLnm_ = out.GetValue(0);
        const float pwLn2Hi_ = 0.693145751953125f;
        const float pwLn2Lo_ = 1.42860682030941723212e-06f;
        float pwFe_ = static_cast<float>(pwE_);
        float pwLh_ = pwFe_ * pwLn2Hi_;
        float pwLl_ = pwFe_ * pwLn2Lo_ + pwLnm_;
        float pwL_ = pwLh_ + pwLl_;
        float pwLLo_ = pwLl_ - (pwL_ - pwLh_);
        float pwYl_, pwYh_ = pwSplit_(pwY_, pwYl_);
        float pwAl_, pwAh_ = pwSplit_(pwL_, pwAl_);
        float pwP_ = pwY_ * pwL_;
        float pwPLo_ = ((pwYh_ * pwAh_ - pwP_) + pwYh_ * pwAl_ + pwYl_ * pwAh_) + pwYl_ * pwAl_ + pwY_ * pwLLo_;
        if (pwP_ > 89.0f) {
            pwR_ = pwInf_;
        } else if (pwP_ < -104.0f) {
            pwR_ = 0.0f;
        } else {
            float pwKf_ = pwP_ * 1.44269504f;
            int32_t pwK_ = static_cast<int32_t>(pwKf_ < 0.0f ? pwKf_ - 0.5f : pwKf_ + 0.5f);
            float pwFk_ = static_cast<float>(pwK_);
            float pwRr_ = ((pwP_ - pwFk_ * pwLn2Hi_) - pwFk_ * pwLn2Lo_) + pwPLo_;
            int32_t pwSvEvent_ = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(pwSvEvent_);
            WaitFlag<HardEvent::S_V>(pwSvEvent_);
            Duplicate(in, pwRr_, 8);
            Exp(out, in, 8);
            int32_t pwVsEvent2_ = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(pwVsEvent2_);
            WaitFlag<HardEvent::V_S>(pwVsEvent2_);
            pwR_ = out.GetValue(0) * pwTwo_(pwK_ / 2) * pwTwo_(pwK_ - pwK_ / 2);
        }
    }
    return (pwNeg_ && pwYOdd_) ? -pwR_ : pwR_;
}
"""


def emit_helpers(out, apis: dict, scalar_ub: bool = False):
    """The helpers of the math APIs in `apis` (api -> takes a sharedTmpBuffer; POW: scalarPow_)."""
    for api, adv in sorted(apis.items()):
        if api == POW:
            for ln in POW_HELPER.splitlines():
                out.emit(ln)
            out.emit()
        else:
            scalar_math_helper(out, api, adv, scalar_ub)


def needs_tmp(apis: dict) -> bool:
    return any(v for k, v in apis.items() if k != POW)


def ub_bytes(apis: dict) -> int:
    """The UB the scalar math of `apis` takes: the blocks in and out, the advanced APIs' sharedTmpBuffer."""
    if not apis:
        return 0
    return 64 + (SCALAR_TMP_BYTES if needs_tmp(apis) else 0)


def emit_blocks(out, apis: dict, pipe: str = "pipe->"):
    """The UB blocks the helpers work on (`smIn_`, `smOut_`, `smTmp_`), from the members `smBuf_` / `smTmpBuf_`."""
    out.emit(f"{pipe}InitBuffer(smBuf_, 64);  // scalar math on the vector unit: one block in, one out")
    out.emit("LocalTensor<float> smIn_ = smBuf_.GetWithOffset<float>(8, 0);")
    out.emit("LocalTensor<float> smOut_ = smBuf_.GetWithOffset<float>(8, 32);")
    if needs_tmp(apis):
        out.emit(f"{pipe}InitBuffer(smTmpBuf_, {SCALAR_TMP_BYTES});  // sharedTmpBuffer of the advanced math APIs")
        out.emit("LocalTensor<uint8_t> smTmp_ = smTmpBuf_.Get<uint8_t>();")


def emit_members(out, apis: dict):
    if apis:
        out.emit("TBuf<TPosition::VECCALC> smBuf_;")
    if needs_tmp(apis):
        out.emit("TBuf<TPosition::VECCALC> smTmpBuf_;")


def call_text(apis: dict, fn: str, args: list) -> str:
    """The helper call of math function `fn` (a builtin of the op table with one operand, or "pow") on C++ float
    operands; records the helper in `apis`."""
    if fn == "pow":
        apis[POW] = False
        return f"scalarPow_(smIn_, smOut_, static_cast<float>({args[0]}), static_cast<float>({args[1]}))"
    op = OPS[fn]
    apis[op["api"]] = op["tmp"]
    tmp = "smTmp_, " if op["tmp"] else ""
    return f"scalar{op['api']}_(smIn_, smOut_, {tmp}static_cast<float>({args[0]}))"


_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_ARITH = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}


class PreScalars:
    """C++ text of a scalar computed before a vector plan's element loop, from scalar parameters, earlier such
    scalars and constants, its math through the helpers (float32: the vector unit has no float64; a Python float
    is computed in float32, as the vector code that uses it). What has no such form raises Unsupported."""

    def __init__(self, scalar_names: dict, apis: dict):
        self.names = scalar_names
        self.apis = apis

    def text(self, e) -> str:
        loc = getattr(e, "loc", None)
        if isinstance(e, ir.Const):
            k = e.type.dtype.kind
            if k == "f":
                return fmt_const(e.value)
            if k == "b":
                return "true" if e.value else "false"
            return int_literal(int(e.value), 64 if e.type.weak else e.type.dtype.bits)
        if isinstance(e, ir.Var):
            if e.name not in self.names:
                raise Unsupported(f"the value of {e.name!r} is not known before the loop", loc)
            return self.names[e.name]
        if isinstance(e, ir.Unary) and e.op in ("neg", "not"):
            return f"({'-' if e.op == 'neg' else '!'}{self.text(e.x)})"
        if isinstance(e, ir.Binary):
            kind = e.type.dtype.kind
            if e.op == "pow" and kind == "f":
                return call_text(self.apis, "pow", [self.text(e.a), self.text(e.b)])
            if e.op in _ARITH and (kind == "f" or e.op != "truediv"):
                return f"({self.text(e.a)} {_ARITH[e.op]} {self.text(e.b)})"
            raise Unsupported(f"the scalar operator {e.op!r} on {e.type!r} before the loop", loc)
        if isinstance(e, ir.Compare):
            return f"({self.text(e.a)} {_CMP[e.op]} {self.text(e.b)})"
        if isinstance(e, ir.Logical):
            return f"({self.text(e.a)} {'&&' if e.op == 'and' else '||'} {self.text(e.b)})"
        if isinstance(e, ir.Select):
            return f"({self.text(e.cond)} ? {self.text(e.a)} : {self.text(e.b)})"
        if isinstance(e, ir.Cast):
            x, dst = self.text(e.x), e.type.dtype
            if dst.kind == "f":
                if e.explicit and dst.name in STORAGE_ROUND:
                    return f"static_cast<float>({STORAGE_ROUND[dst.name].format(x)})"
                return f"static_cast<float>({x})"
            if dst.kind in "iu" and e.x.type.dtype.kind in "iu":
                return f"static_cast<int64_t>({x})"
            raise Unsupported(f"the conversion {e.x.type!r} -> {e.type!r} before the loop", loc)
        if isinstance(e, ir.Call) and e.type.dtype.kind == "f":
            args = [self.text(a) for a in e.args]
            if e.fn == "pow":
                return call_text(self.apis, "pow", args)
            op = OPS.get(e.fn)
            if op is not None and op["cmp"] is not None:
                a, b = args
                return f"((({a}) {op['cmp']} ({b}) || ({a}) != ({a})) ? ({a}) : ({b}))"
            if op is not None and op["args"] == 1:
                return call_text(self.apis, e.fn, args)
        raise Unsupported(f"the expression {type(e).__name__} before the loop", loc)
