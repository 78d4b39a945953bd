"""Where the slow routes run their work: checking a definition (validate, test, check, the web
page's editor) and creating or changing a tool compile it, may read an executable's file and
run its examples, for seconds. Such work runs in a few worker threads of its own
(`CHECK_THREADS`), not in the pool of worker threads every plain route runs in (40): however
many slow requests wait, /health, runs and listings keep their threads and answer.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
from fastapi import Request

T = TypeVar("T")
CHECK_THREADS = 2  # slow requests at work at once (Python runs one thread at a time); the rest wait, holding no thread


async def in_check_thread(request: Request, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`work(*args, **kwargs)` in one of the app's check threads."""
    limiter = getattr(request.app.state, "check_threads", None)
    if limiter is None:  # made on first use, inside the event loop (no await before it is set)
        limiter = request.app.state.check_threads = anyio.CapacityLimiter(CHECK_THREADS)
    return await anyio.to_thread.run_sync(partial(work, *args, **kwargs), limiter=limiter)
