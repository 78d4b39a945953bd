"""A batch of rows run in worker processes, in chunks, with the results in row order.

Two ways to start the workers. When the calling process runs one thread, they are forked: each
inherits the batch runner and the rows, so only a chunk's bounds travel to a worker and only its
results travel back. A process with other threads (a server, a client library's pool) must not
fork, since the child would inherit whatever lock another thread held at that moment: there the
workers start from a fork server, receive the runner pickled (a tool is checked and compiled
again once per worker) and the rows of each chunk pickled."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal
from typing import Any

BatchRunner = Callable[[list[Any]], list[Any]]

# Chunks small enough to balance the workers' load, large enough that the cost of shipping
# a chunk is small beside running it.
_CHUNKS_PER_WORKER = 8
_LARGEST_CHUNK = 10_000

# The worker's batch runner, and (forked workers only) the rows of the batch.
_runner: BatchRunner | None = None
_rows: Sequence[Any] = ()


def _install(runner: BatchRunner) -> None:
    global _runner
    _runner = runner


def _run_chunk(rows: list[Any]) -> tuple[list[Any], bytes]:
    assert _runner is not None, "the pool's initializer installs the runner first"
    return _shipped(_runner(rows))


def _run_range(bounds: tuple[int, int]) -> tuple[list[Any], bytes]:
    assert _runner is not None, "a forked worker inherits the runner"
    return _shipped(_runner(list(_rows[bounds[0] : bounds[1]])))


# A Decimal pickles as a call of its class, three to four times slower than its text (which
# is exact): results travel as text, with a flag a result saying which were numbers.
# When every result is a number (the usual batch), one C-level map converts them all: the
# parent's work is taken from the workers' two cores.
def _shipped(results: list[Any]) -> tuple[list[Any], bytes]:
    flags = bytes(type(result) is Decimal for result in results)
    if 0 not in flags:
        return list(map(str, results)), flags
    return [str(result) if flag else result for result, flag in zip(results, flags)], flags


def _received(shipped: tuple[list[Any], bytes]) -> list[Any]:
    values, flags = shipped
    if 0 not in flags:
        return list(map(Decimal, values))
    return [Decimal(value) if flag else value for value, flag in zip(values, flags)]


def chunk_size_for(rows: int, workers: int) -> int:
    return max(1, min(_LARGEST_CHUNK, -(-rows // (workers * _CHUNKS_PER_WORKER))))


def run_in_pool(runner: BatchRunner, rows: Sequence[Any], workers: int, chunk_size: int | None = None) -> list[Any]:
    """`runner(rows)` computed by `workers` processes, chunk by chunk, in row order."""
    if not rows:
        return []
    size = chunk_size or chunk_size_for(len(rows), workers)
    bounds = [(start, min(start + size, len(rows))) for start in range(0, len(rows), size)]
    results: list[Any] = []
    if may_fork():
        global _runner, _rows
        _runner, _rows = runner, rows
        try:
            # (the pool forks all its workers before it starts its own manager thread)
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                for part in pool.map(_run_range, bounds):
                    results.extend(_received(part))
        finally:
            _runner, _rows = None, ()
        return results
    chunks = [list(rows[start:stop]) for start, stop in bounds]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_install, initargs=(runner,)) as pool:
        for part in pool.map(_run_chunk, chunks):
            results.extend(_received(part))
    return results


def may_fork() -> bool:
    """Whether workers may be forked from this process: the platform can, and no other thread
    runs in it."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
