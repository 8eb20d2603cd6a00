"""Sync insertion for buffers that no queue manages (LocalTensorAuto, LocalTensor at an address, TBuf tensors):
the state of each buffer's accesses since the last sync, and the SetFlag/WaitFlag pairs an access needs.

An access on pipe P of buffer b needs an event Q_P for each earlier access of b on another pipe Q that it must
follow (read after write, write after read, write after write) and that no earlier Q_P event has ordered before P.
A SetFlag on pipe Q is issued behind every earlier instruction of Q, so after the pair Q_P every access of any
buffer made on Q before it is ordered before P. A scalar read orders itself: GetValue returns before the scalar
unit issues anything after it."""
from __future__ import annotations

# the HardEvent of each ordered pipe pair the vector path uses
EVENTS = {(q, p): f"{q}_{p}" for q in ("MTE2", "MTE3", "V", "S") for p in ("MTE2", "MTE3", "V", "S") if q != p}


class SyncState:
    """buffer -> [(pipe, 'r' | 'w', frozenset of pipes already ordered after it)]"""

    def __init__(self, entries: dict | None = None):
        self.entries = {k: list(v) for k, v in (entries or {}).items()}

    def copy(self) -> "SyncState":
        return SyncState(self.entries)

    def union(self, other: "SyncState") -> "SyncState":
        out = self.copy()
        for k, v in other.entries.items():
            cur = out.entries.setdefault(k, [])
            for e in v:
                if e not in cur:
                    cur.append(e)
        return out

    def key(self):
        return tuple(sorted((str(k), tuple(sorted((p, a, tuple(sorted(s))) for p, a, s in v)))
                            for k, v in self.entries.items()))

    def access(self, buf, pipe: str, kind: str) -> list:
        """Records an access; returns the events (HardEvent names) to set and wait before it, in order."""
        need = []
        for p, a, synced in self.entries.get(buf, []):
            if p == "S" and a == "r":
                continue       # a scalar read (GetValue) completes before the scalar unit issues the next instruction
            if p != pipe and pipe not in synced and (a == "w" or kind == "w"):
                ev = EVENTS.get((p, pipe))
                if ev is not None and ev not in need:
                    need.append(ev)
        for ev in need:
            q = ev.split("_")[0]
            for k, v in self.entries.items():
                self.entries[k] = [(p, a, s | {pipe}) if p == q else (p, a, s) for p, a, s in v]
        entries = [(p, a, s) for p, a, s in self.entries.get(buf, []) if not (p == pipe and a == kind)]
        entries.append((pipe, kind, frozenset()))
        self.entries[buf] = entries
        return need
