"""The options of @asc.jit (pyasc's codegen, compile and launch options). An unknown option is an error that lists
the known ones; options that only tune CANN's compiler are accepted and recorded (they do not change what runs on
the CPU twin)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

from ..errors import ArgumentError


@dataclass(frozen=True)
class JitOptions:
    kernel_type: Optional[object] = None    # config.KernelType: KERNEL_TASK_TYPE_DEFAULT in the emitted source
    insert_sync: Optional[bool] = None      # insert SetFlag/WaitFlag for non-queue buffers (implied by LocalTensorAuto)
    auto_sync: Optional[bool] = True        # bisheng's automatic sync (a CANN compiler flag)
    auto_sync_log: Optional[str] = ""
    always_compile: bool = False            # rebuild even when a cached build exists
    debug: bool = False
    opt_level: Optional[int] = 3
    strip_loc: bool = False                 # no Python-line comments and #line directives
    verify_sync: bool = False
    print_ir_before_all: bool = False
    run_passes: bool = True
    bisheng_options: Optional[tuple] = None
    matmul_cube_only: bool = False
    capture_exceptions: bool = True
    ir_multithreading: bool = True
    core_num: int = 0
    stream: Optional[object] = None

    def key(self):
        return tuple((f.name, repr(getattr(self, f.name))) for f in fields(self)
                     if f.name not in ("always_compile", "stream", "core_num", "print_ir_before_all"))


KNOWN = tuple(f.name for f in fields(JitOptions))


def make(fn_name: str, options: dict) -> JitOptions:
    bad = [k for k in options if k not in KNOWN]
    if bad:
        raise ArgumentError(f"@asc.jit on {fn_name!r}: unknown option {bad[0]!r}; the options are "
                            f"{', '.join(KNOWN)}")
    o = JitOptions(**options)
    if o.opt_level is not None and o.opt_level not in (0, 1, 2, 3):
        raise ArgumentError(f"@asc.jit on {fn_name!r}: opt_level must be 0..3, got {o.opt_level!r}")
    if o.kernel_type is not None:
        from ..runtime.config import KernelType
        try:
            KernelType(o.kernel_type)
        except ValueError:
            raise ArgumentError(f"@asc.jit on {fn_name!r}: kernel_type must be a config.KernelType, "
                                f"got {o.kernel_type!r}") from None
    return o
