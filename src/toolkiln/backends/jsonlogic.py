"""Compute program -> JsonLogic rule (`toolkiln export --to jsonlogic`), the way back of
`toolkiln import --from jsonlogic`.

A program maps onto JsonLogic when every part of it means the same there: the builtins the
import calls (`js_add([a, b])` is `{"+": [a, b]}`, `truthy(x)` is `{"!!": x}`), conditionals,
comprehensions (map, filter, some, all, and the folds of `reduce`), and operators whose
operands are typed so that JavaScript's coercions cannot apply (numbers for arithmetic and
order, one primitive type for `==`). The rule's data is the tool's `data` parameter when that
is its only parameter, else an object of its parameters. Anything else is E1006, naming the
construct and its place; nothing is exported then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import ANY, BOOLEAN, NUMBER, Type
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.js_float import PUSH

# Builtins that are one operator, their operands given as one list (or one rule giving them).
LISTED = {"js_add": "+", "js_sub": "-", "js_mul": "*", "js_div": "/", "js_mod": "%"}
LISTED |= {f"{name}_f64": op for name, op in LISTED.items()}
LISTED |= {"js_max": "max", "js_min": "min", "js_cat": "cat", "js_merge": "merge"}
# Builtins whose arguments are the operator's argument list.
POSITIONAL = {
    "js_equals": "==",
    "js_strict_equals": "===",
    "js_substr": "substr",
    "js_in": "in",
    "coalesce": "??",
}
SINGLE = {"truthy": "!!", "js_length": "length", "js_throw": "throw"}
FLOAT_CALLS = {op: name for name, op in LISTED.items() if name.endswith("_f64")}
FOLD_OPERATORS = {"js_add": "+", "js_mul": "*", "js_min": "min", "js_max": "max", "js_cat": "cat"}
FOLD_OPERATORS |= {"js_add_f64": "+", "js_mul_f64": "*"}
PRIMITIVES = ("number", "integer", "string", "boolean")


class NotExportable(Exception):
    def __init__(self, what: str, span: Span) -> None:
        super().__init__(what)
        self.what, self.span = what, span


@dataclass(frozen=True)
class Binding:
    """What a name means in the rule: a rule to put in its place, at a depth of iteration
    (the data a `var` reads changes inside map and filter)."""

    rule: Any
    depth: int
    type: Type | None = None


@dataclass
class Exporter:
    names: dict[str, Binding] = field(default_factory=dict)
    depth: int = 0

    def refuse(self, what: str, node: n.Node) -> NotExportable:
        return NotExportable(what, node.span)

    # --- data -----------------------------------------------------------------------------

    def data_path(self, expr: n.Expr) -> tuple[str, list[str], Type | None] | None:
        """A read of the data: the name it starts at, the fields after it, and its type."""
        keys: list[str] = []
        while isinstance(expr, n.Field_):
            keys.insert(0, expr.name)
            expr = expr.target
        if not isinstance(expr, n.Name) or expr.name not in self.names:
            return None
        type_ = self.names[expr.name].type
        for key in keys:
            type_ = None if type_ is None or type_.fields is None else type_.field_type(key)
        return expr.name, keys, type_

    def read(self, name: str, keys: list[str], node: n.Node) -> Any:
        binding = self.names[name]
        if binding.depth != self.depth:
            raise self.refuse(f"`{name}` read inside a map or filter over other data", node)
        if any("." in key or not key for key in keys):
            raise self.refuse(f"a field name with a dot or empty ({'.'.join(keys)})", node)
        base = binding.rule
        if not keys:
            return base
        if isinstance(base, dict) and set(base) == {"var"} and isinstance(base["var"], str):
            return {"var": ".".join(filter(None, [base["var"], *keys]))}
        raise self.refuse("a field of a value that is not the data", node)

    def type_of(self, expr: n.Expr) -> Type | None:
        match expr:
            case n.NumberLit():
                return NUMBER
            case n.StringLit():
                return Type(name="string")
            case n.BoolLit():
                return Type(name="boolean")
            case n.Binary(op=op) if op in n.ARITHMETIC_OPS:
                return NUMBER
            case n.Binary() | n.Unary(op="not"):
                return BOOLEAN
            case n.Unary(op="-"):
                return NUMBER
            case n.Call(function=function, args=args) if function in BUILTINS:
                result = BUILTINS[function].result([ANY] * len(args))
                return None if result == ANY else result
            case n.Conditional(then=then, otherwise=otherwise):
                then_type, otherwise_type = self.type_of(then), self.type_of(otherwise)
                return then_type if then_type == otherwise_type else None
        path = self.data_path(expr)
        return None if path is None else path[2]

    # --- expressions ----------------------------------------------------------------------

    def expr(self, expr: n.Expr) -> Any:
        match expr:
            case n.NumberLit(value=value) | n.StringLit(value=value) | n.BoolLit(value=value):
                return value
            case n.NullLit():
                return None
            case n.ListExpr(items=items):
                return [self.expr(item) for item in items]
            case n.RecordExpr():
                return self.record(expr)
            case n.Name() | n.Field_():
                return self.data(expr)
            case n.Unary(op="not", operand=operand):
                return {"!": self.expr(operand)}
            case n.Unary(op="-", operand=operand) if self.numeric(operand):
                return {"-": [self.expr(operand)]}
            case n.Binary():
                return self.binary(expr)
            case n.Conditional(test=test, then=then, otherwise=otherwise):
                return {"if": [self.expr(test), self.expr(then), self.expr(otherwise)]}
            case n.Call():
                return self.call(expr)
            case n.Comprehension():
                return self.comprehension(expr)
            case n.Index(target=n.Comprehension(iterable=n.ListExpr(items=(value,))) as bound, index=n.NumberLit()):
                if expr.index == n.NumberLit(value=Decimal(0), span=expr.index.span):
                    return self.let(bound, value)
        raise self.refuse(f"the {expr.kind} expression", expr)

    def record(self, expr: n.RecordExpr) -> Any:
        values = {entry.key: self.expr(entry.value) for entry in expr.entries}
        if not values:
            return {}
        if not all(_constant(value) for value in values.values()):
            raise self.refuse("an object built from computed values", expr)
        return {"preserve": values}

    def data(self, expr: n.Name | n.Field_) -> Any:
        """A read of the data: a parameter, or a field of one."""
        path = self.data_path(expr)
        if path is None:
            raise self.refuse("a field of a computed value", expr)
        return self.read(path[0], path[1], expr)

    def numeric(self, expr: n.Expr) -> bool:
        type_ = self.type_of(expr)
        return type_ is not None and type_.is_numeric

    def binary(self, expr: n.Binary) -> Any:
        left, right, op = expr.left, expr.right, expr.op
        if op in n.LOGIC_OPS:
            return {op: [self.expr(left), self.expr(right)]}
        compared = _compared(expr)
        if compared is not None:
            a, b = compared
            return {op: [self.expr(a), self.expr(b)]}
        if op in n.ARITHMETIC_OPS and op != "**" and self.numeric(left) and self.numeric(right):
            return {op: [self.expr(left), self.expr(right)]}
        if op in n.ORDER_OPS and (self.numeric(left) and self.numeric(right) or self.strings(left, right)):
            return {op: [self.expr(left), self.expr(right)]}
        if op in n.EQUALITY_OPS and self.same_primitive(left, right):
            return {"===" if op == "==" else "!==": [self.expr(left), self.expr(right)]}
        raise self.refuse(f"`{op}` of operands whose types JsonLogic would coerce", expr)

    def strings(self, a: n.Expr, b: n.Expr) -> bool:
        return all((t := self.type_of(x)) is not None and t.name == "string" and not t.nullable for x in (a, b))

    def same_primitive(self, a: n.Expr, b: n.Expr) -> bool:
        ta, tb = self.type_of(a), self.type_of(b)
        if ta is None or tb is None or ta.nullable or tb.nullable:
            return False
        kinds = {"integer": "number"}
        return kinds.get(ta.name, ta.name) == kinds.get(tb.name, tb.name) and ta.name in PRIMITIVES

    def call(self, expr: n.Call) -> Any:
        name, args = expr.function, expr.args
        if name in FOLD_OPERATORS and len(args) == 1 and isinstance(args[0], n.Call) and _is_fold(args[0]):
            return self.fold(FOLD_OPERATORS[name], args[0])
        if name == "js_f64":
            return self.expr(self.nested_floats(expr))
        if name in LISTED and len(args) == 1:
            return {LISTED[name]: self.expr(args[0])}
        if name in POSITIONAL:
            return {POSITIONAL[name]: [self.expr(arg) for arg in args]}
        if name in SINGLE and len(args) == 1:
            return {SINGLE[name]: self.expr(args[0])}
        if name in ("js_var", "js_val", "js_exists", "js_missing", "js_missing_some") and args:
            return self.data_call(expr)
        if name == "js_last" and len(args) == 2 and isinstance(args[0], n.Comprehension):
            return self.last(args[0], args[1])
        if name in ("any", "js_all") and len(args) == 1 and isinstance(args[0], n.Comprehension):
            return self.quantifier("some" if name == "any" else "all", args[0])
        raise self.refuse(f"the builtin {name} (no JsonLogic operator)", expr)

    def nested_floats(self, expr: n.Call) -> n.Expr:
        """js_f64's operands and code as the nested `_f64` calls it computes in one."""
        listed, code = expr.args if len(expr.args) == 2 else (None, None)
        if not isinstance(listed, n.ListExpr) or not isinstance(code, n.StringLit):
            raise self.refuse("js_f64 whose operands or code are not written in it", expr)
        operands, stack = list(listed.items), list[n.Expr]()
        for word in code.value.split():
            count = int(word[1:]) if word[1:].isdigit() else 0
            if word == PUSH and operands:
                stack.append(operands.pop(0))
            elif word[:1] in FLOAT_CALLS and 0 < count <= len(stack):
                stack[-count:] = [
                    n.Call(function=FLOAT_CALLS[word[0]], args=(n.ListExpr(items=tuple(stack[-count:])),))
                ]
            else:
                raise self.refuse(f"js_f64's code step {word!r}", expr)
        if len(stack) != 1 or operands:
            raise self.refuse("js_f64's code, which does not compute one value from its operands", expr)
        return stack[0]

    def data_call(self, expr: n.Call) -> Any:
        name, (target, *rest) = expr.function, expr.args
        item = self.reduce_item(target)
        if name == "js_var" and item is not None and len(rest) == 1 and isinstance(rest[0], n.StringLit):
            return {"var": ".".join(filter(None, ["current", rest[0].value]))}
        if not self.is_data(target):
            raise self.refuse(f"{name} of a value that is not the data", expr)
        operands = [self.expr(arg) for arg in rest]
        match name:
            case "js_var":
                return {"var": operands}
            case "js_val":
                return {"val": operands[0]}
            case "js_exists":
                return {"exists": operands[0]}
            case "js_missing":
                return {"missing": operands[0]}
        return {"missing_some": operands}

    def reduce_item(self, target: n.Expr) -> str | None:
        """The name of a reduce's item, when `target` is it (read as `current`)."""
        if isinstance(target, n.Name) and self.names.get(target.name) == Binding({"var": "current"}, self.depth):
            return target.name
        return None

    def is_data(self, target: n.Expr) -> bool:
        """Whether `target` is the data JsonLogic reads here: the rule's data, the item of a
        map, or a reduce's `{"current": item}`."""
        if isinstance(target, n.RecordExpr) and [entry.key for entry in target.entries] == ["current"]:
            item = target.entries[0].value
            if isinstance(item, n.Name) and item.name in self.names:
                return self.names[item.name] == Binding({"var": "current"}, self.depth)
            return False
        if not isinstance(target, n.Name) or target.name not in self.names:
            return False
        binding = self.names[target.name]
        return binding.rule == {"var": ""} and binding.depth == self.depth

    def iteration(self, comprehension: n.Comprehension) -> tuple[Any, Exporter]:
        """The list a comprehension iterates, and the exporter of what it does with each item."""
        iterable = comprehension.iterable
        if isinstance(iterable, n.Call) and iterable.function == "js_list" and len(iterable.args) == 1:
            iterable = iterable.args[0]
        source = self.expr(iterable)
        inner = Exporter({**self.names}, self.depth + 1)
        inner.names[comprehension.var] = Binding({"var": ""}, self.depth + 1)
        return source, inner

    def comprehension(self, expr: n.Comprehension) -> Any:
        source, inner = self.iteration(expr)
        if expr.condition is None:
            return {"map": [source, inner.expr(expr.element)]}
        kept = {"filter": [source, inner.expr(expr.condition)]}
        if isinstance(expr.element, n.Name) and expr.element.name == expr.var:
            return kept
        return {"map": [kept, inner.expr(expr.element)]}

    def quantifier(self, operator: str, tests: n.Comprehension) -> Any:
        if tests.condition is not None:
            raise self.refuse(f"{operator} over a filtered list", tests)
        source, inner = self.iteration(tests)
        return {operator: [source, inner.expr(tests.element)]}

    def fold(self, operator: str, merged: n.Call) -> Any:
        """`js_add(js_merge([[initial], [each for item in xs]]))`: a reduce of `each`."""
        pieces = merged.args[0]
        assert isinstance(pieces, n.ListExpr) and isinstance(pieces.items[0], n.ListExpr)
        initial, each = pieces.items[0].items[0], pieces.items[1]
        assert isinstance(each, n.Comprehension)
        source, inner = self.iteration(each)
        inner.names[each.var] = Binding({"var": "current"}, self.depth + 1)
        body = {operator: [{"var": "accumulator"}, inner.expr(each.element)]}
        return {"reduce": [source, body, self.expr(initial)]}

    def last(self, each: n.Comprehension, initial: n.Expr) -> Any:
        """`js_last([body for item in xs], initial)`: a reduce whose body ignores the accumulator."""
        if each.condition is not None:
            raise self.refuse("the last of a filtered list", each)
        source, inner = self.iteration(each)
        inner.names[each.var] = Binding({"var": "current"}, self.depth + 1)
        return {"reduce": [source, inner.expr(each.element), self.expr(initial)]}

    def let(self, let: n.Comprehension, value: n.Expr) -> Any:
        """`[body for v in [value]][0]`, the import's way to compute a value once: `value` in
        place of `v` (JsonLogic has no names; the rule computes it where it is used)."""
        if let.condition is not None:
            raise self.refuse("a filtered one-item list", let)
        inner = Exporter({**self.names}, self.depth)
        inner.names[let.var] = Binding(self.expr(value), self.depth, self.type_of(value))
        return inner.expr(let.element)


def _constant(rule: Any) -> bool:
    if isinstance(rule, dict):
        return False
    if isinstance(rule, list):
        return all(_constant(item) for item in rule)
    return True


def _compared(expr: n.Binary) -> tuple[n.Expr, n.Expr] | None:
    """`js_compare(a, b) < 0` (and `<=`): the import's order comparisons."""
    left, right = expr.left, expr.right
    if (
        expr.op in ("<", "<=")
        and isinstance(left, n.Call)
        and left.function == "js_compare"
        and len(left.args) == 2
        and isinstance(right, n.NumberLit)
        and right.value == 0
    ):
        return left.args[0], left.args[1]
    return None


def _is_fold(arg: n.Expr) -> bool:
    return (
        isinstance(arg, n.Call)
        and arg.function == "js_merge"
        and len(arg.args) == 1
        and isinstance(arg.args[0], n.ListExpr)
        and len(arg.args[0].items) == 2
        and isinstance(arg.args[0].items[0], n.ListExpr)
        and len(arg.args[0].items[0].items) == 1
        and isinstance(arg.args[0].items[1], n.Comprehension)
    )


def export_jsonlogic(program: n.Program, parameter_types: Mapping[str, Type]) -> tuple[Any, list[Diagnostic]]:
    """The JsonLogic rule of a checked program (its parameters' types as the check found
    them), or the E1006 diagnostics of what does not map onto one (the rule is then None)."""
    exporter = Exporter()
    whole = list(parameter_types) == ["data"]
    for name, type_ in parameter_types.items():
        exporter.names[name] = Binding({"var": "" if whole else name}, 0, type_)
    try:
        rule = _steps(exporter, program.steps)
    except NotExportable as refused:
        message = f"{refused.what} does not map onto JsonLogic"
        return None, [Diagnostic.of(codes.JSONLOGIC_NOT_EXPORTABLE, message, refused.span)]
    return rule, []


def _steps(exporter: Exporter, steps: tuple[n.Step, ...]) -> Any:
    for step in steps:
        match step:
            case n.Assign(target=target, value=value):
                type_ = exporter.type_of(value)
                exporter.names[target] = Binding(exporter.expr(value), exporter.depth, type_)
            case n.Return(value=value):
                return exporter.expr(value)
            case _:
                raise NotExportable(f"the {step.kind} step", step.span)
    raise NotExportable("a program without a return", Span())
