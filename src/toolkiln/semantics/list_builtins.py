"""List builtins: sorting, grouping, counting, unique items, first and last, flattening, ranges
and zipping. Every list they build is sized before it is built, and their work charged
(docs/budgets.md).

The language has no functions to pass, so a key is a field name (`sort(invoices, "due")`) or
a list of keys, one per value, written as a comprehension over the same list
(`sort(words, [len(w) for w in words])`): an expression computes each key, and the checker
types it."""

from __future__ import annotations

from datetime import date, datetime
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import Any

from toolkiln.ast.types import ANY, ARRAY, BOOLEAN, NUMBER, STRING, Type, array_of, join, record_of
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import NUMBER_BYTES, SLOT_BYTES, Arg, builtin, fault, list_built, list_work
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.values import type_name

L = Arg("values", (ARRAY,))


def item_type(types: list[Type]) -> Type:
    return types[0].item_type() if types and types[0].name == "array" else ANY


def _same_as_first(types: list[Type]) -> Type:
    return types[0] if types else ARRAY


def _list_within(limits: Limits, length: int, what: str) -> None:
    """E0505 before a list of `length` items is built, if it would be over the limit."""
    if length > limits.max_list_length:
        raise fault(codes.LIST_TOO_LONG, f"{what} would make {length:,} items, over {limits.max_list_length:,}")


# What a new list in a list takes: the list (56 bytes, 8 a slot) and its slot in the outer one.
_PAIR_BYTES = SLOT_BYTES + 56 + 2 * SLOT_BYTES
# What a group of group_by takes: its record (a dict of two fields), its list and its slot.
_GROUP_BYTES = SLOT_BYTES + 184 + 56


def _new_list(limits: Limits, values: list[Any], *rest: Any) -> int:
    """`builds` of a builtin that returns a new list of at most its first argument's items."""
    return list_built(limits, len(values))


def _sort_work(values: list[Any], key: str | None = None) -> int:
    # About n log2 n comparisons, each about an eighth of the cost of an addition in `sum`
    # (measured: 100,000 numbers sort in 2 to 3 times the time they add up in).
    return len(values) + len(values) * len(values).bit_length() // 8


_SORTABLE = frozenset({Decimal, str, date, datetime})
KEY = Arg("key", (STRING, ARRAY), optional=True)


@builtin(
    "sort",
    (L, KEY),
    _same_as_first,
    "The items in ascending order, equal ones in the order they came (a stable sort). The "
    "items are all numbers, all strings, all dates or all datetimes (by instant); or sorted by a "
    'key: the field named by key, sort(invoices, "due"), or a list of one key per item, '
    "sort(words, [len(w) for w in words]), whose keys are all of one of those kinds. Strings sort "
    "by Unicode code point; for descending order, take the items from the end.",
    pure=True,
    work=_sort_work,
    builds=_new_list,
)
def _sort(limits: Limits, values: list[Any], key: str | list[Any] | None = None) -> list[Any]:
    keys = values if key is None else _keys(values, key, "sort")
    kinds = {type(k) for k in keys}
    if len(kinds) > 1 or not kinds <= _SORTABLE:
        found = ", ".join(sorted({type_name(k) for k in keys}))
        what = "sort" if key is None else "sort by a key"
        raise fault(codes.RUNTIME_TYPE, f"{what} needs all numbers, strings, dates or datetimes, got {found}")
    if key is None:
        return sorted(values)
    order = sorted(range(len(values)), key=keys.__getitem__)
    return [values[i] for i in order]


def _keys(values: list[Any], key: str | list[Any], what: str) -> list[Any]:
    """The key of each value: its field `key`, or the item of the list `key` at its position."""
    if isinstance(key, list):
        if len(key) != len(values):
            raise fault(
                codes.INVALID_OPERATION,
                f"{what} needs one key per item: {len(values):,} items, {len(key):,} keys",
                hint=f"compute the keys from the same list: {what}(xs, [x.field for x in xs])",
            )
        return key
    return [_field(value, key, what) for value in values]


def _field(value: Any, key: str, what: str) -> Any:
    if type(value) is not dict:
        raise fault(codes.RUNTIME_TYPE, f"{what} by a field needs objects, got {type_name(value)}")
    if key not in value:
        raise fault(codes.MISSING_ITEM, f"an object to {what} has no field {key!r}")
    return value[key]


def _group_type(types: list[Type]) -> Type:
    key = item_type(types[1:]) if len(types) > 1 and types[1].name == "array" else ANY
    return array_of(record_of((("key", key), ("items", _same_as_first(types)))))


@builtin(
    "group_by",
    (L, Arg("key", (STRING, ARRAY))),
    _group_type,
    'The items in groups of equal keys, as records {"key": k, "items": [...]}, groups in the '
    "order their first item came and items in their order: the key is the field it names, "
    'group_by(sales, "region"), or one key per item, group_by(xs, [x.total > 100 for x in xs]). '
    "Keys are numbers, strings, booleans or null, equal as == says. Iterate the groups with a "
    'comprehension: [{"region": g.key, "total": sum(s.amount for s in g.items)} for g in '
    'group_by(sales, "region")].',
    pure=True,
    # Hashing a key and filing the item: about 8 additions (a 100,000-item group_by of distinct
    # numbers took 8 to 10 times a sum of them on this machine, loaded).
    work=lambda values, key: 8 * len(values),
    # The items' slots, then each group once they are known.
    builds=_new_list,
    built=lambda groups: list_work(len(groups), _GROUP_BYTES),
)
def _group_by(limits: Limits, values: list[Any], key: str | list[Any]) -> list[dict[str, Any]]:
    groups: dict[tuple[type, Any], list[Any]] = {}  # (type, key) -> items, in order of first item
    for value, group_key in zip(values, _keys(values, key, "group_by")):
        kind = type(group_key)
        if kind is list or kind is dict:
            raise fault(
                codes.RUNTIME_TYPE, f"group_by keys are numbers, strings, booleans or null, not {type_name(group_key)}"
            )
        # The type too: Python finds True == Decimal(1).
        items = groups.get((kind, group_key))
        if items is None:
            groups[kind, group_key] = [value]
        else:
            items.append(value)
    return [{"key": group_key, "items": items} for (_, group_key), items in groups.items()]


@builtin(
    "count_if",
    (Arg("conditions", (array_of(BOOLEAN),)),),
    NUMBER,
    "Number of true items: count_if(i.total > 100 for i in invoices) (a comprehension computes "
    "one condition per item; there are no functions to pass as a predicate).",
    pure=True,
    work=lambda conditions: len(conditions),
)
def _count_if(limits: Limits, conditions: list[Any]) -> Decimal:
    count = 0
    for condition in conditions:
        if type(condition) is not bool:
            raise fault(codes.RUNTIME_TYPE, f"count_if needs booleans, got {type_name(condition)}")
        count += condition
    return Decimal(count)


@builtin(
    "unique",
    (L,),
    _same_as_first,
    "The items without repeats, each where it first came: unique([3, 1, 3, 2, 1]) = [3, 1, 2]. "
    "Items are numbers, strings, booleans or null, the same as `==` says (1 and 1.0 are; 1 and "
    'true, or 1 and "1", are not).',
    pure=True,
    work=lambda values: 2 * len(values),  # hashing a number costs about two additions
    builds=_new_list,
)
def _unique(limits: Limits, values: list[Any]) -> list[Any]:
    seen: set[tuple[type, Any]] = set()
    kept = []
    for value in values:
        kind = type(value)
        if kind is list or kind is dict:
            # Hashing nested values would read them all, uncharged, on every call.
            raise fault(codes.RUNTIME_TYPE, f"unique needs numbers, strings, booleans or null, got {type_name(value)}")
        identity = (kind, value)  # the type too: Python finds True == Decimal(1)
        if identity not in seen:
            seen.add(identity)
            kept.append(value)
    return kept


def _first_or_last(values: list[Any], position: int, what: str) -> Any:
    if not values:
        raise fault(codes.INVALID_OPERATION, f"{what} of an empty list")
    return values[position]


@builtin("first", (L,), item_type, "The first item of a non-empty list.", pure=True)
def _first(limits: Limits, values: list[Any]) -> Any:
    return _first_or_last(values, 0, "first")


@builtin("last", (L,), item_type, "The last item of a non-empty list.", pure=True)
def _last(limits: Limits, values: list[Any]) -> Any:
    return _first_or_last(values, -1, "last")


def _flatten_work(values: list[Any]) -> int:
    return len(values) + sum(len(value) for value in values if type(value) is list)


@builtin(
    "flatten",
    (Arg("values", (array_of(ARRAY),)),),
    lambda types: array_of(item_type([item_type(types)])),
    "The items of a list of lists, in one list (one level): flatten([[1, 2], [], [3]]) = [1, 2, 3].",
    pure=True,
    work=_flatten_work,
    builds=lambda limits, values: list_built(limits, _flatten_work(values) - len(values)),
)
def _flatten(limits: Limits, values: list[Any]) -> list[Any]:
    for value in values:
        if type(value) is not list:
            raise fault(codes.RUNTIME_TYPE, f"flatten needs a list of lists, got an item that is {type_name(value)}")
    _list_within(limits, _flatten_work(values) - len(values), "flatten")
    return [item for value in values for item in value]


# Subtracts any two numbers exactly (no rounding, no overflow), to size a range before it is made.
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _range_bounds(first: Decimal, second: Decimal | None) -> tuple[Decimal, Decimal]:
    return (Decimal(0), first) if second is None else (first, second)


def _range_work(first: Decimal, second: Decimal | None = None) -> int:
    """How many numbers the range holds (at most 2**62, enough to know it is too many)."""
    start, end = _range_bounds(first, second)
    return int(min(_EXACT.subtract(end, start), Decimal(1 << 62))) if end > start else 0


@builtin(
    "range",
    (Arg("start_or_count", (NUMBER,)), Arg("end", (NUMBER,), optional=True)),
    array_of(NUMBER),
    "Whole numbers counting up: range(3) = [0, 1, 2]; range(start, end) from start up to (not "
    "including) end: range(2, 5) = [2, 3, 4]. At most max_list_length of them.",
    pure=True,
    work=_range_work,
    builds=lambda limits, *bounds: list_built(limits, _range_work(*bounds), NUMBER_BYTES),
)
def _range(limits: Limits, first: Decimal, second: Decimal | None = None) -> list[Decimal]:
    start, end = _range_bounds(first, second)
    for bound in (start, end):
        if bound != bound.to_integral_value():
            raise fault(codes.INVALID_OPERATION, f"range needs whole numbers, not {bound}")
    count = _range_work(start, end)
    _list_within(limits, count, "range")
    low = int(start)
    return [Decimal(i) for i in range(low, low + count)]


@builtin(
    "zip",
    (Arg("first", (ARRAY,)), Arg("second", (ARRAY,))),
    lambda types: array_of(array_of(join(item_type(types), item_type(types[1:])))),
    "Pairs of the items at the same positions, as far as the shorter list goes: "
    'zip([1, 2, 3], ["a", "b"]) = [[1, "a"], [2, "b"]].',
    pure=True,
    work=lambda first, second: min(len(first), len(second)),
    builds=lambda limits, first, second: list_built(limits, min(len(first), len(second)), _PAIR_BYTES),
)
def _zip(limits: Limits, first: list[Any], second: list[Any]) -> list[list[Any]]:
    return [[a, b] for a, b in zip(first, second)]
