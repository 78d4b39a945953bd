"""The first connection to a registry's database, and what its failure means: a coded error
(R0306 nobody answered, R0307 the login was refused) that names the URL without its password."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlsplit

import psycopg

from toolkiln.registry.errors import DatabaseLoginRefused, DatabaseUnreachable, StoreError

# What PostgreSQL says when it answers but will not let this user into this database.
_LOGIN_REFUSED = ("authentication failed", "does not exist", "no pg_hba.conf entry", "permission denied")


def first_connection(url: str, where: str, timeout: float) -> psycopg.Connection[Any]:
    """An autocommit connection to the database at `url`, tried once (no pool retrying for
    `timeout` seconds when nothing listens there)."""
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=max(2, math.ceil(timeout)))
    except psycopg.Error as error:
        raise connection_error(error, url, where) from None


def connection_error(error: psycopg.Error, url: str, where: str) -> StoreError:
    reason = _reason(str(error), url)
    if any(words in reason for words in _LOGIN_REFUSED):
        return DatabaseLoginRefused(
            f"the registry database at {where} refused the login: {reason}",
            hint="check the user, password and database name of the URL (or ~/.pgpass)",
        )
    if not isinstance(error, psycopg.OperationalError):
        return StoreError(f"the registry URL {where} cannot be used: {reason}", hint="write it as in docs/fleets.md")
    if "FATAL:" in str(error):
        return StoreError(f"the registry database at {where} did not let this process in: {reason}")
    return DatabaseUnreachable(
        f"no PostgreSQL answered for the registry at {where}: {reason}",
        hint="check that PostgreSQL runs there and that the host and port are right",
    )


def _reason(text: str, url: str) -> str:
    """libpq's message in one line: what the server said (after FATAL:), else the last line
    that says why; a password in it (libpq quotes bad options) is `***`."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()] or ["unknown error"]
    line = lines[0]
    reason = line.split("FATAL:", 1)[1].strip() if "FATAL:" in line else line.rsplit(" failed: ", 1)[-1]
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    return reason.replace(password, "***") if password else reason
