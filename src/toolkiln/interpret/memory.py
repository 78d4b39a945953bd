"""Giving the memory of a heavy run back to the system.

A run may build up to its budget's worth of text and lists (docs/budgets.md); once they are
freed, glibc keeps the pages of texts under its mmap threshold (which it raises to the largest
block freed, up to 32 MiB) in its arenas, one per thread: a server that ran a few heavy tools
kept about 50 MiB more for good (benchmarks/bench_memory.py). `malloc_trim(0)` gives every
arena's free pages back, in about 60 us after a heavy run and 3 us otherwise; it is called
after runs that charged more than HEAVY_OPERATIONS, which took milliseconds themselves. Where
the C library has no malloc_trim (musl, macOS), nothing is done.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

HEAVY_OPERATIONS = 100_000
"""A run charged more than this (about 10 ms of work, or 3 MB built) gives memory back after."""


@cache  # looked up at the first heavy run: a process that runs none never loads ctypes
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def give_back_memory(failure: BaseException | None = None) -> None:
    """Return the C library's free pages to the system (see the module's note). A run that
    failed with `failure` is given back too: the tracebacks along its chain are dropped first,
    for their frames hold what the run built (a RunError is located by its span, not them)."""
    pending, seen = [failure], set()
    while pending:
        error = pending.pop()
        if error is not None and id(error) not in seen:
            seen.add(id(error))
            error.__traceback__ = None
            pending += (error.__cause__, error.__context__)
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
