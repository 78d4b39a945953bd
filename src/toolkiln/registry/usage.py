"""Run counts: counted in memory, added to usage.json under the lock every `flush_seconds`.

Writing a file on every run would cost a locked, fsynced write per call (a tool runs in a
few microseconds), and would rewrite the tool's file, dirtying it in git. So each process
keeps its pending counts and adds them to usage.json (read fresh under the lock, so no
process's counts are lost) when `flush_seconds` have passed since its last flush, before
any change it makes, on `Registry.flush()` / `close()`, and when the registry is garbage
collected or the interpreter exits. `flush_seconds=0` writes on every run.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from datetime import UTC, datetime

from toolkiln.registry.codec import iso
from toolkiln.registry.mirror import Usage, decode_usage
from toolkiln.registry.store import Store
from toolkiln.semantics.values import to_json


class UsageBook:
    def __init__(self, store: Store) -> None:
        self.store = store
        # name -> (runs, time of the last as time.monotonic(): what `run` has read already)
        self.pending: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()
        # Runs not yet added to `pending`: counting takes two atomic operations and no lock,
        # since a lock cost more than the rest of a registry run (see drain).
        self._runs: deque[str] = deque()
        self._last: dict[str, float] = {}

    def count(self, name: str, when: float) -> None:
        """One run of `name`, at `when` (time.monotonic())."""
        self._runs.append(name)
        self._last[name] = when

    def drain(self) -> None:
        """Add the runs counted since the last drain to `pending`. Takes exactly as many as
        were there when it started (each popleft is atomic): runs counted meanwhile stay for
        the next drain, none is lost or counted twice."""
        if not self._runs:
            return
        with self._lock:
            runs = self._runs
            for name, count in Counter([runs.popleft() for _ in range(len(runs))]).items():
                old = self.pending.get(name)
                self.pending[name] = (count + (old[0] if old else 0), self._last[name])

    def drop(self, name: str) -> None:
        self.drain()
        with self._lock:
            self.pending.pop(name, None)

    def merged(self, usage: Usage, name: str) -> tuple[int, datetime | None]:
        """A tool's count and last use: what is on disk plus what this process has not flushed."""
        self.drain()
        count, last = usage.get(name, (0, None))
        extra = self.pending.get(name)
        if extra is not None:
            count += extra[0]
            when = _moment(extra[1])
            last = when if last is None or when > last else last
        return count, last

    def flush(self, exists: Callable[[str], bool] | None = None, *, forget: tuple[str, ...] = ()) -> Usage | None:
        """Add the pending counts to usage.json (and drop the entries of `forget`). Takes the
        lock; `exists(name)` says whether a tool still exists (counts of deleted ones are dropped).
        Returns the counts now in the file, or None when there was nothing to do."""
        self.drain()
        with self._lock:
            pending, self.pending = self.pending, {}
        if not pending and not forget:
            return None
        try:
            with self.store.lock():
                usage, _ = decode_usage(
                    self.store.read_bytes(self.store.usage_path), self.store.relative(self.store.usage_path)
                )
                changed = False
                for name in forget:
                    changed |= usage.pop(name, None) is not None
                for name, (count, stamp) in pending.items():
                    if exists is not None and not exists(name):
                        continue
                    last = _moment(stamp)
                    old_count, old_last = usage.get(name, (0, None))
                    usage[name] = (old_count + count, last if old_last is None or last > old_last else old_last)
                    changed = True
                if changed:
                    self.store.write_text(self.store.usage_path, encode_usage(usage))
                return usage
        except BaseException:
            with self._lock:  # keep the counts for the next try
                for name, (count, stamp) in pending.items():
                    old = self.pending.get(name)
                    self.pending[name] = (count + (old[0] if old else 0), max(stamp, old[1]) if old else stamp)
            raise


def _moment(stamp: float) -> datetime:
    """A time.monotonic() reading as the wall-clock time it was."""
    return datetime.fromtimestamp(time.time() - (time.monotonic() - stamp), UTC)


def encode_usage(usage: Usage) -> str:
    data = {name: {"count": count, "last_used_at": iso(last)} for name, (count, last) in sorted(usage.items())}
    return to_json(data, indent=1) + "\n"


def flush_quietly(book: UsageBook) -> None:
    """For the finalizer: flush at exit or collection, never raising out of it."""
    try:
        book.flush(lambda name: book.store.tool_path(name).exists())
    except Exception:  # noqa: BLE001 - at interpreter exit there is no one to report to
        pass
