"""The record each built library carries beside it (`LIB.seal`): the full cache key it was built for, its size
and its SHA-256. A library is loaded only when its record names the key asked for and its bytes still match (a
library of another kernel at this path, a truncated or damaged file, a file from an older asc: a miss, rebuilt,
never a load). A freshly built library is checked for completeness before it is recorded (a compiler that exits 0
leaving a truncated or garbage file)."""
from __future__ import annotations

import hashlib
import os
import struct
import tempfile

from . import trust

MISSING = "missing"
_MAGIC = "asc-cache-entry 1"


def seal_path(path: str) -> str:
    return path + ".seal"


def _digest(path: str) -> tuple[int, str]:
    h = hashlib.sha256()
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            n += len(b)
            h.update(b)
    return n, h.hexdigest()


def incomplete(path: str) -> str | None:
    """Why the file at `path` is not a complete shared library (None: it is). ELF: every program and section header
    and the data they describe lie inside the file. Mach-O: a known magic number."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"it cannot be read ({e.strerror})"
    if not data:
        return "it is empty"
    if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe"):
        return None
    if data[:4] != b"\x7fELF" or len(data) < 52 or data[4] not in (1, 2) or data[5] not in (1, 2):
        return f"it is not a shared library ({len(data)} bytes starting {data[:8]!r})"
    end = "<" if data[5] == 1 else ">"
    try:
        if data[4] == 2:
            phoff, shoff = struct.unpack_from(end + "QQ", data, 32)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(end + "HHHH", data, 54)
            ph_fmt, sh_fmt = end + "IIQQQQ", end + "IIQQQQ"
        else:
            phoff, shoff = struct.unpack_from(end + "II", data, 28)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(end + "HHHH", data, 42)
            ph_fmt, sh_fmt = end + "IIIII", end + "IIIIII"
        if phoff + phnum * phentsize > len(data) or shoff + shnum * shentsize > len(data):
            return f"it is truncated ({len(data)} bytes; its headers end past that)"
        for i in range(phnum):
            if data[4] == 2:
                _, _, off, _, _, filesz = struct.unpack_from(ph_fmt, data, phoff + i * phentsize)
            else:
                _, off, _, _, filesz = struct.unpack_from(ph_fmt, data, phoff + i * phentsize)
            if off + filesz > len(data):
                return f"it is truncated ({len(data)} bytes; a segment ends at {off + filesz})"
        for i in range(shnum):
            fields = struct.unpack_from(sh_fmt, data, shoff + i * shentsize)
            kind, off, size = fields[1], fields[4], fields[5]
            if kind != 8 and off + size > len(data):            # 8: SHT_NOBITS (.bss) has no bytes in the file
                return f"it is truncated ({len(data)} bytes; a section ends at {off + size})"
    except struct.error:
        return f"it is truncated ({len(data)} bytes)"
    if phnum == 0:
        return "it has no program headers (not a loadable library)"
    return None


def write_atomic(path: str, data: bytes) -> None:
    """Writes `path` whole or not at all; the temporary name is unique per thread and attempt."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        unlink(tmp)
        raise


def unlink(path: str) -> None:
    """Removes `path` if it is there (a compiler may have removed its own output already)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def install(tmp: str, path: str, key: str) -> None:
    """Moves the built library `tmp` (complete: checked by the caller) to `path` with its record."""
    os.chmod(tmp, 0o700)                # whatever the umask: the user's own, writable by no one else
    size, sha = _digest(tmp)
    write_atomic(seal_path(path), f"{_MAGIC}\nkey {key}\nsize {size}\nsha256 {sha}\n".encode())
    os.replace(tmp, path)


def verify(path: str, key: str) -> str | None:
    """None when `path` is the library built for `key`, intact; else why not (MISSING: no such file). Raises
    UntrustedCacheError for a file that is not the user's own (the directory is checked by the caller)."""
    try:
        st = trust.check_file(path)
    except FileNotFoundError:
        return MISSING
    record = seal_path(path)
    try:
        trust.check_file(record)
        with open(record) as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return "cache entry corrupt (it has no build record)"
    fields = dict(line.split(" ", 1) for line in lines[1:] if " " in line)
    if lines[0] != _MAGIC or not {"key", "size", "sha256"} <= fields.keys():
        return "cache entry corrupt (its build record is damaged)"
    if fields["key"] != key:
        return "cache entry corrupt (it was built for another kernel or signature)"
    if str(st.st_size) != fields["size"]:
        return f"cache entry corrupt (it has {st.st_size} bytes; {fields['size']} were built)"
    if _digest(path)[1] != fields["sha256"]:
        return "cache entry corrupt (its contents changed since it was built)"
    return None
