"""The static cost bound of a compute program: the most operations a run that succeeds can be
charged, as a polynomial of its arguments' (and tables') sizes.

One operation is what the interpreter's operation budget counts (`Limits.max_operations`,
interpret/runtime.py): each node of the program as written, charged once before the run; per
item of a comprehension, the nodes of its element and filter and the comprehension itself;
a builtin's declared cost (builtins.py); equality and membership of lists and objects (their
items and fields at every depth), `**`, joining two texts and a template's text (by the bytes
built); reading a list or object out of a table; and a called tool's own program and run. The
language has no loops but comprehensions over finite lists, so the bound is a polynomial: a
comprehension multiplies its element's cost by its list's length. Where a branch is taken is
not known, the costlier branch is counted, term by term.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.types import ANY
from toolkiln.ast.visitor import walk
from toolkiln.check.checker import CheckResult
from toolkiln.check.cost.builtins import TEXT_BYTE, Call, charge_of, result_of
from toolkiln.check.cost.poly import ONE, ZERO, Poly
from toolkiln.check.cost.shapes import (
    BOOLEAN,
    DATE,
    DATETIME,
    INTEGER,
    MAX_TEXT,
    NULL,
    NUMBER,
    SCALAR_KIND,
    PathShape,
    Shape,
    join,
    limit,
    list_of,
    of_type,
    record_of,
    scalar,
    text_of,
)
from toolkiln.errors import Error
from toolkiln.semantics.builtin_registry import BYTES_PER_OPERATION, NUMBER_BYTES
from toolkiln.semantics.failures import CAUGHT_ERROR
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits
from toolkiln.semantics.numbers import parse_spec, render_number

TABLE_VALUE = Fraction(NUMBER_BYTES, BYTES_PER_OPERATION)  # per item read out of a table
MAX_CALL_DEPTH = 32


class Analyzable(Protocol):
    """A compute tool as the analysis reads it (a `toolkiln.Tool` is one)."""

    @property
    def program(self) -> n.Program: ...

    @property
    def checked(self) -> CheckResult: ...


Callees = Callable[[str], Analyzable | None]


class NoBound(Error):
    """The bound cannot be given: a called tool is not known, or calls go too deep."""


@dataclass(frozen=True)
class Cost:
    operations: Poly
    result: Shape


_SCALAR_TYPES = {"number": NUMBER, "integer": INTEGER, "boolean": BOOLEAN, "date": DATE, "datetime": DATETIME}


class Analysis:
    """One program's walk, with its checked types; `env` maps a variable to its shape."""

    def __init__(self, program: n.Program, checked: CheckResult, callees: Callees | None, limits: Limits, depth: int):
        self.program, self.checked, self.types, self.callees = program, checked, checked.types, callees
        self.limits, self.depth = limits, depth
        self.tables = {t.name: t.type for t in program.tables or ()}

    # --- the program ------------------------------------------------------------------------

    def run(self, params: dict[str, Shape]) -> Cost:
        static = _size(self.program)
        self.returned: Shape | None = None
        cost = self.block(self.program.steps, dict(params))
        return Cost(cost + static, self.returned or NULL)

    def block(self, steps: tuple[n.Step, ...], env: dict[str, Shape]) -> Poly:
        total = ZERO
        for step in steps:
            total = total + self.step(step, env)
        return total

    def step(self, step: n.Step, env: dict[str, Shape]) -> Poly:
        match step:
            case n.Assign(target=target, value=value):
                cost = self.expr(value, env)
                env[target] = cost.result
                return cost.operations
            case n.Format(target=target, template=template):
                cost = self.template(template, env)
                env[target] = cost.result
                return cost.operations
            case n.Lookup():
                return self.lookup(step, env)
            case n.CallTool():
                return self.call_tool(step, env)
            case n.If(condition=condition, then=then, otherwise=otherwise):
                test = self.expr(condition, env).operations
                other = dict(env)
                taken, not_taken = self.block(then, env), self.block(otherwise, other)
                for name, shape in other.items():
                    env[name] = join(env[name], shape) if name in env else shape
                return test + taken.join(not_taken)
            case n.Return(value=value):
                cost = self.expr(value, env)
                self.returned = cost.result if self.returned is None else join(self.returned, cost.result)
                return cost.operations
            case _:
                assert_never(step)

    def lookup(self, step: n.Lookup, env: dict[str, Shape]) -> Poly:
        declared = self.tables.get(step.table, ANY)
        value = PathShape("table", step.table, ("[*]",), declared)
        cost = self.expr(step.key, env).operations + value.nodes() * TABLE_VALUE
        if step.default is not None:
            default = self.expr(step.default, env)
            cost, value = cost + default.operations, join(value, default.result)  # type: ignore[assignment]
        env[step.target] = value
        return cost

    def call_tool(self, step: n.CallTool, env: dict[str, Shape]) -> Poly:
        callee = self.callees(step.tool) if self.callees is not None else None
        if callee is None:
            raise NoBound(f"tool `{step.tool}` is called, and its bound is not known here")
        if self.depth >= MAX_CALL_DEPTH:
            raise NoBound(f"calls nest more than {MAX_CALL_DEPTH} deep")
        cost, args = ZERO, {}
        for arg in step.args:
            value = self.expr(arg.value, env)
            cost, args[arg.name] = cost + value.operations, value.result
        called = Analysis(callee.program, callee.checked, self.callees, self.limits, self.depth + 1)
        inner = called.run(called.arguments(args))
        env[step.target] = inner.result
        return cost + inner.operations

    def arguments(self, given: dict[str, Shape]) -> dict[str, Shape]:
        """A callee's parameters: what the caller passes, else the default."""
        params = {}
        for param in self.checked.parameters:
            shape = given.get(param.name)
            if shape is None:
                shape = self.expr(param.default, {}).result if param.default is not None else NULL
            params[param.name] = shape
        return params

    # --- templates --------------------------------------------------------------------------

    def template(self, template: n.Template, env: dict[str, Shape]) -> Cost:
        cost, used = ZERO, ZERO
        for part in template.parts:
            if isinstance(part, n.TextPart):
                used = used + len(part.text)
                continue
            value = self.expr(part.expr, env)
            cost = cost + value.operations
            used = used + (value.result.rendered() if part.spec is None else self.formatted(part.spec))
        return Cost(cost + used * TEXT_BYTE, text_of(used))

    def formatted(self, spec: str) -> Poly:
        """format_length's bound: sign, grouped whole digits (a percent's two more), point,
        decimals; without decimals, as long as a text may be."""
        parsed = parse_spec(spec)
        if parsed is None or parsed.decimals is None:
            return MAX_TEXT
        return (limit("max_digits") + 2) * Fraction(4, 3) + 3 + parsed.decimals

    # --- expressions ------------------------------------------------------------------------

    def typed(self, expr: n.Expr, shape: Shape) -> Shape:
        """A scalar expression's shape from its checked type (its rendering: an integer's
        digits, a date's ten characters)."""
        type_ = self.types.get(id(expr))
        if type_ is None or type_.nullable or type_.name not in _SCALAR_TYPES:
            return shape
        if shape.kind == SCALAR_KIND and type_.name != "integer":
            return shape  # what the builtin's model knows (days_between's whole days)
        return _SCALAR_TYPES[type_.name]

    def static(self, expr: n.Expr) -> str:
        type_ = self.types.get(id(expr), ANY)
        if type_.nullable:
            return "any"
        return "number" if type_.is_numeric else type_.name

    def expr(self, expr: n.Expr, env: dict[str, Shape]) -> Cost:
        cost = self.dispatch(expr, env)
        return Cost(cost.operations, self.typed(expr, cost.result))

    def dispatch(self, expr: n.Expr, env: dict[str, Shape]) -> Cost:
        match expr:
            case n.NumberLit() | n.StringLit() | n.BoolLit() | n.NullLit():
                return Cost(ZERO, literal_shape(expr))
            case n.Name(name=name):
                return Cost(ZERO, env.get(name, NULL))
            case n.Unary(operand=operand):
                return Cost(self.expr(operand, env).operations, NUMBER)
            case n.Binary():
                return self.binary(expr, env)
            case n.Conditional(test=test, then=then, otherwise=otherwise):
                a, b = self.expr(then, env), self.expr(otherwise, env)
                return Cost(self.expr(test, env).operations + a.operations.join(b.operations), join(a.result, b.result))
            case n.Call():
                return self.call(expr, env)
            case n.Field_(target=target, name=name):
                inner = self.expr(target, env)
                return Cost(inner.operations, inner.result.field(name))
            case n.Index(target=target, index=index):
                return self.index(target, index, env)
            case n.ListExpr(items=items):
                return self.list_literal(items, env)
            case n.RecordExpr(entries=entries):
                fields, cost = {}, ZERO
                for entry in entries:
                    value = self.expr(entry.value, env)
                    cost, fields[entry.key] = cost + value.operations, value.result
                return Cost(cost, record_of(fields))
            case n.Comprehension():
                return self.comprehension(expr, env)
            case n.Try(body=body, var=var, handler=handler):
                # at worst the body runs all but its last step, then the handler runs
                tried = self.expr(body, env)
                caught = self.expr(handler, {**env, var: of_type(CAUGHT_ERROR)})
                return Cost(tried.operations + caught.operations, join(tried.result, caught.result))
            case _:
                assert_never(expr)

    def index(self, target: n.Expr, index: n.Expr, env: dict[str, Shape]) -> Cost:
        container, key = self.expr(target, env), self.expr(index, env)
        shape = container.result
        part = shape.field(index.value) if isinstance(index, n.StringLit) else shape.item()
        return Cost(container.operations + key.operations, part)

    def list_literal(self, items: tuple[n.Expr, ...], env: dict[str, Shape]) -> Cost:
        cost, shape = ZERO, None
        for item in items:
            value = self.expr(item, env)
            cost = cost + value.operations
            shape = value.result if shape is None else join(shape, value.result)
        return Cost(cost, list_of(Poly.const(len(items)), shape or NULL))

    def comprehension(self, expr: n.Comprehension, env: dict[str, Shape]) -> Cost:
        source = self.expr(expr.iterable, env)
        items = source.result.length()
        inner = {**env, expr.var: source.result.item()}
        element = self.expr(expr.element, inner)
        written = 1 + _size(expr.element) + (_size(expr.condition) if expr.condition is not None else 0)
        per_item = Poly.const(written) + element.operations  # interpret's comprehension_cost
        if expr.condition is not None:
            per_item = per_item + self.expr(expr.condition, inner).operations
        return Cost(source.operations + items * per_item, list_of(items, element.result))

    def call(self, expr: n.Call, env: dict[str, Shape]) -> Cost:
        cost, shapes = ZERO, []
        for arg in expr.args:
            value = self.expr(arg, env)
            cost = cost + value.operations
            shapes.append(value.result)
        typed = of_type(self.types.get(id(expr), ANY))
        call = Call(shapes, expr.args, typed, self.limits)
        result = result_of(expr.function, call)
        return Cost(cost + charge_of(expr.function, call, result), result)

    def binary(self, expr: n.Binary, env: dict[str, Shape]) -> Cost:
        left, right = self.expr(expr.left, env), self.expr(expr.right, env)
        cost = left.operations + right.operations
        a, b = left.result, right.result
        op = expr.op
        if op in n.MEMBERSHIP_OPS:
            return Cost(cost + self.membership(expr, b), BOOLEAN)
        if op in n.EQUALITY_OPS + n.ORDER_OPS + n.LOGIC_OPS:
            charged = op in n.EQUALITY_OPS and not self.pure_comparison(expr)
            return Cost(
                cost + (ONE + _smaller(a.size(), b.size()) + _smaller(a.nodes(), b.nodes()) if charged else ZERO),
                BOOLEAN,
            )
        if op == "**":
            return Cost(cost + ONE, NUMBER)
        if op == "+" and {self.static(expr.left), self.static(expr.right)} != {"number"}:
            joined = text_of(a.length() + b.length())
            return Cost(
                cost + (a.length() + b.length()) * TEXT_BYTE,
                joined if "string" in self.kinds(expr) else join(joined, NUMBER),
            )
        return Cost(cost, NUMBER)

    def kinds(self, expr: n.Binary) -> set[str]:
        return {self.static(expr.left), self.static(expr.right)}

    def pure_comparison(self, expr: n.Binary) -> bool:
        kinds = self.kinds(expr)
        return len(kinds) == 1 and kinds <= {"number", "string", "boolean"}

    def membership(self, expr: n.Binary, container: Shape) -> Poly:
        items = expr.right.items if isinstance(expr.right, n.ListExpr) else ()
        kinds = {type(item) for item in items}
        if len(kinds) == 1 and kinds <= {n.StringLit, n.NumberLit}:
            return ZERO  # a set lookup, charged nothing
        return ONE + container.size() + container.nodes()


def literal_shape(literal: n.NumberLit | n.StringLit | n.BoolLit | n.NullLit) -> Shape:
    match literal:
        case n.NumberLit(value=value):
            return scalar(Poly.const(len(render_number(value))))
        case n.StringLit(value=value):
            return text_of(Poly.const(len(value)))
        case n.BoolLit():
            return BOOLEAN
        case _:
            return NULL


def _size(node: n.Node) -> int:
    return sum(1 for _ in walk(node))


def _smaller(a: Poly, b: Poly) -> Poly:
    """Either bounds the smaller of the two: the one the other covers, else the first."""
    return b if a.covers(b) else a


def parameter_shapes(program: n.Program, checked: CheckResult, analysis: Analysis) -> dict[str, Shape]:
    """Each parameter as a variable of its type, or its default when it is left out."""
    shapes: dict[str, Shape] = {}
    for param in checked.parameters:
        shape: Shape = PathShape("arg", param.name, (), param.type)
        if param.default is not None:
            shape = join(shape, analysis.expr(param.default, {}).result)
        shapes[param.name] = shape
    return shapes


def analyze(
    program: n.Program, checked: CheckResult, *, callees: Callees | None = None, limits: Limits = DEFAULT_LIMITS
) -> Cost:
    analysis = Analysis(program, checked, callees, limits, 0)
    return analysis.run(parameter_shapes(program, checked, analysis))
