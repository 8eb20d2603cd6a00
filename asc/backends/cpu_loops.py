"""How the cpu target renders a loop's schedule (asc/ir/schedule.py): element loops in blocks (float16 conversion
and streaming stores, asc_blocks.h), the chunked pass of a row loop that prefetches the next row, and a parallel
reduction in fixed blocks of partials, and a vectorized reduction into lanes of partials. Which loops get which
schedule is decided by the passes cpu_blocks, cpu_prefetch, reduce_split and reduce_lanes (asc/passes/); this only
renders what they decided.

ScheduledLoops is a mixin of the cpu renderer (asc/backends/cpu.py: CPURenderer), which provides the clauses,
types and names it uses."""
from __future__ import annotations


from .. import ir

_COMBINE = {"add": "{a} + {p}", "mul": "{a} * {p}", "max": "({p} > {a} ? {p} : {a})",
            "min": "({p} < {a} ? {p} : {a})"}


class ScheduledLoops:
    _chunk_bounds = None        # (loop, first, end) while a chunk of a chunked loop renders
    _block_bufs: dict = {}      # (tensor name, indices) -> (buffer element, float16) while a blocked body renders
    _rename: dict = {}          # variable name -> C expression
    uses_blocks = False

    def stmt_For(self, s: ir.For):
        sc = s.schedule
        if sc is not None and sc.blocked is not None:
            return self.blocked_loop(s, sc.blocked)
        if sc is not None and sc.prefetch is not None:
            return self.chunked_loop(s, sc.prefetch)
        if s.kind == "parallel" and s.reduce:
            if sc is None or sc.split is None:
                raise AssertionError(f"parallel reduction over {s.var.name} without its split: run the cpu "
                                     f"pipeline's reduce_split (asc/passes/reduce_split.py) first")
            return self.split_reduction(s, sc.split)
        if sc is not None and sc.lanes is not None:
            return self.lanes_reduction(s, self.expr(s.start), self.expr(s.stop), s.step.value, sc.lanes)
        return super().stmt_For(s)

    # ---- row loops: the last element pass asks for the next row
    def prefetch_next_row(self, pf: ir.Prefetch, start: str, count: str):
        """Prefetch into L2 of columns [start, start + count) of the next row of each input the row loop reads."""
        i = self.cname(pf.row.name)
        self.emit(f"if ({i} + 1 < {self.expr(pf.stop)}) {{")
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

    def chunked_loop(self, s: ir.For, pf: ir.Prefetch):
        """Loop `s` in chunks of pf.chunk iterations, each first prefetching its columns of the next row."""
        v = self.cname(s.var.name)
        c, ce, hi = f"asc_{v}_c", f"asc_{v}_ce", f"asc_{v}_hi"
        self.emit("{")
        self.depth += 1
        self.emit(f"// in chunks of {pf.chunk}, each asking for the same columns of the next row while this one "
                  f"computes")
        self.emit(f"const int64_t {hi} = {self.expr(s.stop)};")
        self.emit(f"for (int64_t {c} = {self.expr(s.start)}; {c} < {hi}; {c} += {pf.chunk}LL) {{")
        self.depth += 1
        self.emit(f"const int64_t {ce} = asc_min_i({c} + {pf.chunk}LL, {hi});")
        self.prefetch_next_row(pf, c, f"{ce} - {c}")
        saved, self._chunk_bounds = self._chunk_bounds, (s, c, ce)
        super().stmt_For(s)
        self._chunk_bounds = saved
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    # ---- a parallel reduction, the same bits for every thread count
    def split_reduction(self, s: ir.For, block: int):
        """Fixed blocks of `block` iterations of the range, each reduced (vectorized) into its own partial, then the
        partials combined in block order on one thread."""
        v = self.cname(s.var.name)
        start, stop, step = (self.expr(x) for x in (s.start, s.stop, s.step))
        innermost = not any(isinstance(x, (ir.For, ir.While)) for x in ir.walk_stmts(s.body))
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t asc_{v}_lo = {start}, asc_{v}_step = {step};")
        self.emit(f"const int64_t asc_{v}_n = {stop} > asc_{v}_lo ? ({stop} - asc_{v}_lo + asc_{v}_step - 1) / "
                  f"asc_{v}_step : 0;")
        self.emit(f"const int64_t asc_{v}_blocks = (asc_{v}_n + {block - 1}) / {block};")
        for acc, _ in s.reduce:
            t = self.ctype(self.local_type(acc))
            self.emit(f"asc::Buffer<{t}> asc_{self.cname(acc.name)}_part(asc_{v}_blocks);")
        self.emit(f"#pragma omp parallel for schedule(static) num_threads({self.team()})")
        self.emit(f"for (int64_t asc_{v}_b = 0; asc_{v}_b < asc_{v}_blocks; ++asc_{v}_b) {{")
        self.depth += 1
        for acc, op in s.reduce:
            t = self.local_type(acc)
            self.emit(f"{self.ctype(t)} {self.cname(acc.name)} = {self.identity(op, t)};  // this block's partial")
        self.emit(f"const int64_t asc_{v}_end = asc_{v}_lo + asc_min_i((asc_{v}_b + 1) * {block}LL, asc_{v}_n) * "
                  f"asc_{v}_step;")
        first = f"asc_{v}_lo + asc_{v}_b * {block}LL * asc_{v}_step"
        if s.schedule.lanes is not None:
            self.lanes_reduction(s, first, f"asc_{v}_end", s.step.value, s.schedule.lanes,
                                 limit=f"asc_{v}_lo + asc_{v}_n * asc_{v}_step")
        else:
            if innermost and not self.checks:
                self.emit("#pragma omp simd" + self.reduction_clauses(s))
            self.emit(f"for (int64_t {v} = {first}; {v} < asc_{v}_end; {v} += asc_{v}_step) {{")
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
            a = self.cname(acc.name)
            self.emit(f"{a} = {self.combine(op, acc, a, f'asc_{a}_part.data[asc_{v}_b]')};")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def combine(self, op: str, acc: ir.Var, a: str, p: str) -> str:
        """The C expression of accumulator value `a` combined with partial `p` by reduction `op`."""
        t = self.local_type(acc)
        if op in ("max", "min") and t.dtype.kind == "f":     # NaN-propagating, as the vectorized reduction
            return f"asc_{'maximum' if op == 'max' else 'minimum'}_{self.suffix(t)}({a}, {p})"
        return _COMBINE[op].format(a=a, p=p)

    # ---- a vectorized reduction into lanes of partials, the same bits on every instruction set
    def lanes_reduction(self, s: ir.For, first: str, end: str, step: int, lanes: int, limit: str | None = None):
        """The iterations of loop `s` from `first` towards `end` by constant `step`: whole groups of `lanes`
        iterations, iteration k of a group reducing into partial k of each accumulator (independent vector chains);
        the partials combined by a fixed pairwise tree into the accumulator, then the last iterations reduced into
        it in order. Each group first asks for the loads of a later one (ir.Ahead) below `limit` (default: `end`)."""
        v = self.cname(s.var.name)
        lo, hi, n, ge, g, k, w, j, t = (f"asc_{v}_{x}" for x in ("llo", "lhi", "ln", "lge", "lg", "lk", "lw", "lj", "lt"))
        lane = {acc.name: f"asc_{self.cname(acc.name)}_ln" for acc, _ in s.reduce}

        def at(it: str) -> str:         # the loop variable at iteration `it`
            return f"{lo} + {it}" if step == 1 else f"{lo} + ({it}) * {step}LL"
        self.emit("{")
        self.depth += 1
        self.emit(f"// {lanes} partials per accumulator, combined by a fixed tree (asc/passes/reduce_lanes.py)")
        self.emit(f"const int64_t {lo} = {first}, {hi} = {end};")
        if step == 1:
            self.emit(f"const int64_t {n} = {hi} > {lo} ? {hi} - {lo} : 0;")
        elif step > 0:
            self.emit(f"const int64_t {n} = {hi} > {lo} ? ({hi} - {lo} + {step - 1}) / {step} : 0;")
        else:
            self.emit(f"const int64_t {n} = {lo} > {hi} ? ({lo} - {hi} + {-step - 1}) / {-step} : 0;")
        self.emit(f"const int64_t {ge} = {n} / {lanes} * {lanes};")
        self.emit(f"if ({ge} > 0) {{")
        self.depth += 1
        for acc, op in s.reduce:
            self.emit(f"{self.ctype(self.local_type(acc))} {lane[acc.name]}[{lanes}];")
        self.emit(f"for (int {k} = 0; {k} < {lanes}; ++{k}) {{")
        for acc, op in s.reduce:
            self.emit(f"  {lane[acc.name]}[{k}] = {self.identity(op, self.local_type(acc))};")
        self.emit("}")
        self.emit(f"for (int64_t {g} = 0; {g} < {ge}; {g} += {lanes}) {{")
        self.depth += 1
        self.prefetch_ahead(s, at(g), str(lanes), limit or hi)
        if not self.checks:
            self.emit("#pragma omp simd")
        self.emit(f"for (int64_t {k} = 0; {k} < {lanes}; ++{k}) {{")
        self.depth += 1
        self.emit(f"const int64_t {v} = {at(f'{g} + {k}')};")
        for acc, _ in s.reduce:
            self.emit(f"{self.ctype(self.local_type(acc))} {self.cname(acc.name)} = {lane[acc.name]}[{k}];")
        self.block(s.body)
        for acc, _ in s.reduce:
            self.emit(f"{lane[acc.name]}[{k}] = {self.cname(acc.name)};")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self.emit(f"for (int {w} = {lanes // 2}; {w} > 0; {w} /= 2) {{")
        self.depth += 1
        self.emit(f"for (int {j} = 0; {j} < {w}; ++{j}) {{")
        for acc, op in s.reduce:
            ln = lane[acc.name]
            self.emit(f"  {ln}[{j}] = {self.combine(op, acc, f'{ln}[{j}]', f'{ln}[{j} + {w}]')};")
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        for acc, op in s.reduce:
            a = self.cname(acc.name)
            self.emit(f"{a} = {self.combine(op, acc, a, f'{lane[acc.name]}[0]')};")
        self.depth -= 1
        self.emit("}")
        self.emit(f"for (int64_t {t} = {ge}; {t} < {n}; ++{t}) {{")
        self.depth += 1
        self.emit(f"const int64_t {v} = {at(t)};")
        self.block(s.body)
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    # ---- element loops in blocks: 16-bit float conversion and streaming stores
    def blocked_loop(self, s: ir.For, blocked: ir.Blocked):
        """The loop in blocks of blocked.size iterations: float16 / bfloat16 inputs widened into float32 buffers, the
        body vectorized over the buffers, outputs narrowed back and/or streamed (asc_blocks.h). A loop blocked only to
        stream runs as written when its outputs turn out small."""
        self.uses_blocks = True
        accesses, size = blocked.accesses, blocked.size
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
        half = any(a.converted for a in accesses)
        self.emit("{")
        self.depth += 1
        kinds = [n for n, on in (("float16", any(a.half for a in accesses)),
                                 ("bfloat16", any(a.bf16 for a in accesses))) if on]
        what = [f"{' and '.join(kinds)} converted around the body"] if half else []
        what += ["outputs of 16 MiB or more streamed past the cache"] if flags else []
        self.emit(f"// in blocks of {size}: {', '.join(what)}")
        self.emit(f"const int64_t {lo} = {self.expr(s.start)}, {hi} = {self.expr(s.stop)};")
        for a, buf in zip(accesses, bufs):
            if buf in flags:
                st = self.storage_type[a.tensor.type.dtype.name]
                self.emit(f"const bool {flags[buf]} = asc_stream_ok({self.numel(a.tensor.type)} * "
                          f"(int64_t)sizeof({st}), {hi} - {lo});")
        if not half:
            self.emit(f"if ({' || '.join(flags.values())}) {{")
            self.depth += 1
        lead = "0"
        if flags:   # blocks start where the first streamed output's cache lines do (asc_stream_lead)
            a, buf = next((a, buf) for a, buf in zip(accesses, bufs) if buf in flags)
            self._rename = {s.var.name: lo}
            first = f"{self.cname(a.tensor.name)} + ({self.index(a.tensor, a.indices)})"
            self._rename = {}
            st = self.storage_type[a.tensor.type.dtype.name]
            lead = f"asc_{v}_lead"
            self.emit(f"const int64_t {lead} = asc_stream_lead({first}, (int64_t)sizeof({st}), {size});")
        self.emit(f"const int64_t {nb} = {hi} > {lo} ? ({hi} - {lo} + {lead} + {size - 1}) / {size} : 0;")
        if s.kind == "parallel":
            nt, cond = self.parallel_clauses(s)
            self.emit(f"#pragma omp parallel{nt}{cond}")
            self.emit("{")
            self.depth += 1
            self.emit("#pragma omp for schedule(static) nowait")
        self.emit(f"for (int64_t {b} = 0; {b} < {nb}; ++{b}) {{")
        self.depth += 1
        if lead == "0":
            self.emit(f"const int64_t {bs} = {lo} + {b} * {size}LL, {bn} = asc_min_i({size}LL, {hi} - {bs});")
        else:
            self.emit(f"const int64_t asc_{v}_s0 = {lo} - {lead} + {b} * {size}LL, {bs} = asc_max_i(asc_{v}_s0, {lo}), "
                      f"{bn} = asc_min_i(asc_{v}_s0 + {size}LL, {hi}) - {bs};")
        if s.schedule.prefetch is not None:
            self.prefetch_next_row(s.schedule.prefetch, bs, bn)
        self.prefetch_ahead(s, bs, bn, hi)
        for a, buf in zip(accesses, bufs):
            t = "float" if a.converted else self.storage_type[a.tensor.type.dtype.name]
            self.emit(f"alignas(64) {t} {buf}[{size}];")
            if not a.store:
                self.emit(f"{'asc_h2f_block' if a.half else 'asc_bf2f_block'}({starts[buf]}, {buf}, {bn});")
        self.emit("#pragma omp simd")
        self.emit(f"for (int64_t {k} = 0; {k} < {bn}; ++{k}) {{")
        self.depth += 1
        self.emit(f"const int64_t {v} = {bs} + {k}; (void){v};")
        saved, self._block_bufs = self._block_bufs, {(a.tensor.name, tuple(a.indices)): (f"{buf}[{k}]", a.converted)
                                                     for a, buf in zip(accesses, bufs)}
        self.block(s.body)
        self._block_bufs = saved
        self.depth -= 1
        self.emit("}")
        for a, buf in zip(accesses, bufs):
            if a.store:
                fn = "asc_f2h_store" if a.half else "asc_f2bf_store" if a.bf16 else "asc_store_block"
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
            self.stmt_For(ir.scheduled(s, blocked=None))     # small outputs: the loop as written
            self.depth -= 1
            self.emit("}")
        self.depth -= 1
        self.emit("}")

    def prefetch_ahead(self, s: ir.For, first: str, count: str, limit: str):
        """Ask for the contiguous loads (ir.Ahead) of `count` iterations from `first` + the schedule's distance,
        when that is below `limit` (the loop's end: no address past its range is formed)."""
        sc = s.schedule
        if sc is None or sc.ahead is None:
            return
        ahead = f"{first} + {sc.ahead.iterations}LL"
        self.emit(f"if ({ahead} < {limit}) {{")
        self.depth += 1
        saved, self._rename = self._rename, {**self._rename, s.var.name: f"({ahead})"}
        for tensor, indices in sc.ahead.loads:
            st = self.storage_type[tensor.type.dtype.name]
            self.emit(f"asc_prefetch_l1({self.cname(tensor.name)} + ({self.index(tensor, indices)}), "
                      f"{count} * (int64_t)sizeof({st}));")
        self._rename = saved
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
        value = self.stored_expr(s.value)
        conv = None if ref[1] else self.store_conv.get(s.tensor.type.dtype.name)
        self.emit(f"{ref[0]} = {conv.format(value) if conv else value};")
