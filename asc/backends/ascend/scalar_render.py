"""The kernel .cpp of a scalar plan: the kernel as scalar code on block 0 of the vector cores, written by the shared
C-family renderer (cstyle.py) with GM tensors as GlobalTensors (GetValue / SetValue) and 16-bit floats computed in
float.

The AI core's scalar unit has no transcendentals: a math function of a scalar runs on the vector unit, as the
function's vector API on one 32-byte block (the value duplicated into 8 lanes, lane 0 read back after a V -> S
flag), in a helper `scalarExp_(...)` per API the kernel uses (the API from the one table, ops.OPS). Integer `//`,
`%`, `**` and shifts are helpers with NumPy's semantics (`floorDiv_`, ...), a float -> integer conversion is
`floatToInt_` (NumPy's x86 result out of range). What has no scalar form on the AI core yet (float `//`, `%`,
`**`, device functions that stay calls, `print`) is refused with its line. A temporary tensor (an allocation that is
not returned) lives in the Unified Buffer, read and written by the scalar unit (LocalTensor GetValue / SetValue),
when its size is known at compile time and all of them fit beside the scalar math's blocks."""
from __future__ import annotations

import math

from ... import ir
from ...errors import CompileError
from ..cstyle import CStyleRenderer, needs_fit_check, prepare
from .budget import scalar_fields
from .ctext import STORAGE, cname, fmt_const
from .ops import OPS
from .emitter import AscendSource, Out, entry_open, entry_params, header, launch_wrapper, names, tiling_struct
from .plans import ScalarPlan
from .scalar_math import SCALAR_TMP_BYTES, SCALAR_UB_BYTES, call_text, emit_helpers, needs_tmp
from .soc import UB_BUDGET


class ScalarRenderer(CStyleRenderer):
    """The kernel as scalar code on block 0: tensors are GlobalTensors read with GetValue and written with
    SetValue; 16-bit floats are computed in float."""
    storage_type = dict(STORAGE)
    compute_type = {**STORAGE, "float16": "float", "bfloat16": "float", "float64": "double"}
    load_conv = {"float16": "static_cast<float>({})", "bfloat16": "static_cast<float>({})"}
    store_conv = {"float16": "static_cast<half>({})", "bfloat16": "static_cast<bfloat16_t>({})"}

    # Python's integer operators (NumPy 2 semantics, as asc_cpu.h's): helpers written into the kernel when used
    binary_fn = {("floordiv", "i"): "floorDiv_({}, {})", ("mod", "i"): "floorMod_({}, {})",
                 ("pow", "i"): "intPow_({}, {})", ("lshift", "i"): "shiftLeft_<{t}>({}, {})",
                 ("rshift", "i"): "shiftRight_<{t}>({}, {})"}

    def __init__(self, kernel, plan):
        super().__init__(kernel, {})
        self.plan = plan
        self.out = Out()
        self.lines = self.out.lines
        self.math_apis: dict = {}           # the vector APIs scalar math runs on: api -> takes a sharedTmpBuffer
        self.helpers: set = set()           # the integer helpers used (INT_HELPERS)
        self.ub: dict = {}                  # temporary tensors in the Unified Buffer: name -> (type, bytes)

    def emit(self, line: str = ""):
        self.out.depth = self.depth
        self.out.emit(line)

    def comment_for(self, stmt):
        loc = getattr(stmt, "loc", None)
        if loc is not None:
            self.out.depth = self.depth
            self.out.comment(loc)

    def cname(self, name: str) -> str:
        return cname(name)

    def stmt(self, s):
        if not hasattr(self, "stmt_" + type(s).__name__):
            what = "a matrix product (A @ B: the cube path)" if type(s).__name__ == "MatMul" else \
                f"the statement {type(s).__name__}"
            self.refuse(what, getattr(s, "loc", None))
        return super().stmt(s)

    def expr(self, e):
        if not hasattr(self, "expr_" + type(e).__name__):
            self.refuse(f"the expression {type(e).__name__}", getattr(e, "loc", None))
        return super().expr(e)

    def refuse(self, what, loc):
        raise CompileError(f"ascend target: {what} has no scalar form on the AI core in this version of asc", loc)

    def expr_Load(self, e):
        ref = f"{self.tensor(e.tensor.name)}.GetValue({self.index(e.tensor, e.indices)})"
        conv = self.load_conv.get(e.tensor.type.dtype.name)
        return conv.format(ref) if conv else ref

    def stmt_Store(self, s):
        value = self.expr(s.value)
        conv = self.store_conv.get(s.tensor.type.dtype.name)
        v = conv.format(value) if conv else f"static_cast<{self.storage_type[s.tensor.type.dtype.name]}>({value})"
        self.emit(f"{self.tensor(s.tensor.name)}.SetValue({self.index(s.tensor, s.indices)}, {v});")

    def tensor(self, name: str) -> str:
        """The C++ tensor of a kernel tensor: its GlobalTensor, or the LocalTensor of a temporary."""
        return f"{cname(name)}Ub" if name in self.ub else f"{cname(name)}Gm"

    def place_temporaries(self, fn):
        """Each temporary tensor in the Unified Buffer: a size known when compiling, all of them within the budget
        (beside the scalar math's blocks, SCALAR_UB_BYTES)."""
        total = SCALAR_UB_BYTES
        for s in ir.walk_stmts(fn.body):
            if not (isinstance(s, ir.Alloc) and s.output is None) or s.var.name in self.ub:
                continue
            t = s.var.type
            if not all(isinstance(d, int) for d in t.shape):
                self.refuse(f"a temporary tensor whose size is known only at run time ({s.var.name!r}: "
                            f"{t.shape})", s.loc)
            n = math.prod(t.shape)
            size = max(32, -(-n * t.dtype.itemsize // 32) * 32)
            total += size
            if total > UB_BUDGET:
                raise CompileError(f"ascend target: the temporary tensors of this kernel need {total} B of Unified "
                                   f"Buffer ({s.var.name!r} {t.shape} {t.dtype.name}: {size} B), more than the "
                                   f"{UB_BUDGET} B there are on a vector core: make them smaller, or compute in "
                                   f"tiles", s.loc)
            self.ub[s.var.name] = (t, size)

    def expr_Call(self, e):
        if e.fn in ("maximum", "minimum") and e.type.dtype.kind == "f":
            # numpy.maximum / minimum (also Python's max/min of floats): `a > b || a is nan ? a : b`, nan-propagating
            a, b = self.expr(e.args[0]), self.expr(e.args[1])
            op = ">" if e.fn == "maximum" else "<"
            # (operands are pure expressions: written twice, no helper function or lambda in AI core code)
            return f"((({a}) {op} ({b}) || ({a}) != ({a})) ? ({a}) : ({b}))"
        if e.fn == "abs" and e.type.dtype.kind in "iu":
            x = self.expr(e.args[0])
            return self.narrow(e.type, f"(({x}) < 0 ? -({x}) : ({x}))")
        op = OPS.get(e.fn)
        if (e.fn != "pow" and (op is None or op["args"] != 1)) or e.type.dtype.kind != "f":
            self.refuse(f"the math function {e.fn}()", e.loc)
        return self.math_call(e.fn, e.args, e)

    def math_call(self, fn: str, args, e):
        """Math of float scalars on the vector unit (scalar_math's helpers), in float32: a float64 value is refused,
        a Python float (weak) is computed in float32, as the vector paths compute it."""
        if e.type.dtype.bits == 64 and not e.type.weak:
            self.refuse(f"{fn}() of a float64 value (the vector unit computes float32, float16 and bfloat16: "
                        f"convert it, lang.float32(x))", e.loc)
        return call_text(self.math_apis, fn, [self.expr(a) for a in args])

    def expr_FuncCall(self, e):
        self.refuse("a call of a @lang.func device function", e.loc)

    def expr_Binary(self, e):
        cls = self.suffix(e.type)
        if e.op == "pow" and e.type.dtype.kind == "f":
            return self.math_call("pow", (e.a, e.b), e)
        if (e.op in ("floordiv", "mod", "pow") and cls != "i") or (e.op == "truediv" and cls == "i"):
            self.refuse(f"the operator {e.op!r} on {e.type!r}", e.loc)
        fn = self.binary_fn.get((e.op, cls))
        if fn is not None:
            self.helpers.add(fn[:fn.index("_") + 1])           # the helper's name: floorDiv_, ...
        return super().expr_Binary(e)

    def expr_Cast(self, e):
        dst = e.type.dtype
        if dst.kind in "iu" and e.x.type.dtype.kind == "f":
            self.helpers.add("floatToInt_")
            return f"floatToInt_<{self.ctype(e.type)}>(static_cast<double>({self.expr(e.x)}))"
        if needs_fit_check(e):
            # NumPy 2 raises OverflowError for a Python int that does not fit; the AI core cannot raise one
            raise CompileError(f"ascend target: this Python int (known only at run time) meets {dst.name}, and a "
                               f"value that does not fit must raise OverflowError (NumPy 2), which the AI core "
                               f"cannot: convert it explicitly, lang.cast(v, lang.{dst.name}) (it wraps), or make "
                               f"the other operand int64", e.loc)
        if dst.is_16bit_float and e.explicit:
            st = STORAGE[dst.name]
            return f"static_cast<float>(static_cast<{st}>({self.expr(e.x)}))"
        if dst.kind == "b":
            return f"({self.expr(e.x)} != 0)"
        return f"static_cast<{self.ctype(e.type)}>({self.expr(e.x)})"

    def const(self, c):
        v = c.value
        if c.type.dtype.kind == "f" and (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
            return fmt_const(v)
        return super().const(c)

    def stmt_Print(self, s):
        self.refuse("print()", s.loc)

    def stmt_Alloc(self, s):
        t = s.var.type
        if s.init in ("zeros", "full"):
            v = "0" if s.init == "zeros" else self.expr(s.fill)
            conv = self.store_conv.get(t.dtype.name)
            v = conv.format(v) if conv else f"static_cast<{self.storage_type[t.dtype.name]}>({v})"
            self.emit(f"for (int64_t k = 0; k < {self.numel(t)}; ++k) {{")
            self.emit(f"  {self.tensor(s.var.name)}.SetValue(k, {v});")
            self.emit("}")

    def stmt_Return(self, s):
        if self.fn is not self.kernel.entry:
            self.refuse("a device function", s.loc)
        if any(o.kind == "scalar" for o in self.kernel.outputs):
            self.refuse("returning a scalar (a whole-array reduction)", s.loc)
        self.emit("goto done;")

    def dim(self, d) -> str:
        return f"t.{d.name}" if isinstance(d, ir.Sym) else f"{d}LL"

    def expr_Var(self, e):
        if e.name in self.kernel.symbols:       # a run-time size (dynamic_shape): a field of the tiling
            return f"static_cast<int64_t>(t.{e.name})"
        return super().expr_Var(e)

    def render_all(self) -> AscendSource:
        k = self.kernel
        plan = self.plan
        name, _, sname = names(k)
        out = self.out
        header(out, k, "scalar code on one AI core (no vector lowering for this kernel: "
                       f"{plan.reason}{' at line ' + str(plan.reason_loc.line) if plan.reason_loc else ''})")
        fields = scalar_fields(k)
        tiling_struct(out, sname, fields, {})
        params = entry_params(plan)
        fn = k.entry
        prepare(self, fn)
        body = ["if (GetBlockIdx() != 0) {", "  return;", "}"]
        for t in plan.tensors:
            numel = " * ".join(self.dim(d) for d in t.shape) or "1"
            body.append(f"GlobalTensor<{STORAGE[t.dtype.name]}> {cname(t.name)}Gm;")
            body.append(f"{cname(t.name)}Gm.SetGlobalBuffer(reinterpret_cast<__gm__ {STORAGE[t.dtype.name]}*>"
                        f"({cname(t.name)}), {numel});")
        self.place_temporaries(fn)
        # the body is rendered by the C-family renderer, then placed in the entry function
        saved = out.lines, out.locs
        out.lines, out.locs = [], {}
        self.lines = out.lines
        self.depth = 1
        self.block(fn.body)
        body_lines, body_locs = out.lines, out.locs
        out.lines, out.locs = saved
        self.lines = out.lines
        written = [t for t in plan.tensors if t.kind == "alloc" or t.name in ir.written_params(k)[fn.name]]
        out.depth = 0
        for h in sorted(self.helpers):
            for ln in INT_HELPERS[h]:
                out.emit(ln)
        if self.helpers:
            out.emit()
        emit_helpers(out, self.math_apis, bool(self.ub))
        if self.math_apis or self.ub:
            body.append("TPipe pipe_;")
        for t_name, (t, size) in self.ub.items():
            c = cname(t_name)
            body += [f"TBuf<TPosition::VECCALC> {c}UbBuf_;",
                     f"pipe_.InitBuffer({c}UbBuf_, {size});  // the temporary {t_name} {t.shape}, in UB",
                     f"LocalTensor<{STORAGE[t.dtype.name]}> {c}Ub = {c}UbBuf_.Get<{STORAGE[t.dtype.name]}>();"]
        if self.math_apis:
            body += ["TBuf<TPosition::VECCALC> smBuf_;",
                     "pipe_.InitBuffer(smBuf_, 64);  // scalar math on the vector unit: one block in, one out",
                     "LocalTensor<float> smIn_ = smBuf_.GetWithOffset<float>(8, 0);",
                     "LocalTensor<float> smOut_ = smBuf_.GetWithOffset<float>(8, 32);"]
            if needs_tmp(self.math_apis):
                body += ["TBuf<TPosition::VECCALC> smTmpBuf_;",
                         f"pipe_.InitBuffer(smTmpBuf_, {SCALAR_TMP_BYTES});  // sharedTmpBuffer of the advanced math APIs",
                         "LocalTensor<uint8_t> smTmp_ = smTmpBuf_.Get<uint8_t>();"]
        entry_open(out, name, params, sname)
        for ln in body:
            out.emit(ln)
        out.emit("{")
        base = len(out.lines)
        for ln, loc in body_locs.items():
            out.locs[base + ln] = loc
        out.lines.extend(body_lines)
        out.emit("}")
        out.emit("done:")
        for t in written:
            ty = STORAGE[t.dtype.name]
            out.emit(f"DataCacheCleanAndInvalid<{ty}, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>"
                     f"({cname(t.name)}Gm);")
        out.emit("return;")
        out.depth = 0
        out.emit("}")
        out.emit()
        launch_wrapper(out, name, params)
        return AscendSource(name, out.text(), plan, out.locs, fields, params)


# Python's integer operators and float -> int conversion with NumPy 2's results on x86 (those of asc_cpu.h): a
# division by zero gives 0, INT_MIN // -1 wraps, shifts by a count outside [0, bits) give 0 (or -1), a negative
# power 0, a float out of range (or nan) the "integer indefinite" value
INT_HELPERS = {
    "floorDiv_": [
        "__aicore__ inline int64_t floorDiv_(int64_t a, int64_t b)",
        "{",
        "    if (b == 0) return 0;",
        "    if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));",
        "    int64_t q = a / b;",
        "    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;",
        "}"],
    "floorMod_": [
        "__aicore__ inline int64_t floorMod_(int64_t a, int64_t b)",
        "{",
        "    if (b == 0 || b == -1) return 0;",
        "    int64_t r = a % b;",
        "    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;",
        "}"],
    "intPow_": [
        "__aicore__ inline int64_t intPow_(int64_t b, int64_t e)",
        "{",
        "    if (e < 0) return 0;",
        "    uint64_t r = 1, x = static_cast<uint64_t>(b);",
        "    while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }",
        "    return static_cast<int64_t>(r);",
        "}"],
    "shiftLeft_": [
        "template <typename T> __aicore__ inline T shiftLeft_(T a, int64_t b)",
        "{",
        "    return (static_cast<uint64_t>(b) < sizeof(T) * 8) ? static_cast<T>(static_cast<uint64_t>(a) << b) "
        ": static_cast<T>(0);",
        "}"],
    "shiftRight_": [
        "template <typename T> __aicore__ inline T shiftRight_(T a, int64_t b)",
        "{",
        "    return (static_cast<uint64_t>(b) < sizeof(T) * 8) ? static_cast<T>(a >> b) : static_cast<T>(a < 0 ? -1 : 0);",
        "}"],
    "floatToInt_": [
        "template <typename T> __aicore__ inline T floatToInt_(double x)",
        "{",
        "    if (sizeof(T) == 8) {",
        "        return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? static_cast<T>(static_cast<int64_t>(x))",
        "                                                                          : static_cast<T>(INT64_MIN);",
        "    }",
        "    int32_t v = (x > -2147483649.0 && x < 2147483648.0) ? static_cast<int32_t>(x) : INT32_MIN;",
        "    return static_cast<T>(v);",
        "}"],
}


def render_scalar(plan: ScalarPlan) -> AscendSource:
    """The kernel .cpp of a scalar plan."""
    return ScalarRenderer(plan.kernel, plan).render_all()
