"""The cpu target: C++ with OpenMP and SIMD, loaded in-process. Overrides the C-family renderer's tables."""
from __future__ import annotations

from .. import ir
from ..passes.loops import PARALLEL_MIN_WORK, UNKNOWN_TRIP, trip_count
from .cpu_loops import ScheduledLoops
from .cstyle import CStyleRenderer, prepare, uses_fit_checks

ENTRY = "asc_entry"
_OMP_OP = {"add": "+", "mul": "*", "max": "max", "min": "min"}


class CPURenderer(ScheduledLoops, CStyleRenderer):
    """Renders a kernel that went through the cpu pipeline (asc.passes.CPU_PASSES): the loops' schedules are the
    passes' decisions, rendered by ScheduledLoops (cpu_loops.py)."""
    header = '#include "asc_cpu.h"'

    def expr_Binary(self, e):
        if e.op == "pow" and e.type.dtype.kind in "iu":
            return self.int_power(e, e.a, e.b)
        return super().expr_Binary(e)

    def expr_Call(self, e):
        if e.fn == "pow" and e.type.dtype.kind in "iu":
            return self.int_power(e, *e.args)
        return super().expr_Call(e)

    def int_power(self, e, a, b) -> str:
        """An integer power: a negative exponent raises ValueError, as NumPy's does (the site is recorded like an
        overflowing conversion, asc_ipow_checked; the call returns 4 and the caller raises)."""
        base, exp = self.expr(a), self.expr(b)          # (their own checked conversions are numbered first)
        self.overflow_sites.append((e.loc, NEGATIVE_POWER))
        return self.narrow(e.type, f"asc_ipow_checked({base}, {exp}, {len(self.overflow_sites) - 1})")

    def team(self) -> str:
        """The team size of a parallel region: the num_threads option or OpenMP's default, and 1 in a forked child
        (asc_cpu.h: the OpenMP pool does not survive fork)."""
        threads = self.options.get("num_threads")
        return f"asc_team({int(threads)})" if threads else "asc_max_threads()"

    def parallel_clauses(self, s: ir.For) -> tuple:
        """The num_threads clause and, where the trip count is known only at run time, the `if` that keeps a
        small loop on one thread."""
        nt = f" num_threads({self.team()})"
        varying = {s.var.name} | {x.var.name for x in ir.walk_stmts(s.body) if isinstance(x, (ir.Assign, ir.For))}
        work, known = self.work_expr(s, varying)
        # decided at run time when the sizes are: enough work for the threads?
        cond = "" if known else f" if({work} >= {PARALLEL_MIN_WORK}LL)"
        return nt, cond

    def work_expr(self, s: ir.For, varying: set) -> tuple:
        """(C expression, known at compile time) of the iterations x inner work of loop `s`: sizes known only at
        run time enter as expressions where they do not change inside the parallel loop, else as UNKNOWN_TRIP."""
        n = trip_count(s)
        known = n is not None
        if known:
            trips = f"{n}LL"
        elif isinstance(s.step, ir.Const) and s.step.value == 1 and not any(
                isinstance(e, ir.Var) and e.name in varying or isinstance(e, (ir.Load, ir.FuncCall))
                for b in (s.start, s.stop) for e in ir.walk_expr(b)):
            trips = f"asc_max_i({self.expr(s.stop)} - {self.expr(s.start)}, 0LL)"
        else:
            trips = f"{UNKNOWN_TRIP}LL"
        inner = []
        for x in ir.walk_stmts(s.body):
            if isinstance(x, ir.While):
                inner.append((f"{UNKNOWN_TRIP}LL", False))
        for x in s.body:
            if isinstance(x, ir.For):
                inner.append(self.work_expr(x, varying))
        if not inner:
            return trips, known
        inner_e = inner[0][0]
        for e, _ in inner[1:]:
            inner_e = f"asc_max_i({inner_e}, {e})"
        return f"{trips} * {inner_e}", known and all(k for _, k in inner)

    def loop_pragma(self, s: ir.For):
        if s.kind == "parallel":
            nt, cond = self.parallel_clauses(s)
            sched = "static"
            if not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(s.body)):
                # an element loop: chunks aligned to 64 iterations (no false sharing at their edges)
                trips = f"({self.expr(s.stop)} - {self.expr(s.start)})"
                team = self.team()
                sched = f"static, asc_chunk({trips}, {team}, 64)"
            return f"#pragma omp parallel for schedule({sched}){nt}{cond}"
        if s.kind == "simd" and not self.checks:   # (checks record errors atomically)
            return "#pragma omp simd" + self.reduction_clauses(s)
        return None

    def reduction_clauses(self, s: ir.For) -> str:
        return "".join(f" reduction({self.reduction_op(op, v)}:{self.cname(v.name)})" for v, op in s.reduce)

    def reduction_op(self, op: str, v: ir.Var) -> str:
        """The OpenMP reduction of `op` on accumulator v: a float max/min is NaN-propagating (numpy.maximum; the
        user-defined reductions of asc_cpu.h), OpenMP's own max/min would drop a NaN."""
        t = self.local_type(v)
        if op in ("max", "min") and t.dtype.kind == "f":
            return f"asc_{'maximum' if op == 'max' else 'minimum'}_{self.suffix(t)}"
        return _OMP_OP[op]

    def local_type(self, v: ir.Var) -> ir.ScalarType:
        """The type a scalar is declared with in the function being rendered."""
        return self._locals_all.get(v.name, v.type)

    # ---- tensor level
    MATMUL_CODE = {"float32": 0, "float16": 1, "bfloat16": 2, "float64": 3}

    def stmt_MatMul(self, s: ir.MatMul):
        """A matrix product of strided views, on asc's GEMM (asc_tensor.h)."""
        def view(v: ir.View, const: bool):
            ptr = f"({'const ' if const else ''}void*)({self.cname(v.tensor.name)} + ({self.expr(v.offset)}))"
            strides = [self.expr(x) for x in v.strides]
            if len(strides) == 2:
                strides = ["0"] + strides
            return [ptr] + strides
        d, a, b = s.dst, s.a, s.b
        batch = self.expr(d.shape[0]) if len(d.shape) == 3 else "1"
        m, n, k = self.expr(d.shape[-2]), self.expr(d.shape[-1]), self.expr(a.shape[-1])
        codes = [str(self.MATMUL_CODE[a.tensor.type.dtype.name]), str(self.MATMUL_CODE[d.tensor.type.dtype.name])]
        acc = ["1" if s.accumulate else "0"]
        if not s.epilogue:
            args = codes + [batch, m, n, k] + view(a, True) + view(b, True) + view(d, False) + acc
            stop = "if (!asc_stopped()) " if self.options.get("memory_check") else ""   # after a bad access
            self.emit(f"{stop}asc_matmul({', '.join(args)});")
            return
        # the epilogue: a lambda over a block of the result, called by the GEMM for each tile while it is in cache
        i, j = (self.cname(v.name) for v in s.index)
        self.emit("{")
        self.depth += 1
        self.emit("auto asc_epi = [&](int64_t asc_r0, int64_t asc_c0, int64_t asc_nr, int64_t asc_nc) {")
        self.depth += 1
        self.emit(f"for (int64_t {i} = asc_r0; {i} < asc_r0 + asc_nr; ++{i}) {{")
        self.depth += 1
        if not self.checks:
            self.emit("#pragma omp simd")
        self.emit(f"for (int64_t {j} = asc_c0; {j} < asc_c0 + asc_nc; ++{j}) {{")
        self.depth += 1
        for st in s.epilogue:
            self.stmt(st)
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("};")
        def plain(v, const):            # pointer and the two strides (no batch)
            ptr, _, s0, s1 = view(v, const)
            return [ptr, s0, s1]
        args = codes + [m, n, k] + plain(a, True) + plain(b, True) + plain(d, False) + acc + ["asc_epi"]
        stop = "if (!asc_stopped()) " if self.options.get("memory_check") else ""
        self.emit(f"{stop}asc_matmul_fused({', '.join(args)});")
        self.depth -= 1
        self.emit("}")

    def stmt_Alloc(self, s: ir.Alloc):
        if s.space != "local" or s.output is not None:
            return super().stmt_Alloc(s)
        # a local buffer: a constant-size tile on the stack (cache-resident), no allocation
        t = s.var.type
        st = self.storage_type[t.dtype.name]
        name = self.cname(s.var.name)
        self.emit(f"alignas(64) {st} {name}_local[{self.numel(t)}];")
        self.emit(f"{st}* __restrict {name} = {name}_local;")
        if s.init == "zeros":
            self.emit(f"memset({name}, 0, sizeof({st}) * {self.numel(t)});")

    def identity(self, op: str, t: ir.ScalarType) -> str:
        """The identity of reduction `op` on type t (a float sum's is -0.0, which leaves every value as it is,
        -0.0 included)."""
        if op == "add":
            return f"({self.ctype(t)})-0.0" if t.dtype.kind == "f" else "0"
        if op == "mul":
            return "1"
        if t.dtype.kind == "f":
            inf = "ASC_INF" if self.suffix(t) == "f64" else "ASC_INF_F"
            return f"-{inf}" if op == "max" else inf
        c = self.ctype(t)
        return f"std::numeric_limits<{c}>::{'lowest' if op == 'max' else 'max'}()"

    # ---- functions
    def param_decl(self, p: ir.Param, fn: ir.Function, device: bool) -> str:
        v = p.var
        name = self.cname(v.name)
        if isinstance(v.type, ir.TensorType):
            st = self.storage_type[v.type.dtype.name]
            q = "" if v.name in self.written else "const "
            return f"{q}{st}* __restrict {name}"
        t = self._locals_all.get(v.name, v.type)
        return f"{self.ctype(t)} {name}"

    def render_function(self, fn: ir.Function, device: bool):
        prepare(self, fn)
        self._locals_all = {v.name: v.type for v in fn.locals}
        self.written = self.all_written[fn.name]
        self.emit(f"// {fn.pyname}, from {fn.loc.file.rsplit('/', 1)[-1]}:{fn.loc.line}" if fn.loc else f"// {fn.pyname}")
        if device:
            params = [self.param_decl(p, fn, True) for p in fn.params]
            if self.dynamic:
                params.insert(0, "const int64_t* __restrict asc_dims")
            ret = "void" if isinstance(fn.ret, ir.NoneType) else self.ctype(fn.ret)
            self.emit(f"static {ret} {self.cname(fn.name)}({', '.join(params)}) {{")
        else:
            self.emit(f'extern "C" ASC_EXPORT int {ENTRY}(void* const* asc_args, const int64_t* asc_dims) {{')
        self.depth += 1
        if not device and self.checks:
            self.emit("asc_err_reset();")
        if not device and self.fit_checks:
            self.emit("const int64_t asc_ovf0 = asc_ovf_begin();")
        for k, name in enumerate(self.kernel.symbols):
            self.emit(f"const int64_t {self.cname(name)} = asc_dims[{k}]; (void){self.cname(name)};")
        if not device:
            for p in fn.params:
                v = p.var
                name = self.cname(v.name)
                if isinstance(v.type, ir.TensorType):
                    self.emit(f"{self.param_decl(p, fn, False)} = ({self.param_decl(p, fn, False).split('*')[0]}*)"
                              f"asc_args[{p.index}];")
                else:
                    arg_t = self.ctype(v.type) if v.type.dtype.kind != "f" or v.type.dtype.bits >= 32 else \
                        self.storage_type[v.type.dtype.name]
                    read = f"*(const {arg_t}*)asc_args[{p.index}]"
                    if v.type.dtype.is_16bit_float and not v.type.weak:
                        read = self.load_conv[v.type.dtype.name].format(read)
                    t = self._locals_all.get(v.name, v.type)
                    self.emit(f"{self.ctype(t)} {name} = {read};")
        self.block(fn.body)
        if not device or isinstance(fn.ret, ir.NoneType):
            if not fn.body or not isinstance(fn.body[-1], ir.Return):
                self.emit(f"return {self.status};" if not device else "return;")
        self.depth -= 1
        self.emit("}")
        self.emit()

    def stmt_Return(self, s):
        if self.fn is not self.kernel.entry:
            self.emit("return;" if s.value is None else f"return {self.expr(s.value)};")
            return
        if s.value is not None:
            elems = s.value.elems if isinstance(s.value, ir.TupleExpr) else (s.value,)
            nalloc = sum(1 for o in self.kernel.outputs if o.kind == "alloc")
            for e, o in zip(elems, self.kernel.outputs):
                if o.kind == "scalar":
                    slot = len(self.kernel.entry.params) + nalloc + o.index
                    st = self.storage_type[o.type.dtype.name]
                    v = self.expr(e)
                    conv = self.store_conv.get(o.type.dtype.name)
                    self.emit(f"*({st}*)asc_args[{slot}] = {conv.format(v) if conv else f'({st})({v})'};")
        self.emit(f"return {self.status};")

    @property
    def status(self) -> str:
        s = "asc_err_status()" if self.checks else "0"
        return f"asc_ovf_status(asc_ovf0, {s})" if self.fit_checks else s

    @property
    def checks(self) -> bool:
        return bool(self.options.get("memory_check") or self.options.get("finite_check"))

    def output_slot(self, k: int) -> int:
        return len(self.kernel.entry.params) + k

    def render(self) -> str:
        k = self.kernel
        self.all_written = ir.written_params(k)
        self.fit_checks = uses_fit_checks(k) or uses_int_power(k)
        sig = ", ".join(f"{p.var.name}: {p.var.type!r}" for p in k.entry.params)
        self.emit(f"// generated by asc from {k.file.rsplit('/', 1)[-1]}: kernel {k.entry.pyname}({sig})")
        if self.checks:
            self.emit("#define ASC_MEMORY_CHECK 1")
        self.emit(self.header)
        if any(isinstance(st, ir.MatMul) for f in k.funcs + (k.entry,) for st in ir.walk_stmts(f.body)):
            self.emit('#include "asc_tensor.h"')
        self.emit()
        for f in k.funcs:  # prototypes first: device functions may be recursive or call each other
            saved = self.lines
            self.lines = []
            prepare(self, f)
            self._locals_all = {v.name: v.type for v in f.locals}
            self.written = self.all_written[f.name]
            params = [self.param_decl(p, f, True) for p in f.params]
            if self.dynamic:
                params.insert(0, "const int64_t* __restrict asc_dims")
            ret = "void" if isinstance(f.ret, ir.NoneType) else self.ctype(f.ret)
            self.lines = saved
            self.emit(f"static {ret} {self.cname(f.name)}({', '.join(params)});")
        if k.funcs:
            self.emit()
        for f in k.funcs:
            self.render_function(f, True)
        self.render_function(k.entry, False)
        if self.uses_blocks:
            at = self.lines.index(self.header)
            self.lines.insert(at + 1, '#include "asc_blocks.h"')
        return "\n".join(self.lines) + "\n"


NEGATIVE_POWER = "negative power"     # the "dtype" of an overflow site that is an integer power (int_power)


def uses_int_power(kernel: ir.Kernel) -> bool:
    """Whether any function of `kernel` raises an integer to a power (checked for a negative exponent)."""
    return any((isinstance(x, ir.Binary) and x.op == "pow" or isinstance(x, ir.Call) and x.fn == "pow")
               and x.type.dtype.kind in "iu"
               for f in kernel.funcs + (kernel.entry,) for st in ir.walk_stmts(f.body)
               for e in ir.stmt_exprs(st) for x in ir.walk_expr(e))


def render(kernel: ir.Kernel, options: dict | None = None) -> str:
    return CPURenderer(kernel, options).render()


def overflow_sites(kernel: ir.Kernel, options: dict) -> list:
    """The (loc, dtype name) of each checked conversion of a Python int, numbered as the rendered code numbers them."""
    r = CPURenderer(kernel, options)
    r.render()
    return r.overflow_sites


def memory_check_sites(kernel: ir.Kernel, options: dict) -> list:
    """The (loc, tensor, shape) of each checked access, numbered as the rendered code numbers them."""
    r = CPURenderer(kernel, options)
    r.render()
    return r.sites
