"""Date and datetime values: ISO 8601 text at the boundary, time zones, and the run's clock.

A `date` is a `datetime.date`; a `datetime` a `datetime.datetime` that always knows its
offset from UTC (an "aware" one): a time without an offset names no instant, so it is never a
value. Both lie in the years 1 to 9999 (Python's range); anything that would leave it is
refused with E0516 before Python raises OverflowError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError

Clock = Callable[[], datetime]
"""What `today()` and `now()` read: a function of no arguments that returns an aware datetime."""

# The patterns here and in other modules a command may not need are text: `re` compiles one
# when first used and keeps it (a tool that reads no date pays nothing at start-up; issue 34).
# RFC 3339 (the JSON Schema formats `date` and `date-time`): a full date; a date, `T` (or `t`
# or a space), a time with optional fraction of a second, and `Z` or an offset.
_ISO_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_ISO_DATETIME = r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
# A zone name as the IANA database spells them: Europe/Berlin, America/Argentina/Salta, UTC,
# Etc/GMT+5. Checked before zoneinfo sees it (which reads files named after it).
_ZONE_NAME = r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,3}"
MAX_ZONE_NAME = 64


def out_of_range(what: str) -> RunError:
    return RunError(
        codes.DATE_OUT_OF_RANGE.code,
        f"{what} would fall outside the years 1 to 9999",
        hint="dates and datetimes lie between 0001-01-01 and 9999-12-31",
    )


def parse_iso_date(text: str) -> date | None:
    """`YYYY-MM-DD` as a date; None if the text is not one (a wrong shape or no such day)."""
    match = re.fullmatch(_ISO_DATE, text)
    if match is None:
        return None
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def parse_iso_datetime(text: str) -> datetime | None:
    """RFC 3339 date-time text as an aware datetime (its offset as a fixed zone; `Z` as UTC);
    None if the text is not one. Up to microseconds (six digits of a second's fraction)."""
    match = re.fullmatch(_ISO_DATETIME, text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zulu, sign, off_hours, off_minutes = match.groups()
    try:
        if zulu:
            zone: tzinfo = UTC
        else:
            offset = timedelta(hours=int(off_hours), minutes=int(off_minutes))
            zone = timezone(-offset if sign == "-" else offset)
        micro = int((fraction or "").ljust(6, "0"))
        parsed = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=zone)
        parsed.astimezone(UTC)  # an instant past the range's ends in UTC is refused too
    except (ValueError, OverflowError):  # no such day or time; an offset of 24 hours or more
        return None
    return parsed


def iso_text(value: date) -> str:
    """ISO 8601 text of a date (`2026-01-31`) or datetime (`2026-01-31T09:30:00+01:00`; a zero
    offset as `Z`; microseconds only when there are any)."""
    if type(value) is date:
        return value.isoformat()
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def zone_named(name: str) -> tzinfo:
    """The IANA time zone `name` (zoneinfo), or RunError E0517."""
    zone = _zone(name) if len(name) <= MAX_ZONE_NAME and re.fullmatch(_ZONE_NAME, name) else None
    if zone is None:
        raise RunError(
            codes.UNKNOWN_TIME_ZONE.code,
            f"unknown time zone {name[:MAX_ZONE_NAME]!r}",
            hint='name a zone of the IANA database, such as "UTC", "Europe/Berlin" or "America/New_York"',
        )
    return zone


def is_zone_name(name: str) -> bool:
    return len(name) <= MAX_ZONE_NAME and re.fullmatch(_ZONE_NAME, name) is not None and _zone(name) is not None


@lru_cache(maxsize=512)
def _zone(name: str) -> tzinfo | None:
    if ".." in name.split("/"):
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # (when a zone is named: 2 ms of start-up)

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder of that name
        return None


def real_clock() -> datetime:
    """The default clock: the system's time, in UTC."""
    return datetime.now(UTC)


def fixed_clock(instant: datetime) -> Clock:
    """A clock that always reads `instant` (which must be aware)."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise RunError(codes.INVALID_ARGUMENT.code, f"the clock's time {instant} has no time zone")
    return lambda: instant


def clock_at(text: str) -> Clock:
    """A clock that stands at the RFC 3339 time `text` (the command line's `--now`, the REST
    API's `"now"`), or RunError E0508."""
    instant = parse_iso_datetime(text)
    if instant is None:
        raise RunError(
            codes.INVALID_ARGUMENT.code,
            f"the time for the clock, {text[:40]!r}, is not an ISO 8601 datetime with an offset",
            hint="as 2026-01-31T09:30:00Z or 2026-01-31T10:30:00+01:00",
        )
    return lambda: instant


def read_clock(clock: Clock) -> datetime:
    """What `clock` says, checked: an aware datetime, or RunError E0508."""
    try:
        instant = clock()
    except RunError:
        raise
    except Exception as error:  # noqa: BLE001 - the caller's clock failed: its error, not ours (E0514)
        what = f"{type(error).__name__}: {error}"
        raise RunError(codes.INVALID_ARGUMENT.code, f"the clock failed ({what:.160})") from None
    if not isinstance(instant, datetime) or instant.tzinfo is None or instant.utcoffset() is None:
        raise RunError(
            codes.INVALID_ARGUMENT.code,
            f"the clock must return a datetime with a time zone, not {instant!r:.60}",
            hint="return datetime.now(timezone.utc), or pass clock=datetime(..., tzinfo=timezone.utc)",
        )
    return instant


def in_zone(instant: datetime, zone: tzinfo) -> datetime:
    """The same instant with the wall-clock time of `zone`, or E0516 at the range's ends."""
    try:
        return instant.astimezone(zone)
    except OverflowError:
        raise out_of_range("the time in that zone") from None
