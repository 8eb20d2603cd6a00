"""The process-wide state the dispatch layer keeps: the memory and numeric check switches, the active call observer (the
profiler), and the live kernels whose launchers follow them. One small object, read by every call."""
from __future__ import annotations

import weakref

from .. import environment as _config


class JitState:
    """memory_check: None (ASC_MEMORY_CHECK decides) or a bool set by lang.enable/disable_memory_check();
    numeric_check: None (ASC_NUMERIC_CHECK decides), False, "outputs" or "intermediates"; observer: the active
    profiler, which sees every call and compile (calls then take the Python path)."""

    __slots__ = ("memory_check", "numeric_check", "observer", "kernels", "funcs")

    def __init__(self):
        self.memory_check = None
        self.numeric_check = None
        self.observer = None
        self.kernels: "weakref.WeakSet" = weakref.WeakSet()      # every live Kernel (launchers follow the switches)
        self.funcs: "weakref.WeakSet" = weakref.WeakSet()        # every live Func (the debugger finds their lines)

    def numeric_mode(self):
        """None (off), "outputs" or "intermediates"."""
        mode = self.numeric_check
        if mode is None:
            return "outputs" if _config.config.numeric_check else None
        return mode or None

    def memory_checked(self) -> bool:
        return _config.config.memory_check if self.memory_check is None else self.memory_check

    def python_path_only(self) -> bool:
        """Calls must take the Python path (the numeric check runs there)."""
        return self.numeric_mode() is not None


STATE = JitState()


def refresh_launchers():
    """Empties every launcher when calls must take the Python path (numeric checks), refills otherwise."""
    for k in list(STATE.kernels):
        k.refresh_launcher()


def set_observer(obs):
    """Installs (or with None removes) the call observer: obs.on_call(kernel, spec, bound, symbols, target, seconds)
    and obs.on_compile(kernel, spec, seconds, from_disk, reason). Launchers report their calls to it too."""
    STATE.observer = obs
    for k in list(STATE.kernels):
        k.observe_launcher(obs is not None)


def set_numeric_check(mode):
    """mode: None/False (off), "outputs" (check outputs after each call), "intermediates" (also every store)."""
    STATE.numeric_check = mode if mode else False
    refresh_launchers()


def set_memory_check(on: bool):
    """Turns bounds-checked code on or off for every kernel without its own memory_check option."""
    STATE.memory_check = bool(on)
    refresh_launchers()               # their launchers hold rows of the other mode
