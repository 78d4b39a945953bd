"""Argument checks compiled once from the parameters, run on every call.

They enforce exactly the published JSON Schema (`Tool.parameters`) and convert arguments into
run-time values: int, float (by its shortest repr) and Decimal become exact decimals; ISO 8601
text (or a `datetime.date`, an aware `datetime.datetime`) becomes a date or datetime.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import date, datetime
from decimal import Decimal
from operator import itemgetter
from typing import Any, cast

from toolkiln.ast.types import Type, not_null
from toolkiln.check import ParamInfo
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.interpret.lazy_items import lazy_list
from toolkiln.interpret.plan import SingleScalar
from toolkiln.semantics.dates import parse_iso_date, parse_iso_datetime
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import EXTRA_DIGITS, LOWEST_DIGIT, from_float, from_float_fast
from toolkiln.semantics.values import SHORT_DECIMAL_DIGITS, SHORT_DECIMAL_SIZE, value_reader

Converter = Callable[[Any], Any]
_MISSING = object()
_SCALARS = frozenset({"number", "integer", "string", "boolean", "date", "datetime"})
_INF = float("inf")


class ArgumentError(RunError):
    def __init__(
        self,
        message: str,
        hint: str | None = None,
        *,
        input: str | None = None,  # noqa: A002 - as RunError
        expected: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(codes.INVALID_ARGUMENT.code, message, hint=hint, input=input, expected=expected)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def converter(type_: Type, name: str, limits: Limits) -> Converter:
    """A function that checks one argument against `type_` and converts it."""
    return cast(Converter, _converter(type_, name, limits))


def _converter(type_: Type, name: str, limits: Limits) -> Callable[..., Any]:
    """A scalar's converter `fn(value)`, or a container's `fn(value, left=None)`, where `left`
    holds how many more items and fields the argument may hold in all (Limits.max_operations,
    when not given): data that shares one list many times over is read no further than that."""
    if type_.nullable:  # `string?`: null, or what the type without `?` accepts
        present = _converter(not_null(type_), name, limits)
        return lambda value, *left: None if value is None else present(value, *left)
    if type_.name == "object" and type_.fields is not None:
        return _record(type_, name, limits)
    build = _BUILDERS.get(type_.name, _anything)
    return build(type_, name, limits)


def _budget(limits: Limits) -> int:
    """The values one argument may hold in all (at least max_list_length: a flat list or
    object is bounded by that alone)."""
    return max(limits.max_operations, limits.max_list_length)


def _reader(limits: Limits) -> Callable[..., Any]:
    return value_reader(limits.max_number_digits, limits.max_list_length, limits.max_string_length, _budget(limits))


def _number(type_: Type, name: str, limits: Limits) -> Converter:
    max_digits = limits.max_number_digits
    integer_only = type_.name == "integer"
    float_low, float_bound = _finite_within(max_digits)
    int_bound = 10**max_digits
    int_low = -int_bound
    small_bound = min(_SMALL_WHOLE, int_bound)
    lowest = LOWEST_DIGIT + SHORT_DECIMAL_DIGITS  # a short Decimal's top digit above it: no digit below the floor
    unusual = _UnusualNumber(name, limits, integer_only)

    def number(value: Any) -> Decimal:
        kind = type(value)
        if kind is int:
            if 0 <= value < small_bound:
                small: Decimal = _SMALL_DECIMALS[value]
                return small
            if int_low < value < int_bound:  # few enough digits
                return Decimal(value)
        elif kind is float and float_low < value < float_bound:  # finite, few enough digits
            if integer_only and not value.is_integer():
                raise ArgumentError(f"argument `{name}` must be a whole number, not {value}")
            return from_float_fast(value)
        elif (
            kind is Decimal
            and value.is_finite()
            and value.__sizeof__() == SHORT_DECIMAL_SIZE
            and lowest < value.adjusted() < max_digits
        ):  # <= 76 digits, none below the floor: within bounds
            if integer_only and value != value.to_integral_value():
                raise ArgumentError(f"argument `{name}` must be a whole number, not {value}")
            short: Decimal = value
            return short
        return unusual(value, number)

    return number


class _UnusualNumber:
    """What a number converter does with anything but a small int, a finite float or a short
    Decimal: converts it with every check, or says what is wrong with it."""

    def __init__(self, name: str, limits: Limits, integer_only: bool) -> None:
        self.name, self.max_digits, self.integer_only = name, limits.max_number_digits, integer_only
        self.exact = limits.bounds.create_decimal  # refuses what is out of bounds (see make_bounds)

    def __call__(self, value: Any, number: Converter) -> Decimal:
        kind, name = type(value), self.name
        if kind is Decimal and value.is_finite():
            try:
                return self.whole(self.exact(value), value)  # digits and exponent within bounds (make_bounds)
            except ArithmeticError:
                raise ArgumentError(_out_of_bounds(name, value, self.max_digits)) from None
        if kind is int:  # (whole numbers of too many digits are never converted)
            raise ArgumentError(f"argument `{name}` has more than {self.max_digits} digits")
        if kind is float:
            return self.within(self.float(value), value)
        if kind is Decimal:
            raise ArgumentError(f"argument `{name}` must be a finite number, not {value}")
        if isinstance(value, int) and not isinstance(value, bool):
            return self.within(Decimal(int.__index__(value)), value)  # an int subclass (an IntEnum member), by value
        if isinstance(value, Decimal):  # a Decimal subclass, by value
            result: Decimal = number(Decimal(value))
            return result
        raise ArgumentError(f"argument `{name}` must be a number, not {_describe(value)}")

    def float(self, value: float) -> Decimal:
        if value != value or value in (_INF, -_INF):
            raise ArgumentError(f"argument `{self.name}` must be a finite number, not {value}")
        if self.integer_only and not value.is_integer():
            raise ArgumentError(f"argument `{self.name}` must be a whole number, not {value}")
        return from_float(value)

    def within(self, result: Decimal, value: Any) -> Decimal:
        if result and result.adjusted() >= self.max_digits:
            raise ArgumentError(f"argument `{self.name}` has more than {self.max_digits} digits")
        return self.whole(result, value)

    def whole(self, result: Decimal, value: Any) -> Decimal:
        if self.integer_only and result != result.to_integral_value():
            raise ArgumentError(f"argument `{self.name}` must be a whole number, not {value}")
        return result


def _string(type_: Type, name: str, limits: Limits) -> Converter:
    max_text = limits.max_string_length

    def string(value: object) -> str:
        if type(value) is not str:
            if not isinstance(value, str):
                raise ArgumentError(f"argument `{name}` must be a string, not {_describe(value)}")
            value = str.__str__(value)  # a str subclass such as a StrEnum member
        if len(value) > max_text:
            raise ArgumentError(f"argument `{name}` is longer than {max_text:,} characters")
        return value

    return string


def _boolean(type_: Type, name: str, limits: Limits) -> Converter:
    def boolean(value: Any) -> bool:
        if type(value) is not bool:
            raise ArgumentError(f"argument `{name}` must be true or false, not {_describe(value)}")
        return value

    return boolean


def _day(type_: Type, name: str, limits: Limits) -> Converter:
    def day(value: Any) -> date:
        if type(value) is date:
            return value
        if isinstance(value, str):
            parsed = parse_iso_date(str.__str__(value)[:20])
            if parsed is not None:
                return parsed
        raise ArgumentError(
            f"argument `{name}` must be a date, not {_describe(value)}", hint="ISO 8601: YYYY-MM-DD, as 2026-01-31"
        )

    return day


def _moment(type_: Type, name: str, limits: Limits) -> Converter:
    def moment(value: Any) -> datetime:
        if type(value) is datetime and value.utcoffset() is not None:
            return value
        if isinstance(value, str):
            parsed = parse_iso_datetime(str.__str__(value)[:40])
            if parsed is not None:
                return parsed
        raise ArgumentError(
            f"argument `{name}` must be a datetime with an offset from UTC, not {_describe(value)}",
            hint="ISO 8601 with its offset, as 2026-01-31T09:30:00Z or 2026-01-31T10:30:00+01:00",
        )

    return moment


class _Counter:
    """What a container of one argument may still hold: `left` (a fresh budget if None) less a
    container's `size` items or fields; E0508 past max_list_length for the one container, or
    past the budget for the argument."""

    def __init__(self, name: str, limits: Limits) -> None:
        self.name, self.max_len, self.budget = name, limits.max_list_length, _budget(limits)

    def __call__(self, size: int, left: list[int] | None, what: str) -> list[int]:
        if size > self.max_len:
            raise ArgumentError(f"argument `{self.name}` has more than {self.max_len:,} {what}")
        if left is None:
            left = [self.budget]
        left[0] -= size
        if left[0] < 0:
            raise ArgumentError(f"argument `{self.name}` holds more than {self.budget:,} values in all")
        return left


def _array(type_: Type, name: str, limits: Limits) -> Callable[..., Any]:
    counted = _Counter(name, limits)
    scalar_items = type_.item_type().name in _SCALARS
    item_converter = _converter(type_.item_type(), f"{name}[]", limits)

    def array(value: Any, left: list[int] | None = None) -> list[Any]:
        if type(value) not in (list, tuple):
            raise ArgumentError(f"argument `{name}` must be a list, not {_describe(value)}")
        left = counted(len(value), left, "items")
        if scalar_items:
            return [item_converter(item) for item in value]
        return [item_converter(item, left) for item in value]

    return array


def _object(type_: Type, name: str, limits: Limits) -> Callable[..., Any]:
    read, max_len = _reader(limits), limits.max_list_length

    def obj(value: Any, left: list[int] | None = None) -> dict[str, Any]:
        if type(value) is dict:  # the usual case, without the slower ABC test
            converted: dict[str, Any] = read(value, left)  # (which builds a new dict: no copy needed)
        elif not isinstance(value, Mapping):
            raise ArgumentError(f"argument `{name}` must be an object, not {_describe(value)}")
        else:
            if len(value) > max_len:
                raise ArgumentError(f"argument `{name}` has more than {max_len:,} fields")
            converted = read(dict(value), left)
        return converted

    return obj


def _float_data(limits: Limits) -> Callable[..., Any]:
    read = value_reader(
        limits.max_number_digits, limits.max_list_length, limits.max_string_length, _budget(limits), floats=True
    )
    return lambda value, left=None: read(value, left)


def _anything(type_: Type, name: str, limits: Limits) -> Callable[..., Any]:
    read = _reader(limits)

    def anything(value: Any, left: list[int] | None = None) -> Any:
        return read(value, left)

    return anything


def _record(type_: Type, name: str, limits: Limits) -> Callable[..., Any]:
    """An object with the record's fields, each converted by its type's converter (once: not
    read as data first); a nullable field may be missing (it reads as null). Other fields are
    kept, read as data."""
    read, counted = _reader(limits), _Counter(name, limits)
    # field -> (converter, whether it takes only the value, whether it may be missing)
    fields = {
        key: (
            _converter(field, f"{name}.{key}", limits),
            field.name in _SCALARS,
            field.nullable or field.name == "any",
        )
        for key, field in type_.fields or ()
    }

    def record(value: Any, left: list[int] | None = None) -> dict[str, Any]:
        if type(value) is not dict:
            if not isinstance(value, Mapping):
                raise ArgumentError(f"argument `{name}` must be an object, not {_describe(value)}")
            value = dict(value)
        left = counted(len(value), left, "fields")
        converted: dict[str, Any] = {}
        found = 0
        for key, item in value.items():
            field = fields.get(key) if type(key) is str else None
            if field is None:
                converted[key] = read({key: item}, left)[key]  # (refuses a key that is not a string)
            else:
                convert, scalar, _ = field
                converted[key] = convert(item) if scalar else convert(item, left)
                found += 1
        if found < len(fields):
            _missing_fields(converted, fields, name)
        return converted

    return record


def _missing_fields(converted: dict[str, Any], fields: Mapping[str, tuple[Any, bool, bool]], name: str) -> None:
    """Null for each nullable field the object leaves out; E0508 for a required one."""
    for key, (_, _, nullable) in fields.items():
        if key in converted:
            continue
        if not nullable:
            close = _close_matches(key, [str(k) for k in converted])
            raise ArgumentError(
                f"argument `{name}` has no field `{key}`",
                hint=f"did you mean `{close[0]}`?" if close else f"its fields: {', '.join(fields)}",
            )
        converted[key] = None


_BUILDERS: dict[str, Callable[[Type, str, Limits], Callable[..., Any]]] = {
    "number": _number,
    "integer": _number,
    "string": _string,
    "boolean": _boolean,
    "date": _day,
    "datetime": _moment,
    "array": _array,
    "object": _object,
}


# Counts, quantities and days are mostly small: their Decimals are made once (Decimal(250)
# costs four times the lookup). Decimals are immutable, so sharing them is safe.
_SMALL_WHOLE = 1024
_SMALL_DECIMALS = tuple(Decimal(whole) for whole in range(_SMALL_WHOLE))


class _BadDefault:
    __slots__ = ("error",)

    def __init__(self, error: RunError) -> None:
        self.error = error


def _out_of_bounds(name: str, value: Decimal, max_digits: int) -> str:
    if value and value.adjusted() >= max_digits:
        return f"argument `{name}` has more than {max_digits} digits"
    digits = max_digits + EXTRA_DIGITS
    return f"argument `{name}` has more than {digits:,} significant digits, or digits below 1E{LOWEST_DIGIT}"


def compile_binder(
    params: tuple[ParamInfo, ...],
    slots: dict[str, int],
    frame_size: int,
    limits: Limits,
    defaults: dict[str, Any],
    bad_defaults: Mapping[str, RunError] | None = None,
    lazy: Collection[str] = (),
    floats: bool = False,
) -> Callable[[Mapping[str, Any] | None], list[Any]]:
    """A function that checks `args`, converts them and returns a new frame of `frame_size`
    slots that holds them (slot 0 and the variables' slots None); a default in `bad_defaults`
    (one that fails its parameter's check) is refused when it is needed. The lists named in
    `lazy` are checked whole and converted as their fields are read (see lazy_items.py).
    `floats`: every parameter is `any`, its floats kept as floats (float_domain.py)."""
    for param_name, error in (bad_defaults or {}).items():
        defaults = {**defaults, param_name: _BadDefault(error)}

    def convert(p: ParamInfo) -> Converter:
        return _float_data(limits) if floats else binding(p, limits, p.name in lazy)

    plan = tuple((p.name, slots[p.name], convert(p), defaults.get(p.name, _MISSING)) for p in params)
    bind_each = _binder_of_each(params, plan, defaults)

    def bind_slowly(args: Mapping[str, Any] | None) -> list[Any]:
        frame = [None] * frame_size
        bind_each(args, frame)
        return frame

    # The usual call gives every parameter, in slots 1..n: one C-level read puts them in a new
    # frame, converted there in place. Anything else (a key missing or extra, a value refused, a
    # null meaning the default) goes through bind_each, which finds the same values or says
    # precisely what is wrong.
    count = len(params)
    if not count or [slots[p.name] for p in params] != list(range(1, count + 1)):
        return bind_slowly
    given_values = itemgetter(*(p.name for p in params)) if count > 1 else lambda args: (args[params[0].name],)
    conversions = tuple((slot, convert) for _, slot, convert, _ in plan)
    variables = [None] * (frame_size - count - 1)

    def bind(args: Mapping[str, Any] | None) -> list[Any]:
        if type(args) is dict and len(args) == count:
            try:
                frame = [None, *given_values(args), *variables]
                for slot, convert in conversions:
                    frame[slot] = convert(frame[slot])
                return frame
            except (KeyError, RunError):
                pass
        return bind_slowly(args)

    return bind


def _binder_of_each(
    params: tuple[ParamInfo, ...], plan: tuple[tuple[str, int, Converter, Any], ...], defaults: Mapping[str, Any]
) -> Callable[[Mapping[str, Any] | None, list[Any]], None]:
    """`bind_each(args, frame)`: one parameter at a time, each refusal said precisely."""
    # An explicit null for an optional parameter that cannot hold null means "not given": what
    # function-calling models send for an argument they leave out.
    null_is_missing = frozenset(p.name for p in params if p.name in defaults and not p.type.nullable)
    wanted = {p.name: f"pass `{p.name}`: {p.type}" + (f", {p.description}" if p.description else "") for p in params}
    names = frozenset(p.name for p in params)

    def bind_each(args: Mapping[str, Any] | None, frame: list[Any]) -> None:
        if type(args) is not dict:
            if args is None:
                args = {}
            elif not isinstance(args, Mapping):
                raise ArgumentError(f"arguments must be an object of name -> value, not {_describe(args)}")
        given = 0
        for name, slot, convert, default in plan:
            value = args.get(name, _MISSING)
            if value is None and name in null_is_missing:
                given += 1  # a key of `args`, which takes the default
                value = _MISSING
            if value is _MISSING:
                frame[slot] = _default_of(name, default, args, names, wanted)
                continue
            given += 1
            try:
                frame[slot] = convert(value)
            except ArgumentError:
                raise
            except RunError as error:
                raise ArgumentError(f"argument `{name}`: {error.message}") from None
        if len(args) > given:  # some key is not a parameter
            raise _unexpected(args, names)

    return bind_each


def _default_of(name: str, default: Any, args: Mapping[str, Any], names: frozenset[str], wanted: dict[str, str]) -> Any:
    """The value of a parameter not given: its default, or the error that it is missing."""
    if default is _MISSING:
        raise _missing(name, args, names, wanted[name])
    if type(default) is _BadDefault:
        raise default.error
    return default


def _unexpected(args: Mapping[str, Any], names: frozenset[str]) -> ArgumentError:
    extra = sorted(str(key) for key in args if key not in names)[0]
    close = _close_matches(extra, list(names))
    return ArgumentError(
        f"unexpected argument `{extra}`",
        hint=f"did you mean `{close[0]}`?" if close else f"parameters: {', '.join(sorted(names)) or 'none'}",
        input=extra,
        expected=tuple(sorted(names)),
    )


def binding(param: ParamInfo, limits: Limits, lazy: bool) -> Converter:
    """What the binder calls on `param`'s value: its converter, or for a list whose fields are
    read lazily (lazy_items.py) the check that binds it as given."""
    eager = converter(param.type, param.name, limits)
    return lazy_list(param.type, limits, eager) if lazy else eager


def _missing(name: str, args: Mapping[str, Any], names: frozenset[str], wanted: str) -> ArgumentError:
    """A required argument not given; when a given key is a misspelling of it (`prise` for
    `price`), the error names that key: it is what to fix."""
    extras = [str(key) for key in args if key not in names]
    close = _close_matches(name, extras)
    if close:
        return ArgumentError(
            f"missing argument `{name}`; `{close[0]}` was given: did you mean `{name}`?",
            hint=f"rename `{close[0]}` to `{name}`",
            input=close[0],
            expected=tuple(sorted(names)),
        )
    return ArgumentError(f"missing argument `{name}`", hint=wanted, input=None, expected=tuple(sorted(names)))


def _finite_within(max_digits: int) -> tuple[float, float]:
    """The open interval of floats that are finite and have fewer whole digits than the limit."""
    bound = 10.0 ** min(max_digits, 308)
    return -bound, bound


def single_scalar(params: tuple[ParamInfo, ...], limits: Limits) -> SingleScalar | None:
    """For a program whose one parameter is a number, string or boolean (so in slot 1): what
    a runner needs to bind the usual call `{name: value}` inline; anything else goes through
    `compile_binder`'s bind."""
    if len(params) != 1 or params[0].type.name not in _SCALARS:
        return None
    if not params[0].required and not params[0].type.nullable:
        return None  # a null for it means its default: the binder knows it
    param = params[0]
    direct = _finite_within(limits.max_number_digits) if param.type.name == "number" else (_INF, -_INF)
    return SingleScalar(param.name, converter(param.type, param.name, limits), direct)


def _close_matches(word: str, options: list[str]) -> list[str]:
    """The option closest to a misspelt `word` (a list of at most one), for a "did you mean"."""
    import difflib  # (only for a mistaken argument: not loaded by every run)

    return difflib.get_close_matches(word, options, n=1)
