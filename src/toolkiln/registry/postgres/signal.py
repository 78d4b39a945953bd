"""The change signal of a database store: LISTEN/NOTIFY.

Every commit notifies its tenant's channel (`toolkiln_changes` for the default tenant,
`toolkiln_changes_NAME` for another: urls.channel_of) with the new change counter. Each store
keeps a connection that listens, on a thread of its own, and writes the counter it hears into
`words[0]`, which the registry's hot path compares with the counter its cached run was made at:
a change on any machine ends the cached runs everywhere as soon as its notification arrives.

While the listener has no connection, `value()` is None (no run is cached) and the runs cached
before are dropped (`forget`): every run then asks the database, as it would with no signal at
all. After a reconnect it reads the counter, so what changed while it was away is seen at once.
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

RETRY_SECONDS = 1.0
POLL_SECONDS = 0.5  # how often the listener looks whether it was asked to stop
# A run is believed until the counter moves, so a listener whose connection died without a word
# (a network cut, no reset) must find out: it reads the counter every HEARTBEAT_SECONDS, and
# TCP gives up on an unanswered send or a silent peer within about 10 s.
HEARTBEAT_SECONDS = 5.0
_DEAD_PEER = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,  # (milliseconds)
}


class Notified:
    hears_every_change = True  # (a hand edit must bump the counter too: docs/fleets.md)

    def __init__(self, url: str, channel: str, forget: Callable[[], None]) -> None:
        """`forget()` drops every run the registry cached (called when the signal may have missed a change)."""
        self._forget = forget
        self._channel = channel
        self._counter = array("Q", [0])
        self.words: memoryview | None = memoryview(self._counter)
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, args=(url,), name="toolkiln-pg-listen", daemon=True)
        self._thread.start()

    def value(self) -> int | None:
        return self._counter[0] if self.connected.is_set() else None

    def heard(self, counter: int) -> None:
        """The counter is at least `counter` (a notification, or this process's own commit)."""
        with self._lock:
            if counter > self._counter[0]:
                self._counter[0] = counter

    def close(self, wake: Callable[[], None] | None = None) -> None:
        """Stop listening; `wake()` (a notification on the channel) ends the listener's wait at
        once, where it would otherwise look again only after POLL_SECONDS."""
        self._stop.set()
        if wake is not None and self.connected.is_set():
            wake()
        self._thread.join(POLL_SECONDS * 4)

    def _listen(self, url: str) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(make_conninfo(url, **_DEAD_PEER), autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {self._channel}")  # (an identifier made by urls.channel_of)
                    self._caught_up(conn)
                    beat = time.monotonic() + HEARTBEAT_SECONDS
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=POLL_SECONDS):
                            self.heard(int(note.payload))
                            if self._stop.is_set():
                                break  # (woken by close)
                        if time.monotonic() >= beat:  # a connection that died silently fails here
                            self.heard(counter_of(conn))
                            beat = time.monotonic() + HEARTBEAT_SECONDS
            except (psycopg.Error, ValueError):
                pass
            self._lost()
            self._stop.wait(RETRY_SECONDS)

    def _caught_up(self, conn: Any) -> None:
        self.heard(counter_of(conn))
        self._forget()
        self.connected.set()

    def _lost(self) -> None:
        self.connected.clear()
        self._forget()


def counter_of(conn: Any) -> int:
    """The database's change counter now."""
    row = conn.execute("SELECT counter FROM toolkiln_changes").fetchone()
    return 0 if row is None else int(row[0])
