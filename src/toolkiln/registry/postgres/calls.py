"""`PostgresPendingCalls`: the calls held for approval (pending_calls.py) in the registry's
database, each row the JSON a calls/ file would hold. A decision locks the call's row
(SELECT ... FOR UPDATE) in a transaction: of concurrent decisions on any machines exactly one
finds it pending."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from toolkiln.registry.errors import CallNotFound
from toolkiln.registry.pending_calls import (
    Caller,
    CallStatus,
    PendingCall,
    decided,
    decoded,
    encoded,
    encoded_new,
    finished,
    forgotten,
)
from toolkiln.registry.postgres.store import PostgresStore


class PostgresPendingCalls:
    def __init__(self, store: PostgresStore) -> None:
        self._store = store

    def add(self, call: PendingCall) -> None:
        data = encoded_new(call)
        with self._store.connection() as conn:
            conn.execute(
                "INSERT INTO toolkiln_calls (id, data, created) VALUES (%s, %s, %s)", (call.id, data, call.created)
            )

    def get(self, call_id: str, now: datetime) -> PendingCall:
        with self._store.connection() as conn:
            return self._read(conn, call_id, lock=False).as_of(now)

    def list(self, status: CallStatus | None, now: datetime) -> list[PendingCall]:
        with self._store.connection() as conn:
            rows = conn.execute("SELECT id, data FROM toolkiln_calls ORDER BY created, id").fetchall()
        calls = []
        for call_id, data in rows:
            try:
                call = decoded(call_id, bytes(data)).as_of(now)
            except CallNotFound:
                continue  # (a row that is no call: not listed)
            if status is None or call.status == status:
                calls.append(call)
        return calls

    def decide(self, call_id: str, status: CallStatus, by: Caller, reason: str | None, now: datetime) -> PendingCall:
        with self._store.connection() as conn, conn.transaction():
            stored = self._read(conn, call_id, lock=True)
            return decided(stored, status, by, reason, now, lambda call: self._write(conn, call))

    def finish(self, call_id: str, outcome: dict[str, Any]) -> PendingCall:
        with self._store.connection() as conn, conn.transaction():
            done = finished(self._read(conn, call_id, lock=True), outcome)
            self._write(conn, done)
            return done

    def forget(self, before: datetime, keep: int, now: datetime) -> int:
        gone = [call.id for call in forgotten(self.list(None, now), before, keep)]
        if gone:
            with self._store.connection() as conn:
                conn.execute("DELETE FROM toolkiln_calls WHERE id = ANY(%s)", (gone,))
        return len(gone)

    @staticmethod
    def _read(conn: Any, call_id: str, *, lock: bool) -> PendingCall:
        query = "SELECT data FROM toolkiln_calls WHERE id = %s" + (" FOR UPDATE" if lock else "")
        row = conn.execute(query, (call_id,)).fetchone() if isinstance(call_id, str) else None
        if row is None:
            raise CallNotFound(f"no pending call {call_id!r:.40}", hint="list the calls to see their ids")
        return decoded(call_id, bytes(row[0]))

    @staticmethod
    def _write(conn: Any, call: PendingCall) -> None:
        conn.execute("UPDATE toolkiln_calls SET data = %s WHERE id = %s", (encoded(call), call.id))
