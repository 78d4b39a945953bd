"""What the adapters' tests share: the tool they call, an admin person, one who approves."""

from __future__ import annotations

import threading
import time

from toolkiln import Registry
from toolkiln.registry import Principal

PRICE = {
    "name": "price",
    "description": "The price with 10% tax",
    "parameters": {"x": {"type": "number", "description": "The net price"}},
    "logic": {"steps": [{"op": "return", "value": "x * 1.10"}]},
}
ADMIN = Principal("person", "root", "admin", via="token root")


def approve_when_held(registry: Registry, *, within: float = 20.0) -> threading.Thread:
    """A thread that approves the first call held for approval, as a person would."""

    def approve() -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            held = registry.calls()
            if held:
                registry.decide_call(held[0].id, approve=True, by=ADMIN)
                return
            time.sleep(0.02)

    thread = threading.Thread(target=approve, daemon=True)
    thread.start()
    return thread
