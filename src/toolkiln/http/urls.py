"""Base URLs checked once, and credentials kept out of what is shown: the `user:password` of a
URL and the secrets a client holds (an API key a server may echo back)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from toolkiln.http.errors import BadOption

MASK = "***"


def checked_url(base_url: str) -> str:
    """The URL without a trailing slash; BadOption unless it is an http(s) URL with a host and
    no query or fragment. The message never shows the URL's credentials."""
    url = base_url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
        httpx.URL(url)  # what the requests will be made with
    except (ValueError, httpx.InvalidURL):  # a broken [IPv6] host, a port that is no number
        valid = False
    if not valid:
        raise BadOption(f"not an http(s) URL: {shown_url(base_url)!r}")
    if parts.query or parts.fragment:
        raise BadOption(f"the URL must not have a query or fragment: {shown_url(url)!r}")
    return url


def shown_url(url: str) -> str:
    """The URL without user:password, which may hold a key."""
    try:
        parts = urlsplit(url)
        if parts.username is None and parts.password is None:
            return url
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        netloc += f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparsable URL>"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def split_credentials(url: str) -> tuple[str, httpx.BasicAuth | None]:
    """The URL without its user:password, and them as the Basic auth they stand for: httpx
    would otherwise log the URL with them (logger "httpx", INFO) on every request."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    return shown_url(url), httpx.BasicAuth(unquote(parts.username or ""), unquote(parts.password or ""))


def url_credentials(url: str) -> list[str]:
    """The user name and password in a URL (as written and decoded), to scrub from messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [value for value in (parts.username, parts.password) if value]
    return found + [unquote(value) for value in found if unquote(value) != value]


class Scrubber:
    """Replaces each secret, as a whole token, by `***`: a placeholder key such as "x" (local
    servers) must not garble every word that contains the letter."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        words = sorted({secret for secret in secrets if secret}, key=len, reverse=True)
        alternatives = "|".join(re.escape(word) for word in words)
        self._pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])") if words else None

    def __call__(self, text: str) -> str:
        return self._pattern.sub(MASK, text) if self._pattern else text
