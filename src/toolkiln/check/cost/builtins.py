"""What a call of a builtin costs and what it returns, as bounds over its arguments' shapes.

The interpreter charges a builtin that declares a cost (`work`, `builds` or `built` in
semantics/builtin_registry.py) `1 + work + builds + built` operations, from the values it is
called with; a builtin that declares none is charged nothing. Each bound here is that
declared cost at the largest values the arguments' shapes allow. A text is counted at four
bytes a character (the interpreter counts one for ASCII): whether a text is ASCII is not
known before the run. Costs that grow with a number (`range`, `repeat`, `pad_left`) are
bounded by the limits a run that succeeds stays within.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from toolkiln.ast import compute as n
from toolkiln.check.cost.poly import ONE, ZERO, Poly
from toolkiln.check.cost.shapes import (
    DATETIME,
    INTEGER,
    MAX_LIST,
    MAX_TEXT,
    NULL,
    TEXT,
    Shape,
    join,
    list_of,
    record_of,
    text_of,
)
from toolkiln.semantics import builtin_registry as registry
from toolkiln.semantics.builtin_registry import BYTES_PER_OPERATION, NUMBER_BYTES, SLOT_BYTES
from toolkiln.semantics.builtins import BUILTINS, Builtin
from toolkiln.semantics.data_builtins import LIST_BYTES
from toolkiln.semantics.date_builtins import ZONE_WORK
from toolkiln.semantics.js_builtins import PATH_READ_WORK
from toolkiln.semantics.limits import Limits

TEXT_BYTE = Fraction(4, BYTES_PER_OPERATION)  # what a character built costs, at four bytes
SLOT = Fraction(SLOT_BYTES, BYTES_PER_OPERATION)  # what an item of a built list costs
VALUE = Fraction(NUMBER_BYTES, BYTES_PER_OPERATION)  # what a parsed value costs
PIECE, PAIR, GROUP = Fraction(64, 32), Fraction(88, 32), Fraction(248, 32)  # text_builtins, list_builtins


@dataclass(frozen=True)
class Call:
    """A builtin's call as the analysis sees it: the arguments' shapes and expressions, the
    shape its result type allows (`typed`), and the limits."""

    args: list[Shape]
    exprs: tuple[n.Expr, ...]
    typed: Shape
    limits: Limits

    def arg(self, position: int) -> Shape:
        return self.args[position] if position < len(self.args) else NULL

    def literal(self, position: int) -> str | None:
        expr = self.exprs[position] if position < len(self.exprs) else None
        return expr.value if isinstance(expr, n.StringLit) else None


def _first(call: Call) -> Poly:
    total = call.arg(0).size()
    for shape in call.args[1:]:
        total = total + (shape.size() if shape.kind in (TEXT, "any") else ZERO)
    return total


def _all(call: Call) -> Poly:
    total = ZERO
    for shape in call.args:
        total = total + shape.size()
    return total


def _len0(call: Call) -> Poly:
    return call.arg(0).length()


def _sort(call: Call) -> Poly:
    bits = call.limits.max_list_length.bit_length()
    return _len0(call) * (1 + Fraction(bits, 8))


def _flatten(call: Call) -> Poly:
    return _len0(call) + _len0(call) * call.arg(0).item().length()


WORK: dict[str, Callable[[Call], Poly]] = {
    **{name: (lambda call: Poly.const(ZONE_WORK)) for name in ("today", "now", "add_days", "add_months")},
    **{name: (lambda call: Poly.const(ZONE_WORK)) for name in ("start_of_month", "to_zone")},
    "format_date": lambda call: call.arg(1).length(),
    "parse_date": lambda call: call.arg(1).length(),
    "parse_datetime": lambda call: call.arg(1).length() + ZONE_WORK,
    "js_missing": lambda call: (call.arg(1).size()) * PATH_READ_WORK,
    "js_missing_some": lambda call: (call.arg(1).size() + call.arg(2).size()) * PATH_READ_WORK,
    "sort": _sort,
    "group_by": lambda call: _len0(call) * 8,
    "count_if": _len0,
    "unique": lambda call: _len0(call) * 2,
    "flatten": _flatten,
    "range": lambda call: MAX_LIST,  # a run that succeeds builds at most max_list numbers
    "zip": _len0,
    "split": lambda call: _all(call) + call.arg(0).length(),
    "title": lambda call: _len0(call) * Fraction(1, 2),
    **{name: (lambda call: _len0(call) * Fraction(1, 2)) for name in ("camel_case", "snake_case", "kebab_case")},
    **{name: (lambda call: _len0(call) * Fraction(1, 4)) for name in ("slugify", "remove_diacritics")},
    "count_words": lambda call: _len0(call) * Fraction(1, 8),
    "is_json": lambda call: _len0(call) * Fraction(1, 16),
    "pad_left": lambda call: MAX_TEXT * Fraction(1, 64),
    "pad_right": lambda call: MAX_TEXT * Fraction(1, 64),
    "repeat": lambda call: MAX_TEXT * Fraction(1, 64),
    "url_encode": lambda call: _len0(call) * Fraction(1, 2),
    "base64_decode": lambda call: _len0(call) * Fraction(1, 16),
    "count": lambda call: call.arg(0).size() if len(call.args) > 1 else ZERO,
}


def _replaced(call: Call) -> Poly:
    text, new = call.arg(0).length(), call.arg(2).length()
    return text + (text + 1) * new


BUILDS: dict[str, Callable[[Call], Poly]] = {
    **{name: (lambda call: _len0(call) * SLOT) for name in ("sort", "group_by", "unique")},
    "flatten": lambda call: _len0(call) * call.arg(0).item().length() * SLOT,
    "range": lambda call: MAX_LIST * Fraction(NUMBER_BYTES, BYTES_PER_OPERATION),
    "zip": lambda call: _len0(call) * PAIR,
    "split": lambda call: (_len0(call) + 1) * PIECE + _len0(call) * TEXT_BYTE,
    "slice": lambda call: _len0(call) * (TEXT_BYTE if call.arg(0).kind == TEXT else SLOT + TEXT_BYTE),
    "pad_left": lambda call: MAX_TEXT * TEXT_BYTE,
    "pad_right": lambda call: MAX_TEXT * TEXT_BYTE,
    "repeat": lambda call: MAX_TEXT * TEXT_BYTE,
    "url_encode": lambda call: _len0(call) * 12 * Fraction(1, BYTES_PER_OPERATION),
    "base64_encode": lambda call: (_len0(call) * Fraction(16, 3) + 4) * Fraction(1, BYTES_PER_OPERATION),
    "trim": lambda call: _len0(call) * TEXT_BYTE,
    "replace": lambda call: _replaced(call) * TEXT_BYTE,
    "chunk": lambda call: _len0(call) * (SLOT + Fraction(LIST_BYTES, BYTES_PER_OPERATION)),
}

BUILT: dict[str, Callable[[Shape], Poly]] = {
    "js_merge": lambda result: result.length() * SLOT,
    "js_entries": lambda result: result.length() * 3 * SLOT,
    "js_missing": lambda result: result.length() * SLOT,
    "js_missing_some": lambda result: result.length() * SLOT,
    "group_by": lambda result: result.length() * GROUP,
    # data_builtins.data_work: a number's bytes a value (an argument's values in all; a CSV's
    # records and their values, each at most max_list), four bytes a character of the text read.
    "to_json": lambda result: result.length() * (TEXT_BYTE + Fraction(1, 4)),
    "parse_json": lambda result: (result.nodes() + 1) * VALUE + MAX_TEXT * TEXT_BYTE,
    "parse_csv": lambda result: (MAX_LIST * 2 + 1) * VALUE + MAX_TEXT * TEXT_BYTE,
}


def _path_of(call: Call) -> Shape:
    """js_var's value: the part of the data its path names, when the path is written out."""
    path = call.literal(1)
    if path is None:
        found = call.arg(0).deep()
    else:
        found = call.arg(0)
        for key in path.split(".") if path else ():
            found = found.item() if key.isdigit() else join(found.field(key), found.item())
    return join(found, call.arg(2))


def _merged(call: Call) -> Shape:
    operands = call.arg(0)
    return list_of(
        operands.length() + operands.length() * operands.item().length(), join(operands.item().item(), operands.item())
    )


def _group(call: Call) -> Shape:
    values = call.arg(0)
    key = call.arg(1).item() if call.arg(1).kind == "list" else values.item().deep()
    return list_of(values.length(), record_of({"key": key, "items": list_of(values.length(), values.item())}))


def _joined(call: Call) -> Shape:
    values = call.arg(0)
    return text_of(values.length() * (values.item().rendered() + call.arg(1).length()))


def _field(shape: Shape, name: str | None) -> Shape:
    return shape.item() if name is None else shape.field(name)


def _coalesced(call: Call) -> Shape:
    result: Shape = NULL
    for shape in call.args:
        result = join(result, shape)
    return result


def _same(call: Call) -> Shape:
    return call.arg(0)


def _cased(call: Call) -> Shape:
    return text_of(call.arg(0).length() * 3)  # a character's case may take three ('ﬃ'.upper())


RESULT: dict[str, Callable[[Call], Shape]] = {
    "coalesce": _coalesced,
    "js_var": _path_of,
    "js_val": lambda call: call.arg(0).deep(),
    "js_list": lambda call: list_of(call.arg(0).length(), call.arg(0).item()),
    "js_merge": _merged,
    "js_entries": lambda call: list_of(_len0(call), list_of(Poly.const(2), join(call.arg(0).item(), NULL))),
    "js_last": lambda call: join(call.arg(0).item(), call.arg(1)),
    "js_substr": lambda call: text_of(call.arg(0).rendered()),
    "js_cat": lambda call: text_of(call.arg(0).length() * call.arg(0).item().rendered()),
    "js_missing": lambda call: list_of(call.arg(1).length() + 1, call.arg(1).deep()),
    "js_missing_some": lambda call: list_of(call.arg(2).length() + 1, call.arg(2).deep()),
    "first": lambda call: call.arg(0).item(),
    "last": lambda call: call.arg(0).item(),
    "get": lambda call: join(_field(call.arg(0), call.literal(1)), call.arg(2)),
    "sort": _same,
    "unique": _same,
    "slice": _same,
    "chunk": lambda call: list_of(_len0(call), list_of(_len0(call), call.arg(0).item())),
    "group_by": _group,
    "flatten": lambda call: list_of(_flatten(call), call.arg(0).item().item()),
    "zip": lambda call: list_of(_len0(call), list_of(Poly.const(2), join(call.arg(0).item(), call.arg(1).item()))),
    "split": lambda call: list_of(_len0(call) + 1, text_of(_len0(call))),
    "join": _joined,
    "text": lambda call: text_of(call.arg(0).rendered()),
    "lower": _cased,
    "upper": _cased,
    "capitalize": _cased,
    "title": _cased,
    "trim": lambda call: text_of(_len0(call)),
    "replace": lambda call: text_of(_replaced(call)),
    "url_encode": lambda call: text_of(_len0(call) * 12),
    "base64_encode": lambda call: text_of(_len0(call) * Fraction(16, 3) + 4),
    "base64_decode": lambda call: text_of(_len0(call)),
    # A pattern's letter writes at most six characters (`Z`: +05:30; `D`: 31; `dddd` nine of four).
    "format_date": lambda call: text_of(call.arg(1).length() * 6),
    "sha256": lambda call: text_of(Poly.const(64)),
    "md5": lambda call: text_of(Poly.const(32)),
    "days_between": lambda call: INTEGER,
    "weekday": lambda call: INTEGER,
    "js_throw": lambda call: NULL,  # (it never returns)
    **{name: (lambda call: DATETIME) for name in ("add_days", "add_months", "start_of_month")},
}


def result_of(name: str, call: Call) -> Shape:
    model = RESULT.get(name)
    return model(call) if model is not None else call.typed


def charge_of(name: str, call: Call, result: Shape) -> Poly:
    """What the interpreter charges for the call (0 for a builtin that declares no cost)."""
    function = BUILTINS[name]
    if function.work is None and function.builds is None and function.built is None:
        return ZERO
    return ONE + _work(name, function, call) + _builds(name, function, call) + _built(name, function, result)


def _work(name: str, function: Builtin, call: Call) -> Poly:
    work = function.work
    if work is None:
        return ZERO
    if work is registry.first_size:
        return _first(call)
    if work is registry.all_sizes:
        return _all(call)
    if work is registry.constant_work:
        return ONE
    return WORK[name](call)


def _builds(name: str, function: Builtin, call: Call) -> Poly:
    return ZERO if function.builds is None else BUILDS[name](call)


def _built(name: str, function: Builtin, result: Shape) -> Poly:
    if function.built is None:
        return ZERO
    if function.built is registry.result_text_work:
        return result.length() * TEXT_BYTE
    return BUILT[name](result)
