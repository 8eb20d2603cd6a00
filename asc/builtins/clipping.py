"""Edge tiles in the interpreter: the language's rule for slices clipped at the end of their tensor
(docs/tensors.md, "Edge tiles"), which compiled code follows by construction (asc/passes/tensor_lower.py).

A view has a compile-time shape, the slice as written (`x[i:i+8]` has 8 elements), and a run-time shape, clipped
as NumPy clips the slice (5 at the end of a 21-element x). The interpreter's view is NumPy's (the run-time shape);
it carries its compile-time shape as `_asc_full` while the two differ. Where the operands of an elementwise
operation, a product or a store have different run-time extents along an axis, the operation works on their common
part, the first `min` of the extents along that axis, and leaves the rest of a destination as it was; an axis
broadcasts only where its compile-time size is 1 (a clipped tile with one row left does not broadcast). Where
NumPy's own shapes agree, that is NumPy's result; where NumPy would raise or broadcast a one-element tile, it is
asc's defined meaning: `acc += a[i:i+B, k:k+B] @ b[k:k+B, j:j+B]` adds the clipped product into acc's corner, as if
the tiles were padded with zeros, and `c[i:i+B, j:j+B] = acc` writes the part of acc that lies inside c.

Works on any NumPy arrays; the caller (asc/builtins/array.py) makes the results KernelArrays. Imports no other
module of asc.builtins."""
from __future__ import annotations

import numpy as np

_FULL = "_asc_full"
_PLAIN = _EDGE = None       # KernelArray and its subclass EdgeTile (asc/builtins/array.py registers them)


def register(plain, edge) -> None:
    """The interpreter's array classes: `edge` (a subclass of `plain`) is an array clipped at run time; it carries
    its compile-time shape and has the ufunc override."""
    global _PLAIN, _EDGE
    _PLAIN, _EDGE = plain, edge


def is_clipped(v) -> bool:
    return type(v) is _EDGE


def any_clipped(values) -> bool:
    for v in values:
        if type(v) is _EDGE:
            return True
    return False


def full_shape(v) -> tuple:
    """The compile-time shape of an array (its shape unless it is clipped); () for a scalar."""
    if type(v) is _EDGE:
        return v.__dict__[_FULL]
    return np.shape(v)


def mark(r, full):
    """r (an array of the interpreter, or anything else, returned as it is) with compile-time shape `full`: an
    EdgeTile where it differs from r's shape, a plain KernelArray where it does not. Changes r's class in place."""
    if full is None or not isinstance(r, _PLAIN) or r.ndim != len(full):
        return r
    d = r.__dict__
    if tuple(full) != r.shape:
        d[_FULL] = tuple(full)
        r.__class__ = _EDGE
    elif _FULL in d:
        del d[_FULL]
        r.__class__ = _PLAIN
    wide = d.get("_asc_wide")               # a 16-bit product's float32 accumulation: the same tile
    if isinstance(wide, np.ndarray) and wide.shape == r.shape:
        d["_asc_wide"] = mark(wide if isinstance(wide, _PLAIN) else wide.view(_PLAIN), full)
    return r


def zero_padded(r):
    """A returned edge tile: its compile-time shape, zeros past its run-time extents (with its float32
    accumulation, if it carries one, padded the same way)."""
    if not is_clipped(r):
        return r
    out = np.zeros(r.__dict__[_FULL], r.dtype).view(_PLAIN)
    out.view(np.ndarray)[tuple(slice(0, n) for n in r.shape)] = r.view(np.ndarray)
    wide = r.__dict__.get("_asc_wide")
    if isinstance(wide, np.ndarray):
        out.__dict__["_asc_wide"] = zero_padded(wide)
    return out


def view_full(parent, idx, view) -> tuple | None:
    """The compile-time shape of the view parent[idx] (NumPy's view `view`): a slice `a:b` has b - a elements, an
    open end takes the parent's compile-time size; None where idx is not the language's (ints, slices, `...`)."""
    pf = full_shape(parent)
    elts = list(idx) if isinstance(idx, tuple) else [idx]
    if any(e is Ellipsis for e in elts):
        k = elts.index(Ellipsis)
        elts = elts[:k] + [slice(None)] * (len(pf) - len(elts) + 1) + elts[k + 1:]
    if len(elts) > len(pf):
        return None
    elts += [slice(None)] * (len(pf) - len(elts))
    out = []
    for e, d in zip(elts, pf):
        if isinstance(e, slice):
            if e.step not in (None, 1):
                return None
            lo = 0 if e.start is None else int(e.start)
            hi = d if e.stop is None else int(e.stop)
            if hi < 0 or (lo < 0 and e.stop is None):
                # a constant bound counting from the end (x[2:-2], x[-3:]): NumPy's extent. A window whose start
                # alone is below 0 (x[i - 1:i + 3] at i = 0) keeps its written extent: it is clipped at run time.
                lo, hi = (max(0, b + d) if b < 0 else b for b in (lo, hi))
            out.append(max(0, hi - lo))
        elif isinstance(e, (int, np.integer)) and not isinstance(e, bool):
            continue
        else:
            return None
    return tuple(out) if len(out) == view.ndim else None


def _past(e, n) -> bool:
    """Whether slice e (with an upper bound) of an axis of length n may be clipped or count from the end: its view
    is NumPy's with the written extent when the bounds are ints, 0 <= start, stop <= n and the step is 1."""
    b, a = e.stop, e.start
    return (type(b) is not int or b < 0 or b > n or (a is not None and (type(a) is not int or a < 0))
            or (e.step is not None and e.step != 1))


def may_clip(parent, idx) -> bool:
    """Whether parent[idx] may be clipped: the parent is, or a slice has an upper bound past its axis (or bounds
    counting from the end): `x[i, :]`, and `x[i:i+8]` with i + 8 <= len(x), never are."""
    if type(parent) is _EDGE:
        return True
    if type(idx) is slice:
        return idx.stop is not None and (not parent.ndim or _past(idx, parent.shape[0]))
    if type(idx) is tuple:
        shape = parent.shape
        axis = 0
        for e in idx:
            if type(e) is slice:
                if e.stop is not None and (axis >= len(shape) or _past(e, shape[axis])):
                    return True
            elif e is Ellipsis or e is None:
                return True
            axis += 1
    return False


def mark_view(parent, idx, view):
    """view (parent[idx]) marked with its compile-time shape when the slice, or its parent, is clipped."""
    if view.ndim and may_clip(parent, idx) and isinstance(view, _PLAIN):
        full = view_full(parent, idx, view)
        if full is not None:
            mark(view, full)
    return view


def _broadcast(shapes) -> tuple:
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(nd):
        d = 1
        for s in shapes:
            j = k - (nd - len(s))
            if j >= 0 and s[j] != 1:
                d = s[j]
        out.append(d)
    return tuple(out)


def _extents(arrays, fulls, nd, dest=None) -> list:
    """The common run-time extent of each of nd axes: the smallest extent of the operands that do not broadcast
    along it (compile-time size other than 1), and of the destination `dest` (its run-time shape), if any."""
    ext = list(dest) if dest is not None else [None] * nd
    for a, f in zip(arrays, fulls):
        off = nd - a.ndim
        for j in range(a.ndim):
            if f[j] != 1:
                k = j + off
                ext[k] = a.shape[j] if ext[k] is None else min(ext[k], a.shape[j])
    return [1 if e is None else e for e in ext]


def _trim(a, f, ext):
    """a cut to the extents `ext` (right-aligned) along the axes it does not broadcast along."""
    off = len(ext) - a.ndim
    sl = tuple(slice(0, ext[j + off]) if f[j] != 1 else slice(None) for j in range(a.ndim))
    return a[sl] if any(s.stop is not None and s.stop < n for s, n in zip(sl, a.shape)) else a


def align(inputs, out=None):
    """The operands (and outputs) of an elementwise operation cut to their common part, and the compile-time shape
    of its result: (inputs, out, full)."""
    arrays = [(k, np.asarray(v).view(np.ndarray)) for k, v in enumerate(inputs)
              if isinstance(v, np.ndarray) and v.ndim]
    fulls = [full_shape(inputs[k]) for k, _ in arrays]
    outs = [] if out is None else [(k, o.view(np.ndarray)) for k, o in enumerate(out) if isinstance(o, np.ndarray)]
    ofulls = [full_shape(out[k]) for k, _ in outs]
    full = _broadcast(fulls + ofulls)
    ext = _extents([a for _, a in arrays] + [o for _, o in outs], fulls + ofulls, len(full))
    new_in = list(inputs)
    for (k, a), f in zip(arrays, fulls):
        new_in[k] = _trim(a, f, ext)
    new_out = None
    if out is not None:
        new_out = list(out)
        for (k, o), f in zip(outs, ofulls):
            new_out[k] = _trim(o, f, ext)
        new_out = tuple(new_out)
    return tuple(new_in), new_out, full


def store(dest, dest_full, value):
    """`dest[...] = value` with dest (a NumPy view, compile-time shape dest_full) or value clipped: the parts that
    are written, (dest part, value part)."""
    if not isinstance(value, np.ndarray) or not value.ndim:
        return dest, value
    vf = full_shape(value)
    v = np.asarray(value).view(np.ndarray)
    if v.ndim > dest.ndim:
        return dest, value                    # NumPy says what is wrong
    ext = _extents([v], [vf], dest.ndim, dest=dest.shape)
    return dest[tuple(slice(0, e) for e in ext)], _trim(v, vf, ext)


def reduced_full(full, axis, keepdims) -> tuple:
    """The compile-time shape of a reduction of a tensor of compile-time shape `full` over `axis`."""
    nd = len(full)
    axes = range(nd) if axis is None else [a % nd for a in (axis if isinstance(axis, tuple) else (axis,))]
    return tuple(1 if k in axes else d for k, d in enumerate(full) if keepdims or k not in axes)


def matmul_operands(a, b):
    """The operands of a @ b cut to their common part (the inner extent: the smaller of a's columns and b's rows;
    a batch: the smaller of the batches), and the compile-time shape of the product: (a, b, full)."""
    fa, fb = full_shape(a), full_shape(b)
    x, y = np.asarray(a).view(np.ndarray), np.asarray(b).view(np.ndarray)
    k = min(x.shape[-1], y.shape[-2])
    x, y = x[..., :k], y[..., :k, :]
    full = fa[:-1] + fb[-1:]
    if x.ndim == 3 or y.ndim == 3:
        full = (fa if x.ndim == 3 else fb)[:1] + full[-2:]
        if x.ndim == 3 and y.ndim == 3:
            n = min(x.shape[0], y.shape[0])
            x, y = x[:n], y[:n]
    return x, y, full


def transposed_full(x, axes) -> tuple:
    f = full_shape(x)
    return tuple(reversed(f)) if axes is None else tuple(f[a] for a in axes)


_ELEMENTWISE = frozenset({"math", "activation", "predicate", "select", "cast"})
KINDS = _ELEMENTWISE | {"reduce", "softmax"}      # the kinds of builtins whose calls call() serves


def _as(r):
    """A plain NumPy result as an array of the interpreter."""
    return r.view(_PLAIN) if type(r) is np.ndarray and r.ndim else r


def call(b, args, kwargs):
    """Builtin `b` (of a kind in KINDS) called with a clipped tensor among `args`: elementwise on the common part,
    a reduction over the run-time extents (NumPy's), the result marked with its compile-time shape."""
    if b.kind in _ELEMENTWISE:
        new, _, full = align(args)
        return mark(_as(b.impl(*new, **kwargs)), full)
    r = b.impl(*args, **kwargs)
    if b.kind == "reduce":
        axis = args[1] if len(args) > 1 else kwargs.get("axis")
        keepdims = args[2] if len(args) > 2 else kwargs.get("keepdims", False)
        full = reduced_full(full_shape(args[0]), axis, keepdims)
    else:
        full = full_shape(args[0])
    return mark(_as(r), full)
