"""A total time budget for a check that saves nothing (validate, test, the editor's check).

Examples keep to the budget by themselves (each runs with what is left of it, see
examples.py). Reading an executable's file cannot be stopped that way (a FIFO, a slow device),
so the whole check runs in a thread of its own, which the caller waits for until the budget
is spent: then it answers CheckTooSlow and leaves the thread to end when it can. The thread
holds no lock. At most `slots` such threads run at once, so checks stuck on such files cannot
pile up threads: the next ones wait for a slot within their own budget.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from toolkiln.registry.errors import CheckTooSlow

T = TypeVar("T")
# How many checks with a budget may run at once (each in a thread of its own).
CHECK_SLOTS = 8


def too_slow(seconds: float) -> CheckTooSlow:
    return CheckTooSlow(
        f"the check took longer than {seconds:g} s, the total a check that saves nothing may take",
        hint="make the examples fewer or faster; an executable's `path` must be a regular file that reads at once",
    )


def finish_within(seconds: float, slots: threading.BoundedSemaphore, work: Callable[[float], T]) -> T:
    """`work(deadline)` (a `time.monotonic()` value) done in a daemon thread, its result or its
    exception; CheckTooSlow when it has not finished within `seconds`."""
    deadline = time.monotonic() + seconds
    if not slots.acquire(timeout=seconds):
        raise too_slow(seconds)
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            outcome.append((True, context.run(work, deadline)))
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            outcome.append((False, error))
        finally:
            slots.release()
            done.set()

    threading.Thread(target=run, name="toolkiln-check", daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        raise too_slow(seconds)
    finished, value = outcome[0]
    if not finished:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]
