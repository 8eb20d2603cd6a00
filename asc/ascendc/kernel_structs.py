"""pyasc's kernel structs (`asc.language.core.struct`): `class Cfg(Struct): n = Field(dtype=KT.int32, default=0)`,
built on the host and passed to a kernel by value. The same layout is a C struct in the emitted source and a
ctypes.Structure for the launch."""
from __future__ import annotations

import ctypes

from . import data_types as dtypes

_CTYPES = {"int8": ctypes.c_int8, "uint8": ctypes.c_uint8, "int16": ctypes.c_int16, "uint16": ctypes.c_uint16,
           "int32": ctypes.c_int32, "uint32": ctypes.c_uint32, "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
           "float32": ctypes.c_float, "float64": ctypes.c_double, "bool": ctypes.c_bool}


class Field:
    """A scalar field: its data type and default."""

    def __init__(self, dtype=dtypes.int32, default=0, name=None):
        if not isinstance(dtype, dtypes.DataType) or dtype.name not in _CTYPES:
            raise TypeError(f"a struct field takes one of {', '.join(_CTYPES)}, got {dtype!r}")
        if name is not None and not (isinstance(name, str) and name.isidentifier()):
            raise TypeError(f"a struct field's name is a C identifier, got {name!r}")
        # name: the field's name in the Ascend C struct of the same layout (pyasc's Field(name="usedCoreNum")),
        # kept for the code that maps the struct onto that C struct; the emitted declaration uses the Python name
        self.dtype, self.default, self.name = dtype, default, name


class StructField:
    """A field holding another struct."""

    def __init__(self, cls, default=None):
        if not (isinstance(cls, type) and issubclass(cls, Struct)):
            raise TypeError(f"StructField takes a Struct subclass, got {cls!r}")
        self.cls, self.default = cls, default


class _StructMeta(type):
    def __new__(mcs, name, bases, ns):
        fields = {}
        for b in bases:
            fields.update(getattr(b, "_asc_fields", {}))
        for k, v in list(ns.items()):
            if isinstance(v, (Field, StructField)):
                fields[k] = v
                del ns[k]
        ns["_asc_fields"] = fields
        return super().__new__(mcs, name, bases, ns)


class Struct(metaclass=_StructMeta):
    """Base of kernel structs."""

    _asc_fields: dict = {}

    def __init__(self, **values):
        for k, f in self._asc_fields.items():
            if k in values:
                v = values.pop(k)
            elif isinstance(f, StructField):
                v = f.default if f.default is not None else f.cls()
            else:
                v = f.default
            object.__setattr__(self, k, v)
        if values:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(values))!r}")

    def __setattr__(self, k, v):
        if k not in self._asc_fields:
            raise AttributeError(f"{type(self).__name__} has no field {k!r}")
        object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self._asc_fields) + ")"

    # -------------------------------------------------------------- layout

    @classmethod
    def c_declarations(cls, seen=None) -> list:
        """The C struct declarations this struct needs (nested ones first)."""
        seen = set() if seen is None else seen
        out = []
        if cls in seen:
            return out
        if cls.__dict__.get("_asc_header"):       # declared by an Ascend C header (TCubeTiling): included instead
            seen.add(cls)
            return out
        for f in cls._asc_fields.values():
            if isinstance(f, StructField):
                out += f.cls.c_declarations(seen)
        seen.add(cls)
        body = " ".join(f"{f.cls.__name__ if isinstance(f, StructField) else f.dtype.cname} {k};"
                        for k, f in cls._asc_fields.items())
        out.append(f"struct {cls.__name__} {{ {body} }};")
        return out

    @classmethod
    def ctypes_type(cls):
        t = cls.__dict__.get("_asc_ctype")
        if t is None:
            fields = [(k, f.cls.ctypes_type() if isinstance(f, StructField) else _CTYPES[f.dtype.name])
                      for k, f in cls._asc_fields.items()]
            t = type(cls.__name__ + "_c", (ctypes.Structure,), {"_fields_": fields})
            cls._asc_ctype = t
        return t

    def to_ctypes(self):
        t = type(self).ctypes_type()
        vals = {}
        for k, f in self._asc_fields.items():
            v = getattr(self, k)
            if isinstance(f, StructField):
                if not isinstance(v, f.cls):
                    raise TypeError(f"{type(self).__name__}.{k} must be a {f.cls.__name__}, got {v!r}")
                vals[k] = v.to_ctypes()
            else:
                vals[k] = v
        return t(**vals)

    def freeze(self):
        return tuple((k, getattr(self, k).freeze() if isinstance(getattr(self, k), Struct) else getattr(self, k))
                     for k in self._asc_fields)
