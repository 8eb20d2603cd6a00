"""The cpu target: C++ with OpenMP and SIMD, loaded in-process. Overrides the C-family renderer's tables."""
from __future__ import annotations

from .. import ir
from ..passes.loops import PARALLEL_MIN_WORK, UNKNOWN_TRIP, trip_count
from .cpu_blocks import BLOCK, blocked_accesses, write_only_tensors
from .cpu_prefetch import CHUNK, row_prefetch
from .cstyle import CStyleRenderer, prepare

ENTRY = "asc_entry"
REDUCE_BLOCK = 4096      # elements per partial of a parallel reduction (fixed: results do not depend on threads)
_OMP_OP = {"add": "+", "mul": "*", "max": "max", "min": "min"}
_COMBINE = {"add": "{a} + {p}", "mul": "{a} * {p}", "max": "({p} > {a} ? {p} : {a})",
            "min": "({p} < {a} ? {p} : {a})"}


class CPURenderer(CStyleRenderer):
    header = '#include "asc_cpu.h"'

    def parallel_clauses(self, s: ir.For) -> tuple:
        """The num_threads clause and, where the trip count is known only at run time, the `if` that keeps a
        small loop on one thread."""
        threads = self.options.get("num_threads")
        nt = f" num_threads({int(threads)})" if threads else ""
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
            threads = self.options.get("num_threads")
            nt, cond = self.parallel_clauses(s)
            sched = "static"
            if not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(s.body)):
                # an element loop: chunks aligned to 64 iterations (no false sharing at their edges)
                trips = f"({self.expr(s.stop)} - {self.expr(s.start)})"
                team = str(int(threads)) if threads else "omp_get_max_threads()"
                sched = f"static, asc_chunk({trips}, {team}, 64)"
            return f"#pragma omp parallel for schedule({sched}){nt}{cond}"
        if s.kind == "simd" and not self.checks:   # (checks record errors atomically)
            return "#pragma omp simd" + self.reduction_clauses(s)
        return None

    def reduction_clauses(self, s: ir.For) -> str:
        return "".join(f" reduction({_OMP_OP[op]}:{self.cname(v.name)})" for v, op in s.reduce)

    # ---- row loops: the last element pass asks for the next row (cpu_prefetch.py says which loops and why)
    _prefetch = None
    _chunk_bounds = None

    def prefetch_next_row(self, pf, start: str, count: str):
        """Prefetch into L2 of columns [start, start + count) of the next row of each input the row loop reads."""
        i = self.cname(pf.row.var.name)
        self.emit(f"if ({i} + 1 < {self.expr(pf.row.stop)}) {{")
        self.depth += 1
        for tensor, (ri, ci) in pf.loads:
            saved, self._rename = self._rename, {ri.name: f"({i} + 1)", ci.name: start}
            addr = f"{self.cname(tensor.name)} + ({self.index(tensor, (ri, ci))})"
            self._rename = saved
            st = self.storage_type[tensor.type.dtype.name]
            self.emit(f"asc_prefetch_l2({addr}, ({count}) * (int64_t)sizeof({st}));")
        self.depth -= 1
        self.emit("}")

    def loop_header(self, s):
        if self._chunk_bounds and self._chunk_bounds[0] is s:
            v = self.cname(s.var.name)
            return [], f"for (int64_t {v} = {self._chunk_bounds[1]}; {v} < {self._chunk_bounds[2]}; ++{v}) {{"
        return super().loop_header(s)

    def chunked_loop(self, s: ir.For, pf):
        """Loop `s` in chunks of CHUNK iterations, each first prefetching its columns of the next row."""
        v = self.cname(s.var.name)
        c, ce, hi = f"asc_{v}_c", f"asc_{v}_ce", f"asc_{v}_hi"
        self.emit("{")
        self.depth += 1
        self.emit(f"// in chunks of {CHUNK}, each asking for the same columns of the next row while this one computes")
        self.emit(f"const int64_t {hi} = {self.expr(s.stop)};")
        self.emit(f"for (int64_t {c} = {self.expr(s.start)}; {c} < {hi}; {c} += {CHUNK}LL) {{")
        self.depth += 1
        self.emit(f"const int64_t {ce} = asc_min_i({c} + {CHUNK}LL, {hi});")
        self.prefetch_next_row(pf, c, f"{ce} - {c}")
        saved, self._chunk_bounds = self._chunk_bounds, (s, c, ce)
        super().stmt_For(s)
        self._chunk_bounds = saved
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def stmt_For(self, s: ir.For):
        blocked = None if self._plain_loops else blocked_accesses(s, self.checks, self.write_only)
        if blocked:
            return self.blocked_loop(s, blocked)
        pf = self._prefetch
        if pf is not None and pf.target is s:
            return self.chunked_loop(s, pf)
        if s.kind == "parallel" and not s.reduce:
            plan = row_prefetch(s, self.written, bool(self.checks))
            if plan is not None:
                saved, self._prefetch = self._prefetch, plan
                super().stmt_For(s)
                self._prefetch = saved
                return None
        if not (s.kind == "parallel" and s.reduce):
            return super().stmt_For(s)
        # A parallel reduction, the same bits for every thread count: fixed blocks of the range, each reduced
        # (vectorized) into its own partial, then the partials combined in block order on one thread.
        v = self.cname(s.var.name)
        start, stop, step = (self.expr(x) for x in (s.start, s.stop, s.step))
        block = max(1, REDUCE_BLOCK // _inner_work(s))       # iterations per partial: about REDUCE_BLOCK elements
        innermost = not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(s.body))
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t asc_{v}_lo = {start}, asc_{v}_step = {step};")
        self.emit(f"const int64_t asc_{v}_n = {stop} > asc_{v}_lo ? ({stop} - asc_{v}_lo + asc_{v}_step - 1) / asc_{v}_step : 0;")
        self.emit(f"const int64_t asc_{v}_blocks = (asc_{v}_n + {block - 1}) / {block};")
        for acc, _ in s.reduce:
            t = self.ctype(self._locals_all.get(acc.name, acc.type))
            self.emit(f"asc::Buffer<{t}> asc_{self.cname(acc.name)}_part(asc_{v}_blocks);")
        threads = self.options.get("num_threads")
        self.emit(f"#pragma omp parallel for schedule(static)" + (f" num_threads({int(threads)})" if threads else ""))
        self.emit(f"for (int64_t asc_{v}_b = 0; asc_{v}_b < asc_{v}_blocks; ++asc_{v}_b) {{")
        self.depth += 1
        for acc, op in s.reduce:
            t = self._locals_all.get(acc.name, acc.type)
            self.emit(f"{self.ctype(t)} {self.cname(acc.name)} = {self.identity(op, t)};  // this block's partial")
        self.emit(f"const int64_t asc_{v}_end = asc_{v}_lo + asc_min_i((asc_{v}_b + 1) * {block}LL, asc_{v}_n) * asc_{v}_step;")
        if innermost and not self.checks:
            self.emit("#pragma omp simd" + self.reduction_clauses(s))
        self.emit(f"for (int64_t {v} = asc_{v}_lo + asc_{v}_b * {block}LL * asc_{v}_step; {v} < asc_{v}_end; {v} += asc_{v}_step) {{")
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.emit("}")
        for acc, _ in s.reduce:
            self.emit(f"asc_{self.cname(acc.name)}_part.data[asc_{v}_b] = {self.cname(acc.name)};")
        self.depth -= 1
        self.emit("}")
        self.emit(f"for (int64_t asc_{v}_b = 0; asc_{v}_b < asc_{v}_blocks; ++asc_{v}_b) {{")
        self.depth += 1
        for acc, op in s.reduce:
            a, part = self.cname(acc.name), f"asc_{self.cname(acc.name)}_part.data[asc_{v}_b]"
            self.emit(f"{a} = {_COMBINE[op].format(a=a, p=part)};")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    # ---- element loops in blocks: float16 conversion and streaming stores (cpu_blocks.py says which loops and why)
    _block_bufs: dict = {}
    _rename: dict = {}
    _plain_loops = False
    uses_blocks = False
    write_only: frozenset = frozenset()

    def blocked_loop(self, s: ir.For, accesses: list):
        """The loop in blocks of BLOCK iterations: float16 inputs widened into float32 buffers, the body vectorized
        over the buffers, outputs narrowed back and/or streamed (asc_blocks.h). A loop blocked only to stream runs as
        written when its outputs turn out small."""
        self.uses_blocks = True
        v = self.cname(s.var.name)
        lo, hi, nb, b, bs, bn, k = (f"asc_{v}_{x}" for x in ("lo", "hi", "nb", "b", "s", "n", "k"))
        names = [self.cname(a.tensor.name) for a in accesses]
        bufs, starts, flags = [], {}, {}          # bufs[k]: the buffer of accesses[k]
        self._rename = {s.var.name: bs}
        for a, name in zip(accesses, names):
            buf = f"asc_{name}_blk"
            if names.count(name) > 1:
                buf += str(sum(1 for x in bufs if x.startswith(buf)))
            bufs.append(buf)
            starts[buf] = f"{name} + ({self.index(a.tensor, a.indices)})"
            if a.stream:
                flags[buf] = f"asc_{name}_nt"
        self._rename = {}
        half = any(a.half for a in accesses)
        self.emit("{")
        self.depth += 1
        what = ["float16 converted around the body"] if half else []
        what += ["outputs of 16 MiB or more streamed past the cache"] if flags else []
        self.emit(f"// in blocks of {BLOCK}: {', '.join(what)}")
        self.emit(f"const int64_t {lo} = {self.expr(s.start)}, {hi} = {self.expr(s.stop)};")
        for a, buf in zip(accesses, bufs):
            if buf in flags:
                st = self.storage_type[a.tensor.type.dtype.name]
                self.emit(f"const bool {flags[buf]} = asc_stream_ok({self.numel(a.tensor.type)} * "
                          f"(int64_t)sizeof({st}), {hi} - {lo});")
        if not half:
            self.emit(f"if ({' || '.join(flags.values())}) {{")
            self.depth += 1
        self.emit(f"const int64_t {nb} = {hi} > {lo} ? ({hi} - {lo} + {BLOCK - 1}) / {BLOCK} : 0;")
        if s.kind == "parallel":
            nt, cond = self.parallel_clauses(s)
            self.emit(f"#pragma omp parallel{nt}{cond}")
            self.emit("{")
            self.depth += 1
            self.emit("#pragma omp for schedule(static) nowait")
        self.emit(f"for (int64_t {b} = 0; {b} < {nb}; ++{b}) {{")
        self.depth += 1
        self.emit(f"const int64_t {bs} = {lo} + {b} * {BLOCK}LL, {bn} = asc_min_i({BLOCK}LL, {hi} - {bs});")
        if self._prefetch is not None and self._prefetch.target is s:
            self.prefetch_next_row(self._prefetch, bs, bn)
        for a, buf in zip(accesses, bufs):
            t = "float" if a.half else self.storage_type[a.tensor.type.dtype.name]
            self.emit(f"alignas(64) {t} {buf}[{BLOCK}];")
            if not a.store:
                self.emit(f"asc_h2f_block({starts[buf]}, {buf}, {bn});")
        self.emit("#pragma omp simd")
        self.emit(f"for (int64_t {k} = 0; {k} < {bn}; ++{k}) {{")
        self.depth += 1
        self.emit(f"const int64_t {v} = {bs} + {k}; (void){v};")
        saved, self._block_bufs = self._block_bufs, {(a.tensor.name, tuple(a.indices)): (f"{buf}[{k}]", a.half)
                                                     for a, buf in zip(accesses, bufs)}
        self.block(s.body)
        self._block_bufs = saved
        self.depth -= 1
        self.emit("}")
        for a, buf in zip(accesses, bufs):
            if a.store:
                fn = "asc_f2h_store" if a.half else "asc_store_block"
                self.emit(f"{fn}({starts[buf]}, {buf}, {bn}, {flags.get(buf, 'false')});")
        self.depth -= 1
        self.emit("}")
        if flags:
            self.emit("asc_sfence();   // this thread's streamed stores, before the loop's end")
        if s.kind == "parallel":
            self.depth -= 1
            self.emit("}")
        if not half:
            self.depth -= 1
            self.emit("} else {")
            self.depth += 1
            self._plain_loops, saved_plain = True, self._plain_loops
            self.stmt_For(s)
            self._plain_loops = saved_plain
            self.depth -= 1
            self.emit("}")
        self.depth -= 1
        self.emit("}")

    def expr_Var(self, e):
        return self._rename.get(e.name) or super().expr_Var(e)

    def expr_Load(self, e):
        ref = self._block_bufs.get((e.tensor.name, tuple(e.indices))) if self._block_bufs else None
        return ref[0] if ref else super().expr_Load(e)

    def stmt_Store(self, s):
        ref = self._block_bufs.get((s.tensor.name, tuple(s.indices))) if self._block_bufs else None
        if ref is None:
            return super().stmt_Store(s)
        value = self.expr(s.value)
        conv = None if ref[1] else self.store_conv.get(s.tensor.type.dtype.name)
        self.emit(f"{ref[0]} = {conv.format(value) if conv else value};")

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
            self.emit(f"asc_matmul({', '.join(args)});")
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
        self.emit(f"asc_matmul_fused({', '.join(args)});")
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
        if op == "add":
            return "0"
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
        return "asc_err_status()" if self.checks else "0"

    @property
    def checks(self) -> bool:
        return bool(self.options.get("memory_check") or self.options.get("finite_check"))

    def output_slot(self, k: int) -> int:
        return len(self.kernel.entry.params) + k

    def render(self) -> str:
        k = self.kernel
        self.all_written = ir.written_params(k)
        self.write_only = write_only_tensors(k)
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


def _inner_work(loop: ir.For) -> int:
    work = 1
    for s in loop.body:
        if isinstance(s, ir.For):
            n = trip_count(s)
            work = max(work, (n if n is not None else UNKNOWN_TRIP) * _inner_work(s))
        elif isinstance(s, ir.While):
            work = max(work, UNKNOWN_TRIP)
    return work


def render(kernel: ir.Kernel, options: dict | None = None) -> str:
    return CPURenderer(kernel, options).render()


def memory_check_sites(kernel: ir.Kernel, options: dict) -> list:
    """The (loc, tensor, shape) of each checked access, numbered as the rendered code numbers them."""
    r = CPURenderer(kernel, options)
    r.render()
    return r.sites
