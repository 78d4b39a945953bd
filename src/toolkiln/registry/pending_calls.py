"""Calls that wait for a person's approval, kept durably: `PendingCalls` (what a store of them
does) and `DirectoryPendingCalls`, one JSON file per call in the registry folder's calls/.

    <registry>/calls/<id>.json   the call: id, tool, version, arguments, caller, conversation,
                                 created, expires; once decided: by whom, when, why, and an
                                 approved call's outcome
    <registry>/calls/.lock       serializes decisions, across threads and processes

A decision reads the call again under the lock: of two concurrent decisions exactly one finds
it pending and writes it, the other gets CallDecided. A call still pending after `expires` is
denied with the reason "expired" (as read; written so by the next decision that finds it).
Decided calls are kept for their callers for a while, then forgotten (`forget`): a caller who
keeps making calls that wait cannot grow the folder without bound.
Writes are atomic (Folder.write_bytes: a temporary file, fsync, rename), and no file is read
through a link.
"""

from __future__ import annotations

import builtins
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec
from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict, ValidationError

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.registry.errors import CallDecided, CallNotFound, CallTooLarge, StoreError
from toolkiln.registry.folder import Folder, Sig
from toolkiln.registry.json_values import iso
from toolkiln.registry.principals import SCOPES, Principal, Scope
from toolkiln.semantics.values import to_json

CallStatus = Literal["pending", "approved", "denied"]
CALL_STATUSES: tuple[CallStatus, ...] = ("pending", "approved", "denied")
CALLS = "calls"
_CALL_ID = re.compile(r"c[0-9a-f]{24}")
_DECODE = msgspec.json.Decoder(float_hook=Decimal)  # (numbers stay exact, as in tool files)
MAX_CALL_BYTES = 4 * 1024 * 1024
REMEMBERED_BYTES = 64 * 1024  # a listing remembers the calls of files up to this size (not re-read)
EXPIRED = "expired"


def new_call_id() -> str:
    return "c" + secrets.token_hex(12)


class Caller(BaseModel):
    """Who made or decided a call, as the principal said (never read back as authority)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["person", "model", "service"]
    name: str
    scope: str
    via: str | None = None

    @classmethod
    def of(cls, principal: Principal) -> Caller:
        return cls(kind=principal.kind, name=principal.name, scope=principal.scope, via=principal.via)

    @property
    def principal(self) -> Principal:
        """Who made the call, to act as again when it runs (a tool it runs calls as them)."""
        scope: Scope = "read"  # (never more than what was written, which was a principal's)
        for known in SCOPES:
            if known == self.scope:
                scope = known
        return Principal(self.kind, self.name, scope, self.via)

    @property
    def described(self) -> str:
        return f"{self.kind} {self.name!r}"


class PendingCall(BaseModel):
    """A call kept for a person's decision, and (once approved and run) its outcome."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    tool: str
    version: int
    arguments: dict[str, Any]
    caller: Caller
    conversation: str | None = None
    reason_held: str  # why it waits (the tool's flag, or the rule that matched)
    created: datetime
    expires: datetime
    status: CallStatus = "pending"
    decided_by: Caller | None = None
    decided_at: datetime | None = None
    reason: str | None = None  # the decider's (a denial's reason; "expired")
    outcome: dict[str, Any] | None = None  # an approved call's Outcome.reply(), once it ran

    def as_of(self, now: datetime) -> PendingCall:
        """The call as it stands at `now`: still pending after `expires`, it is denied "expired"."""
        if self.status == "pending" and now >= self.expires:
            return self.model_copy(update={"status": "denied", "reason": EXPIRED, "decided_at": self.expires})
        return self

    def to_dict(self) -> dict[str, Any]:
        """The call as data for a wire format (times as ISO 8601 text, numbers as stored)."""
        data = self.model_dump()
        for key in ("created", "expires", "decided_at"):
            data[key] = iso(data[key])
        return data


class PendingCalls(Protocol):
    """Where pending calls are kept (a folder's calls/ here; a database store keeps its own)."""

    def add(self, call: PendingCall) -> None: ...
    def get(self, call_id: str, now: datetime) -> PendingCall: ...
    def list(self, status: CallStatus | None, now: datetime) -> list[PendingCall]: ...
    def decide(
        self, call_id: str, status: CallStatus, by: Caller, reason: str | None, now: datetime
    ) -> PendingCall: ...
    def finish(self, call_id: str, outcome: dict[str, Any]) -> PendingCall: ...
    def forget(self, before: datetime, keep: int, now: datetime) -> int: ...


class DirectoryPendingCalls:
    """Pending calls as files of calls/ in the registry folder at `root`."""

    def __init__(self, root: str | os.PathLike[str], *, lock_timeout: float = 30.0, durable: bool = True) -> None:
        self.path = Path(os.path.abspath(root)) / CALLS
        self._durable = durable
        self._opened: Folder | None = None  # (made at the first call kept: nothing is written before)
        self._threads = threading.Lock()  # (the file lock is not exclusive between threads)
        self._lock = FileLock(str(self.path / ".lock"), timeout=lock_timeout, thread_local=False)
        self._lock_timeout = lock_timeout
        self._seen: dict[str, tuple[Sig, PendingCall]] = {}  # what the last listing read, by id

    @property
    def _folder(self) -> Folder:
        if self._opened is None:
            self._opened = Folder(self.path.parent, lock_timeout=self._lock_timeout, durable=self._durable)
        return self._opened

    def add(self, call: PendingCall) -> None:
        """Keep a new call; CallTooLarge past MAX_CALL_BYTES (what a read takes)."""
        data = encoded_new(call)
        self._folder.check_folders(self.path)
        self._folder.write_bytes(self._file(call.id), data)

    def get(self, call_id: str, now: datetime) -> PendingCall:
        return self._read(call_id).as_of(now)

    def list(self, status: CallStatus | None, now: datetime) -> list[PendingCall]:
        found, seen = [], {}
        for call_id, sig in self._ids():
            known = self._seen.get(call_id)
            if known is not None and known[0] == sig:
                call = known[1]  # the same file as last time (a write replaces it: a new inode)
            else:
                try:
                    call = self._read(call_id)
                except (CallNotFound, StoreError):
                    continue  # removed meanwhile, not a call, too large or not a plain file: not listed
            if sig[1] <= REMEMBERED_BYTES:
                seen[call_id] = (sig, call)
            call = call.as_of(now)
            if status is None or call.status == status:
                found.append(call)
        self._seen = seen  # (the calls of this listing only: removed files are forgotten)
        return sorted(found, key=lambda call: (call.created, call.id))

    def decide(self, call_id: str, status: CallStatus, by: Caller, reason: str | None, now: datetime) -> PendingCall:
        """Approve or deny a pending call: CallDecided when it was decided (or expired) first."""
        with self._locked():
            return decided(self._read(call_id), status, by, reason, now, self._write)

    def finish(self, call_id: str, outcome: dict[str, Any]) -> PendingCall:
        """Keep the outcome of an approved call that ran."""
        with self._locked():
            done = finished(self._read(call_id), outcome)
            self._write(done)
            return done

    def forget(self, before: datetime, keep: int, now: datetime) -> int:
        """Delete the decided calls decided before `before`, and the oldest decided ones beyond
        the newest `keep`; how many went. Pending calls are never forgotten."""
        gone = forgotten(self.list(None, now), before, keep)
        if not gone:
            return 0
        with self._locked():  # (a decided call stays decided: only `finish` writes it again, at once)
            for call in gone:
                with suppress(FileNotFoundError):
                    os.unlink(self._file(call.id))
        return len(gone)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._threads:
            self._folder.check_folders(self.path)
            try:
                self._lock.acquire()
            except Timeout:
                raise StoreError(
                    f"the pending calls at {self.path} stayed locked for {self._lock_timeout:g} s",
                    hint="another process is deciding a call; try again",
                ) from None
            except OSError as error:  # (a link planted as the lock is not followed: ELOOP)
                raise StoreError(
                    f"cannot lock the pending calls at {self.path}: {error.strerror or error}",
                    hint="calls/.lock must be a plain file of yours",
                ) from None
            try:
                yield
            finally:
                self._lock.release()

    def _file(self, call_id: str) -> Path:
        if not isinstance(call_id, str) or _CALL_ID.fullmatch(call_id) is None:
            raise CallNotFound(f"no pending call {call_id!r:.40}", hint="a call id is c and 24 hexadecimal digits")
        return self.path / f"{call_id}.json"

    def _read(self, call_id: str) -> PendingCall:
        file = self._file(call_id)
        data = self._folder.read_bytes(file, MAX_CALL_BYTES) if os.path.isdir(self.path) else None
        if data is None:
            raise CallNotFound(f"no pending call {call_id}", hint="list the calls to see their ids")
        return decoded(call_id, data)

    def _write(self, call: PendingCall) -> None:
        self._folder.write_bytes(self._file(call.id), encoded(call))

    def _ids(self) -> builtins.list[tuple[str, Sig]]:
        """The calls' ids, each with its file's (inode, size, mtime): plain files only."""
        found = []
        try:
            with os.scandir(self.path) as entries:
                for entry in entries:
                    name = entry.name
                    if (
                        name.endswith(".json")
                        and _CALL_ID.fullmatch(name[:-5])
                        and entry.is_file(follow_symlinks=False)
                    ):
                        st = entry.stat(follow_symlinks=False)
                        found.append((name[:-5], (st.st_ino, st.st_size, st.st_mtime_ns)))
        except FileNotFoundError:
            return []
        except OSError as error:
            raise StoreError(f"cannot list {self.path}: {error.strerror or error}") from None
        return found


# --- what every store of pending calls does the same way --------------------------------------


def decided(
    stored: PendingCall,
    status: CallStatus,
    by: Caller,
    reason: str | None,
    now: datetime,
    write: Callable[[PendingCall], None],
) -> PendingCall:
    """Decide `stored` (read again under the store's lock) and `write` it; CallDecided when
    it was decided or expired first (an expiry is written too, for every reader after)."""
    current = stored.as_of(now)
    if current.status != "pending":
        if current is not stored:
            write(current)
        raise _decided(current)
    decision = stored.model_copy(update={"status": status, "decided_by": by, "decided_at": now, "reason": reason})
    write(decision)
    return decision


def finished(stored: PendingCall, outcome: dict[str, Any]) -> PendingCall:
    """The approved call with its outcome, or a coded note where the outcome is too large to keep."""
    done = stored.model_copy(update={"outcome": outcome})
    size = len(encoded(done))
    if size > MAX_CALL_BYTES:  # (it ran: what is kept says so, without the result)
        done = stored.model_copy(update={"outcome": _too_large(outcome, size)})
    return done


def forgotten(calls: builtins.list[PendingCall], before: datetime, keep: int) -> builtins.list[PendingCall]:
    """Of `calls` (as they stand now), the decided ones decided before `before`, and the oldest
    decided ones beyond the newest `keep`: what `forget` deletes."""
    decided_calls = sorted((call for call in calls if call.status != "pending"), key=_decided_when, reverse=True)
    return [call for index, call in enumerate(decided_calls) if index >= keep or _decided_when(call)[0] < before]


def encoded_new(call: PendingCall) -> bytes:
    """A new call as it is kept; CallTooLarge past MAX_CALL_BYTES (what a read takes)."""
    data = encoded(call)
    if len(data) > MAX_CALL_BYTES:
        raise CallTooLarge(
            f"the call of `{call.tool}` would take {len(data):,} bytes; a call kept for approval "
            f"takes at most {MAX_CALL_BYTES:,}",
            hint="send smaller arguments",
        )
    return data


def encoded(call: PendingCall) -> bytes:
    return to_json(call.to_dict(), indent=2, exact=True).encode() + b"\n"


def decoded(call_id: str, data: bytes) -> PendingCall:
    try:
        return PendingCall.model_validate(_DECODE.decode(data))
    except (msgspec.MsgspecError, ValidationError, RecursionError, ValueError):
        raise CallNotFound(f"the stored call {call_id} is not a call", hint="delete it") from None


def _decided_when(call: PendingCall) -> tuple[datetime, str]:
    return (call.decided_at or call.expires, call.id)


def _too_large(outcome: dict[str, Any], size: int) -> dict[str, Any]:
    message = f"the approved call ran, but its outcome ({size:,} bytes) is too large to keep for its caller"
    error = ErrorDetails.coded(codes.CALL_TOO_LARGE, message, "the person who approved it got the result")
    return {"ok": False, "errors": [error.to_dict()], "message": message, "version": outcome.get("version")}


def _decided(call: PendingCall) -> CallDecided:
    who = f" by {call.decided_by.described}" if call.decided_by else ""
    why = f": {call.reason}" if call.reason else ""
    return CallDecided(
        f"call {call.id} of `{call.tool}` was {call.status}{who}{why}",
        hint="read the call to see its decision and, once it ran, its outcome",
    )
