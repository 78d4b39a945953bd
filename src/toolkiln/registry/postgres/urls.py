"""Registry locations that are database URLs, and how to name them without their password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

SCHEMES = ("postgresql://", "postgres://")


def is_database_url(location: str) -> bool:
    return location.startswith(SCHEMES)


def without_password(url: str) -> str:
    """`url` as it may be printed: a password in it is `***` (a libpq key=value string, or
    anything that does not parse as a URL, is named by its host part only)."""
    if not is_database_url(url):
        return "a PostgreSQL database (connection string not shown)"
    parts = urlsplit(url)
    if parts.password is None:
        return urlunsplit(parts._replace(query=""))
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}", query=""))
