"""The server's run slots: at most `size` tools run at once, each in a thread of the slots' own.

A request past them waits in the event loop (holding no thread: its run is a work item in the
slots' queue), so what runs add to the server's memory is bounded by the slots times one run's
budget, and routes that run nothing keep answering. The threads are a `ThreadPoolExecutor`'s,
kept for the server's life: a run costs one hand-over to a thread and one back (about 15 us
less than anyio's `to_thread` with a capacity limiter, which also copies and checks a cancel
scope per call), and a run not started yet is dropped with its request when the loop cancels it.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class RunSlots:
    def __init__(self, size: int) -> None:
        self.size = size
        self._threads = ThreadPoolExecutor(max_workers=size, thread_name_prefix="toolkiln-run")

    async def run(self, work: Callable[[], T]) -> T:
        """`work()` in a slot's thread, once one is free; the caller's context variables with it."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._threads, context.run, work)

    def close(self) -> None:
        """No new runs; the ones waiting are dropped, the ones running finish in their threads."""
        self._threads.shutdown(wait=False, cancel_futures=True)
