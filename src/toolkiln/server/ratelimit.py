"""Requests per token in a moving window, counted in memory.

Each server process counts its own requests: two servers on one folder each allow the limit.
The notation is the `limits` package's ("600/minute", "10/second;1000/hour"), read by it; the
counting is ours. `limits`' MemoryStorage started a timer thread whenever its last one had
ended (about 1,000 threads per 3,000 requests) and put each request at the head of a list;
here a request is an append to a deque, under one lock, in the caller's thread.

Memory per token and limit stays small however high the limit: requests within a hundredth of
the window of a group's first one join that group, and a group leaves the window when its last
request does. So a request can be counted up to a hundredth of the window too long, never too
short: no window ever holds more requests than the limit.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

from limits import parse_many

DEFAULT_RATE_LIMIT = "600/minute"
GROUPS_PER_WINDOW = 100


class _Group:
    __slots__ = ("first", "last", "count")

    def __init__(self, now: float) -> None:
        self.first = self.last = now
        self.count = 1


class _Requests:
    """One token's requests still in one window, oldest group first."""

    __slots__ = ("groups", "count")

    def __init__(self) -> None:
        self.groups: deque[_Group] = deque()
        self.count = 0

    def leave_before(self, cutoff: float) -> None:
        groups = self.groups
        while groups and groups[0].last < cutoff:
            self.count -= groups.popleft().count

    def add(self, now: float, grouping: float) -> None:
        self.count += 1
        groups = self.groups
        if groups and now - groups[-1].first < grouping:
            groups[-1].last = now
            groups[-1].count += 1
        else:
            groups.append(_Group(now))


class MovingWindow:
    """At most `amount` requests of a token in any `seconds`."""

    def __init__(self, amount: int, seconds: float) -> None:
        self.amount, self.seconds = amount, seconds
        self.grouping = seconds / GROUPS_PER_WINDOW
        self.by_token: dict[str, _Requests] = {}
        self._sweep_at = 0.0

    def wait(self, key: str, now: float) -> float | None:
        """Seconds until a request of `key` fits in the window; None when it fits now."""
        if now >= self._sweep_at:
            self._forget_idle(now)
        requests = self.by_token.get(key)
        if requests is None:
            return None
        requests.leave_before(now - self.seconds)
        if requests.count < self.amount:
            return None
        return requests.groups[0].last + self.seconds - now

    def add(self, key: str, now: float) -> None:
        requests = self.by_token.get(key)
        if requests is None:
            requests = self.by_token[key] = _Requests()
        requests.add(now, self.grouping)

    def _forget_idle(self, now: float) -> None:
        """Drop the tokens with nothing left in the window (a revoked token's count), once a window."""
        self._sweep_at = now + self.seconds
        for key, requests in list(self.by_token.items()):
            requests.leave_before(now - self.seconds)
            if not requests.count:
                del self.by_token[key]


class TokenRateLimiter:
    """`limit` is the `limits` notation: "600/minute", "10/second;1000/hour"; "" turns it off.
    A request refused by one limit is counted by none."""

    def __init__(self, limit: str = DEFAULT_RATE_LIMIT, clock: Callable[[], float] = time.monotonic) -> None:
        items = parse_many(limit) if limit.strip() else []
        self.windows = [MovingWindow(item.amount, item.get_expiry()) for item in items]
        self._clock = clock
        self._lock = threading.Lock()

    def retry_after(self, token_name: str) -> int | None:
        """Count one request of `token_name`: None when it is allowed, else the whole seconds to
        wait (at least 1)."""
        if not self.windows:
            return None
        with self._lock:
            now = self._clock()
            waits = [wait for window in self.windows if (wait := window.wait(token_name, now)) is not None]
            if waits:
                return max(1, math.ceil(max(waits)))
            for window in self.windows:
                window.add(token_name, now)
        return None
