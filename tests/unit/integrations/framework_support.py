"""What the adapters' tests share: the tools they call or create, an admin person, one who decides."""

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
TRIPLE = {
    "name": "triple",
    "description": "Triples x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 3"}]},
}
ADMIN = Principal("person", "root", "admin", via="token root")


# How long the person waits for the call to be held, and the call for the person (a bound, so a
# decision missed under a loaded machine fails the test instead of waiting for the call's expiry).
DECIDE_WITHIN = 120.0
WAIT_AT_MOST = DECIDE_WITHIN + 60.0


def approve_when_held(registry: Registry, *, approve: bool = True, within: float = DECIDE_WITHIN) -> threading.Thread:
    """A thread that approves (or denies: "not now") the first call held for approval, as a person would."""

    def decide() -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            held = registry.calls()
            if held:
                registry.decide_call(held[0].id, approve=approve, by=ADMIN, reason=None if approve else "not now")
                return
            time.sleep(0.02)

    thread = threading.Thread(target=decide, daemon=True)
    thread.start()
    return thread
