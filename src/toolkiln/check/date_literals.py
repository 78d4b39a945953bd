"""Date patterns and time zones written as literals, checked before the run: a typo in
`format_date(d, "dd.mm.yyyy")` or `now("Europe/Berln")` is a compile error (E0310, E0311)
instead of a run that fails on its first call."""

from __future__ import annotations

from collections.abc import Iterator

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import DATE, Type, not_null
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import Builtin
from toolkiln.semantics.date_patterns import pattern_problem
from toolkiln.semantics.dates import is_zone_name, parse_iso_date, parse_iso_datetime

_PARSERS = frozenset({"parse_date", "parse_datetime"})
# The date builtins' arguments by name: a `pattern` and a `zone` (see date_builtins).
_PATTERN, _ZONE = "pattern", "zone"


def iso_default(type_: Type, default: n.Expr) -> bool | None:
    """For a `date` or `datetime` parameter whose default is text: whether it is ISO 8601 text of
    one (`due: date = "2026-01-31"`, as JSON Schema writes a date's default); None otherwise."""
    wanted = not_null(type_)
    if wanted.name not in ("date", "datetime") or not isinstance(default, n.StringLit):
        return None
    parse = parse_iso_date if wanted == DATE else parse_iso_datetime
    return parse(default.value) is not None


def literal_problems(function: Builtin, args: tuple[n.Expr, ...]) -> Iterator[tuple[codes.Code, str, Span, str]]:
    """(code, message, span, hint) for each literal pattern or zone of the call that is wrong."""
    for position, arg in enumerate(args):
        if not isinstance(arg, n.StringLit):
            continue
        name = function.arg_for(position).name
        if name == _PATTERN:
            problem = pattern_problem(arg.value, parsing=function.name in _PARSERS)
            if problem is not None:
                yield codes.DATE_PATTERN, problem, arg.span, 'fields as in "DD.MM.YYYY HH:mm"; text between quotes'
        elif name == _ZONE and not is_zone_name(arg.value):
            yield (
                codes.UNKNOWN_ZONE_NAME,
                f"unknown time zone {arg.value[:64]!r}",
                arg.span,
                'a zone of the IANA database, such as "UTC", "Europe/Berlin", "America/New_York"',
            )
