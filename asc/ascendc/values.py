"""What a Python expression of a pyasc kernel is at translation time: a compile-time Python value (Const), or a
runtime value of the emitted Ascend C (Val: its C text, C type and kind)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import KernelTypeError
from .data_types import ConstExpr


@dataclass(frozen=True)
class Const:
    value: object


@dataclass(frozen=True)
class Val:
    kind: str                 # scalar, gaddr, gtensor, ltensor, que, pipe, pipeptr, buf, struct, obj
    text: str                 # the C expression
    ctype: str                # the C type of a variable holding it
    dtype: object = None      # the element type (tensors, addresses) or the scalar's type
    root: object = None       # ltensor: the buffer it views (sync insertion); que/buf: (position, depth)
    info: tuple = field(default=())   # kind-specific facts: ("pos", TPosition), ("struct", cls), ...

    def with_text(self, text: str) -> "Val":
        return replace(self, text=text)

    def get(self, key, default=None):
        for k, v in self.info:
            if k == key:
                return v
        return default


class Deferred:
    """A line of the emitted source that is completed later (a GlobalTensor declared before its element type is
    known: set_global_buffer gives it)."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.ctype = None

    def render(self) -> str:
        return self.fmt.format(ctype=self.ctype or "AscendC::GlobalTensor<uint8_t>")


class Bound:
    """A method of a runtime value, not yet called."""

    def __init__(self, obj: Val, name: str):
        self.obj, self.name = obj, name


CPP_RESERVED = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template this
thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
xor_eq half bfloat16_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t GM_ADDR AscendC
ascend_sim main printf""".split())


def ident(name: str) -> str:
    """The C++ identifier of a Python name (a C++ keyword or a name the source uses gets a trailing _)."""
    return name + "_" if name in CPP_RESERVED or name.startswith("asc_") else name


def param_kind(fn, name):
    """'const' for an asc.ConstExpr parameter of fn, else 'value'."""
    ann = fn.__annotations__.get(name)
    if isinstance(ann, str):
        try:
            ann = eval(ann, fn.__globals__)      # noqa: S307 -- the user's own annotation, in its module
        except Exception:   # noqa: BLE001
            ann = None
    return "const" if isinstance(ann, ConstExpr) or ann is ConstExpr else "value"   # asc.ConstExpr[int] or bare


def freeze(v):
    if isinstance(v, list):
        return ("list", tuple(freeze(x) for x in v))
    if isinstance(v, tuple):
        return tuple(freeze(x) for x in v)
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return ("id", id(v))


def bind_args(tr, node, what, names, args, kwargs, defaults=None) -> dict:
    """The arguments of a call of `what` (as the message names it) bound to `names`, positional then keyword, each
    missing one from `defaults` (as a Const); an extra, unknown, repeated or missing argument is an error at the call."""
    defaults = defaults or {}
    if len(args) > len(names):
        raise tr.err(node, f"{what} takes at most {len(names)} arguments", KernelTypeError)
    got = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in got:
            raise tr.err(node, f"{what}: unexpected argument {k!r}", KernelTypeError)
        got[k] = v
    for k in names:
        if k not in got:
            if k not in defaults:
                raise tr.err(node, f"{what}: missing argument {k!r}", KernelTypeError)
            got[k] = Const(defaults[k])
    return got
