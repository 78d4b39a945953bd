"""The web page's session cookie and CSRF tokens, signed with a secret of the server's state folder.

A session is made when a person signs in with a REST token. The cookie holds the token's
name, a fingerprint of the token (so a token revoked, or revoked and created again under the
same name, ends its sessions), who acts (a person or a model, as the registry's `by`), an
expiry time and a random session id, signed with HMAC-SHA256. Nothing in it is secret, and
nothing in it can be changed without the secret: a changed byte is a tampered cookie.

CSRF: the synchronizer token of a session is HMAC(secret, "csrf:" + session id); every form
carries it and htmx sends it as a header. Before sign-in, a short-lived sign-in cookie plays
the session's part, so the sign-in form is protected too (login CSRF).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolkiln.registry.models import ACTORS, Actor
from toolkiln.server.state import open_private
from toolkiln.server.tokens import TokenInfo

SESSION_COOKIE = "toolkiln_session"
SIGN_IN_COOKIE = "toolkiln_sign_in"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SESSION_SECONDS = 8 * 3600  # a working day; signing in again is one paste
SIGN_IN_SECONDS = 3600
SECRET_FILE = "web-secret"


class SessionError(Exception):
    """A cookie that is not a valid session: `reason` is "expired" or "tampered"."""

    def __init__(self, reason: Literal["expired", "tampered"]) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Session:
    token: str  # the token's name
    fingerprint: str
    actor: Actor
    expires: int  # Unix time
    sid: str


def load_secret(folder: Path) -> bytes:
    """The state folder's signing secret (32 random bytes, 0600), made by the first server to
    ask: every server of the folder signs and checks cookies with the same one. A link in its
    place is never followed (O_EXCL, O_NOFOLLOW)."""
    path = folder / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with os.fdopen(open_private(path, os.O_RDONLY), "rb") as file:
            data = file.read(33)
        if len(data) == 32:
            return data
        raise OSError(f"{path} is not a secret of 32 bytes; delete it to make a new one") from None
    fresh = secrets.token_bytes(32)
    try:
        os.write(fd, fresh)
        os.fsync(fd)
    finally:
        os.close(fd)
    return fresh


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Signs and checks the cookies and CSRF tokens of one server folder."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, purpose: str, text: str) -> str:
        return _b64(hmac.new(self._secret, f"{purpose}:{text}".encode(), hashlib.sha256).digest())

    def fingerprint(self, token: TokenInfo) -> str:
        return self._mac("token", token.digest)[:22]

    # --- sessions ------------------------------------------------------------------------------

    def new_session(self, token: TokenInfo, actor: Actor, now: float | None = None) -> tuple[Session, str]:
        """A session for `token` and its cookie value."""
        expires = int(now if now is not None else time.time()) + SESSION_SECONDS
        session = Session(token.name, self.fingerprint(token), actor, expires, secrets.token_urlsafe(16))
        body = {"t": session.token, "f": session.fingerprint, "a": actor, "e": expires, "s": session.sid}
        payload = _b64(json.dumps(body, separators=(",", ":")).encode())
        return session, f"{payload}.{self._mac('session', payload)}"

    def read_session(self, cookie: str, now: float | None = None) -> Session:
        """The session of a cookie value; SessionError when it was changed or has expired."""
        payload, _, mac = cookie.partition(".")
        if not hmac.compare_digest(mac.encode(), self._mac("session", payload).encode()):
            raise SessionError("tampered")
        try:
            body = json.loads(_unb64(payload))
            session = Session(str(body["t"]), str(body["f"]), body["a"], int(body["e"]), str(body["s"]))
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise SessionError("tampered") from None  # signed by us, so never: a changed secret format
        if session.actor not in ACTORS:
            raise SessionError("tampered")
        if session.expires <= (now if now is not None else time.time()):
            raise SessionError("expired")
        return session

    def csrf_for(self, sid: str) -> str:
        return self._mac("csrf", sid)

    def csrf_matches(self, sid: str, presented: str | None) -> bool:
        return presented is not None and hmac.compare_digest(presented.encode(), self.csrf_for(sid).encode())

    # --- before sign-in ----------------------------------------------------------------------

    def new_sign_in(self) -> tuple[str, str]:
        """A sign-in nonce's cookie value and the CSRF token of the sign-in form."""
        nonce = secrets.token_urlsafe(16)
        return f"{nonce}.{self._mac('sign-in', nonce)}", self.csrf_for("sign-in:" + nonce)

    def sign_in_matches(self, cookie: str | None, presented: str) -> bool:
        """Whether a sign-in form's CSRF token goes with the sign-in cookie (one of ours)."""
        nonce, _, mac = (cookie or "").partition(".")
        if not nonce or not hmac.compare_digest(mac.encode(), self._mac("sign-in", nonce).encode()):
            return False
        return self.csrf_matches("sign-in:" + nonce, presented)
