"""The date builtins against Python's datetime as the reference, on generated dates across
the whole range (years 1 to 9999), offsets and zones."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

from builtin_runs import relaxed, run
from hypothesis import given
from hypothesis import strategies as st

import toolkiln
from toolkiln.errors import RunError

days = st.dates()
offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda minutes: timezone(timedelta(minutes=minutes)))
moments = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.one_of(st.just(UTC), offsets)
)
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Kiritimati"]


def outcome(expression: str, **args: object) -> object:
    """The value, or the code of the RunError (a run never ends in another exception)."""
    try:
        return run(expression, **args)
    except RunError as error:
        return error.code


@relaxed
@given(days, st.integers(-4_000_000, 4_000_000))
def test_add_days_is_timedelta_addition_or_e0516(day, count):
    try:
        expected: object = day + timedelta(days=count)
    except OverflowError:
        expected = "E0516"
    assert outcome("add_days(parse_date(d), n)", d=day.isoformat(), n=count) == expected


def reference_add_months(day: date, months: int) -> object:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        return "E0516"
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


@relaxed
@given(days, st.integers(-130_000, 130_000))
def test_add_months_clamps_to_the_end_of_the_month(day, months):
    assert outcome("add_months(parse_date(d), n)", d=day.isoformat(), n=months) == reference_add_months(day, months)


@relaxed
@given(days, days)
def test_days_between_ordering_and_equality_agree_with_python(a, b):
    result = run("[days_between(x, y), x < y, x <= y, x == y, x > y]", x=a, y=b)
    assert result == [Decimal((b - a).days), a < b, a <= b, a == b, a > b]


@relaxed
@given(days)
def test_weekday_start_of_month_and_iso_text(day):
    assert run("[weekday(d), start_of_month(d), text(d)]", d=day) == [
        day.isoweekday(),
        day.replace(day=1),
        day.isoformat(),
    ]


@relaxed
@given(days)
def test_format_then_parse_gives_the_date_back(day):
    pattern = "dddd, D MMMM YYYY"
    text = run("format_date(d, p)", d=day, p=pattern)
    assert text == f"{calendar.day_name[day.weekday()]}, {day.day} {calendar.month_name[day.month]} {day.year:04d}"
    assert run("parse_date(t, p)", t=text, p=pattern) == day


@relaxed
@given(moments)
def test_iso_text_of_a_datetime_reads_back_as_the_same_instant_and_offset(moment):
    text = run("text(t)", t=moment)
    back = toolkiln.compile('tool t(at: datetime) description "d" { return at }').run({"at": text})
    assert back == moment and back.utcoffset() == moment.utcoffset()
    assert datetime.fromisoformat(text) == moment  # Python's own parser agrees


@relaxed
@given(moments, st.sampled_from(ZONES))
def test_to_zone_is_astimezone(moment, zone):
    converted = run("to_zone(t, z)", t=moment, z=zone)
    expected = moment.astimezone(ZoneInfo(zone))
    assert converted == expected and converted.utcoffset() == expected.utcoffset()
    assert run("to_date(to_zone(t, z))", t=moment, z=zone) == expected.date()


ORDER = toolkiln.compile('tool order(x: datetime, y: datetime) description "d" { return [x < y, x == y, x >= y] }')


@relaxed
@given(moments, moments)
def test_datetimes_order_by_instant(a, b):
    assert ORDER.run({"x": a, "y": b}) == [a < b, a == b, a >= b]


@relaxed
@given(moments)
def test_format_date_fields_of_a_datetime(moment):
    text = run("format_date(t, p)", t=moment, p="YYYY-MM-DD HH:mm:ss")
    assert text == f"{moment.year:04d}-{moment:%m-%d %H:%M:%S}"
