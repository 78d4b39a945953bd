"""Requests per token, counted with the `limits` package (a moving window in memory).

Each server process counts its own requests: two servers on one folder each allow the limit.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

DEFAULT_RATE_LIMIT = "600/minute"


class TokenRateLimiter:
    """`limit` is the `limits` notation: "600/minute", "10/second;1000/hour"; "" turns it off."""

    def __init__(self, limit: str = DEFAULT_RATE_LIMIT) -> None:
        self.items: list[RateLimitItem] = parse_many(limit) if limit.strip() else []
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def retry_after(self, token_name: str) -> int | None:
        """Count one request of `token_name`: None when it is allowed, else the seconds to wait."""
        for item in self.items:
            if not self._limiter.hit(item, token_name):
                reset = self._limiter.get_window_stats(item, token_name).reset_time
                return max(1, math.ceil(reset - time.time()))
        return None
