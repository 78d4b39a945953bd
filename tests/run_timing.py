"""Timing a run for the budget tests without the garbage collector's pauses: after thousands of
tests the heap is large, and one full collection, which may start inside any run, takes longer
than the slack the budget contract allows (docs/budgets.md). The contract is about toolkiln's
own checks of the clock, which these tests measure: in CPU seconds of this process, because on a
machine running at several times its cores a run that stopped in time can still take several
times its wall-clock budget to be scheduled (1.83 s for a 0.25 s budget at load 15), while a
check that comes late costs CPU on any machine."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def seconds_of(run: Callable[[], T]) -> tuple[T, float]:
    """`run()`'s result and the CPU seconds it took, with the collector paused meanwhile (an
    exception propagates, the collector is resumed)."""
    enabled = gc.isenabled()
    gc.disable()
    start = time.process_time()
    try:
        return run(), time.process_time() - start
    finally:
        if enabled:
            gc.enable()
