"""The run's random source: what `uuid()`, `random()` and `random_int()` draw from.

Like the clock, it is the caller's to set (`tool.run(args, random=random.Random(7))`, or a
seed: `random=7`); without one a run draws from the operating system's generator
(`random.SystemRandom`, os.urandom). It is held for the length of one run by the thread that
runs it (a thread-local: a run executes inside a prepared contextvars.Context, see
interpret/decimal_scope.py, which sees no context variable set outside it), so the tools a
run calls draw from the same source and a server's threads never share a seeded one.
"""

from __future__ import annotations

import random as _random
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from toolkiln.errors import UsageError

RandomSource = _random.Random
"""Anything a random.Random is (a SystemRandom, a seeded Random, a subclass of either)."""

_SYSTEM = _random.SystemRandom()


class _Held(threading.local):
    source: RandomSource | None = None


_HELD = _Held()


def current_source() -> RandomSource:
    """The source of the run under way (the operating system's when none was given)."""
    return _HELD.source or _SYSTEM


def held_source() -> RandomSource | None:
    """The source a caller gave the run under way (None: the system's)."""
    return _HELD.source


def draw_uuid() -> str:
    """A version 4 UUID from the current source: compute's uuid() and a javascript tool's
    seeded utils.uuid() alike."""
    import uuid  # (only when a tool draws one: uuid and platform are 2 ms of every start-up)

    return str(uuid.UUID(int=current_source().getrandbits(128), version=4))


def draw_int(low: int, high: int) -> int:
    """A whole number from `low` to `high`, both included, from the current source."""
    return low + current_source().randrange(high - low + 1)


def as_source(given: RandomSource | int | None) -> RandomSource | None:
    """A caller's `random=`: a random.Random, a whole-number seed, or None (the system's)."""
    if given is None or isinstance(given, _random.Random):
        return given
    if type(given) is int:
        return _random.Random(given)
    raise UsageError(f"random must be a random.Random or a whole-number seed, not {given!r:.40}")


@contextmanager
def drawing_from(source: RandomSource | None) -> Iterator[None]:
    """Runs inside draw from `source` (None: leave the current one)."""
    if source is None:
        yield
        return
    before, _HELD.source = _HELD.source, source
    try:
        yield
    finally:
        _HELD.source = before
