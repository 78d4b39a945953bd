"""The JsonLogic operators, each translated into compute expressions, and `translate_rule`.

Each translation keeps JsonLogic's evaluation order and laziness: `if`, `and`, `or` and the
comparison chains evaluate only what JsonLogic evaluates (conditionals), `map`, `filter`,
`all`, `some` and `none` are comprehensions over the list (the item is the data inside them),
and `reduce` is a fold the import recognises (FOLDS) or a diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, cast

from toolkiln.ast import compute as n
from toolkiln.ast.spans import path_span
from toolkiln.ast.types import ANY, BOOLEAN, NUMBER, OBJECT, STRING, Type
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.semantics.js_float import PUSH
from toolkiln.syntax.jsonlogic import (
    ARITHMETIC,
    FOLDS,
    MAX_RULE_DEPTH,
    ORDER,
    NumberMode,
    Operator,
    Path,
    Translator,
    Typed,
    Unsupported,
    literal,
)
from toolkiln.syntax.jsonlogic_schema import schema_type
from toolkiln.syntax.jsonlogic_try import translate_try

Scope = tuple[Typed, ...]
OPERATORS: dict[str, Operator] = {}
PRIMITIVES = (NUMBER, STRING, BOOLEAN)
FLOAT_ARITHMETIC = {f"{name}_f64": symbol for symbol, name in ARITHMETIC.items()}


def operator(*names: str) -> Callable[[Operator], Operator]:
    def register(translate: Operator) -> Operator:
        for name in names:
            OPERATORS[name] = translate
        return translate

    return register


# --- data ---------------------------------------------------------------------------------


def _field_chain(data: Typed, keys: list[Any]) -> Typed | None:
    """Fields read straight from typed data, when the schema declares every one of them."""
    expr, type_ = data.expr, data.type
    for key in keys:
        if not isinstance(key, str) or type_.name != "object" or type_.fields is None or type_.nullable:
            return None
        field_type = type_.field_type(key)
        if field_type is None:
            return None
        expr, type_ = n.Field_(target=expr, name=key), field_type
    return Typed(expr, type_)


def _current(data: Typed) -> Typed | None:
    """The item of a reduce, when `data` is its frame `{"current": item}`."""
    if isinstance(data.expr, n.RecordExpr) and [entry.key for entry in data.expr.entries] == ["current"]:
        return Typed(data.expr.entries[0].value, ANY)
    return None


@operator("var")
def _var(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    listed = args if isinstance(args, list) else [args]
    key = listed[0] if listed else None
    default = listed[1] if len(listed) > 1 else None
    data = scope[-1]
    current = _current(data)
    if current is not None and len(listed) < 2 and isinstance(key, str) and key.split(".")[0] == "current":
        # a reduce's item read straight, not through the record {"current": item}
        data, key = current, key.partition(".")[2]
        if not key:
            return data
    if isinstance(key, str) and key and default is None:
        typed = _field_chain(data, key.split("."))
        if typed is not None:
            return typed
    call_args = [data.expr, t.rule(key, (*path, 0), scope).expr]
    if len(listed) > 1:
        call_args.append(t.rule(default, (*path, 1), scope).expr)
    return t.call("js_var", *call_args, path=path)


@operator("val")
def _val(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    keys = args if isinstance(args, list) else [args]
    data = scope[-1]
    if keys and isinstance(keys[0], list):  # [[n], ...]: the data n scopes up
        levels = keys[0][0] if keys[0] and isinstance(keys[0][0], int) else 0
        data = scope[min(max(len(scope) - 1 - abs(levels), 0), len(scope) - 1)]
        keys = keys[1:]
    if not keys:
        return data
    typed = _field_chain(data, keys)
    if typed is not None:
        return typed
    listed = n.ListExpr(items=tuple(t.rule(key, (*path, i), scope).expr for i, key in enumerate(keys)))
    return t.call("js_val", data.expr, listed, path=path)


@operator("exists")
def _exists(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    keys = args if isinstance(args, list) else [args]
    listed = n.ListExpr(items=tuple(t.rule(key, (*path, i), scope).expr for i, key in enumerate(keys)))
    return t.call("js_exists", scope[-1].expr, listed, path=path)


@operator("missing")
def _missing(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    if isinstance(args, list) and len(args) == 1:
        keys = t.rule(args[0], (*path, 0), scope)
    else:
        keys = t.rule(args, path, scope)
    return t.call("js_missing", scope[-1].expr, keys.expr, path=path)


@operator("missing_some")
def _missing_some(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    if not isinstance(args, list) or len(args) != 2:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, "missing_some takes [need, [keys...]]", path)
    need, keys = t.rule(args[0], (*path, 0), scope), t.rule(args[1], (*path, 1), scope)
    return t.call("js_missing_some", scope[-1].expr, need.expr, keys.expr, path=path)


@operator("preserve")
def _preserve(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return literal(args, path)


# --- logic --------------------------------------------------------------------------------


@operator("if", "?:")
def _if(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    if not args:
        return literal(None)
    if len(args) == 1:
        return t.rule(args[0], (*path, 0), scope)
    pairs = [(i, args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
    otherwise = t.rule(args[-1], (*path, len(args) - 1), scope) if len(args) % 2 else literal(None)
    for i, test, then in reversed(pairs):
        condition = t.condition(test, (*path, i), scope)
        branch = t.rule(then, (*path, i + 1), scope)
        result_type = branch.type if branch.type == otherwise.type else ANY
        otherwise = Typed(n.Conditional(test=condition, then=branch.expr, otherwise=otherwise.expr), result_type)
    return otherwise


def _and_or(t: Translator, args: Any, path: Path, scope: Scope, keep_going_if: bool) -> Typed:
    """`and` / `or`: the first operand whose truthiness stops it, else the last (values, not
    booleans, as in JavaScript)."""
    if not args:
        return literal(None)
    parts = [t.rule(item, (*path, i), scope) for i, item in enumerate(args)]
    if all(part.type == BOOLEAN for part in parts):
        result = parts[-1].expr
        for part in reversed(parts[:-1]):
            result = n.Binary(op="and" if keep_going_if else "or", left=part.expr, right=result)
        return Typed(result, BOOLEAN)
    result = parts[-1].expr
    for part, where in reversed(list(zip(parts[:-1], range(len(parts) - 1), strict=True))):
        rest = result

        def choose(value: n.Expr, rest: n.Expr = rest, where: int = where, type_: Type = part.type) -> n.Expr:
            test = t.truthy(Typed(value, type_), (*path, where))
            return (
                n.Conditional(test=test, then=rest, otherwise=value)
                if keep_going_if
                else n.Conditional(test=test, then=value, otherwise=rest)
            )

        result = t.bind(part, choose)
    return Typed(result)


@operator("and")
def _and(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return _and_or(t, args, path, scope, keep_going_if=True)


@operator("or")
def _or(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return _and_or(t, args, path, scope, keep_going_if=False)


@operator("!", "!!")
def _not(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    if isinstance(args, list) and not args:
        return literal(path[-1] == "!")
    condition = t.condition(_first_arg(args), (*path, 0), scope)
    return Typed(n.Unary(op="not", operand=condition) if path[-1] == "!" else condition, BOOLEAN)


def _first_arg(args: Any) -> Any:
    """The first argument; none given is JavaScript's `undefined`, null here."""
    if isinstance(args, list):
        return args[0] if args else None
    return args


@operator("??")
def _coalesce(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    items = t.items(args, path, scope)
    if not items:
        return literal(None)
    return Typed(n.Call(function="coalesce", args=tuple(item.expr for item in items)))


@operator("throw")
def _throw(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return t.call("js_throw", t.rule(_first_arg(args), (*path, 0), scope).expr, path=path)


@operator("log")
def _log(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    """`log` prints in JavaScript and gives its value; a compute tool has no console."""
    return t.rule(_first_arg(args), (*path, 0), scope)


# --- comparison ---------------------------------------------------------------------------


def _comparison(t: Translator, args: list[Any], path: Path, scope: Scope, pair: Any) -> Typed:
    if len(args) < 2:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, f"{path[-1]} compares at least two values", path)
    parts = [t.rule(item, (*path, i), scope) for i, item in enumerate(args)]
    tests = [pair(a, b) for a, b in zip(parts, parts[1:], strict=False)]
    result = tests[-1]
    for test in reversed(tests[:-1]):
        result = n.Binary(op="and", left=test, right=result)
    return Typed(result, BOOLEAN)


def _same_primitive(a: Typed, b: Typed) -> bool:
    return a.type == b.type and a.type in PRIMITIVES


@operator("==", "!=")
def _loose(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    negate = path[-1] == "!="

    def pair(a: Typed, b: Typed) -> n.Expr:
        if _same_primitive(a, b) and not (a.type == NUMBER and t.numbers == "float"):
            return n.Binary(op="!=" if negate else "==", left=a.expr, right=b.expr)
        test = t.call("js_equals", a.expr, b.expr, path=path).expr
        return n.Unary(op="not", operand=test) if negate else test

    return _comparison(t, args, path, scope, pair)


@operator("===", "!==")
def _strict(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    negate = path[-1] == "!=="

    def pair(a: Typed, b: Typed) -> n.Expr:
        if _same_primitive(a, b):
            return n.Binary(op="!=" if negate else "==", left=a.expr, right=b.expr)
        test = t.call("js_strict_equals", a.expr, b.expr, path=path).expr
        return n.Unary(op="not", operand=test) if negate else test

    return _comparison(t, args, path, scope, pair)


@operator(*ORDER)
def _order(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    op = ORDER[str(path[-1])]

    def pair(a: Typed, b: Typed) -> n.Expr:
        if a.type == NUMBER and b.type == NUMBER:
            return n.Binary(op=op, left=a.expr, right=b.expr)
        # a > b is b < a, as in JavaScript: js_compare's "no order" (2) is then never below 0
        below, above = (a, b) if op in ("<", "<=") else (b, a)
        compared = t.call("js_compare", below.expr, above.expr, path=path).expr
        flipped: n.BinaryOp = "<" if op in ("<", ">") else "<="
        return n.Binary(op=flipped, left=compared, right=n.NumberLit(value=Decimal(0)))

    return _comparison(t, args, path, scope, pair)


# --- numbers and text ---------------------------------------------------------------------


@operator(*ARITHMETIC)
def _arithmetic(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    symbol = str(path[-1])
    if isinstance(args, list):
        parts = [t.rule(item, (*path, i), scope) for i, item in enumerate(args)]
        typed = _typed_arithmetic(t, symbol, parts) or _fused_floats(t, symbol, parts, path)
        if typed is not None:
            return typed
        operands: n.Expr = n.ListExpr(items=tuple(part.expr for part in parts))
    else:
        operands = t.rule(args, path, scope).expr
    return t.call(ARITHMETIC[symbol], operands, path=path)


def _typed_arithmetic(t: Translator, symbol: str, parts: list[Typed]) -> Typed | None:
    """Numbers the schema (or the rule) says are numbers add, subtract and multiply as the
    compute language does (exact decimals: the same answer as js_add, with no coercion)."""
    if t.numbers != "exact" or symbol not in "+-*" or not parts or any(p.type != NUMBER for p in parts):
        return None
    if symbol == "-" and len(parts) == 1:
        return Typed(n.Unary(op="-", operand=parts[0].expr), NUMBER)
    if symbol == "-" and len(parts) != 2 or len(parts) < 2:
        return None
    result = parts[0].expr
    for part in parts[1:]:
        result = n.Binary(op=cast("n.BinaryOp", symbol), left=result, right=part.expr)  # one of + - *
    return Typed(result, NUMBER)


def _fused_floats(t: Translator, symbol: str, parts: list[Typed], path: Path) -> Typed | None:
    """Nested arithmetic in the float mode as one js_f64 call (semantics/js_float.py), when
    every operand is a read or a constant (nothing that could fail before an operator does)."""
    if t.numbers != "float" or not any(_float_code(part.expr) for part in parts):
        return None
    codes_: list[str] = []
    operands: list[n.Expr] = []
    for part in parts:
        coded = _float_code(part.expr)
        code, items = coded if coded else (PUSH, (part.expr,))
        if not all(_cannot_fail(item) for item in items):
            return None
        codes_.append(code)
        operands.extend(items)
    code = " ".join([*codes_, f"{symbol}{len(parts)}"])
    return t.call("js_f64", n.ListExpr(items=tuple(operands)), n.StringLit(value=code), path=path)


def _float_code(expr: n.Expr) -> tuple[str, tuple[n.Expr, ...]] | None:
    """The js_f64 code and operands of arithmetic in floats (None for anything else)."""
    if isinstance(expr, n.Call) and expr.function == "js_f64":
        listed, code = expr.args
        assert isinstance(listed, n.ListExpr) and isinstance(code, n.StringLit)
        return code.value, listed.items
    if isinstance(expr, n.Call) and expr.function in FLOAT_ARITHMETIC and isinstance(expr.args[0], n.ListExpr):
        items = expr.args[0].items
        return " ".join([PUSH] * len(items) + [f"{FLOAT_ARITHMETIC[expr.function]}{len(items)}"]), items
    return None


def _cannot_fail(expr: n.Expr) -> bool:
    """A constant, or a read of the data (js_var and js_val give null for what is not there)."""
    if isinstance(expr, n.NumberLit | n.StringLit | n.BoolLit | n.NullLit | n.Name):
        return True
    if isinstance(expr, n.Field_):
        return _cannot_fail(expr.target)
    if isinstance(expr, n.ListExpr):
        return all(_cannot_fail(item) for item in expr.items)
    return isinstance(expr, n.Call) and expr.function in ("js_var", "js_val") and all(map(_cannot_fail, expr.args))


@operator("max", "min")
def _extreme(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return t.call(f"js_{path[-1]}", t.rule(args, path, scope).expr, path=path)


@operator("cat")
def _cat(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return t.call("js_cat", t.rule(args, path, scope).expr, path=path)


@operator("merge")
def _merge(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    return t.call("js_merge", t.rule(args, path, scope).expr, path=path)


@operator("substr")
def _substr(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    items = t.items(args, path, scope)
    if not 2 <= len(items) <= 3:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, "substr takes [text, start] or [text, start, length]", path)
    return t.call("js_substr", *(item.expr for item in items), path=path)


@operator("in")
def _in(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    items = t.items(args, path, scope)
    if len(items) != 2:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, "in takes [item, list or text]", path)
    return t.call("js_in", items[0].expr, items[1].expr, path=path)


@operator("length")
def _length(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    value = t.rule(args[0] if isinstance(args, list) and len(args) == 1 else args, path, scope)
    return t.call("js_length", value.expr, path=path)


# --- lists --------------------------------------------------------------------------------


def _iteration(t: Translator, args: list[Any], path: Path, scope: Scope) -> tuple[str, n.Expr, Scope, Any]:
    """The loop variable, the list, the scope inside and the body of an iterating operator."""
    if len(args) < 2:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, f"{path[-1]} takes [list, rule]", path)
    source = t.rule(args[0], (*path, 0), scope)
    if _climbs(args[1]):  # val [[n], ...] may read the position: iterate [position, item] pairs
        name = t.fresh("entry")
        entries = t.call("js_entries", source.expr, path=path).expr
        position, item = (n.Index(target=n.Name(name=name), index=literal(i).expr) for i in (0, 1))
        return name, entries, (*scope, _frame(position), Typed(item, ANY)), args[1]
    iterable = source.expr if source.type.name == "array" and not source.type.nullable else None
    if iterable is None:
        iterable = t.call("js_list", source.expr, path=path).expr
    name = t.fresh("item")
    item_type = source.type.item_type() if source.type.name == "array" else ANY
    return name, iterable, (*scope, _frame(n.NullLit()), Typed(n.Name(name=name), item_type)), args[1]


def _frame(position: n.Expr) -> Typed:
    """The scope between an iteration's item and the data around it, as JsonLogic engines
    give it to `val`'s `[[n], ...]`: the item's position."""
    return Typed(n.RecordExpr(entries=(n.RecordEntry(key="index", value=position),)), OBJECT)


def _climbs(rule: Any) -> bool:
    """Whether `rule` has a `val` that reads a scope above its data (`[[n], ...]`)."""
    if isinstance(rule, list):
        return any(_climbs(item) for item in rule)
    if not isinstance(rule, dict):
        return False
    for key, value in rule.items():
        if key == "val" and isinstance(value, list) and value and isinstance(value[0], list):
            return True
        if _climbs(value):
            return True
    return False


@operator("map")
def _map(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    name, iterable, inner, body = _iteration(t, args, path, scope)
    element = t.rule(body, (*path, 1), inner).expr
    return Typed(n.Comprehension(element=element, var=name, iterable=iterable), Type(name="array", items=ANY))


@operator("filter")
def _filter(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    name, iterable, inner, body = _iteration(t, args, path, scope)
    condition = t.condition(body, (*path, 1), inner)
    item = inner[-1]
    return Typed(
        n.Comprehension(element=item.expr, var=name, iterable=iterable, condition=condition),
        Type(name="array", items=item.type),
    )


@operator("all", "some", "none")
def _quantifier(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    name, iterable, inner, body = _iteration(t, args, path, scope)
    tests = n.Comprehension(element=t.condition(body, (*path, 1), inner), var=name, iterable=iterable)
    if path[-1] == "all":
        return t.call("js_all", tests, path=path)
    found = n.Call(function="any", args=(tests,))
    return Typed(found if path[-1] == "some" else n.Unary(op="not", operand=found), BOOLEAN)


def _reads(rule: Any, name: str) -> bool:
    """Whether `rule` reads `name` from its data (var or val)."""
    if isinstance(rule, list):
        return any(_reads(item, name) for item in rule)
    if not isinstance(rule, dict):
        return False
    for key, value in rule.items():
        if key in ("var", "val"):
            first = _first_arg(value)
            if isinstance(first, str) and (first == name or first.startswith(name + ".")) or first is None:
                return True
        if _reads(value, name):
            return True
    return False


@operator("reduce")
def _reduce(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    """`reduce` whose body folds the accumulator with one expression of the current item:
    `{"+": [{"var": "accumulator"}, {"var": "current.price"}]}` is js_add of the initial
    value and every item's price (in order, so floats add as JavaScript adds them). A body
    that does not read the accumulator gives its value at the last item (the initial value
    for an empty list): js_last."""
    if len(args) < 2:
        raise t.fail(codes.JSONLOGIC_INVALID_ARGUMENTS, "reduce takes [list, rule, initial]", path)
    body = args[1]
    initial = t.rule(args[2] if len(args) > 2 else None, (*path, 2), scope).expr
    if not _reads(body, "accumulator"):
        values = _each(t, args, body, path, scope, (*path, 1))
        return t.call("js_last", values, initial, path=path)
    op = next(iter(body)) if isinstance(body, dict) and len(body) == 1 else None
    operands = body[op] if op is not None else None
    if op not in FOLDS or not isinstance(operands, list) or len(operands) != 2:
        raise _unsupported_fold(t, path)
    accumulator = [i for i, part in enumerate(operands) if part in ({"var": "accumulator"}, {"val": "accumulator"})]
    if len(accumulator) != 1 or _reads(operands[1 - accumulator[0]], "accumulator"):
        raise _unsupported_fold(t, path)
    other = 1 - accumulator[0]
    values = _each(t, args, operands[other], path, scope, (*path, 1, op, other))
    merged = t.call("js_merge", n.ListExpr(items=(n.ListExpr(items=(initial,)), values)), path=path).expr
    return t.call(FOLDS[op], merged, path=path)


def _each(t: Translator, args: list[Any], rule: Any, path: Path, scope: Scope, where: Path) -> n.Comprehension:
    """`rule` (at `where`) for each item of the list of the reduce at `path`, reading the item
    as `current`."""
    name, iterable, inner, _ = _iteration(t, args, path, scope)
    frame = n.RecordExpr(entries=(n.RecordEntry(key="current", value=inner[-1].expr),))
    each = t.rule(rule, where, (*scope, Typed(frame, OBJECT))).expr
    return n.Comprehension(element=each, var=name, iterable=iterable)


def _unsupported_fold(t: Translator, path: Path) -> Unsupported:
    return t.fail(
        codes.JSONLOGIC_UNSUPPORTED,
        "reduce's body must fold the accumulator with +, *, min, max or cat of an expression of the current item",
        path,
        hint='for example {"+": [{"var": "accumulator"}, {"var": "current.price"}]}',
    )


OPERATORS["try"] = translate_try


# --- the entry point ----------------------------------------------------------------------


def translate_rule(
    rule: Any, data_schema: Any = None, numbers: NumberMode = "exact", name: str | None = None
) -> tuple[n.Program | None, list[Diagnostic]]:
    """The compute program of a JsonLogic rule (a parsed JSON value), or the diagnostics that
    say why there is none."""
    translator = Translator(operators=OPERATORS, numbers=numbers)
    data_type, problems = (ANY, []) if data_schema is None else schema_type(data_schema)
    if problems:
        return None, problems
    data = Typed(n.Name(name="data"), data_type)
    try:
        body = translator.rule(rule, (), (data,))
    except Unsupported as refused:
        return None, [refused.diagnostic]
    except RecursionError:
        message = f"the rule nests deeper than {MAX_RULE_DEPTH} levels"
        return None, [Diagnostic.of(codes.JSONLOGIC_NOT_A_RULE, message, path_span("rule"))]
    description = "Imported from a JsonLogic rule" + (" (float-compatible numbers)" if numbers == "float" else "")
    default = n.NullLit() if data_type == ANY else None
    parameter = n.Param(name="data", type=data_type, description="the rule's data", default=default)
    program = n.Program(name=name, description=description, parameters=(parameter,), steps=(n.Return(value=body.expr),))
    return program, []
