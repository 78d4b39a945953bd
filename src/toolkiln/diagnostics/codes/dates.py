"""Dates, datetimes and time zones: patterns and zones the checker sees (E031x), and what a
run refuses (E0516-E0519)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- types --------------------------------------------------------------------------------

DATE_PATTERN = register(
    "E0310",
    "date-pattern",
    "Invalid date pattern",
    """
The pattern of `format_date`, `parse_date` or `parse_datetime`, written as a literal, holds
letters that are not one of the pattern's fields (`YYYY`, `MM`, `M`, `MMM`, `MMMM`, `DD`, `D`,
`ddd`, `dddd`, `HH`, `H`, `mm`, `ss`, `Z`), an unclosed quote, or (to parse a date) lacks
the year, month or day. Letters meant as text go between single quotes.

    due_text = format_date(due, "dd.mm.yyyy")       # error: `dd` ... are not fields
    due_text = format_date(due, "DD.MM.YYYY")       # fixed
    stamp = format_date(at, "YYYY-MM-DD 'at' HH:mm")  # `at` quoted: literal text
""",
)

UNKNOWN_ZONE_NAME = register(
    "E0311",
    "unknown-zone-name",
    "Unknown time zone",
    """
A time zone written as a literal (`now("Europe/Berln")`, `to_zone(t, "CET+1")`) is not a
zone of the IANA time zone database. Zones are named by region and city, as in
`"Europe/Berlin"`, `"America/New_York"`, `"Asia/Kolkata"`, or `"UTC"`.

    local = to_zone(paid_at, "Berlin")           # error
    local = to_zone(paid_at, "Europe/Berlin")    # fixed
""",
)

# --- run time -----------------------------------------------------------------------------

DATE_OUT_OF_RANGE = register(
    "E0516",
    "date-out-of-range",
    "Date outside the years 1 to 9999",
    """
A date or datetime computed at run time would fall before 0001-01-01 or after 9999-12-31
(`add_days(d, 1000000000)`, `add_months(d, 120000)`, a datetime at the end of the range
moved into another zone). Dates and datetimes lie in the years 1 to 9999; the run stops
before the value is made.
""",
)

UNKNOWN_TIME_ZONE = register(
    "E0517",
    "unknown-time-zone",
    "Unknown time zone at run time",
    """
A time zone name computed at run time (from an argument or a table) is not a zone of the
IANA time zone database. The checker reports a literal one as E0311. Check the name (the
zones are listed by `zoneinfo.available_timezones()`), or fall back to `"UTC"`.
""",
)

DATE_TEXT_MISMATCH = register(
    "E0518",
    "date-text-mismatch",
    "Text does not match the date pattern",
    """
`parse_date` or `parse_datetime` was given text that does not follow its pattern, or that
names no real day or time (`31.02.2026`, `25:00`). The message says where the text and the
pattern part. Without a pattern, the text must be ISO 8601: `2026-01-31`, or
`2026-01-31T09:30:00Z` with its offset.

    d = parse_date("31/01/2026", "DD.MM.YYYY")   # error: `/` where the pattern has `.`
    d = parse_date("31/01/2026", "DD/MM/YYYY")   # fixed
""",
)

INVALID_DATE_PATTERN = register(
    "E0519",
    "invalid-date-pattern",
    "Invalid date pattern at run time",
    """
A pattern computed at run time (not a literal, which the checker sees as E0310) holds
letters that are not fields of the pattern language, an unclosed quote, a field the value
does not have (hours of a date), or is longer than 200 characters. See the pattern
language in the language reference.
""",
)
