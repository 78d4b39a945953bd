"""The n8n translation of the date builtins, through Luxon, which n8n's expressions offer as
`DateTime` (and `$now`, the time of the execution).

In an n8n expression a date is its ISO 8601 text (`"2026-01-31"`), the form n8n passes data
between nodes in: each translated builtin reads and writes that text, so `<` and `==` on two
dates compare their text, which orders as the dates do. Luxon's `plus({months})` clamps to
the month's last day, as `add_months` does.

Not translated, because JavaScript would give another value: datetimes (`now`, `to_zone`,
`to_date`, `parse_datetime`), whose text orders by characters, not by instant, once two
offsets differ; month and weekday names and time fields in a pattern (Luxon names them in the
server's locale; a date has no time); a pattern that is not a literal.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkiln.ast import compute as n
from toolkiln.semantics.date_patterns import PatternError, compile_pattern

# Our date fields -> Luxon's tokens (both read `d` and `M` as one or two digits).
_LUXON_FIELDS = {"YYYY": "yyyy", "MM": "MM", "M": "M", "DD": "dd", "D": "d"}
_DAY = "DateTime.fromISO({text}, {{ zone: 'utc' }})"
_ISO_DAY = "/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/"


class NotSameInJavaScript(Exception):
    """JavaScript would compute another value: the message says why."""


def _day(text: str) -> str:
    return _DAY.format(text=text)


def _luxon_format(expr: n.Expr, function: str, js: Callable[[n.Expr], str]) -> str:
    """The Luxon format of a literal pattern of date fields and text, as a JavaScript string."""
    if not isinstance(expr, n.StringLit):
        raise NotSameInJavaScript(f"the pattern of {function} translates only when it is a literal")
    try:
        parts = compile_pattern(expr.value).parts
    except PatternError as error:
        raise NotSameInJavaScript(str(error)) from None
    out = []
    for is_field, text in parts:
        if is_field and text not in _LUXON_FIELDS:
            raise NotSameInJavaScript(f"`{text}` in a pattern has no n8n translation (only YYYY, MM, M, DD and D)")
        if not is_field and "'" in text:
            raise NotSameInJavaScript("a quote in a pattern's text has no n8n translation")
        out.append(_LUXON_FIELDS[text] if is_field else f"'{text}'")
    return js(n.StringLit(value="".join(out), span=expr.span))


def _today(args: tuple[n.Expr, ...], js: Callable[[n.Expr], str]) -> str:
    zone = js(args[0]) if args else "'utc'"
    return f"$now.setZone({zone}).toISODate()"


def _parse_date(args: tuple[n.Expr, ...], js: Callable[[n.Expr], str]) -> str:
    text = js(args[0])
    if len(args) == 1:
        return f"((s) => {_ISO_DAY}.test(s) ? {_day('s')}.toISODate() : null)({text})"
    fmt = _luxon_format(args[1], "parse_date", js)
    return f"DateTime.fromFormat({text}, {fmt}, {{ zone: 'utc' }}).toISODate()"


def _format_date(args: tuple[n.Expr, ...], js: Callable[[n.Expr], str]) -> str:
    fmt = _luxon_format(args[1], "format_date", js)
    return f"{_day(js(args[0]))}.toFormat({fmt})"


def _plus(unit: str) -> Callable[[tuple[n.Expr, ...], Callable[[n.Expr], str]], str]:
    return lambda args, js: f"{_day(js(args[0]))}.plus({{ {unit}: {js(args[1])} }}).toISODate()"


DATE_FUNCTIONS: dict[str, tuple[range, Callable[[tuple[n.Expr, ...], Callable[[n.Expr], str]], str]]] = {
    "today": (range(2), _today),
    "add_days": (range(2, 3), _plus("days")),
    "add_months": (range(2, 3), _plus("months")),
    "days_between": (range(2, 3), lambda args, js: f"{_day(js(args[1]))}.diff({_day(js(args[0]))}, 'days').days"),
    "weekday": (range(1, 2), lambda args, js: f"{_day(js(args[0]))}.weekday"),
    "start_of_month": (range(1, 2), lambda args, js: f"{_day(js(args[0]))}.startOf('month').toISODate()"),
    "parse_date": (range(1, 3), _parse_date),
    "format_date": (range(2, 3), _format_date),
}
