"""How a builtin is declared: its signature, its implementation and its cost, registered once
in BUILTINS by the `builtin` decorator (the modules of builtins register theirs on import, and
BUILTINS imports a module when one of its names is first looked up)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import field
from decimal import Decimal
from importlib import import_module
from typing import Any

from toolkiln.ast.records import record, set_field
from toolkiln.ast.types import Type
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.limits import Limits


@record()
class Arg:
    name: str
    accepts: tuple[Type, ...]
    optional: bool = False

    def __init__(self, name: str, accepts: tuple[Type, ...], optional: bool = False) -> None:
        set_field(self, "name", name)
        set_field(self, "accepts", accepts)
        set_field(self, "optional", optional)


@record()
class Builtin:
    name: str
    args: tuple[Arg, ...]
    result: Callable[[list[Type]], Type]
    impl: Callable[..., Any]
    doc: str
    variadic: bool = False
    # Whether a call with the same arguments always gives the same result and does nothing
    # else: only pure builtins are folded at compile time (a `today()` must not be).
    pure: bool = field(kw_only=True)
    # What a call costs beyond one operation, from its arguments, when that grows with them
    # (items of a list, characters of a text): the interpreter charges it to the operation
    # budget and looks at the clock before calling. None: a constant cost.
    work: Callable[..., int] | None = field(default=None, kw_only=True)
    # Whether it reads the run's clock (`today()`, `now()`): then it is called as
    # impl(limits, instant, *args), `instant` being what the run's clock said (read once a run).
    clocked: bool = field(default=False, kw_only=True)
    # What it builds (a text, a list), in operations (see BYTES_PER_OPERATION), from
    # (limits, *args): charged with `work`, before the call. At most what the limits let it
    # build: a result over them is refused before it is built.
    builds: Callable[..., int] | None = field(default=None, kw_only=True)
    # For a builtin whose result's size is known only once built (`join`, `upper`: piece by
    # piece, each within max_string_length): what the result takes, in operations, charged
    # as soon as it is built, before the run goes on.
    built: Callable[[Any], int] | None = field(default=None, kw_only=True)

    def __init__(
        self,
        name: str,
        args: tuple[Arg, ...],
        result: Callable[[list[Type]], Type],
        impl: Callable[..., Any],
        doc: str,
        variadic: bool = False,
        *,
        pure: bool,
        work: Callable[..., int] | None = None,
        clocked: bool = False,
        builds: Callable[..., int] | None = None,
        built: Callable[[Any], int] | None = None,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "args", args)
        set_field(self, "result", result)
        set_field(self, "impl", impl)
        set_field(self, "doc", doc)
        set_field(self, "variadic", variadic)
        set_field(self, "pure", pure)
        set_field(self, "work", work)
        set_field(self, "clocked", clocked)
        set_field(self, "builds", builds)
        set_field(self, "built", built)

    @property
    def signature(self) -> str:
        parts = [f"{a.name}?" if a.optional else a.name for a in self.args]
        if self.variadic:
            parts[-1] = f"...{parts[-1]}"
        return f"{self.name}({', '.join(parts)})"

    def describe(self) -> dict[str, Any]:
        """The builtin as plain JSON, as `toolkiln builtins --json` lists it."""
        return {
            "name": self.name,
            "signature": self.signature,
            "arguments": [
                {"name": a.name, "types": [str(t) for t in a.accepts], "optional": a.optional} for a in self.args
            ],
            "variadic": self.variadic,
            "pure": self.pure,
            "doc": self.doc,
        }

    def arity_ok(self, count: int) -> bool:
        required = sum(1 for a in self.args if not a.optional)
        return count >= required and (self.variadic or count <= len(self.args))

    def arg_for(self, position: int) -> Arg:
        return self.args[min(position, len(self.args) - 1)]


# Which module of toolkiln.semantics registers each builtin, in the order `toolkiln builtins`
# lists them. A command imports only the modules whose builtins its tool calls (their tables and
# the dates, zones and random sources behind them were 10 ms of every start-up, issue 34).
# tests/unit/semantics/test_builtin_table.py checks it against what each module registers.
HOMES = {
    "word_builtins": "slugify camel_case snake_case kebab_case truncate count_words remove_diacritics",
    "data_builtins": "is_json parse_json to_json is_uuid chunk parse_csv",
    "date_builtins": "today now add_days add_months days_between weekday start_of_month to_date to_zone "
    "format_date parse_date parse_datetime",
    "js_builtins": "truthy to_number js_equals js_strict_equals js_compare js_add js_add_f64 js_mul js_mul_f64 "
    "js_sub js_sub_f64 js_div js_div_f64 js_mod js_mod_f64 js_max js_min js_cat js_substr js_in js_merge js_list "
    "js_entries js_last js_all js_length js_throw js_error_data js_var js_val js_exists js_missing js_missing_some",
    "js_float": "js_f64",
    "list_builtins": "sort group_by count_if unique first last flatten range zip",
    "random_builtins": "uuid random random_int",
    "text_builtins": "split slice capitalize title pad_left pad_right repeat url_encode base64_encode base64_decode "
    "sha256 md5 is_email is_url",
    "builtins": "abs round floor ceil sqrt clamp min max sum avg number len count any all contains get coalesce "
    "lower upper trim starts_with ends_with replace join text",
}


class BuiltinTable(MutableMapping[str, Builtin]):
    """Every builtin by name. Names and membership need no import; looking a builtin up
    imports the module that registers it, once (the import system serializes two threads)."""

    def __init__(self, homes: Mapping[str, str]) -> None:
        self._home = {name: f"toolkiln.semantics.{module}" for module, names in homes.items() for name in names.split()}
        self._registered: dict[str, Builtin] = {}

    def __getitem__(self, name: str) -> Builtin:
        found = self._registered.get(name)
        if found is None:
            import_module(self._home[name])  # (KeyError, as a dict's, for a name that is no builtin)
            found = self._registered[name]
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._home

    def __iter__(self) -> Iterator[str]:
        return iter(self._home)

    def __len__(self) -> int:
        return len(self._home)

    def __setitem__(self, name: str, function: Builtin) -> None:
        """Put a builtin in place by hand (a test swaps or adds one): no module to import."""
        self._home.setdefault(name, "")
        self._registered[name] = function

    def __delitem__(self, name: str) -> None:
        del self._registered[name]
        if not self._home[name]:
            del self._home[name]

    def register(self, function: Builtin) -> None:
        if function.name not in self._home:
            raise LookupError(f"builtin {function.name!r} is not in HOMES (semantics/builtin_registry.py)")
        self._registered[function.name] = function


BUILTINS = BuiltinTable(HOMES)


def builtin(
    name: str,
    args: tuple[Arg, ...],
    result: Type | Callable[[list[Type]], Type],
    doc: str,
    variadic: bool = False,
    *,
    pure: bool,
    work: Callable[..., int] | None = None,
    clocked: bool = False,
    builds: Callable[..., int] | None = None,
    built: Callable[[Any], int] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a builtin; `pure` must be said (see Builtin.pure), `work` when its cost grows
    with its arguments (see Builtin.work), `clocked` when it reads the clock (Builtin.clocked),
    `builds` or `built` when it builds a text or a list (Builtin.builds, Builtin.built)."""
    result_fn = result if callable(result) else (lambda _types, _r=result: _r)

    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        costs = {"work": work, "builds": builds, "built": built}
        BUILTINS.register(Builtin(name, args, result_fn, impl, doc, variadic, pure=pure, clocked=clocked, **costs))
        return impl

    return register


def fault(code: codes.Code, message: str, hint: str | None = None) -> RunError:
    return RunError(code.code, message, hint=hint)


def whole_number(value: Decimal, what: str, low: int, high: int) -> int:
    """`value` as an int, or E0511 unless it is a whole number from low to high."""
    if value != value.to_integral_value() or not low <= value <= high:
        raise fault(codes.INVALID_OPERATION, f"{what} must be a whole number from {low} to {high}, not {value}")
    return int(value)


def checked_text(limits: Limits, text: str) -> str:
    if len(text) > limits.max_string_length:
        raise fault(
            codes.STRING_TOO_LONG,
            f"string of {len(text):,} characters exceeds the limit of {limits.max_string_length:,}",
        )
    return text


CHARS_PER_OPERATION = 64
"""Characters of text that count as one operation for builtins that read or write text."""


def size_of(value: Any) -> int:
    """The work of reading `value` once, in operations: a list's or object's items, a text's
    characters by CHARS_PER_OPERATION, 0 for anything else."""
    kind = type(value)
    if kind is list or kind is dict:
        return len(value)
    if kind is str:
        return len(value) // CHARS_PER_OPERATION
    return 0


BYTES_PER_OPERATION = 32
"""Bytes of text or list that one operation of the budget pays for building: with the default
1,000,000 operations, a run builds at most 32 MB in all, whatever it builds (docs/budgets.md)."""
SLOT_BYTES = 8
"""What one item of a list takes in the list itself (a pointer)."""
NUMBER_BYTES = 112
"""What a new number in a list takes: a Decimal of up to 76 digits and its slot."""


def text_work(length: int, *sources: str) -> int:
    """The operations that pay for building a text of `length` characters out of `sources`:
    a character takes one byte when they are all ASCII, else up to four (CPython stores a
    text at the width of its widest character)."""
    for source in sources:
        if not source.isascii():  # (O(1): CPython keeps the flag)
            return 4 * length // BYTES_PER_OPERATION
    return length // BYTES_PER_OPERATION


def list_work(items: int, item_bytes: int = SLOT_BYTES) -> int:
    """The operations that pay for building a list of `items` items of `item_bytes` each."""
    return items * item_bytes // BYTES_PER_OPERATION


def text_built(limits: Limits, length: int, *sources: str) -> int:
    """`text_work` of a text about to be built, at most the longest text the limits let be
    built (a longer one is refused before it is)."""
    return text_work(min(length, limits.max_string_length), *sources)


def list_built(limits: Limits, items: int, item_bytes: int = SLOT_BYTES) -> int:
    """`list_work` of a list about to be built, at most the longest list the limits allow."""
    return list_work(min(items, limits.max_list_length), item_bytes)


def result_text_work(result: Any) -> int:
    """`built` of a builtin that returns a text: what the text takes."""
    return text_work(len(result), result)


def first_size(value: Any, *rest: Any) -> int:
    """Work: the first argument's size, and the characters of any text after it."""
    work = size_of(value)
    for other in rest:  # (a loop, not sum() of a generator: this runs at every call)
        if type(other) is str:
            work += len(other) // CHARS_PER_OPERATION
    return work


def all_sizes(*values: Any) -> int:
    work = 0
    for value in values:
        work += size_of(value)
    return work


def constant_work(*values: Any) -> int:
    return 1
