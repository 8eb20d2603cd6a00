"""The shared C-family renderer: IR -> C++ text. Targets subclass it and override tables, not the algorithm."""
from __future__ import annotations

import linecache
import math

from .. import ir
from ..builtins import cpu_fused_templates, cpu_int_templates, cpu_scaled_templates, cpu_templates, scaled_name
from ..passes.scopes import declaration_blocks

C_RESERVED = set("""auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
bool true false new delete class namespace template this operator private public protected virtual friend using
typename try catch throw asm export mutable explicit""".split())


class CStyleRenderer:
    # ---- tables a target overrides
    storage_type = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
                    "uint8": "uint8_t", "float16": "asc_half", "bfloat16": "asc_bf16", "float32": "float",
                    "float64": "double"}
    compute_type = {**storage_type, "float16": "float", "bfloat16": "float"}
    load_conv = {"float16": "asc_h2f({})", "bfloat16": "asc_bf2f({})"}
    store_conv = {"float16": "asc_f2h({})", "bfloat16": "asc_f2bf({})"}
    round_to = {"float16": "asc_round_h({})", "bfloat16": "asc_round_bf({})"}
    binary_op = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "and": "&", "or": "|", "xor": "^",
                 "lshift": "<<", "rshift": ">>", "lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">",
                 "ge": ">="}
    # binary ops that need Python semantics: by operand class ("f" float, "i" int)
    binary_fn = {("floordiv", "f32"): "asc_floordiv_f<float>({}, {})",
                 ("floordiv", "f64"): "asc_floordiv_f<double>({}, {})", ("floordiv", "i"): "asc_floordiv_i({}, {})",
                 ("mod", "f32"): "asc_mod_f<float>({}, {})", ("mod", "f64"): "asc_mod_f<double>({}, {})",
                 ("mod", "i"): "asc_mod_i({}, {})", ("pow", "i"): "asc_ipow({}, {})",
                 ("lshift", "i"): "asc_shl<{t}>({}, {})", ("rshift", "i"): "asc_shr<{t}>({}, {})"}
    # builtin math: name -> template by suffix (f32 / f64 / i)
    # builtin math: name -> template by suffix {s} (f32 / f64), from the builtin declarations (asc/builtins), and
    # f_scaled(x, s) = f(x * s) with x * s never rounded (asc/passes/scaled_math.py: where the bound was measured)
    # and the fused products (asc/passes/gelu_product.py: the same bits as the product)
    math_fn = {**cpu_templates(), **{scaled_name(f): t for (f, _), (t, _, _) in cpu_scaled_templates().items()},
               **cpu_fused_templates()}
    int_math_fn = cpu_int_templates()
    index_type = "int64_t"
    indent_unit = "  "

    def __init__(self, kernel: ir.Kernel, options: dict | None = None):
        self.kernel = kernel
        self.options = options or {}
        self.lines: list = []
        self.depth = 0
        self.names: dict = {}
        self.fn: ir.Function | None = None
        self.decl: dict = {}
        self.dynamic = bool(kernel.symbols)
        self.sites: list = []      # memory-check sites: (loc, tensor name, shape)
        self.stored = None         # the value expression of the store being rendered
        self.overflow_sites: list = []   # checked conversions of a Python int: (loc, dtype name), by site number

    # ---- names and types
    def cname(self, name: str) -> str:
        return f"{name}_" if name in C_RESERVED or name.startswith("asc_") else name

    def ctype(self, t: ir.ScalarType) -> str:
        if t.weak:
            return {"b": "bool", "i": "int64_t", "u": "int64_t", "f": "double"}[t.dtype.kind]
        return self.compute_type[t.dtype.name]

    def suffix(self, t: ir.ScalarType) -> str:
        if t.dtype.kind != "f":
            return "i"
        return "f64" if (t.dtype.bits == 64 or t.weak) else "f32"

    # ---- output helpers
    def emit(self, line: str = ""):
        self.lines.append(self.indent_unit * self.depth + line if line else "")

    def comment_for(self, stmt):
        loc = getattr(stmt, "loc", None)
        if loc is None:
            return
        src = linecache.getline(loc.file, loc.line).strip()
        if src:
            self.emit(f"// {loc.file.rsplit('/', 1)[-1]}:{loc.line}  {src}")

    # ---- expressions
    def const(self, c: ir.Const) -> str:
        t = c.type
        if t.dtype.kind == "b":
            return "true" if c.value else "false"
        if t.dtype.kind in "iu":
            return int_literal(int(c.value), 64 if t.weak else t.dtype.bits)
        v = float(c.value)
        f32 = self.suffix(t) == "f32"
        if math.isnan(v):                   # a quiet NaN with the constant's sign (-float('nan') is negative)
            return ("(-ASC_NAN_F)" if f32 else "(-ASC_NAN)") if math.copysign(1.0, v) < 0 else \
                ("ASC_NAN_F" if f32 else "ASC_NAN")
        if math.isinf(v):
            s = "ASC_INF_F" if f32 else "ASC_INF"
            return s if v > 0 else f"(-{s})"
        return float_literal(repr(v) + ("f" if f32 else ""))

    def expr(self, e) -> str:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def expr_Const(self, e):
        return self.const(e)

    def expr_Var(self, e):
        return self.cname(e.name)

    def dim(self, d) -> str:
        return self.cname(d.name) if isinstance(d, ir.Sym) else f"{d}LL"

    def index(self, tensor: ir.Var, indices) -> str:
        shape = tensor.type.shape
        out = None
        for k, i in enumerate(indices):
            term = self.expr(i)
            out = term if out is None else f"({out}) * {self.dim(shape[k])} + {term}"
        return out if out is not None else "0"

    def bounds_check(self, tensor: ir.Var, indices, loc):
        """With memory checks on: the condition that every index is inside its axis (recording the first
        violation); the site number maps back to the Python line."""
        if not self.options.get("memory_check"):
            return None
        site = len(self.sites)
        self.sites.append((loc, tensor.name, tensor.type.shape))
        return " & ".join(f"asc_inb({self.expr(i)}, {self.dim(d)}, {site}, {k})"
                          for k, (i, d) in enumerate(zip(indices, tensor.type.shape))) or "1"

    def expr_Load(self, e):
        ref = f"{self.cname(e.tensor.name)}[{self.index(e.tensor, e.indices)}]"
        conv = self.load_conv.get(e.tensor.type.dtype.name)
        value = conv.format(ref) if conv else ref
        check = self.bounds_check(e.tensor, e.indices, e.loc)
        if check is None:
            return value
        return f"(({check}) ? {value} : ({self.compute_type[e.tensor.type.dtype.name]})0)"

    def expr_Unary(self, e):
        op = {"neg": "-", "not": "!", "invert": "~"}[e.op]
        return self.narrow(e.type, f"({op}{self.expr(e.x)})")

    def narrow(self, t: ir.ScalarType, text: str) -> str:
        """Integer results narrower than 64 bits wrap to their type after every operation, as in NumPy (C would
        compute int8/int16 in int, and the helpers in int64)."""
        if t.dtype.kind in "iu" and t.dtype.bits < 64 and not t.weak:
            return f"(({self.ctype(t)}){text})"
        return text

    def expr_Binary(self, e):
        cls = self.suffix(e.type)
        fn = self.binary_fn.get((e.op, cls))
        if fn:
            b = self.expr(e.b)
            if needs_fit_check(e):          # a shift count (not converted) must fit the shifted dtype too
                b = self.fit_checked(b, e.type, e.loc)
            return self.narrow(e.type, fn.format(self.expr(e.a), b, t=self.ctype(e.type)))
        if e.op == "pow":
            return self.math_fn["pow"].format(self.expr(e.a), self.expr(e.b), s=self.suffix(e.type))
        if e.op == "truediv" and cls == "i":
            return f"((double){self.expr(e.a)} / (double){self.expr(e.b)})"
        return self.narrow(e.type, f"({self.expr(e.a)} {self.binary_op[e.op]} {self.expr(e.b)})")

    def expr_Compare(self, e):
        return f"({self.expr(e.a)} {self.binary_op[e.op]} {self.expr(e.b)})"

    def expr_Logical(self, e):
        return f"({self.expr(e.a)} {'&&' if e.op == 'and' else '||'} {self.expr(e.b)})"

    def expr_Select(self, e):
        return f"({self.expr(e.cond)} ? {self.expr(e.a)} : {self.expr(e.b)})"

    def fit_checked(self, text: str, t: ir.ScalarType, loc) -> str:
        """`text`, a Python int's value (int64), converted to the integer type t, recording an OverflowError when it
        does not fit (asc_weak_fit; the call raises asc.IntegerOverflowError, as NumPy 2 does)."""
        self.overflow_sites.append((loc, t.dtype.name))
        return f"asc_weak_fit<{self.ctype(t)}>({text}, {len(self.overflow_sites) - 1})"

    def expr_Cast(self, e):
        src = e.x.type
        inner = self.expr(e.x)
        dst = e.type.dtype
        if needs_fit_check(e):
            return self.fit_checked(inner, e.type, e.loc)
        if dst.kind == "b":
            return f"({inner} != 0)"
        if dst.kind in "iu" and src.dtype.kind == "f":
            return f"asc_f2i<{self.ctype(e.type)}>({inner})"
        if dst.is_16bit_float and not e.type.weak:
            wide = src.dtype.kind == "f" and (src.dtype.bits == 64 or src.weak)
            if not e.explicit:
                # carried in float32, rounded to nearest (the value arithmetic and comparisons see, as the
                # interpreter's); only a float64 value stored as it is rounds to odd, so the store rounds once
                odd = wide and e is self.stored
                return f"asc_d2f_odd({inner})" if odd else f"(float)({inner})"
            if dst.name == "float16" and wide:
                return f"asc_h2f(asc_d2h({inner}))"
            if wide:                # float64 -> bfloat16: to float32 rounding to odd, so the value rounds once
                return self.round_to[dst.name].format(f"asc_d2f_odd({inner})")
            return self.round_to[dst.name].format(inner if src.dtype.kind == "f" and not wide else
                                                  f"(float)({inner})")
        if self.ctype(e.type) == self.ctype(src):
            return inner
        if dst.kind == "f" and src.dtype.kind in "biu":
            # through a function: GCC folds `0.0 - (double)i` to `-(double)i`, -0.0 for i = 0 (NumPy: +0.0)
            return f"asc_i2f<{self.ctype(e.type)}>({inner})"
        return f"({self.ctype(e.type)})({inner})"

    def expr_Call(self, e):
        args = [self.expr(a) for a in e.args]
        if e.type.dtype.kind != "f" and e.fn in self.int_math_fn:
            return self.narrow(e.type, self.int_math_fn[e.fn].format(*args))
        return self.math_fn[e.fn].format(*args, s=self.suffix(e.type))

    def expr_FuncCall(self, e):
        args = [self.cname(a.name) if isinstance(a.type, ir.TensorType) else self.expr(a) for a in e.args]
        if self.dynamic:
            args.insert(0, "asc_dims")
        return f"{self.cname(e.func)}({', '.join(args)})"

    def expr_TupleExpr(self, e):
        raise NotImplementedError("tuples are returned through output slots")

    # ---- statements
    def block(self, stmts):
        for name in self._declared_here(stmts):
            var = self._locals[name]
            self.emit(f"{self.ctype(var.type)} {self.cname(name)} = 0;" if id(stmts) == id(self.fn.body)
                      else f"{self.ctype(var.type)} {self.cname(name)};")
        for s in stmts:
            self.stmt(s)

    def _declared_here(self, stmts):
        params = {p.var.name for p in self.fn.params}
        return [n for n, b in self.decl.items() if b == id(stmts) and n not in params]

    def stmt(self, s):
        if not isinstance(s, (ir.Break, ir.Continue)):
            self.comment_for(s)
        getattr(self, "stmt_" + type(s).__name__)(s)

    def stmt_Assign(self, s):
        self.emit(f"{self.cname(s.var.name)} = {self.expr(s.value)};")

    def stmt_ExprStmt(self, s):
        self.emit(f"(void){self.expr(s.expr)};")

    def stored_expr(self, value) -> str:
        """The text of a value being stored into a tensor element (see expr_Cast: a float64 value rounds once)."""
        self.stored = value
        try:
            return self.expr(value)
        finally:
            self.stored = None

    def stmt_Store(self, s):
        value = self.stored_expr(s.value)
        if self.options.get("finite_check") and s.value.type.dtype.kind == "f":
            site = len(self.sites)
            self.sites.append((s.loc, s.tensor.name, s.tensor.type.shape))
            value = f"asc_fin({value}, {site}, {self.index(s.tensor, s.indices)})"
        conv = self.store_conv.get(s.tensor.type.dtype.name)
        check = self.bounds_check(s.tensor, s.indices, s.loc)
        if check is not None:          # the value first (Python's order: a bad load in it is the first error)
            self.emit(f"{{ const auto asc_v = {value};")
            value = "asc_v"
        store = f"{self.cname(s.tensor.name)}[{self.index(s.tensor, s.indices)}] = {conv.format(value) if conv else value};"
        self.emit(store if check is None else f"  if ({check}) {store} }}")

    def numel(self, t: ir.TensorType) -> str:
        return " * ".join(self.dim(d) for d in t.shape) or "1LL"

    def stmt_Alloc(self, s):
        t = s.var.type
        st = self.storage_type[t.dtype.name]
        name = self.cname(s.var.name)
        if s.output is not None:
            self.emit(f"{st}* __restrict {name} = ({st}*)asc_args[{self.output_slot(s.output)}];")
        else:
            self.emit(f"asc::Buffer<{st}> {name}_buf({self.numel(t)});")
            self.emit(f"{st}* __restrict {name} = {name}_buf.data;")
        if s.init == "zeros":
            self.emit(f"memset({name}, 0, sizeof({st}) * {self.numel(t)});")
        elif s.init == "full":
            conv = self.store_conv.get(t.dtype.name)
            v = self.expr(s.fill)
            self.emit(f"asc_fill({name}, {self.numel(t)}, ({st})({conv.format(v) if conv else v}));")

    def loop_header(self, s):
        v = self.cname(s.var.name)
        start, stop, step = (self.expr(x) for x in (s.start, s.stop, s.step))
        pre = []
        # range() is evaluated once: a bound the body reassigns is read before the loop
        assigned = {x.var.name for x in ir.walk_stmts(s.body) if isinstance(x, ir.Assign)}
        if not isinstance(s.stop, ir.Const) and not (isinstance(s.stop, ir.Var) and s.stop.name not in assigned):
            pre.append(f"const int64_t asc_{v}_stop = {stop};")
            stop = f"asc_{v}_stop"
        if not isinstance(s.step, ir.Const) and not (isinstance(s.step, ir.Var) and s.step.name not in assigned):
            pre.append(f"const int64_t asc_{v}_step = {step};")
            step = f"asc_{v}_step"
        if isinstance(s.step, ir.Const):
            cond = f"{v} < {stop}" if s.step.value > 0 else f"{v} > {stop}"
        else:
            cond = f"({step} > 0 ? {v} < {stop} : {v} > {stop})"
        inc = f"++{v}" if isinstance(s.step, ir.Const) and s.step.value == 1 else f"{v} += {step}"
        return pre, f"for (int64_t {v} = {start}; {cond}; {inc}) {{"

    def loop_pragma(self, s) -> str | None:
        return None

    def stmt_For(self, s):
        pre, head = self.loop_header(s)
        if pre:         # the bounds read before the loop live in a scope of their own: two loops over one
            self.emit("{")  # variable in one block each declare their asc_<v>_stop
            self.depth += 1
        for p in pre:
            self.emit(p)
        pragma = self.loop_pragma(s)
        if pragma:
            self.emit(pragma)
        self.emit(head)
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.emit("}")
        if pre:
            self.depth -= 1
            self.emit("}")

    def stmt_While(self, s):
        self.emit(f"while ({self.expr(s.cond)}) {{")
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.emit("}")

    def stmt_If(self, s):
        self.emit(f"if ({self.expr(s.cond)}) {{")
        self.depth += 1
        self.block(s.then)
        self.depth -= 1
        if s.orelse:
            self.emit("} else {")
            self.depth += 1
            self.block(s.orelse)
            self.depth -= 1
        self.emit("}")

    def stmt_Break(self, s):
        self.emit("break;")

    def stmt_Continue(self, s):
        self.emit("continue;")

    def stmt_Print(self, s):
        parts = []
        for k, a in enumerate(s.args):
            if k:
                parts.append(f"asc_print_str(&asc_pb, {_c_str(s.sep)});")
            if isinstance(a, str):
                parts.append(f"asc_print_str(&asc_pb, {_c_str(a)});")
            else:
                kind = {"b": "bool", "i": "int", "u": "int"}.get(a.type.dtype.kind,
                                                               "f64" if self.suffix(a.type) == "f64" else "f32")
                parts.append(f"asc_print_{kind}(&asc_pb, {self.expr(a)});")
        parts.append(f"asc_print_str(&asc_pb, {_c_str(s.end)});")
        self.emit("{ asc_printbuf asc_pb; asc_pb.n = 0; " + " ".join(parts) + " asc_print_flush(&asc_pb); }")

    def stmt_Return(self, s):
        raise NotImplementedError

    def output_slot(self, k: int) -> int:
        raise NotImplementedError


def _runtime_python_int(x) -> bool:
    return x.type.weak and x.type.dtype.kind in "iu" and not isinstance(x, ir.Const)


def _narrow_int(t) -> bool:
    return not t.weak and t.dtype.kind in "iu" and (t.dtype.bits < 64 or t.dtype.kind == "u")


def _known_to_fit(x, t) -> bool:
    """A constant that fits t, or a ternary of such (`1 if c else 0`)."""
    if isinstance(x, ir.Const):
        bits = t.dtype.bits
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t.dtype.kind == "i" else (0, (1 << bits) - 1)
        return lo <= int(x.value) <= hi
    if isinstance(x, ir.Select):
        return _known_to_fit(x.a, t) and _known_to_fit(x.b, t)
    return False


def needs_fit_check(e) -> bool:
    """Whether `e` converts a Python int known only at run time (a scalar argument, a loop index, an expression of
    them: int64 in C) to an integer dtype it may not fit: an implicit Cast (arithmetic, lang.maximum, a ternary,
    min/max, a store) or a shift count. Constants are checked at compile time (frontend/scalars.py)."""
    if isinstance(e, ir.Cast):
        return (not e.explicit and _runtime_python_int(e.x) and _narrow_int(e.type)
                and not _known_to_fit(e.x, e.type))
    if isinstance(e, ir.Binary) and e.op in ("lshift", "rshift"):
        return _runtime_python_int(e.b) and _narrow_int(e.type)
    return False


def uses_fit_checks(kernel: ir.Kernel) -> bool:
    """Whether any function of `kernel` has a conversion needs_fit_check says is checked."""
    return any(needs_fit_check(x) for f in kernel.funcs + (kernel.entry,) for st in ir.walk_stmts(f.body)
               for x in ir.stmt_exprs(st))


def int_literal(v: int, bits: int) -> str:
    """An integer constant as a C primary expression of a type that holds it: negative values are parenthesized
    (`-(-7)`, never `--7`), the minimum of int32 / int64 is written as a difference (`-2147483648` would be a long,
    `-9223372036854775808` is not a literal at all), 64-bit values carry `LL`."""
    if bits < 64:
        if v == -(1 << 31):
            return "(-2147483647 - 1)"
        return f"({v})" if v < 0 else str(v)
    if v == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    return f"({v}LL)" if v < 0 else f"{v}LL"


def float_literal(text: str) -> str:
    """A finite float constant's C text as a primary expression: a negative one parenthesized (`-(-7.0f)`, never
    the decrement `--7.0f`)."""
    return f"({text})" if text.startswith("-") else text


def _c_str(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}\"\"" for b in ch.encode())
    out.append('"')
    return "".join(out)


def prepare(renderer: CStyleRenderer, fn: ir.Function):
    renderer.fn = fn
    renderer.decl = declaration_blocks(fn)
    renderer._locals = {v.name: v for v in fn.locals}
