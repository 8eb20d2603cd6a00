"""Markers the layers share without importing each other: the frontend recognizes a device function by this base
class, and the dispatch layer's `Func` and `Kernel` derive from it."""


class DeviceCallable:
    """An object a kernel may call: its `pyfunc` is compiled inline as a device function (`@lang.func`, or another
    kernel called from a kernel)."""
    __slots__ = ()
    pyfunc = None
