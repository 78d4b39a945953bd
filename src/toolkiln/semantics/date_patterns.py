"""The pattern language of `format_date`, `parse_date` and `parse_datetime`: our own, small
and closed (no strftime underneath, whose directives differ by platform and locale).

A pattern is fields and literal text. A field is a run of one letter:

    YYYY year, four digits      MM month 01-12   M month 1-12   MMM Jan   MMMM January
    DD   day 01-31              D  day 1-31      ddd Mon        dddd Monday
    HH   hour 00-23             H  hour 0-23     mm minute      ss second
    Z    offset from UTC: `Z` for UTC, else `+01:00`

Any other character that is not a letter is literal text (`-`, `.`, `/`, `:`, spaces,
commas); letters meant as text go between single quotes (`'at'`, and `''` for a quote), so
that a mistyped field (`yyyy`, `hh`) is an error, never printed as it is. Names are English.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache

from toolkiln.ast.records import record, set_field
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError

MAX_PATTERN = 200
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FIELDS = ("YYYY", "MM", "M", "MMM", "MMMM", "DD", "D", "ddd", "dddd", "HH", "H", "mm", "ss", "Z")
TIME_FIELDS = frozenset({"HH", "H", "mm", "ss", "Z"})
# Fields of two digits at most that may be written with one (`M`, `D`, `H`), read greedily.
_WIDTHS = {"YYYY": (4, 4), "MM": (2, 2), "M": (1, 2), "DD": (2, 2), "D": (1, 2), "HH": (2, 2), "H": (1, 2)}
_WIDTHS |= {"mm": (2, 2), "ss": (2, 2)}
_FIELD_NAMES = {
    "YYYY": "year",
    "MM": "month",
    "M": "month",
    "MMM": "month",
    "MMMM": "month",
    "DD": "day",
    "D": "day",
    "HH": "hour",
    "H": "hour",
    "mm": "minute",
    "ss": "second",
    "ddd": "weekday",
    "dddd": "weekday",
    "Z": "offset",
}


@record()
class Pattern:
    """A compiled pattern: its parts in order, each a field (`YYYY`) or literal text."""

    parts: tuple[tuple[bool, str], ...]  # (is a field, field or text)

    def __init__(self, parts: tuple[tuple[bool, str], ...]) -> None:
        set_field(self, "parts", parts)

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(text for is_field, text in self.parts if is_field)


class PatternError(ValueError):
    """What is wrong with a pattern, in a sentence."""


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Pattern:
    """The pattern's parts, or PatternError."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN} characters")
    parts: list[tuple[bool, str]] = []
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "'":
            text, position = _quoted(pattern, position)
            parts.append((False, text))
        elif char.isalpha():
            end = position
            while end < len(pattern) and pattern[end] == char:
                end += 1
            field = pattern[position:end]
            if field not in _FIELD_NAMES:
                raise PatternError(
                    f"`{field}` at position {position + 1} is not a field of the pattern "
                    f"(fields: {', '.join(FIELDS)}; put literal letters between single quotes)"
                )
            parts.append((True, field))
            position = end
        else:
            parts.append((False, char))
            position += 1
    return Pattern(tuple(parts))


def _quoted(pattern: str, start: int) -> tuple[str, int]:
    """The literal text of a quoted run from `start` (a quote), and the position after it."""
    out, position = [], start + 1
    while position < len(pattern):
        if pattern[position] == "'":
            if position == start + 1:
                return "'", position + 1  # '' alone: one quote
            if pattern[position + 1 : position + 2] == "'":  # '' inside quotes: one quote
                out.append("'")
                position += 2
                continue
            return "".join(out), position + 1
        out.append(pattern[position])
        position += 1
    raise PatternError(f"the quote at position {start + 1} is not closed")


def pattern_problem(pattern: str, *, parsing: bool = False) -> str | None:
    """What is wrong with `pattern` (for the checker, which sees literal ones), or None."""
    try:
        compiled = compile_pattern(pattern)
    except PatternError as error:
        return str(error)
    if parsing:
        return _missing_date_fields(compiled)
    return None


def _missing_date_fields(pattern: Pattern) -> str | None:
    named = {_FIELD_NAMES[field] for field in pattern.fields}
    missing = [what for what in ("year", "month", "day") if what not in named]
    if missing:
        return f"a pattern to parse needs the {', '.join(missing)} (YYYY, MM and DD)"
    return None


def pattern_fault(message: str) -> RunError:
    return RunError(codes.INVALID_DATE_PATTERN.code, message)


def compiled_for_run(pattern: str, *, parsing: bool = False) -> Pattern:
    """The compiled pattern, or RunError E0519."""
    try:
        compiled = compile_pattern(pattern)
    except PatternError as error:
        raise pattern_fault(str(error)) from None
    problem = _missing_date_fields(compiled) if parsing else None
    if problem is not None:
        raise pattern_fault(problem)
    return compiled


# --- formatting ---------------------------------------------------------------------------


def format_value(value: date, pattern: Pattern) -> str:
    """`value` (a date, or an aware datetime in its own zone) written by the pattern."""
    has_time = type(value) is datetime
    out = []
    for is_field, text in pattern.parts:
        if not is_field:
            out.append(text)
        elif text in TIME_FIELDS and not has_time:
            raise pattern_fault(f"a date has no {_FIELD_NAMES[text]}: `{text}` formats datetimes only")
        else:
            out.append(_field_text(value, text))
    return "".join(out)


def _field_text(value: date, field: str) -> str:
    match field:
        case "YYYY":
            return f"{value.year:04d}"
        case "MM" | "M":
            return f"{value.month:0{len(field)}d}"
        case "MMM" | "MMMM":
            name = MONTHS[value.month - 1]
            return name[:3] if field == "MMM" else name
        case "DD" | "D":
            return f"{value.day:0{len(field)}d}"
        case "ddd" | "dddd":
            name = WEEKDAYS[value.weekday()]
            return name[:3] if field == "ddd" else name
    assert isinstance(value, datetime)  # (format_value lets time fields through for datetimes)
    match field:
        case "HH" | "H":
            return f"{value.hour:0{len(field)}d}"
        case "mm":
            return f"{value.minute:02d}"
        case "ss":
            return f"{value.second:02d}"
    return offset_text(value)


def offset_text(value: datetime) -> str:
    offset = value.utcoffset() or timedelta(0)
    if not offset:
        return "Z"
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(offset) // timedelta(minutes=1)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


# --- parsing ------------------------------------------------------------------------------


def parse_fields(text: str, pattern: Pattern) -> dict[str, int]:
    """The fields read from `text` by the pattern (`year`, `month`, ..., `offset` in minutes),
    or RunError E0518 naming where text and pattern part. Reads left to right without
    backtracking: a one-digit field (`D`) takes two digits when two are there."""
    fields: dict[str, int] = {}
    position = 0
    for is_field, part in pattern.parts:
        if not is_field:
            if not text.startswith(part, position):
                raise _mismatch(text, position, f"{part!r}")
            position += len(part)
            continue
        name = _FIELD_NAMES[part]
        if part in _WIDTHS:
            low, high = _WIDTHS[part]
            end = position
            while end < len(text) and end - position < high and "0" <= text[end] <= "9":
                end += 1
            if end - position < low:
                raise _mismatch(text, position, f"{low if low == high else f'{low} or {high}'} digits for {part}")
            value = int(text[position:end])
        elif part == "Z":
            value, end = _offset(text, position)
        else:
            names = MONTHS if name == "month" else WEEKDAYS
            value, end = _name(text, position, names, full=len(part) == 4)
        if name in fields and fields[name] != value:
            raise _mismatch(text, position, f"the same {name} as before")
        fields[name] = value
        position = end
    if position != len(text):
        raise _mismatch(text, position, "the end of the text")
    return fields


def _name(text: str, position: int, names: tuple[str, ...], *, full: bool) -> tuple[int, int]:
    for number, name in enumerate(names, start=1):
        word = name if full else name[:3]
        if text[position : position + len(word)].lower() == word.lower():
            return number, position + len(word)
    what = "month" if names is MONTHS else "weekday"
    raise _mismatch(text, position, f"an English {what} name{'' if full else ' of three letters'}")


def _offset(text: str, position: int) -> tuple[int, int]:
    if text[position : position + 1] in ("Z", "z"):
        return 0, position + 1
    piece = text[position : position + 6]
    if len(piece) == 6 and piece[0] in "+-" and piece[3] == ":" and (piece[1:3] + piece[4:]).isdigit():
        minutes = int(piece[1:3]) * 60 + int(piece[4:])
        if minutes < 24 * 60:
            return (-minutes if piece[0] == "-" else minutes), position + 6
    raise _mismatch(text, position, "an offset: Z, or +hh:mm")


def _mismatch(text: str, position: int, wanted: str) -> RunError:
    found = repr(text[position : position + 12]) if position < len(text) else "the end of the text"
    return RunError(
        codes.DATE_TEXT_MISMATCH.code,
        f"the text does not match the pattern at character {position + 1}: expected {wanted}, found {found}",
    )


def date_from_fields(fields: dict[str, int], text: str) -> date:
    try:
        day = date(fields["year"], fields["month"], fields["day"])
    except ValueError:
        raise RunError(codes.DATE_TEXT_MISMATCH.code, f"{text[:40]!r} names no real day") from None
    if "weekday" in fields and fields["weekday"] != day.isoweekday():
        raise RunError(
            codes.DATE_TEXT_MISMATCH.code, f"{text[:40]!r}: {day.isoformat()} is a {WEEKDAYS[day.weekday()]}"
        )
    return day
