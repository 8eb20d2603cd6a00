"""pyasc's runtime interface (`import asc.lib.runtime as rt`): streams, devices, the SoC. On the CPU twin there is
one device and one stream; kernels run synchronously on it."""
from __future__ import annotations

from typing import Optional

from ..runtime import config as _config


class Stream:
    """A launch stream. The CPU twin runs every launch to completion before returning."""

    def __init__(self, device_id: int = 0):
        self.device_id = device_id

    def synchronize(self) -> None:
        """Waits for the stream's launches (they are already complete on the CPU twin)."""

    def __repr__(self) -> str:
        return f"<asc.lib.runtime.Stream device={self.device_id}>"


_STREAMS: dict = {}


def current_device() -> int:
    return _config.state.device_id or 0


def default_device() -> int:
    return 0


def current_stream(device_id: Optional[int] = None) -> Stream:
    """The stream of the device (0 by default)."""
    d = current_device() if device_id is None else device_id
    if d not in _STREAMS:
        _STREAMS[d] = Stream(d)
    return _STREAMS[d]


def synchronize() -> None:
    """Waits for every launch (already complete on the CPU twin)."""


def device_count() -> int:
    return 1


def set_device(device_id: int) -> None:
    _config.state.device_id = device_id


def set_soc_version(soc_version) -> None:
    _config.state.platform = _config.Platform(soc_version)


def get_soc_version():
    return _config.state.platform


def current_platform() -> str:
    return _config.state.platform.value


def is_model() -> bool:
    return _config.state.backend == _config.Backend.Model


def is_available() -> bool:
    return True if _config.state.backend != _config.Backend.NPU else _config.npu_available()


def use_model(custom_lib_prefix: Optional[str] = None) -> None:
    _config.set_platform(_config.Backend.Model)


def use_npu(custom_lib_prefix: Optional[str] = None) -> None:
    _config.set_platform(_config.Backend.NPU)
