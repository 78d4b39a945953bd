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
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.usage_file import Usage, decode_usage, encode_usage


class Tally:
    """One tool's runs in this process, counted per thread and added up when read, so that the
    counts are exact without a lock and without relying on the GIL: each thread steps its own
    cell (`[runs, time of the latest]`, found through `tally.local.cell`), which no other
    thread writes; `take` adds the cells up under the book's lock. A lock per run cost more
    than the rest of a registry run; the per-thread cell costs an attribute read."""

    __slots__ = ("local", "_cells", "_lock", "_base")

    def __init__(self) -> None:
        self.local = threading.local()
        self._cells: list[list[Any]] = []  # every thread's cell: [runs, time.monotonic() of the latest]
        self._lock = threading.Lock()
        self._base = 0  # the runs counted by the last take

    def cell(self) -> list[Any]:
        """This thread's cell, made (and listed for `take`) on its first run."""
        try:
            found: list[Any] = self.local.cell
        except AttributeError:
            found = [0, 0.0]
            with self._lock:
                self._cells.append(found)
            self.local.cell = found
        return found

    def take(self) -> tuple[int, float]:
        """The runs counted since the last take, and the time of the latest run (one taker at
        a time: the book's lock held). Exact with runs counted meanwhile: each is in this take
        or the next, once."""
        with self._lock:
            cells = list(self._cells)
        total, last = 0, 0.0
        for cell in cells:
            runs, when = cell  # (the owner may step it meanwhile: then it is in the next take)
            total += runs
            last = max(last, when)
        self._base, taken = total, total - self._base
        return taken, last


class UsageBook:
    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        # name -> (runs, time of the last as time.monotonic(): what `run` has read already)
        self.pending: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self._tallies: dict[str, Tally] = {}  # runs not yet added to `pending`

    def tally(self, name: str) -> Tally:
        """What a run of `name` counts itself in (Registry.run keeps it at hand)."""
        found = self._tallies.get(name)
        if found is None:
            with self._lock:
                found = self._tallies.setdefault(name, Tally())
        return found

    def count(self, name: str, when: float) -> None:
        """One run of `name`, at `when` (time.monotonic())."""
        cell = self.tally(name).cell()
        cell[0] += 1
        cell[1] = when

    def drain(self) -> None:
        """Add the runs counted since the last drain to `pending`; none is lost or counted twice."""
        with self._lock:
            for name, tally in self._tallies.items():
                taken, last = tally.take()
                if taken:
                    old = self.pending.get(name)
                    self.pending[name] = (taken + (old[0] if old else 0), last)

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
            when = moment(extra[1])
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
            with self.folder.lock():
                usage, _ = decode_usage(
                    self.folder.read_bytes(self.folder.usage_path), self.folder.relative(self.folder.usage_path)
                )
                changed = False
                for name in forget:
                    changed |= usage.pop(name, None) is not None
                for name, (count, stamp) in pending.items():
                    if exists is not None and not exists(name):
                        continue
                    last = moment(stamp)
                    old_count, old_last = usage.get(name, (0, None))
                    usage[name] = (old_count + count, last if old_last is None or last > old_last else old_last)
                    changed = True
                if changed:
                    self.folder.write_text(self.folder.usage_path, encode_usage(usage))
                return usage
        except BaseException:
            with self._lock:  # keep the counts for the next try
                for name, (count, stamp) in pending.items():
                    old = self.pending.get(name)
                    self.pending[name] = (count + (old[0] if old else 0), max(stamp, old[1]) if old else stamp)
            raise


def moment(stamp: float) -> datetime:
    """A time.monotonic() reading as the wall-clock time it was."""
    return datetime.fromtimestamp(time.time() - (time.monotonic() - stamp), UTC)


def not_written(error: StoreError, book: UsageBook) -> StoreError:
    """Why the counts of a flush that failed are not in usage.json (they stay in `book`)."""
    pending = sum(count for count, _ in book.pending.values())
    message = (
        f"run counts not written: {error.message}; {pending} run(s) are kept in memory and written at the next flush"
    )
    hint = "free space or fix the folder's permissions; counts of a process that ends first are lost"
    return StoreError(message, hint=hint)


def flush_quietly(book: UsageBook) -> None:
    """For the finalizer: flush at exit or collection, never raising out of it."""
    try:
        book.flush(lambda name: book.folder.tool_path(name).exists())
    except Exception:  # noqa: BLE001 - at interpreter exit there is no one to report to
        pass


def with_pending(
    stored: dict[str, tuple[int, datetime | None]], pending: dict[str, tuple[int, float]]
) -> dict[str, tuple[int, datetime | None]]:
    """Stored run counts plus a process's runs not yet stored (a database store's or the tests'
    memory store's `_pending`): their last use is now."""
    now, merged = datetime.now(UTC), dict(stored)
    for name, (count, _) in pending.items():
        merged[name] = (merged.get(name, (0, None))[0] + count, now)
    return merged
