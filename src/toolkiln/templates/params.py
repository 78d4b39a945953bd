"""Template parameter types: what a value of each type may be, and its normal form.

A value comes from Python (`render(slug, days=3)`) or from the command line (`--set days=3`,
always text), so every type accepts text; `integer` also takes an int. `check` returns the
value to substitute, or raises `ValueError` with what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from toolkiln.syntax.workflow_values import CLOCK_TIME, WEBHOOK_PATH, is_timezone

# Characters a base URL may hold: RFC 3986's, less braces, quotes and `\` (they would be read
# as template holes or end a string) and less `?`/`#` (paths are appended to a base URL).
_URL = re.compile(r"[A-Za-z0-9\-._~:/\[\]@!$&()*+,;=%]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Integers become JavaScript numbers in n8n, exact only up to 2**53.
MAX_INTEGER = 2**53


@dataclass(frozen=True)
class ParamType:
    name: str
    shape: str  # what a value looks like, for messages and docs
    check: Callable[[object], str | int]


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__}")
    return value


def _url(value: object) -> str:
    text = _text(value).rstrip("/")  # templates append "/path" to it
    parts = urlsplit(text) if _URL.fullmatch(text) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{value!r} is not an http(s) base URL")
    return text


def _matching(pattern: re.Pattern[str], what: str) -> Callable[[object], str]:
    """A check that the value is text matching `pattern` in full."""

    def check(value: object) -> str:
        text = _text(value)
        if not pattern.fullmatch(text):
            raise ValueError(f"{value!r} is not {what}")
        return text

    return check


_time = _matching(CLOCK_TIME, "a time of day")


def _timezone(value: object) -> str:
    text = _text(value)
    if not is_timezone(text):
        raise ValueError(f"{value!r} is not an IANA timezone")
    return text


def _integer(value: object) -> int:
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,16}", value.strip()):
        value = int(value)
    if type(value) is not int:  # bool is an int subclass, and no number
        raise ValueError(f"{value!r} is not a whole number")
    if abs(value) > MAX_INTEGER:
        raise ValueError(f"{value} is larger than 2**53, which n8n cannot hold exactly")
    return value


def _credential(value: object) -> str:
    text = _text(value)
    if not text.strip() or len(text) > 128 or _CONTROL.search(text):
        raise ValueError(f"{value!r} is not a credential name")
    return text


_path = _matching(WEBHOOK_PATH, "a webhook path")


TYPES: dict[str, ParamType] = {
    t.name: t
    for t in (
        ParamType("string", "any text", _text),
        ParamType("url", "an http(s) base URL without query or fragment, e.g. https://crm.example.com/api", _url),
        ParamType("time", 'a time of day "HH:MM" on a 24-hour clock, e.g. 09:00', _time),
        ParamType("timezone", "an IANA timezone, e.g. Europe/Madrid", _timezone),
        ParamType("integer", "a whole number", _integer),
        ParamType("credential", "the name of an n8n credential: one line, 1 to 128 characters", _credential),
        ParamType("path", "a webhook path of letters, digits, `-`, `_` and `/`, e.g. /orders", _path),
    )
}


@dataclass(frozen=True)
class Parameter:
    """One declared parameter: `param NAME: TYPE [= DEFAULT] "description"`."""

    name: str
    type: ParamType
    description: str
    default: str | int | None = None  # None: the value must be given

    @property
    def required(self) -> bool:
        return self.default is None
