"""The JsonLogic front end: a JsonLogic rule (https://jsonlogic.com) as a compute program.

The program has one parameter, `data` (the rule's data), and returns what the rule computes.
Where JsonLogic has JavaScript's semantics the program calls builtins that say so (`truthy`,
`to_number`, `js_equals`, `js_add`, ...: semantics/js_builtins.py), so the typed core stays
strict. With a data schema, `data` is typed, a `var` of a field the schema declares reads that
field, and the coercions its type makes needless are dropped (`age > 18`, not
`js_compare(js_var(data, "age"), 18) > 0`). Operators the compute language cannot express are
located diagnostics naming the operator (E1001), never a silent change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from toolkiln.ast import compute as n
from toolkiln.ast.spans import json_path, path_span
from toolkiln.ast.types import ANY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, Type, array_of
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.limits import MAX_LITERAL_DIGITS, literal_too_large

NumberMode = Literal["exact", "float"]
Path = tuple[str | int, ...]
MAX_RULE_DEPTH = 64
# Operators whose arguments must be written as a list (JsonLogic engines refuse the rest).
LIST_ONLY = frozenset(
    {"if", "?:", "and", "or", "map", "filter", "reduce", "all", "some", "none"}
    | {"<", "<=", ">", ">=", "==", "!=", "===", "!=="}
)
ARITHMETIC = {"+": "js_add", "-": "js_sub", "*": "js_mul", "/": "js_div", "%": "js_mod"}
ORDER: dict[str, n.BinaryOp] = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
# The result types of the builtins the import calls (what the typed shortcuts look at).
RESULT_TYPES = {
    "truthy": BOOLEAN,
    "js_equals": BOOLEAN,
    "js_strict_equals": BOOLEAN,
    "js_in": BOOLEAN,
    "js_all": BOOLEAN,
    "any": BOOLEAN,
    "js_exists": BOOLEAN,
    "js_cat": STRING,
    "js_substr": STRING,
    "js_max": NUMBER,
    "js_min": NUMBER,
    "js_length": NUMBER,
    "js_missing": array_of(ANY),
    "js_missing_some": array_of(ANY),
    "js_merge": array_of(ANY),
}
# Folds `reduce` can express: the operator of its body and the builtin over all the values.
FOLDS = {"+": "js_add", "*": "js_mul", "min": "js_min", "max": "js_max", "cat": "js_cat"}


Operator = Callable[["Translator", Any, Path, tuple["Typed", ...]], "Typed"]


class Unsupported(Exception):
    """A part of the rule the import refuses; reported as the diagnostic it carries."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class Typed:
    expr: n.Expr
    type: Type = ANY


@dataclass
class Translator:
    """Translates a rule; `operators` maps each JsonLogic operator to its translation."""

    operators: dict[str, Operator]
    numbers: NumberMode = "exact"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _names: int = 0

    # --- helpers --------------------------------------------------------------------------

    def fail(self, code: codes.Code, message: str, path: Path, hint: str | None = None) -> Unsupported:
        return Unsupported(Diagnostic.of(code, message, path_span(json_path(("rule", *path))), hint))

    def fresh(self, stem: str) -> str:
        self._names += 1
        return f"{stem}{self._names}"

    def call(self, function: str, *args: n.Expr, path: Path = ()) -> Typed:
        span = path_span(json_path(("rule", *path)))
        name = function
        if self.numbers == "float" and function in ARITHMETIC.values():
            name = f"{function}_f64"
        result = NUMBER if function in ARITHMETIC.values() else RESULT_TYPES.get(function, ANY)
        return Typed(n.Call(function=name, args=args, span=span), result)

    def condition(self, value: Any, path: Path, scope: tuple[Typed, ...]) -> n.Expr:
        """`value` as a boolean, as JsonLogic tests it: `and`/`or` of conditions stay boolean."""
        operator = _operator(value)
        if operator in ("and", "or") and isinstance(value[operator], list) and value[operator]:
            parts = [self.condition(item, (*path, operator, i), scope) for i, item in enumerate(value[operator])]
            result = parts[-1]
            for part in reversed(parts[:-1]):
                result = n.Binary(op="and" if operator == "and" else "or", left=part, right=result)
            return result
        if operator == "!" or operator == "!!":
            inner = self.condition(_first(value[operator]), (*path, operator), scope)
            return n.Unary(op="not", operand=inner) if operator == "!" else inner
        return self.truthy(self.rule(value, path, scope), path)

    def truthy(self, typed: Typed, path: Path) -> n.Expr:
        if typed.type == BOOLEAN:
            return typed.expr
        return self.call("truthy", typed.expr, path=path).expr

    def bind(self, value: Typed, body: Callable[[n.Expr], n.Expr]) -> n.Expr:
        """`body(value)` with `value` computed once: named by a one-item comprehension when it
        is more than a name, a literal or a read of the data."""
        if _simple(value.expr):
            return body(value.expr)
        name = self.fresh("v")
        listed = n.Comprehension(element=body(n.Name(name=name)), var=name, iterable=n.ListExpr(items=(value.expr,)))
        return n.Index(target=listed, index=n.NumberLit(value=Decimal(0)))

    # --- rules ----------------------------------------------------------------------------

    def rule(self, value: Any, path: Path, scope: tuple[Typed, ...]) -> Typed:
        if len(path) > MAX_RULE_DEPTH * 2:
            raise self.fail(codes.JSONLOGIC_NOT_A_RULE, f"the rule nests deeper than {MAX_RULE_DEPTH} levels", path)
        if isinstance(value, dict):
            if not value:
                return Typed(n.RecordExpr(entries=()), OBJECT)
            if len(value) > 1:
                keys = ", ".join(map(str, list(value)[:4]))
                raise self.fail(
                    codes.JSONLOGIC_NOT_A_RULE,
                    f"an operator object has exactly one key, this one has {len(value)} ({keys})",
                    path,
                    hint='write literal objects inside {"preserve": ...}',
                )
            ((operator, args),) = value.items()
            return self.operator(operator, args, (*path, operator), scope)
        if isinstance(value, list):
            items = [self.rule(item, (*path, i), scope) for i, item in enumerate(value)]
            return Typed(n.ListExpr(items=tuple(item.expr for item in items)), array_of(ANY))
        return literal(value, path)

    def operator(self, operator: str, args: Any, path: Path, scope: tuple[Typed, ...]) -> Typed:
        translate = self.operators.get(operator)
        if translate is None:
            message = f"the JsonLogic operator {operator!r} cannot be imported"
            raise self.fail(codes.JSONLOGIC_UNSUPPORTED, message, path)
        if operator in LIST_ONLY and not isinstance(args, list):
            raise self.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, f"{operator} takes its arguments as a list", path)
        return translate(self, args, path, scope)

    def operands(self, args: Any, path: Path, scope: tuple[Typed, ...]) -> Typed:
        """The operands of an arithmetic operator: a list as written, or one rule giving them."""
        return self.rule(args, path, scope)

    def items(self, args: Any, path: Path, scope: tuple[Typed, ...]) -> list[Typed]:
        listed = args if isinstance(args, list) else [args]
        return [self.rule(item, (*path, i), scope) for i, item in enumerate(listed)]


def literal(value: Any, path: Path = ()) -> Typed:
    """A JSON value as a constant expression (`preserve`, and the rule's own constants)."""
    if value is None:
        return Typed(n.NullLit(), NULL)
    if isinstance(value, bool):
        return Typed(n.BoolLit(value=value), BOOLEAN)
    if isinstance(value, int | float | Decimal):
        return Typed(n.NumberLit(value=_number(value, path)), NUMBER)
    if isinstance(value, str):
        return Typed(n.StringLit(value=value), STRING)
    if isinstance(value, list):
        items = tuple(literal(item, (*path, i)).expr for i, item in enumerate(value))
        return Typed(n.ListExpr(items=items), array_of(ANY))
    if isinstance(value, dict):
        entries = tuple(
            n.RecordEntry(key=str(key), value=literal(item, (*path, str(key))).expr) for key, item in value.items()
        )
        return Typed(n.RecordExpr(entries=entries), OBJECT)
    message = f"a {type(value).__name__} is not JSON"
    raise Unsupported(Diagnostic.of(codes.JSONLOGIC_NOT_A_RULE, message, path_span(json_path(("rule", *path)))))


def _number(value: int | float | Decimal, path: Path) -> Decimal:
    """A number of the rule, as the compute language's literals are bounded (E0403)."""
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite() or literal_too_large(number):
        message = f"number has more than {MAX_LITERAL_DIGITS} digits or is not finite"
        raise Unsupported(Diagnostic.of(codes.LITERAL_TOO_LARGE, message, path_span(json_path(("rule", *path)))))
    return number


def _operator(value: Any) -> str | None:
    return next(iter(value)) if isinstance(value, dict) and len(value) == 1 else None


def _first(args: Any) -> Any:
    if isinstance(args, list):
        return args[0] if args else None
    return args


def _simple(expr: n.Expr) -> bool:
    return isinstance(expr, (n.Name, n.NumberLit, n.StringLit, n.BoolLit, n.NullLit, n.Field_))
