"""A change counter that every registry write bumps, read through a shared memory map.

`Registry.run` is called far more often than anything changes. Before each run it used to ask
the file system whether another process had changed the registry: two `stat` calls, several
microseconds, more than the run of a small tool. Now a writer adds one to an 8-byte counter in
.cache/changes (holding the registry's lock, so no bump is lost) after its change is on disk,
and a reader compares the counter, mapped into its memory, with the value it saw last: a
change by any registry process is seen at the next run, at the cost of reading 8 bytes.

Changes made without toolkiln (an editor, `git pull`) do not bump it: the file system is still
asked, at most every `WATCH_SECONDS` during runs, and on every other registry call.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable

SIZE = 8
# How stale a run may be about changes made without toolkiln (hand edits, git).
WATCH_SECONDS = 0.05


class ChangeCounter:
    """`value()` is the counter, or None where no map could be made (a read-only registry
    whose counter file does not exist yet, a file system without shared maps): then every run
    asks the file system, as before. `words[0]` is the same number, for `Registry.run` (an index
    into a memory view costs a third of a method call and a slice). `bump()` is called with the
    lock held."""

    hears_every_change = False  # (an editor or git changes files without it)

    def __init__(self, open_file: Callable[[int], int]) -> None:
        """`open_file(flags)` opens the counter file as the store opens its files (never
        through a symbolic link) and returns the descriptor."""
        self._map: mmap.mmap | None = None
        self.words: memoryview | None = None  # the map as one unsigned 64-bit number
        for flags, access in ((os.O_RDWR | os.O_CREAT, mmap.ACCESS_WRITE), (os.O_RDONLY, mmap.ACCESS_READ)):
            try:
                fd = open_file(flags)
            except OSError:
                continue
            try:
                if os.fstat(fd).st_size < SIZE:
                    if access is mmap.ACCESS_READ:
                        return
                    os.ftruncate(fd, SIZE)  # (two processes may both do it: same size, zeros)
                self._map = mmap.mmap(fd, SIZE, access=access)
                self.words = memoryview(self._map).cast("Q")
                return
            except (OSError, ValueError):
                continue
            finally:
                os.close(fd)

    def value(self) -> int | None:
        return self.words[0] if self.words is not None else None

    def bump(self) -> None:
        if self.words is not None and not self.words.readonly:
            self.words[0] = (self.words[0] + 1) % 2**64  # one aligned 8-byte store
