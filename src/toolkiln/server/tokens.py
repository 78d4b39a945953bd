"""Bearer tokens: created once, stored only as their SHA-256, checked in constant time.

The file (`tokens.json` in the server's state folder, 0600; see state.py) holds each token's
name, kind (who holds it: a person, a model or a service), scope, digest and creation time;
the plain token is shown once, when it is made, and never written anywhere. Every change
rewrites the file atomically under a lock, so `toolkiln tokens` and the admin routes of any
number of servers can change it at once, and then bumps a change counter (`.tokens.changes`,
read through a shared memory map as the registry's, registry/changes.py): a server rereads the
file at the next request after the counter moved, so a revoked token stops working at once,
without a restart and without a `stat` a request. A change made without toolkiln (an editor)
is seen by its size, time or inode, looked at at most every WATCH_SECONDS (50 ms).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from time import monotonic
from typing import Any

from filelock import FileLock, Timeout

from toolkiln.diagnostics import codes
from toolkiln.errors import Error
from toolkiln.registry.changes import WATCH_SECONDS, ChangeCounter
from toolkiln.registry.principals import PRINCIPAL_KINDS, SCOPES, Principal, PrincipalKind, Scope
from toolkiln.registry.tenants import DEFAULT_TENANT, check_tenant_name
from toolkiln.server.state import open_private

# A token stored before tokens had kinds: whoever holds it is taken for a model (the narrowest),
# so that an old token handed to an agent gains nothing; `toolkiln serve` names such tokens.
LEGACY_KIND: PrincipalKind = "model"
TOKEN_PREFIX = "tk_"
TOKEN_BYTES = 32  # 256 random bits
MAX_FILE_BYTES = 16 * 1024 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class TokenError(Error):
    """A token name that is taken, unknown or malformed, or a token file that cannot be used."""

    def __init__(self, code: codes.Code, message: str, hint: str | None = None) -> None:
        self.code, self.name, self.message, self.hint = code.code, code.name, message, hint
        super().__init__(message)


@dataclass(frozen=True)
class TokenInfo:
    """What is stored of a token: never the token itself."""

    name: str
    scope: Scope
    digest: str  # hex SHA-256 of the token
    created_at: str
    kind: PrincipalKind = LEGACY_KIND
    kind_given: bool = True  # False: stored before kinds, read as LEGACY_KIND
    tenant: str = DEFAULT_TENANT  # the one tenant whose registry this token reaches

    @property
    def key(self) -> str:
        """The token's name, unique on the server: names are unique within a tenant only."""
        return self.name if self.tenant == DEFAULT_TENANT else f"{self.tenant}/{self.name}"

    def allows(self, needed: Scope) -> bool:
        return SCOPES.index(self.scope) >= SCOPES.index(needed)

    @property
    def principal(self) -> Principal:
        """Who acts with this token: its kind and scope, named on the audit line."""
        return Principal(self.kind, self.name, self.scope, via=f"token {self.name}")

    def public(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "scope": self.scope, "created_at": self.created_at}


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenStore:
    """The tokens of one server folder (`folder/tokens.json`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "tokens.json"
        self._lock = FileLock(str(folder / ".tokens.lock"), timeout=10)
        self._mutex = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._tokens: tuple[TokenInfo, ...] = ()
        self._counter: ChangeCounter | None = None  # made on first use (the folder may not exist before)
        self._count_seen: int | None = None
        self._look_by = 0.0  # until when the file is believed without a look (monotonic)

    # --- reading -----------------------------------------------------------------------------

    def entries(self, tenant: str | None = DEFAULT_TENANT) -> list[TokenInfo]:
        """The tokens of `tenant` (None: of every tenant, for the operator)."""
        return sorted((t for t in self._current() if tenant is None or t.tenant == tenant), key=lambda t: t.key)

    def authenticate(self, presented: str) -> TokenInfo | None:
        """The token `presented` names, or None. Every stored digest is compared, each with
        hmac.compare_digest, so the time taken says nothing about which one (nearly) matched."""
        wanted = digest_of(presented)
        found = None
        for info in self._current():
            if hmac.compare_digest(info.digest, wanted):
                found = info
        return found

    def _current(self) -> tuple[TokenInfo, ...]:
        """The tokens on disk: as last read while the change counter has not moved and the file
        was looked at less than WATCH_SECONDS ago; else reread if the file changed."""
        count, now = self._changes().value(), monotonic()
        if count is not None and count == self._count_seen and now < self._look_by:
            return self._tokens
        try:
            stat = os.lstat(self.path)  # (a link is refused by the read, never followed)
            seen = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        except FileNotFoundError:
            seen = None
        with self._mutex:
            if seen != self._seen:
                self._tokens = self._read() if seen is not None else ()
                self._seen = seen
            self._count_seen, self._look_by = count, now + WATCH_SECONDS  # (after the tokens they vouch for)
            return self._tokens

    def _changes(self) -> ChangeCounter:
        if self._counter is None:  # (a folder that cannot hold it: no map, a look at every request)
            self._counter = ChangeCounter(lambda flags: open_private(self.folder / ".tokens.changes", flags))
        return self._counter

    def _read(self, path: Path | None = None) -> tuple[TokenInfo, ...]:
        path = path or self.path
        try:
            fd = open_private(path, os.O_RDONLY)
            with os.fdopen(fd, "rb") as file:
                data = json.loads(file.read(MAX_FILE_BYTES).decode("utf-8"))
            return tuple(_token_of(t) for t in data["tokens"] if _is_usable(t))
        except FileNotFoundError:
            return ()
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise TokenError(
                codes.TOKEN_STORE_ERROR,
                f"the token file {path} cannot be read: {error}",
                hint="fix or delete it, then create the tokens again",
            ) from None

    # --- changing ----------------------------------------------------------------------------

    def create(self, name: str, scope: str, kind: str, tenant: str = DEFAULT_TENANT) -> tuple[str, TokenInfo]:
        """Make a token named `name` of `tenant` for a `kind` of holder (person, model, service)
        with `scope`: the plain token (shown once) and what is kept."""
        token, info = new_token(name, scope, kind, tenant)
        with self._locked():
            tokens = list(self._read())
            if any(t.name == name and t.tenant == info.tenant for t in tokens):
                raise token_exists(name)
            self._write([*tokens, info])
        return token, info

    def revoke(self, name: str, tenant: str = DEFAULT_TENANT) -> TokenInfo:
        """Remove the token `name` of `tenant`; the one removed (another tenant's is not found)."""
        with self._locked():
            tokens = list(self._read())
            removed = next((t for t in tokens if t.name == name and t.tenant == tenant), None)
            if removed is None:
                raise token_not_found(name)
            self._write([t for t in tokens if t is not removed])
        return removed

    def import_from(self, folder: Path) -> tuple[list[TokenInfo], list[str]]:
        """Add the tokens of the token file in `folder` (an old `<registry>/.server`, another
        server's state folder), as they are: the tokens imported, and the names skipped
        because a token of that name exists here already."""
        source = folder / self.path.name
        if not os.path.lexists(source):
            raise TokenError(
                codes.TOKEN_STORE_ERROR, f"there is no token file {source}", hint="name the folder it is in"
            )
        found = self._read(source)
        with self._locked():
            tokens = list(self._read())
            taken = {t.key for t in tokens}
            imported = [t for t in found if t.key not in taken]
            self._write([*tokens, *imported])
        return imported, [t.key for t in found if t.key in taken]

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.ensure_folder()
        try:
            with self._lock:
                yield
        except Timeout:
            raise TokenError(codes.TOKEN_STORE_ERROR, f"the token file {self.path} is locked") from None

    def ensure_folder(self) -> None:
        """The folder, private (0700), with a .gitignore of everything."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():  # tokens and request logs are never committed with the tools
            ignore.write_text("# written by toolkiln serve: secrets and logs, never committed\n*\n", encoding="utf-8")

    def _write(self, tokens: list[TokenInfo]) -> None:
        """Replace the file atomically; it is 0600 from its first byte (mkstemp)."""
        data: dict[str, Any] = {
            "tokens": [
                {"name": t.name, **({"kind": t.kind} if t.kind_given else {}), "scope": t.scope}
                | ({"tenant": t.tenant} if t.tenant != DEFAULT_TENANT else {})
                | {"sha256": t.digest, "created_at": t.created_at}
                for t in tokens
            ]
        }
        fd, temp = tempfile.mkstemp(dir=self.folder, prefix=".tokens.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        self._changes().bump()  # (the lock held: no bump is lost)


def new_token(name: str, scope: str, kind: str, tenant: str = DEFAULT_TENANT) -> tuple[str, TokenInfo]:
    """A new token of `tenant` named `name` for a `kind` of holder with `scope` (each checked):
    the plain token, and what is kept of it."""
    if not _NAME.match(name):
        raise TokenError(
            codes.TOKEN_NAME_INVALID,
            f"invalid token name {name[:80]!r}",
            hint="1 to 64 letters, digits, `_`, `.` or `-`, starting with a letter or digit",
        )
    if scope not in SCOPES:
        raise TokenError(codes.TOKEN_NAME_INVALID, f"unknown scope {scope!r}", hint=f"one of {', '.join(SCOPES)}")
    if kind not in PRINCIPAL_KINDS:
        raise TokenError(
            codes.TOKEN_NAME_INVALID, f"unknown kind {kind!r}", hint=f"one of {', '.join(PRINCIPAL_KINDS)}"
        )
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    created = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return token, TokenInfo(name, scope, digest_of(token), created, kind, tenant=check_tenant_name(tenant))


def token_exists(name: str) -> TokenError:
    return TokenError(
        codes.TOKEN_EXISTS, f"a token named {name!r} exists already", hint="revoke it first, or pick another name"
    )


def token_not_found(name: str) -> TokenError:
    return TokenError(codes.TOKEN_NOT_FOUND, f"no token named {name[:80]!r}", hint="list the tokens")


def _is_usable(stored: dict[str, Any]) -> bool:
    """A stored token with a known scope, kind and a well-formed tenant (any other is ignored)."""
    tenant = stored.get("tenant", DEFAULT_TENANT)
    return (
        stored["scope"] in SCOPES
        and stored.get("kind", LEGACY_KIND) in PRINCIPAL_KINDS
        and isinstance(tenant, str)
        and tenant == _checked_or_none(tenant)
    )


def _checked_or_none(tenant: str) -> str | None:
    try:
        return check_tenant_name(tenant)
    except Error:
        return None


def _token_of(stored: dict[str, Any]) -> TokenInfo:
    kind = stored.get("kind", LEGACY_KIND)
    tenant = stored.get("tenant", DEFAULT_TENANT)
    name, scope, digest, created = stored["name"], stored["scope"], stored["sha256"], stored["created_at"]
    return TokenInfo(name, scope, digest, created, kind, "kind" in stored, tenant)
