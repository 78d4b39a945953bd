"""Dates and datetimes: the types at the boundary (ISO 8601 in, out and in the schema), the
injected clock, calendar arithmetic, zones, and every refusal with its code."""

import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from builtin_calls import code, quickly, value

import toolkiln
from toolkiln.errors import RunError
from toolkiln.semantics.values import to_json
from toolkiln.workflow import check_workflow

BERLIN = ZoneInfo("Europe/Berlin")
NOON = datetime(2026, 2, 10, 12, 0, tzinfo=UTC)


def run(source: str, args: dict | None = None, **options: object) -> object:
    return toolkiln.compile(source).run(args or {}, **options)


def run_code(source: str, args: dict | None = None, **options: object) -> str:
    with pytest.raises(RunError) as raised:
        run(source, args, **options)
    return raised.value.code


def diagnostics(source: str) -> list[str]:
    return [d.code for d in toolkiln.check(source)]


# --- the types at the boundary ------------------------------------------------------------

LATE_FEE = """tool late_fee(due: date, paid_at: datetime?, amount: number)
description "A fee of 1% a day overdue"
{
  days = days_between(due, today())
  if days > 0 { return amount * 0.01 * days }
  return 0
}"""


def test_parameters_are_published_as_strings_with_their_format():
    properties = toolkiln.compile(LATE_FEE).parameters["properties"]
    assert properties["due"] == {"type": "string", "format": "date"}
    assert properties["paid_at"] == {"type": ["string", "null"], "format": "date-time"}


def test_iso_text_arguments_become_dates_and_the_clock_decides_today():
    tool = toolkiln.compile(LATE_FEE)
    args = {"due": "2026-01-31", "paid_at": None, "amount": 100}
    assert tool.run(args, clock=NOON) == Decimal("10.00")
    assert tool.run(args, clock=lambda: datetime(2026, 1, 30, tzinfo=UTC)) == 0
    assert tool.run({**args, "due": date(2026, 2, 9)}, clock=NOON) == Decimal("1.00")


def test_the_json_front_end_takes_the_format_and_the_type_name():
    source = """{"name": "due_in", "description": "Days until due",
      "parameters": {"due": {"type": "string", "format": "date"}, "at": {"type": "datetime"}},
      "logic": {"steps": [{"op": "return", "value": "days_between(to_date(at), due)"}]}}"""
    tool = toolkiln.compile(source)
    assert tool.parameters["properties"]["due"] == {"type": "string", "format": "date"}
    assert tool.parameters["properties"]["at"] == {"type": "string", "format": "date-time"}
    # The date of a datetime is the one in its own zone: the 27th at -02:00 (the 28th in UTC).
    assert tool.run({"due": "2026-03-01", "at": "2026-02-27T23:30:00-02:00"}) == 2


def test_a_json_format_on_a_non_string_or_an_unknown_format_is_refused():
    for spec in ('{"type": "number", "format": "date"}', '{"type": "string", "format": "week"}'):
        source = f"""{{"name": "t", "description": "d", "parameters": {{"x": {spec}}},
          "logic": {{"steps": [{{"op": "return", "value": "x"}}]}}}}"""
        assert "E0111" in diagnostics(source), spec


def test_a_default_is_iso_text_as_json_schema_writes_it():
    tool = toolkiln.compile(
        'tool t(due: date = "2026-01-31", at: datetime? = "2026-01-31T10:00:00+01:00") description "d" '
        "{ return [due, at] }"
    )
    assert tool.parameters["properties"]["due"] == {
        "type": ["string", "null"],
        "format": "date",
        "default": "2026-01-31",
    }
    assert tool.run({}) == [date(2026, 1, 31), datetime(2026, 1, 31, 9, tzinfo=UTC)]
    assert tool.run({"due": None, "at": None}) == [date(2026, 1, 31), None]  # `at` is nullable: null is kept
    assert diagnostics('tool t(due: date = "31.01.2026") description "d" { return due }') == ["E0307"]
    assert diagnostics('tool t(at: datetime = "2026-01-31T10:00") description "d" { return at }') == ["E0307"]


@pytest.mark.parametrize(
    "bad",
    ["2026-02-30", "2026-1-31", "31.01.2026", "2026-01-31T10:00:00Z", 20260131, None, "2026-01-31" + "x" * 30],
)
def test_a_bad_date_argument_is_refused_with_the_iso_form_as_hint(bad):
    with pytest.raises(RunError) as raised:
        toolkiln.compile('tool t(d: date) description "d" { return d }').run({"d": bad})
    assert raised.value.code == "E0508"
    assert "YYYY-MM-DD" in (raised.value.hint or "")


@pytest.mark.parametrize(
    "bad",
    ["2026-01-31T10:00:00", "2026-01-31", "2026-01-31T25:00:00Z", "2026-01-31T10:00:00+24:00", datetime(2026, 1, 1)],
)
def test_a_datetime_argument_needs_an_offset(bad):
    with pytest.raises(RunError) as raised:
        toolkiln.compile('tool t(at: datetime) description "d" { return at }').run({"at": bad})
    assert raised.value.code == "E0508"


def test_datetime_arguments_keep_their_offset_and_fraction():
    tool = toolkiln.compile('tool t(at: datetime) description "d" { return at }')
    moment = tool.run({"at": "2026-01-31t09:30:00.25+05:30"})
    assert moment == datetime(2026, 1, 31, 4, 0, 0, 250000, tzinfo=UTC)
    assert moment.utcoffset() == timedelta(hours=5, minutes=30)
    assert to_json(moment) == '"2026-01-31T09:30:00.250000+05:30"'


def test_results_convert_back_to_iso_text_in_json_and_templates():
    tool = toolkiln.compile(
        'tool t(d: date) description "d" { at = now()\n label = format "due {{d}} at {{at}}"\n return [d, at, label] }'
    )
    result = tool.run({"d": "2026-01-31"}, clock=NOON)
    assert to_json(result) == '["2026-01-31", "2026-02-10T12:00:00Z", "due 2026-01-31 at 2026-02-10T12:00:00Z"]'
    assert value("text(parse_date(s))", s="0001-01-01") == "0001-01-01"


# --- the clock ----------------------------------------------------------------------------


def test_the_clock_is_read_once_a_run_and_never_at_compile_time():
    reads = []

    def clock() -> datetime:
        reads.append(1)
        return NOON + timedelta(hours=len(reads))

    tool = toolkiln.compile("return [now(), now(), today()]")
    first = tool.run({}, clock=clock)
    assert first == [NOON + timedelta(hours=1)] * 2 + [date(2026, 2, 10)]
    assert tool.run({}, clock=clock)[0] == NOON + timedelta(hours=2)  # a new run reads it again
    assert len(reads) == 2


def test_today_and_now_are_not_folded_by_the_optimizer():
    tool = toolkiln.compile("return format_date(today(), 'YYYY')")
    assert tool.run({}, clock=datetime(1999, 12, 31, 23, 0, tzinfo=UTC)) == "1999"
    assert tool.run({}, clock=datetime(2031, 1, 1, tzinfo=UTC)) == "2031"


def test_without_a_clock_the_system_clock_is_read():
    before = datetime.now(UTC)
    moment = run("return now()")
    assert before <= moment <= datetime.now(UTC)
    assert moment.utcoffset() == timedelta(0)


def test_a_zone_turns_the_clock_into_local_time():
    late = datetime(2026, 3, 31, 23, 30, tzinfo=UTC)
    assert run('return today("Europe/Berlin")', clock=late) == date(2026, 4, 1)
    assert run("return today()", clock=late) == date(2026, 3, 31)
    berlin = run('return now("Europe/Berlin")', clock=late)
    assert berlin == late and berlin.tzinfo == BERLIN and berlin.hour == 1


def test_callees_read_the_callers_clock():
    stamp = toolkiln.compile('tool stamp() description "d" { return now() }')
    caller = toolkiln.compile(
        'tool caller() description "d" { at = call stamp()\n return [at, now()] }', tools={"stamp": stamp}
    )
    assert caller.run({}, clock=NOON) == [NOON, NOON]


def test_run_many_takes_a_clock_too():
    tool = toolkiln.compile('tool t(n: number) description "d" { return add_days(today(), n) }')
    assert tool.run_many([{"n": 1}, {"n": -1}], clock=NOON) == [date(2026, 2, 11), date(2026, 2, 9)]
    # In worker processes too: the clock (here a datetime) goes with the rows.
    rows = [{"n": n} for n in range(4)]
    assert tool.run_many(rows, clock=NOON, workers=2) == [date(2026, 2, 10 + n) for n in range(4)]


@pytest.mark.parametrize(
    "clock",
    [datetime(2026, 1, 1), lambda: datetime(2026, 1, 1), lambda: "2026-01-01", lambda: 1 / 0, "2026-01-01"],
)
def test_a_clock_without_a_zone_or_that_fails_is_refused(clock):
    assert run_code("return now()", clock=clock) == "E0508"


# --- calendar arithmetic ------------------------------------------------------------------


def test_add_days_and_months():
    assert value("add_days(parse_date('2026-02-27'), 2)") == date(2026, 3, 1)
    assert value("add_days(parse_date('2026-01-01'), -1)") == date(2025, 12, 31)
    assert value("add_months(parse_date('2026-01-31'), 1)") == date(2026, 2, 28)
    assert value("add_months(parse_date('2024-01-31'), 1)") == date(2024, 2, 29)
    assert value("add_months(parse_date('2026-03-31'), -13)") == date(2025, 2, 28)
    assert value("add_months(parse_date('2026-05-15'), 0)") == date(2026, 5, 15)


def test_datetime_arithmetic_keeps_the_wall_clock_time_across_daylight_saving():
    # Berlin goes from +01:00 to +02:00 on 2026-03-29: a day later is the same time of day.
    at = datetime(2026, 3, 28, 9, 30, tzinfo=BERLIN)
    later = run(
        "tool t(at: datetime) description \"d\" { return add_days(to_zone(at, 'Europe/Berlin'), 1) }", {"at": at}
    )
    assert (later.hour, later.minute, later.utcoffset()) == (9, 30, timedelta(hours=2))
    # 02:30 does not exist that night: it comes out as the instant it means, 03:30.
    gap = run(
        "tool t(at: datetime) description \"d\" { return add_days(to_zone(at, 'Europe/Berlin'), 1) }",
        {"at": datetime(2026, 3, 28, 2, 30, tzinfo=BERLIN)},
    )
    assert (gap.hour, gap.minute) == (3, 30)


def test_days_between_weekday_and_start_of_month():
    assert value("days_between(parse_date(a), parse_date(b))", a="2026-01-31", b="2026-03-01") == 29
    assert value("days_between(parse_date(a), parse_date(b))", a="2026-03-01", b="2026-01-31") == -29
    assert value("weekday(parse_date('2026-01-05'))") == 1  # a Monday
    assert value("weekday(parse_date('2026-01-11'))") == 7
    assert value("start_of_month(parse_date('2026-02-17'))") == date(2026, 2, 1)
    start = value("start_of_month(parse_datetime('2026-02-17T15:00:00+01:00'))")
    assert start == datetime(2026, 2, 1, tzinfo=timezone(timedelta(hours=1)))


def test_to_zone_and_to_date():
    at = "2026-01-31T23:30:00Z"
    assert value("to_date(to_zone(parse_datetime(s), 'Asia/Tokyo'))", s=at) == date(2026, 2, 1)
    assert value("to_date(parse_datetime(s))", s=at) == date(2026, 1, 31)
    tokyo = value("to_zone(parse_datetime(s), 'Asia/Tokyo')", s=at)
    assert tokyo.tzinfo == ZoneInfo("Asia/Tokyo") and tokyo.hour == 8


def test_comparisons_between_two_dates_or_two_datetimes():
    assert value("parse_date(a) < parse_date(b)", a="2025-12-31", b="2026-01-01") is True
    assert value("parse_date(a) == parse_date(b)", a="2026-01-01", b="2026-01-01") is True
    # The same instant written in two zones is equal; order is by instant.
    assert value("parse_datetime(a) == parse_datetime(b)", a="2026-01-01T10:00:00+01:00", b="2026-01-01T09:00:00Z")
    assert (
        value("parse_datetime(a) >= parse_datetime(b)", a="2026-01-01T10:00:00+01:00", b="2026-01-01T09:30:00Z")
        is False
    )
    source = 'tool t(due: date) description "d" {\n if due <= today() { return "due" }\n return "not yet" }'
    assert run(source, {"due": "2026-02-10"}, clock=NOON) == "due"


@pytest.mark.parametrize(
    "expression",
    ["parse_date(a) < now()", "today() == now()", "parse_date(a) < 3", "parse_date(a) + 1", "now() > 'x'"],
)
def test_mixing_dates_datetimes_numbers_or_text_is_a_type_error(expression):
    assert "E0301" in diagnostics(f'tool t(a: string) description "d" {{ return {expression} }}')


def test_the_checker_types_the_builtins():
    assert toolkiln.compile("return add_days(now(), 1)").result_type == "datetime"
    assert toolkiln.compile("return add_months(today(), 1)").result_type == "date"
    assert "E0303" in diagnostics("return days_between(now(), today())")  # a datetime is not a date
    assert "E0303" in diagnostics("return add_days('2026-01-01', 1)")  # text is not a date


def test_a_parameter_inferred_from_a_date_comparison_is_a_date():
    tool = toolkiln.compile("return due < today()")
    assert tool.parameters["properties"]["due"] == {"type": "string", "format": "date"}


# --- formatting and parsing ---------------------------------------------------------------


def test_format_date_fields_and_literal_text():
    at = "2026-03-05T07:08:09+01:00"
    assert value("format_date(parse_datetime(s), 'DD.MM.YYYY HH:mm:ss Z')", s=at) == "05.03.2026 07:08:09 +01:00"
    assert value("format_date(parse_datetime(s), \"D/M/YYYY H 'at' mm\")", s=at) == "5/3/2026 7 at 08"
    assert value("format_date(parse_date('2026-03-05'), 'dddd, D MMMM YYYY')") == "Thursday, 5 March 2026"
    assert value("format_date(parse_date('2026-03-05'), \"ddd MMM D, ''YYYY\")") == "Thu Mar 5, '2026"
    assert value("format_date(parse_datetime('2026-03-05T00:00:00Z'), 'Z')") == "Z"


def test_format_date_refuses_time_fields_of_a_date_and_unknown_letters():
    assert code("format_date(parse_date('2026-03-05'), p)", p="HH:mm") == "E0519"
    assert code("format_date(parse_date('2026-03-05'), p)", p="yyyy-mm-dd") == "E0519"
    assert code("format_date(parse_date('2026-03-05'), p)", p="'open") == "E0519"
    assert code("format_date(parse_date('2026-03-05'), p)", p="Y" * 300) == "E0519"


def test_literal_patterns_and_zones_are_checked_at_compile_time():
    assert "E0310" in diagnostics("return format_date(today(), 'dd.mm.yyyy')")
    assert "E0310" in diagnostics("tool t(s: string) description \"d\" { return parse_date(s, 'MM/YYYY') }")
    assert "E0311" in diagnostics("return now('Europe/Berln')")
    assert "E0311" in diagnostics("return to_zone(now(), '../../etc/passwd')")
    assert diagnostics("return [now('Europe/Berlin'), format_date(today(), 'DD.MM.YYYY')]") == []


def test_parse_date_and_parse_datetime_by_pattern():
    assert value("parse_date(s, 'DD.MM.YYYY')", s="31.01.2026") == date(2026, 1, 31)
    assert value("parse_date(s, 'D MMMM YYYY')", s="5 march 2026") == date(2026, 3, 5)
    assert value("parse_date(s, 'ddd, D MMM YYYY')", s="Thu, 5 Mar 2026") == date(2026, 3, 5)
    moment = value("parse_datetime(s, 'DD.MM.YYYY HH:mm', 'Europe/Berlin')", s="31.07.2026 09:30")
    assert moment == datetime(2026, 7, 31, 7, 30, tzinfo=UTC) and moment.tzinfo == BERLIN
    assert value("parse_datetime(s, 'YYYY-MM-DD HH:mm')", s="2026-07-31 09:30") == datetime(
        2026, 7, 31, 9, 30, tzinfo=UTC
    )
    with_offset = value("parse_datetime(s, 'YYYY-MM-DD HH:mmZ', 'UTC')", s="2026-07-31 09:30-04:00")
    assert with_offset == datetime(2026, 7, 31, 13, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("31/01/2026", "DD.MM.YYYY"),
        ("31.02.2026", "DD.MM.YYYY"),
        ("31.01.26", "DD.MM.YYYY"),
        ("31.01.2026 extra", "DD.MM.YYYY"),
        ("Fri, 5 Mar 2026", "ddd, D MMM YYYY"),  # 2026-03-05 is a Thursday
        ("5 Marc 2026", "D MMMM YYYY"),
        ("", "DD.MM.YYYY"),
    ],
)
def test_text_that_does_not_match_its_pattern_is_e0518(text, pattern):
    assert code("parse_date(s, p)", s=text, p=pattern) == "E0518"


def test_text_that_is_not_iso_is_e0518_and_a_pattern_without_a_day_e0519():
    assert code("parse_date(s)", s="2026/01/31") == "E0518"
    assert code("parse_datetime(s)", s="2026-01-31T10:00:00") == "E0518"  # no offset
    assert code("parse_datetime(s, 'DD.MM.YYYY HH:mm')", s="31.01.2026 24:00") == "E0518"
    assert code("parse_date(s, p)", s="01.2026", p="MM.YYYY") == "E0519"


# --- zones and the ends of the range --------------------------------------------------------


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "Europe/../../etc/passwd", "/etc/localtime", "x" * 200, "Europe"])
def test_an_unknown_zone_at_run_time_is_e0517(zone):
    assert code("now(z)", z=zone) == "E0517"
    assert code("to_zone(now(), z)", z=zone) == "E0517"


@pytest.mark.parametrize(
    "expression",
    [
        "add_days(parse_date('9999-12-31'), 1)",
        "add_days(parse_date('0001-01-01'), -1)",
        "add_days(parse_date('2026-01-01'), 10 ** 9)",
        "add_days(parse_date('2026-01-01'), 10 ** 50)",
        "add_days(parse_date('2026-01-01'), -(10 ** 50))",
        "add_months(parse_date('9999-12-01'), 1)",
        "add_months(parse_date('0001-01-31'), -1)",
        "add_months(parse_date('2026-01-01'), 10 ** 12)",
        "add_days(parse_datetime('9999-12-31T23:00:00Z'), 1)",
        "to_zone(parse_datetime('9999-12-31T23:00:00Z'), 'Asia/Tokyo')",
        "to_zone(parse_datetime('0001-01-01T00:30:00Z'), 'America/New_York')",
        "start_of_month(parse_datetime('0001-01-01T05:00:00+01:00'))",
    ],
)
def test_leaving_the_years_1_to_9999_is_refused_quickly_with_e0516(expression):
    assert quickly(expression) == "E0516"


def test_the_ends_of_the_range_themselves_are_values():
    assert value("add_days(parse_date('9999-12-30'), 1)") == date(9999, 12, 31)
    assert value("add_months(parse_date('0001-02-28'), -1)") == date(1, 1, 28)
    assert value("days_between(parse_date('0001-01-01'), parse_date('9999-12-31'))") == 3652058


def test_fractional_day_counts_are_e0511():
    assert code("add_days(parse_date('2026-01-01'), 1.5)") == "E0511"
    assert code("add_months(parse_date('2026-01-01'), 0.5)") == "E0511"


def test_dates_inside_data_are_values_and_naive_datetimes_are_refused():
    tool = toolkiln.compile('tool t(rows: array) description "d" { return len(rows) }')
    assert tool.run({"rows": [date(2026, 3, 1), datetime(2026, 1, 1, tzinfo=UTC)]}) == 2
    with pytest.raises(RunError) as raised:
        tool.run({"rows": [{"due": datetime(2026, 1, 1)}]})
    assert raised.value.code == "E0508"


# --- n8n ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "named"),
    [
        ("now()", "now"),
        ('to_zone(now(), "UTC")', "to_zone"),
        ("to_date(now())", "to_date"),
        ('parse_datetime("2026-01-31T10:00:00Z")', "parse_datetime"),
        ('format_date(today(), "MMMM")', "format_date"),
        ("format_date(today(), \"DD 'o''clock'\")", "format_date"),
        ("format_date(today(), body.p)", "format_date"),
    ],
)
def test_date_builtins_javascript_computes_otherwise_are_e0706_naming_them(expression, named):
    source = (
        'workflow w\ndescription "w"\non webhook POST "/w" respond with node\n'
        f"set a {{ x = {expression} }}\nrespond r a\n"
    )
    errors = [(d.code, d.message) for d in check_workflow(source) if d.is_error]
    assert len(errors) == 1 and errors[0][0] == "E0706" and f"`{named}(...)`" in errors[0][1], errors


def test_zones_resolve_without_the_systems_zone_files():
    """A machine without /usr/share/zoneinfo (a slim container, Windows) has the zones of the
    tzdata package, a dependency: here zoneinfo is told to look at no system folder at all."""
    probe = (
        "import zoneinfo, datetime, toolkiln; assert zoneinfo.TZPATH == ();"
        "at = datetime.datetime(2026, 7, 1, tzinfo=datetime.timezone.utc);"
        "print(toolkiln.compile('return now(\"Europe/Berlin\")').run({}, clock=at).isoformat())"
    )
    env = {**os.environ, "PYTHONTZPATH": ""}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert result.stdout.strip() == "2026-07-01T02:00:00+02:00", result.stderr


def test_date_builtins_are_charged_to_the_operation_budget():
    """A zone conversion is charged 11 operations, a pattern its length. Uncharged, these loops
    would cost 4 x 150 and 5 x 100 operations (their bodies' size per item), within 1,000."""
    tight = toolkiln.Limits(max_operations=1000)
    assert quickly("[add_days(today(), i) for i in range(150)]", tight) == "E0503"
    assert quickly("[format_date(parse_date('2026-01-01'), 'DD.MM.YYYY') for i in range(100)]", tight) == "E0503"
    assert len(value("[add_days(today(), i) for i in range(150)]")) == 150


def test_sort_orders_dates_and_datetimes_and_records_by_a_date_field():
    dues = ["2026-03-01", "2025-12-31", "2026-01-15"]
    tool = toolkiln.compile('tool t(ds: array[date]) description "d" { return [sort(ds), first(sort(ds))] }')
    assert tool.run({"ds": dues}) == [sorted(date.fromisoformat(d) for d in dues), date(2025, 12, 31)]
    at = ["2026-01-01T10:00:00+01:00", "2026-01-01T09:30:00Z", "2026-01-01T09:15:00Z"]
    stamps = toolkiln.compile('tool t(ts: array[datetime]) description "d" { return sort(ts) }').run({"ts": at})
    assert [to_json(t) for t in stamps] == [
        '"2026-01-01T10:00:00+01:00"',
        '"2026-01-01T09:15:00Z"',
        '"2026-01-01T09:30:00Z"',
    ]
    invoices = [{"id": 1, "due": date(2026, 2, 1)}, {"id": 2, "due": date(2026, 1, 1)}]
    assert [i["id"] for i in value('sort(xs, "due")', xs=invoices)] == [2, 1]
    assert code("sort(xs)", xs=[date(2026, 1, 1), datetime(2026, 1, 1, tzinfo=UTC)]) == "E0509"


def test_record_fields_may_be_dates_in_arguments_and_results():
    source = """{"name": "next_due", "description": "The next due date of an invoice",
      "parameters": {"invoice": {"type": "object", "properties": {
        "due": {"type": "string", "format": "date"}, "amount": {"type": "number"}}}},
      "logic": {"steps": [{"op": "return",
        "value": "{\\"overdue\\": days_between(invoice.due, today()), \\"next\\": add_months(invoice.due, 1)}"}]}}"""
    tool = toolkiln.compile(source)
    assert tool.parameters["properties"]["invoice"]["properties"]["due"] == {"type": "string", "format": "date"}
    assert tool.result_schema["properties"]["next"] == {"type": "string", "format": "date"}
    result = tool.run({"invoice": {"due": "2026-01-31", "amount": 3}}, clock=NOON)
    assert result == {"overdue": 10, "next": date(2026, 2, 28)}
    assert to_json(result) == '{"overdue": 10, "next": "2026-02-28"}'
    with pytest.raises(RunError) as raised:
        tool.run({"invoice": {"due": "31.01.2026", "amount": 3}})
    assert raised.value.code == "E0508"
