"""Date and datetime builtins: the clock (`today`, `now`), calendar arithmetic, time zones,
and formatting and parsing with the pattern language of `date_patterns`.

Calendar arithmetic on a datetime keeps its wall-clock time in its own zone (a day later is
the same time of day, across a daylight-saving change too); a wall-clock time that the zone
skips (02:30 on the night clocks go forward) comes out as the time it means, one hour on.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import TypeVar
from zoneinfo import ZoneInfo

from toolkiln.ast.types import ANY, DATE, DATETIME, NUMBER, STRING, Type, not_null
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import Arg, builtin, checked_text, fault
from toolkiln.semantics.date_patterns import (
    compiled_for_run,
    date_from_fields,
    format_value,
    parse_fields,
)
from toolkiln.semantics.dates import (
    in_zone,
    out_of_range,
    parse_iso_date,
    parse_iso_datetime,
    zone_named,
)
from toolkiln.semantics.limits import Limits

# The most days between two dates of the range: a larger count leaves it whatever the date.
MAX_DAYS = (date.max - date.min).days
MAX_MONTHS = 9999 * 12

Day = TypeVar("Day", date, datetime)
ZONE = Arg("zone", (STRING,), optional=True)
# What a conversion through a time zone costs, in operations: about ten additions in `sum`
# (benchmarks/bench_builtins.py), so that a loop of them is stopped by the budget, not the clock.
ZONE_WORK = 10
DAY_OR_TIME = Arg("value", (DATE, DATETIME))


def _same_as_first(types: list[Type]) -> Type:
    """The first argument's type: a date stays a date, a datetime a datetime."""
    first = not_null(types[0]) if types else ANY
    return first if first in (DATE, DATETIME) else ANY


def _zone_work(*args: object) -> int:
    return ZONE_WORK


def _whole(value: Decimal, what: str, largest: int) -> int:
    """`value` as an int: E0511 unless whole, E0516 if no date could move that far."""
    if value != value.to_integral_value():
        raise fault(codes.INVALID_OPERATION, f"{what} must be a whole number, not {value}")
    if abs(value) > largest:
        raise out_of_range(f"moving by {value} {what}")
    return int(value)


def _normalised(moment: Day) -> Day:
    """A wall-clock time in an IANA zone as the instant it means (see the module's docstring);
    E0516 for one whose instant falls outside the range (midnight of 0001-01-01 at +01:00).
    A date is itself."""
    if type(moment) is not datetime:
        return moment
    try:
        instant = moment.astimezone(UTC)
        # A fixed offset: every wall-clock time exists once, as it is.
        return instant.astimezone(moment.tzinfo) if isinstance(moment.tzinfo, ZoneInfo) else moment
    except OverflowError:
        raise out_of_range("the datetime") from None


# --- the clock ----------------------------------------------------------------------------


@builtin(
    "today",
    (ZONE,),
    DATE,
    'The date now, by the clock of the run, in UTC or in the zone given: today("Europe/Berlin"). '
    "The clock is read once a run (today() and now() agree), and is the caller's to set: "
    "tool.run(args, clock=...). Never computed at compile time.",
    pure=False,
    clocked=True,
    work=_zone_work,
)
def _today(limits: Limits, instant: datetime, zone: str = "UTC") -> date:
    return in_zone(instant, zone_named(zone)).date()


@builtin(
    "now",
    (ZONE,),
    DATETIME,
    'The date and time now, by the clock of the run, in UTC or in the zone given: now("Asia/Tokyo"). '
    "Read once a run, like today().",
    pure=False,
    clocked=True,
    work=_zone_work,
)
def _now(limits: Limits, instant: datetime, zone: str = "UTC") -> datetime:
    return in_zone(instant, zone_named(zone))


# --- calendar arithmetic ------------------------------------------------------------------


@builtin(
    "add_days",
    (DAY_OR_TIME, Arg("days", (NUMBER,))),
    _same_as_first,
    "The date (or datetime, at the same time of day in its zone) a whole number of days later; "
    "earlier for a negative number: add_days(due, 14).",
    pure=True,
    work=_zone_work,
)
def _add_days(limits: Limits, value: date, days: Decimal) -> date:
    count = _whole(days, "days", MAX_DAYS)
    try:
        moved = value + timedelta(days=count)
    except OverflowError:
        raise out_of_range(f"{value} plus {count} days") from None
    return _normalised(moved)


@builtin(
    "add_months",
    (DAY_OR_TIME, Arg("months", (NUMBER,))),
    _same_as_first,
    "The date a whole number of months later (earlier if negative), on the same day of the month, "
    "or the month's last day when it is shorter: add_months(2026-01-31, 1) is 2026-02-28.",
    pure=True,
    work=_zone_work,
)
def _add_months(limits: Limits, value: date, months: Decimal) -> date:
    index = value.year * 12 + value.month - 1 + _whole(months, "months", MAX_MONTHS)
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise out_of_range(f"{value} plus {months} months")
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    moved = value.replace(year=year, month=month + 1, day=day)
    return _normalised(moved)


@builtin(
    "days_between",
    (Arg("start", (DATE,)), Arg("end", (DATE,))),
    NUMBER,
    "Days from start to end: negative if end comes first. days_between(due, today()) is how "
    "many days overdue. For datetimes, take their dates first: to_date(t).",
    pure=True,
)
def _days_between(limits: Limits, start: date, end: date) -> Decimal:
    return Decimal((end - start).days)


@builtin(
    "weekday",
    (DAY_OR_TIME,),
    NUMBER,
    "The day of the week as ISO 8601 numbers it: 1 for Monday to 7 for Sunday.",
    pure=True,
)
def _weekday(limits: Limits, value: date) -> Decimal:
    return Decimal(value.isoweekday())


@builtin(
    "start_of_month",
    (DAY_OR_TIME,),
    _same_as_first,
    "The first day of the date's month (for a datetime: midnight of it, in its zone).",
    pure=True,
    work=_zone_work,
)
def _start_of_month(limits: Limits, value: date) -> date:
    if type(value) is datetime:
        return _normalised(datetime.combine(value.date().replace(day=1), time(), value.tzinfo))
    return value.replace(day=1)


@builtin(
    "to_date",
    (Arg("value", (DATETIME,)),),
    DATE,
    'The date of a datetime, in its own zone: to_date(to_zone(paid_at, "Europe/Berlin")).',
    pure=True,
)
def _to_date(limits: Limits, value: datetime) -> date:
    return value.date()


@builtin(
    "to_zone",
    (Arg("value", (DATETIME,)), Arg("zone", (STRING,))),
    DATETIME,
    'The same instant as the wall-clock time of a zone of the IANA database: to_zone(t, "UTC"), '
    'to_zone(t, "America/New_York").',
    pure=True,
    work=_zone_work,
)
def _to_zone(limits: Limits, value: datetime, zone: str) -> datetime:
    return in_zone(value, zone_named(zone))


# --- text ---------------------------------------------------------------------------------


def _pattern_work(value: object, pattern: str | None = None, *zone: object) -> int:
    """A pattern's characters (at most 200), each about as costly as an addition in `sum`
    (measured by benchmarks/bench_builtins.py: names are matched in every case)."""
    return len(pattern) if type(pattern) is str else 0


def _parse_datetime_work(text: str, pattern: str | None = None, *zone: object) -> int:
    return _pattern_work(text, pattern) + ZONE_WORK


@builtin(
    "format_date",
    (DAY_OR_TIME, Arg("pattern", (STRING,))),
    STRING,
    'A date or datetime as text, by a pattern: format_date(due, "DD.MM.YYYY"). Fields: YYYY, MM, M, '
    "MMM (Jan), MMMM (January), DD, D, ddd (Mon), dddd (Monday), HH, H, mm, ss, Z (offset); "
    "other letters go between single quotes. See the language reference.",
    pure=True,
    work=_pattern_work,
)
def _format_date(limits: Limits, value: date, pattern: str) -> str:
    return checked_text(limits, format_value(value, compiled_for_run(pattern)))


@builtin(
    "parse_date",
    (Arg("text", (STRING,)), Arg("pattern", (STRING,), optional=True)),
    DATE,
    'Text as a date, by a pattern (as format_date\'s): parse_date("31.01.2026", "DD.MM.YYYY"); '
    "without a pattern, ISO 8601 (2026-01-31).",
    pure=True,
    work=_pattern_work,
)
def _parse_date(limits: Limits, text: str, pattern: str | None = None) -> date:
    if pattern is None:
        parsed = parse_iso_date(text)
        if parsed is None:
            raise fault(codes.DATE_TEXT_MISMATCH, f"{text[:40]!r} is not a date of the form YYYY-MM-DD")
        return parsed
    return date_from_fields(parse_fields(text, compiled_for_run(pattern, parsing=True)), text)


@builtin(
    "parse_datetime",
    (Arg("text", (STRING,)), Arg("pattern", (STRING,), optional=True), ZONE),
    DATETIME,
    'Text as a datetime, by a pattern: parse_datetime("31.01.2026 09:30", "DD.MM.YYYY HH:mm", '
    '"Europe/Berlin") reads the time in that zone (UTC if none is given, or the text\'s own offset '
    "if the pattern has Z); without a pattern, ISO 8601 with its offset (2026-01-31T09:30:00Z).",
    pure=True,
    work=_parse_datetime_work,
)
def _parse_datetime(limits: Limits, text: str, pattern: str | None = None, zone: str | None = None) -> datetime:
    target = None if zone is None else zone_named(zone)
    if pattern is None:
        parsed = parse_iso_datetime(text)
        if parsed is None:
            raise fault(
                codes.DATE_TEXT_MISMATCH,
                f"{text[:40]!r} is not an ISO 8601 datetime with an offset, such as 2026-01-31T09:30:00Z",
            )
        return parsed if target is None else in_zone(parsed, target)
    fields = parse_fields(text, compiled_for_run(pattern, parsing=True))
    day = date_from_fields(fields, text)
    hour, minute, second = fields.get("hour", 0), fields.get("minute", 0), fields.get("second", 0)
    if hour > 23 or minute > 59 or second > 59:
        raise fault(codes.DATE_TEXT_MISMATCH, f"{text[:40]!r} names no real time of day")
    if "offset" in fields:
        written: tzinfo = timezone(timedelta(minutes=fields["offset"]))
    else:
        written = target or UTC
    moment = _normalised(datetime.combine(day, time(hour, minute, second), written))
    return moment if target is None or "offset" not in fields else in_zone(moment, target)
