"""pyasc's run configuration (`import asc.runtime.config as config`): the backend a pyasc kernel runs on, the
platform, the kernel types, and `set_platform`. This module holds that state only; it reads no environment
variable (asc/environment.py is the one reader)."""
from __future__ import annotations

from enum import Enum
from typing import Optional, Union


class Backend(Enum):
    """Where `kernel[core_num, stream](...)` runs. CPU: asc's CPU twin (the emitted Ascend C compiled with the
    system C++ compiler against ascend-sim). Model: CANN's cycle simulator in pyasc; not here, so it runs on the
    CPU twin too (a one-time notice says so). NPU: an Ascend NPU through the CANN runtime."""
    Model = "Model"
    NPU = "NPU"
    CPU = "CPU"


class Platform(Enum):
    """The SoC version."""
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    """The cores a kernel runs on (KERNEL_TYPE_* of Ascend C)."""
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


class _State:
    backend: Backend = Backend.CPU
    platform: Platform = Platform.Ascend910B1
    device_id: Optional[int] = None
    model_noticed: bool = False


state = _State()


class NoDeviceError(RuntimeError):
    """Backend.NPU was selected on a machine without an Ascend NPU and the CANN runtime."""


def npu_available() -> bool:
    """An Ascend NPU usable here: the CANN runtime (libascendcl) loads and reports a device."""
    import ctypes
    try:
        lib = ctypes.CDLL("libascendcl.so")
    except OSError:
        return False
    count = ctypes.c_uint32(0)
    try:
        return lib.aclrtGetDeviceCount(ctypes.byref(count)) == 0 and count.value > 0
    except AttributeError:
        return False


def set_platform(backend: Union[Backend, str], soc_version: Optional[Platform] = None,
                 device_id: Optional[int] = None, check: bool = True) -> None:
    """Selects the backend (and SoC) later kernel launches use."""
    try:
        backend = Backend(backend)
    except ValueError:
        raise ValueError(f"unknown backend {backend!r}; choose one of "
                         f"{', '.join(repr(b.value) for b in Backend)}") from None
    if soc_version is not None:
        soc_version = Platform(soc_version)
    if backend == Backend.NPU and check and not npu_available():
        raise NoDeviceError(
            "config.Backend.NPU needs an Ascend NPU and the CANN runtime (libascendcl), and this machine has "
            "neither. Run on the CPU twin instead: config.set_platform(config.Backend.CPU) (or Backend.Model); "
            "to build for an NPU elsewhere, `asc compile FILE.py::KERNEL --target ascend -o DIR` writes a CANN "
            "project.")
    state.backend = backend
    state.platform = soc_version or Platform.Ascend910B1
    state.device_id = device_id


def current_backend() -> Backend:
    return state.backend
