"""`python -m asc.debugger script.py [args]`: runs a script with every kernel in the interpreter; when an exception
is raised inside a kernel, pdb opens post-mortem at the kernel's own line, after a summary of its local scalars and
the shapes of its local tensors. `--target cpu` (or `ascend-sim`) keeps the compiled kernels, with memory checks on, so that a failure names the
kernel's Python line."""
from __future__ import annotations

import argparse
import os
import pdb
import runpy
import sys
import traceback

import numpy as np


def _kernel_sources() -> set:
    """(file, function name) of every kernel and device function defined so far."""
    from .dispatch.state import STATE
    out = {(kk.pyfunc.__code__.co_filename, kk.pyfunc.__name__) for kk in list(STATE.kernels)}
    out |= {(f.pyfunc.__code__.co_filename, f.pyfunc.__name__) for f in list(STATE.funcs)}
    return out


def _kernel_tb(exc):
    """The innermost traceback entry inside a kernel, looking through the exception's causes."""
    sources = _kernel_sources()
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        found = None
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if (code.co_filename, code.co_name) in sources:
                found = tb
            tb = tb.tb_next
        if found is not None:
            return found, exc
        exc = exc.__cause__ or exc.__context__
    return None, None


def describe_locals(frame) -> str:
    lines = []
    for name, v in frame.f_locals.items():
        if name.startswith("__"):
            continue
        if isinstance(v, np.ndarray):
            lines.append(f"  {name}: tensor {v.dtype}{list(v.shape)}")
        elif isinstance(v, (bool, int, float, np.generic)):
            lines.append(f"  {name} = {v!r}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m asc.debugger", description=__doc__.split("\n\n")[0])
    p.add_argument("--target", choices=["interpret", "cpu", "ascend-sim"], default="interpret",
                   help="interpret: every kernel in the interpreter (pdb at the kernel's line); cpu, ascend-sim: each "
                        "kernel keeps its own compiled target, with memory checks on, and a failure names its line")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.target == "interpret":
        os.environ["ASC_DEBUG"] = "1"
    else:
        os.environ["ASC_MEMORY_CHECK"] = "1"     # compiled failures then name their Python line
    from . import environment as config
    config.reload()
    sys.argv = [a.script, *a.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    try:
        runpy.run_path(a.script, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - every failure is shown, then debugged
        traceback.print_exc()
        tb, exc = _kernel_tb(e)
        if tb is None:
            print("asc.debugger: the exception was not raised in interpreted kernel code (the message above names "
                  "the kernel's line for compiled kernels); opening pdb where it was raised", file=sys.stderr)
            asc_dir = os.path.dirname(os.path.abspath(__file__))
            user = None
            tb = e.__traceback__
            while tb is not None:            # the innermost frame of user code: the kernel's caller
                if not tb.tb_frame.f_code.co_filename.startswith(asc_dir) and "runpy" not in \
                        tb.tb_frame.f_code.co_filename:
                    user = tb
                tb = tb.tb_next
            if user is not None:
                user.tb_next = None
            pdb.post_mortem(e.__traceback__)
            return 1
        tb.tb_next = None          # stop at the kernel's own frame
        code = tb.tb_frame.f_code
        print(f"\nasc.debugger: {type(exc).__name__} in kernel {code.co_name!r} at {code.co_filename}:{tb.tb_lineno}")
        summary = describe_locals(tb.tb_frame)
        if summary:
            print("locals:\n" + summary)
        sys.stdout.flush()
        pdb.post_mortem(exc.__traceback__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
