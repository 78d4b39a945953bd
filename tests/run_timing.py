"""Timing a run for the budget tests without the garbage collector's pauses: after thousands of
tests the heap is large, and one full collection, which may start inside any run, takes longer
than the slack the budget contract allows (docs/budgets.md). The contract is about toolkiln's
own checks of the clock, which these tests measure."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def seconds_of(run: Callable[[], T]) -> tuple[T, float]:
    """`run()`'s result and the seconds it took, with the collector paused meanwhile (an
    exception propagates, the collector is resumed)."""
    enabled = gc.isenabled()
    gc.disable()
    start = time.monotonic()
    try:
        return run(), time.monotonic() - start
    finally:
        if enabled:
            gc.enable()
