"""The pyasc translator: the Python AST of an @asc.jit function (and of the @asc.jit helpers it calls) becomes
Ascend C, 1:1 -- each Python statement one line of C++ under a comment holding the Python line and a `#line`
directive naming it, so that compiler messages and ascend-sim's violation reports (through __builtin_LINE()) name
the Python line. The kernel is specialized on its ConstExpr values and argument dtypes; compile-time values
(ConstExpr parameters, module constants, dtypes, enums) are folded."""
from __future__ import annotations

import ast
import builtins
import inspect
import os
import textwrap

from ..errors import CompileError, KernelTypeError, UnsupportedError
from ..frontend.source import closure_values
from ..frontend.visitor import visit_method
from ..ir.nodes import Loc
from . import objects
from .syncs import SyncState
from .translate_exprs import INT, ExpressionsMixin, c_literal, is_num
from .values import CPP_RESERVED, Bound, Const, Deferred, Val, ident  # noqa: F401

PRELUDE = """\
// asc_floordiv / asc_mod: Python's // and % on integers (rounding toward negative infinity)
__aicore__ inline int64_t asc_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }
__aicore__ inline int64_t asc_mod(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
"""


class Program:
    """One kernel specialization being translated: its helpers, structs, buffers and sync state."""

    def __init__(self, kernel_name: str, options):
        self.kernel_name = kernel_name
        self.options = options
        self.funcs: list = []              # emitted helper functions (callees first)
        self.helpers: dict = {}            # specialization key -> (c name, return Val or None, exit sync state)
        self.helper_names: dict = {}
        self.structs: dict = {}            # Struct class -> C declaration
        self.autos: list = []              # (buffer id, bytes: an int, or a C expression of the parameters)
        self.auto_sites: dict = {}         # ast node id -> buffer id
        self.scalar_params: set = set()    # the C names of the kernel's scalar parameters
        self.insert_sync = bool(options.insert_sync)
        self.sync = SyncState()
        self.line_files: dict = {}         # python line -> Loc (for ascend-sim reports)
        self.raw_count = 0
        self.uses_prelude = False
        self.addr_elem: dict = {}          # LocalTensor<uint64_t> text -> element types of the addresses stored
        self.uses_matmul = False           # an asc.adv.Matmul: lib/matmul_intf.h, and a kernel with a cube core
        self.cube_call = None              # the first cube basic call: (its Loc, the API name) (cube.py)

    def snapshot(self):
        return (list(self.funcs), dict(self.helpers), dict(self.helper_names), self.sync.copy())

    def restore(self, snap):
        self.funcs, self.helpers, self.helper_names, self.sync = list(snap[0]), dict(snap[1]), dict(snap[2]), \
            snap[3].copy()

    def helper_cname(self, base: str) -> str:
        n = self.helper_names.get(base, 0)
        self.helper_names[base] = n + 1
        return base if n == 0 else f"{base}_{n}"




class FuncTranslator(ExpressionsMixin):
    """One @asc.jit function translated: its statements here (`stmt_X`), its expressions in ExpressionsMixin
    (translate_exprs.py)."""

    def __init__(self, prog: Program, fn, is_kernel: bool):
        self.prog, self.fn, self.is_kernel = prog, fn, is_kernel
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise UnsupportedError(f"the source of {fn.__name__!r} is not available ({e}); an @asc.jit function "
                                   f"must be defined in a file") from None
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.first = first
        src = textwrap.dedent("".join(lines))
        self.src_lines = src.splitlines()
        tree = ast.parse(src)
        self.node = tree.body[0]
        if not isinstance(self.node, ast.FunctionDef):
            raise UnsupportedError(f"@asc.jit decorates functions; {fn.__name__!r} is not one")
        self.env: dict = {}
        self.scopes: list = [{}]          # C block scopes: python name -> ctype of the C variable
        self.out: list = []
        self.parts: list = []             # the C++ of the statement being translated (stmt)
        self.depth = 1
        self.runtime_depth = 0            # inside runtime control flow
        self.multi = self._multi_assigned(self.node)
        self.ret: Val | None = None
        self.ret_seen = False
        self.tmp = 0
        self.globals = {**fn.__globals__, **closure_values(fn)}

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _multi_assigned(fn_node) -> set:
        counts: dict = {}
        for n in ast.walk(fn_node):
            targets = []
            if isinstance(n, ast.Assign):
                targets = n.targets
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                targets = [n.target]
                if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    counts[n.target.id] = counts.get(n.target.id, 0) + 1
            elif isinstance(n, ast.For):
                targets = [n.target]
            for t in targets:
                for nm in ast.walk(t):
                    if isinstance(nm, ast.Name):
                        counts[nm.id] = counts.get(nm.id, 0) + 1
        return {k for k, v in counts.items() if v > 1}

    def loc(self, node) -> Loc:
        line = getattr(node, "lineno", 1) + self.first - 1
        return Loc(self.file, line, getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None))

    def err(self, node, msg, cls=UnsupportedError):
        return cls(msg, self.loc(node))

    def fresh(self, base: str) -> str:
        self.tmp += 1
        return f"{base}_{self.tmp}"

    def line(self, text: str):
        self.out.append("    " * self.depth + text)

    def source_line(self, node):
        """The comment holding the Python line and the #line directive, before the C of a statement."""
        py = self.src_lines[node.lineno - 1].strip() if node.lineno - 1 < len(self.src_lines) else ""
        line = node.lineno + self.first - 1
        self.prog.line_files.setdefault(line, Loc(self.file, line, node.col_offset, node.end_col_offset))
        self.line(f"// {py}")
        self.out.append(f'#line {line} "{os.path.basename(self.file)}"')
        if self.parts:      # C++ a compound statement's header produced (an operand array): before the header
            self.line(" ".join(self.parts))
            self.parts.clear()

    def declare(self, name: str, ctype: str):
        self.scopes[-1][name] = ctype

    def declared(self, name: str):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def push_scope(self):
        self.scopes.append({})

    def pop_scope(self):
        for name in self.scopes.pop():
            v = self.env.get(name)
            if isinstance(v, Val) and v.text == ident(name):
                self.env[name] = ("out-of-scope", name)

    # ------------------------------------------------------------------ entry points

    def translate_body(self):
        for s in self.node.body:
            self.stmt(s)

    # ------------------------------------------------------------------ statements

    def stmt(self, node):
        """Translates one statement (its `stmt_X` method); the C++ of a simple statement collects in `self.parts`
        and is written on one line after the Python line's comment."""
        visit = visit_method(self, node)
        if visit is None:
            raise self.err(node, f"unsupported Python feature in a kernel: {type(node).__name__}")
        saved, parts = self.parts, []
        self.parts = parts
        try:
            visit(node)
        finally:
            self.parts = saved
        if parts:
            self.source_line(node)
            self.line(" ".join(parts))

    def stmt_Pass(self, node):
        pass

    def stmt_Assign(self, node):
        if len(node.targets) != 1:
            raise self.err(node, "chained assignment (a = b = ...) is not supported in kernels")
        self.assign(node.targets[0], node.value, node)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, node.value, node)

    def stmt_AugAssign(self, node):
        op = ast.BinOp(left=ast.Name(id=node.target.id, ctx=ast.Load()) if isinstance(node.target, ast.Name)
                       else node.target, op=node.op, right=node.value)
        ast.copy_location(op, node)
        ast.fix_missing_locations(op)
        self.assign(node.target, op, node)

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return                                   # a docstring
        v = self.expr(node.value)
        if isinstance(v, Val) and v.kind == "call":
            self.parts.append(v.text + ";")

    def stmt_Assert(self, node):
        c = self.expr(node.test)
        if not isinstance(c, Const):
            raise self.err(node, "assert of a runtime value: a kernel's assert must be decidable at compile "
                                 "time (dtypes, ConstExpr values)")
        if not c.value:
            msg = self.expr(node.msg).value if node.msg is not None else "assertion failed"
            raise self.err(node, f"assertion failed at compile time: {msg}", CompileError)

    def stmt_Return(self, node):
        self.do_return(node)

    def stmt_Break(self, node):
        self.parts.append("break;")

    def stmt_Continue(self, node):
        self.parts.append("continue;")

    def do_return(self, node):
        if self.is_kernel and node.value is not None:
            raise self.err(node, "a kernel returns nothing: write its results to a GlobalTensor")
        if node.value is None:
            self.parts.append("return;")
            return
        v = self.expr(node.value)
        if isinstance(v, Const) and isinstance(v.value, tuple) and not self.is_kernel:
            v = self.tuple_val(v.value, node)
        elif isinstance(v, Const):
            if not is_num(v.value):
                raise self.err(node, "a helper returns a number or a runtime value")
            v = self.scalar_val(v)
        if self.ret is not None and self.ret.ctype != v.ctype and v.kind == "tuple" and self.ret.kind == "tuple" \
                and self.ret.get("elems") == v.get("elems"):
            v = Val("tuple", v.text.replace(v.ctype, self.ret.ctype, 1), self.ret.ctype, None, None, self.ret.info)
        if self.ret is not None and self.ret.ctype != v.ctype:
            raise self.err(node, f"the helper returns {self.ret.ctype} and {v.ctype}", KernelTypeError)
        self.ret = v
        self.parts.append(f"return {v.text};")

    def tuple_val(self, items, node) -> Val:
        """A helper's `return a, b, c` of scalars: a struct of the values (one C struct per helper and element
        types), which the caller unpacks (x, y, z = helper(...))."""
        vals = []
        for x in items:
            if isinstance(x, Const):
                if not is_num(x.value):
                    raise self.err(node, f"a helper returns a tuple of numbers or scalars, not {x.value!r}",
                                   KernelTypeError)
                x = self.scalar_val(x)
            if not (isinstance(x, Val) and x.kind == "scalar"):
                raise self.err(node, f"a helper returns a tuple of scalars, not of a {x.kind}", KernelTypeError)
            vals.append(x)
        elems = tuple((x.ctype, x.dtype) for x in vals)
        if self.ret is not None and self.ret.kind == "tuple" and self.ret.get("elems") == elems:
            name = self.ret.ctype
        else:
            name = self.prog.helper_cname(f"{ident(self.fn.__name__)}_ret")
            fields = " ".join(f"{ct} v{i};" for i, (ct, _) in enumerate(elems))
            self.prog.funcs.append([f"struct {name} {{ {fields} }};"])
        return Val("tuple", f"{name}{{{', '.join(x.text for x in vals)}}}", name, None, None, (("elems", elems),))

    def stmt_If(self, node):
        c = self.expr(node.test)
        if isinstance(c, Const):
            for s in (node.body if c.value else node.orelse):
                self.stmt(s)
            return
        self.source_line(node)
        self.line(f"if ({self.bool_text(c, node.test)}) {{")
        before = self.prog.sync.copy()
        self.block(node.body)
        after_then = self.prog.sync
        if node.orelse:
            self.prog.sync = before.copy()
            self.line("} else {")
            self.block(node.orelse)
            self.prog.sync = self.prog.sync.union(after_then)
        else:
            self.prog.sync = before.union(after_then)
        self.line("}")

    def stmt_While(self, node):
        c = self.expr(node.test)
        if isinstance(c, Const):
            raise self.err(node, "a while loop over a compile-time condition: use for ... in range(...)")
        self.source_line(node)
        self.loop_body(node, f"while ({self.bool_text(c, node.test)}) {{", node.body)

    def stmt_For(self, node):
        if node.orelse:
            raise self.err(node, "for ... else is not supported in kernels")
        it = node.iter
        fn = self.expr(it.func) if isinstance(it, ast.Call) else None
        if not (isinstance(fn, Const) and fn.value in (builtins.range, objects.range)):
            raise self.err(it, "kernels loop over range(...) or asc.range(...)")
        if it.keywords:
            raise self.err(it, "range() takes positional arguments")
        args = [self.expr(a) for a in it.args]
        if not 1 <= len(args) <= 3:
            raise self.err(it, "range() takes 1 to 3 arguments")
        start, stop, step = (Const(0), args[0], Const(1)) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) == 3 else Const(1))
        if not isinstance(step, Const):
            raise self.err(it, "the step of a kernel loop must be a compile-time constant")
        if step.value == 0:
            raise self.err(it, "range() step must not be zero", CompileError)
        if not isinstance(node.target, ast.Name):
            raise self.err(node.target, "the loop variable must be a name")
        pyvar = node.target.id
        var = ident(pyvar)
        cmp = "<" if step.value > 0 else ">"
        inc = f"++{var}" if step.value == 1 else f"{var} += {c_literal(step.value)}"
        self.source_line(node)
        header = (f"for (int64_t {var} = {self.int_text(start, it)}; {var} {cmp} {self.int_text(stop, it)}; "
                  f"{inc}) {{")
        self.loop_body(node, header, node.body, (pyvar, var))

    def stmt_With(self, node):
        """`with mm.iterate() as count:` (pyasc's Matmul iterator): a loop while Iterate() gives the next block,
        `count` counting the blocks from 0."""
        if len(node.items) != 1:
            raise self.err(node, "a kernel's with statement takes one context (with mm.iterate() as count:)")
        item = node.items[0]
        ctx = self.expr(item.context_expr)
        if not (isinstance(ctx, Val) and ctx.kind == "mmiter"):
            raise self.err(item.context_expr, "a kernel's with statement takes a Matmul's iterate() "
                                              "(with mm.iterate() as count:)")
        if item.optional_vars is not None and not isinstance(item.optional_vars, ast.Name):
            raise self.err(item.optional_vars, "with ... as NAME: the block counter is one name")
        pyvar = item.optional_vars.id if item.optional_vars is not None else self.fresh("asc_count")
        var = ident(pyvar)
        self.source_line(node)
        self.loop_body(node, f"for (int64_t {var} = 0; {ctx.text}; ++{var}) {{", node.body, (pyvar, var))

    def loop_body(self, node, header, body, var=None):
        saved_env = dict(self.env)
        if self.prog.insert_sync:
            # the state at the loop head joins the entry and the end of an iteration: translate once to learn it
            snap, out_len, tmp = self.prog.snapshot(), len(self.out), self.tmp
            entry = self.prog.sync.copy()
            self._body(header, body, var)
            end_state = self.prog.sync
            del self.out[out_len:]
            self.prog.restore(snap)
            self.tmp = tmp
            self.env = dict(saved_env)
            self.prog.sync = entry.union(end_state)
        self._body(header, body, var)
        for k, v in saved_env.items():
            if k not in self.env or isinstance(self.env[k], tuple):
                self.env[k] = v
        if self.prog.insert_sync:
            self.prog.sync = self.prog.sync.union(entry)

    def _body(self, header, body, var):
        """`header {` (a loop or branch run at run time), the body in its own scope (with the loop variable `var`,
        (python name, C name), declared in it), `}`."""
        self.line(header)
        self.block(body, var)
        self.line("}")

    def block(self, body, var=None):
        self.push_scope()
        if var is not None:
            self.declare(var[0], "int64_t")
            self.env[var[0]] = Val("scalar", var[1], "int64_t", INT)
        self.runtime_depth += 1
        self.depth += 1
        for s in body:
            self.stmt(s)
        self.depth -= 1
        self.runtime_depth -= 1
        self.pop_scope()

    # ------------------------------------------------------------------ assignment

    def unpack(self, target, v: Val, node):
        elems = v.get("elems")
        if len(target.elts) != len(elems):
            raise self.err(node, f"the helper returns {len(elems)} values, {len(target.elts)} names take them")
        tmp = self.fresh("asc_ret")
        self.parts.append(f"{v.ctype} {tmp} = {v.text};")
        for i, (t, (ct, dt)) in enumerate(zip(target.elts, elems)):
            if not isinstance(t, ast.Name):
                raise self.err(t, "assign to names")
            self.bind_val(t.id, Val("scalar", f"{tmp}.v{i}", ct, dt), node)

    def bind_val(self, name, v: Val, node):
        """name = v, for a runtime value: a C variable declared at its first assignment, one type per name."""
        cn = ident(name)
        have = self.declared(name)
        cur = self.env.get(name)
        if isinstance(cur, Val) and isinstance(cur.get("deferred"), Deferred) and cur.get("deferred").ctype:
            have = cur.get("deferred").ctype        # a GlobalTensor declared before set_global_buffer typed it
        if have is not None:
            if have != v.ctype and not self.widens(have, v):
                raise self.err(node, f"{name!r} changes type from {have} to {v.ctype} (one type per variable)",
                               KernelTypeError)
            if v.text != cn:
                self.parts.append(f"{cn} = {v.text};")
        else:
            self.declare(name, v.ctype)
            self.parts.append(f"{v.ctype} {cn} = {v.text};")
        # the variable is its own: what tied the value to another name's declaration (a deferred GlobalTensor's) stays
        info = tuple((k, x) for k, x in v.info if k not in ("deferred", "var"))
        if isinstance(cur, Val) and have is not None:
            info += tuple((k, x) for k, x in cur.info if k in ("deferred", "var"))
        self.env[name] = Val(v.kind, cn, v.ctype, v.dtype, v.root, info)

    @staticmethod
    def widens(have: str, v: Val) -> bool:
        """An integer scalar stored in an int64_t variable (a struct's int32 field into a Python int)."""
        return have == "int64_t" and v.kind == "scalar" and v.dtype is not None and v.dtype.is_int and \
            v.dtype.name != "uint64"

    def assign_tuple(self, target, value_node, node):
        v = self.expr(value_node)
        if isinstance(v, Val) and v.kind == "tuple":
            return self.unpack(target, v, node)
        if not (isinstance(v, Const) and isinstance(v.value, (tuple, list))) or len(v.value) != len(target.elts):
            raise self.err(node, "tuple assignment takes a tuple of the same length")
        for t in target.elts:
            if not isinstance(t, ast.Name):
                raise self.err(t, "assign to names")
        # Python evaluates the whole right side, left to right, before it binds a name (`a, b = b, a`): a value
        # C++ can copy (a scalar, a tensor, a struct; a call such as q.alloc_tensor(dt) runs once) goes first into a
        # variable of its own, then each name is assigned from it, as `name = value` does, so that a swap in a
        # run-time loop swaps on every iteration; an object constructed in place is declared under its name; the
        # other objects (a queue, a pipe) are not copied: the name refers to the object
        vals = []
        for x in v.value:
            if isinstance(x, Const):            # a compile-time element of a tuple that holds runtime values
                x = x.value
            if isinstance(x, Val) and x.kind == "call":
                if x.ctype == "void":
                    raise self.err(value_node, "this call returns nothing")
                x = Val(x.get("rkind", "scalar"), x.text, x.ctype, x.dtype, x.root, x.info)
            computed = isinstance(x, Val) and x.kind != "new" and (
                x.kind in ("scalar", "struct", "ltensor", "gtensor") or not x.text.isidentifier())
            if computed:
                tmp = self.fresh("tup")
                self.bind_val(tmp, x, node)
                x = self.env[tmp]
            vals.append((x, computed))
        for t, (x, computed) in zip(target.elts, vals):
            if computed:                        # a variable of its own, as `name = x` makes
                self.bind_val(t.id, x, node)
            elif isinstance(x, Val) and x.kind == "new":    # `xg, yg = asc.GlobalTensor(), asc.GlobalTensor()`
                self.bind_new(t.id, x, node)
            elif isinstance(x, Val):            # an object that has a name (a tensor, a queue): the name refers to it
                self.env[t.id] = x
            else:
                self.env[t.id] = Const(x)

    def assign(self, target, value_node, node):
        if isinstance(target, ast.Tuple):
            return self.assign_tuple(target, value_node, node)
        if isinstance(target, ast.Attribute):
            obj = self.expr(target.value)
            if isinstance(obj, Val) and obj.kind == "struct":
                field = self.field_cname(obj, target.attr, target)
                v = self.expr(value_node)
                self.parts.append(f"{obj.text}.{field} = {self.value_text(v, target)};")
                return
            raise self.err(target, "assignment to an attribute of this value is not supported")
        if isinstance(target, ast.Subscript):
            raise self.err(target, "assignment to a tensor element: use tensor.set_value(index, value)")
        if not isinstance(target, ast.Name):
            raise self.err(target, "assign to a name")
        name = target.id
        cn = ident(name)
        v = self.expr(value_node)
        if isinstance(v, Const):
            if name in self.multi and is_num(v.value) and not isinstance(v.value, bool) or \
                    (name in self.multi and isinstance(self.env.get(name), Val)):
                v = self.scalar_val(v)
            else:
                if self.runtime_depth and name in self.multi and name in self.env and \
                        not (isinstance(self.env[name], Const) and self.env[name].value is v.value):
                    raise self.err(node, f"{name!r} is rebound to another compile-time value inside runtime "
                                         f"control flow")
                self.env[name] = v
                return
        if isinstance(v, Val) and v.kind == "call":
            if v.ctype == "void":
                raise self.err(value_node, "this call returns nothing")
            v = Val(v.get("rkind", "scalar"), v.text, v.ctype, v.dtype, v.root, v.info)
        if isinstance(v, Val) and v.kind == "new":          # an object constructed in place: TQue, TPipe, ...
            return self.bind_new(name, v, node)
        if not isinstance(v, Val):
            raise self.err(value_node, "this value cannot be stored in a kernel variable")
        self.bind_val(name, v, node)

    def bind_new(self, name, v: Val, node):
        """name = an object constructed in place (TQue, TPipe, GlobalTensor, ...): its declaration, named."""
        cn = ident(name)
        decl = v.text.replace("{name}", cn)
        if self.declared(name) is not None:
            raise self.err(node, f"{name!r} is constructed twice (one object per name)")
        self.declare(name, v.ctype)
        if isinstance(v.get("deferred"), Deferred):
            d = v.get("deferred")
            d.fmt = "    " * self.depth + decl
            self.source_line(node)
            self.out.append(d)
        else:
            self.parts.append(decl)
        nv = Val(v.get("kind", "obj"), cn, v.ctype, v.dtype, v.root, v.info)
        if isinstance(v.get("deferred"), Deferred):
            nv = Val(nv.kind, cn, v.ctype, v.dtype, v.root, v.info + (("var", name),))
        self.env[name] = nv
        extra = v.get("after")
        if extra:
            self.parts.append(extra.replace("{name}", cn))
