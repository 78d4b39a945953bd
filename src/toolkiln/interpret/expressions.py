"""Expressions -> Python closures `fn(frame) -> value`.

The frame is a list: slot 0 holds the Runtime, the other slots hold variables. Where the
checker proved an operand's type, the closure skips the run-time type test; where it could
not (values of type `any` from untyped data), the closure tests and reports E0509.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any, assert_never, cast

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import ANY, Type
from toolkiln.ast.visitor import left_chain, walk
from toolkiln.errors import RunError
from toolkiln.interpret import calls, float_domain, js_calls, reads
from toolkiln.interpret.faults import arithmetic_fault, type_fault
from toolkiln.interpret.plan import Compare, Fn, Frame, Shapes, Test
from toolkiln.interpret.runtime import Runtime, charge
from toolkiln.interpret.specialize import Operand, arithmetic_binary, pure_binary
from toolkiln.interpret.steps import choose
from toolkiln.semantics import operators
from toolkiln.semantics.builtin_registry import text_work
from toolkiln.semantics.builtins import size_of
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import FormatSpec, format_length, format_number, parse_spec
from toolkiln.semantics.values import to_text_within, too_long

_TYPES = {"number": Decimal, "string": str, "boolean": bool, "array": list, "object": dict, "date": date}
_TYPES["datetime"] = datetime
_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
# Decimal's operators: the same operations as the context's add, subtract, ... in the run's
# context, which is current while closures run (see decimal_scope.py).
# The longest left-deep chain compiled as nested closures; longer ones run in segments.
_SEGMENT = 64
_ZERO = Decimal(0)
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": operator.mod}


class ExprCompiler:
    """Its closures run with `limits.context` as the current decimal context (the program's
    runner makes it so), so arithmetic uses Decimal's operators, three times cheaper to call
    than the context's methods."""

    def __init__(
        self,
        types: dict[int, Type],
        limits: Limits,
        slots: dict[str, int],
        comprehension_costs: Mapping[Span, int] | None = None,
        lazy: Mapping[str, frozenset[str]] | None = None,
        shapes: Shapes | None = None,
    ) -> None:
        self.types = types
        self.shapes = shapes or Shapes()  # what is known of the closures made (plan.py)
        # Operations charged per item, by comprehension span, as the program was written
        # (see CompiledProgram): the optimizer must not make a loop cheaper to budget.
        self.comprehension_costs = comprehension_costs or {}
        self.limits = limits
        self.slots = slots  # variable name -> frame slot
        self.scopes: list[dict[str, int]] = []  # comprehension variables -> slot
        self.frame_size = len(slots) + 1  # grows with each comprehension variable
        # Lists bound as given, their fields converted as read (lazy_items.py): by parameter,
        # then by the slot of a comprehension variable over one, the fields read as null
        # when an item leaves them out.
        self.lazy = lazy or {}
        self.raw_items: dict[int, frozenset[str]] = {}
        # Whether a closure charges work as it runs (see runtime.py): the run needs its state.
        self.charging = False
        # Whether a closure reads the run's clock (today(), now()): the run needs its state too.
        self.reads_clock = False
        self.floats = False  # whether the program computes in floats (float_domain.py)

    def static(self, expr: n.Expr) -> str:
        type_ = self.types.get(id(expr), ANY)
        if type_.nullable:
            return "any"  # tested at run time, as values of unknown type are
        return "number" if type_.is_numeric else type_.name

    def slot_for(self, name: str) -> int:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return self.slots[name]

    def new_slot(self) -> int:
        self.frame_size += 1
        return self.frame_size - 1

    # --- dispatch -------------------------------------------------------------------------

    def closure(self, expr: n.Expr) -> Fn:
        match expr:  # the commonest kinds first: each case is an isinstance
            case n.Binary():
                return self.binary(expr)
            case n.Name(name=name):
                return operator.itemgetter(self.slot_for(name))
            case n.NumberLit(value=value) | n.StringLit(value=value) | n.BoolLit(value=value):
                return _constant(float_domain.literal(value) if self.floats else value)
            case n.NullLit():
                return lambda f: None
            case n.Unary():
                return self.unary(expr)
            case n.Conditional(test=test, then=then, otherwise=otherwise):
                return self.conditional(test, self.closure(then), self.closure(otherwise))
            case n.Call():
                return self.call(expr)
            case n.Field_():
                return self.field_read(expr)
            case n.Index(target=target, index=index):
                return reads.index(self.closure(target), self.closure(index), expr.span)
            case n.ListExpr(items=items):
                parts = tuple(self.closure(item) for item in items)
                return lambda f: [p(f) for p in parts]
            case n.RecordExpr(entries=entries):
                fields = tuple((entry.key, self.closure(entry.value)) for entry in entries)
                return lambda f: {key: value(f) for key, value in fields}
            case n.Comprehension():
                return self.comprehension(expr)
            case n.Try():
                return self.attempt(expr)
            case _:
                assert_never(expr)

    def conditional(self, test: n.Expr, a: Fn, b: Fn) -> Fn:
        """`a if test else b`."""
        return choose(self.test(test, "a condition needs a boolean"), a, b, self.shapes)

    def test(self, test: n.Expr, what: str) -> Test:
        """A condition as a Compare when it compares a variable with a constant (tested in place
        by its user), else a closure returning a boolean; `what` is the error when it turns out
        not to be one."""
        if isinstance(test, n.Binary) and test.op in n.ORDER_OPS + n.EQUALITY_OPS:
            kinds = {self.static(test.left), self.static(test.right)}
            left, right = self.operand(test.left), self.operand(test.right)
            if len(kinds) == 1 and kinds <= {"number", "string"} and left[0] == "slot" and right[0] == "const":
                return Compare(_COMPARE[test.op], left[1], right[1])
        if isinstance(test, n.Name) and self.static(test) == "boolean":
            return Compare(operator.is_, self.slot_for(test.name), True)
        return self.boolean(test, what)

    # --- typed operands -------------------------------------------------------------------

    def typed(self, expr: n.Expr, wanted: str, what: str) -> Fn:
        """The operand's closure, with a run-time type test unless the checker proved it."""
        fn = self.closure(expr)
        if self.static(expr) == wanted:
            return fn
        kind, span = _TYPES[wanted], expr.span

        def checked(f: Frame) -> Any:
            value = fn(f)
            if type(value) is not kind:
                raise type_fault(what, value, span)
            return value

        return checked

    def number(self, expr: n.Expr) -> Fn:
        return self.typed(expr, "number", "arithmetic needs a number")

    def operand(self, expr: n.Expr, wanted: str | None = None) -> Operand:
        """A variable or constant as itself (for specialised closures), anything else as a closure;
        with `wanted`, a run-time type test is added unless the checker proved the type."""
        if wanted is None or self.static(expr) == wanted:
            if isinstance(expr, n.Name):
                return ("slot", self.slot_for(expr.name))
            if isinstance(expr, n.LITERALS):
                return ("const", self.value_of(expr))
        if wanted is None:
            return ("fn", self.closure(expr))
        return ("fn", self.typed(expr, wanted, "arithmetic needs a number"))

    def boolean(self, expr: n.Expr, what: str) -> Fn:
        return self.typed(expr, "boolean", what)

    # --- operators ------------------------------------------------------------------------

    def unary(self, expr: n.Unary) -> Fn:
        if expr.op == "not":
            operand = self.boolean(expr.operand, "`not` needs a boolean")
            return lambda f: not operand(f)
        operand = self.number(expr.operand)
        sign = operator.neg if expr.op == "-" else operator.pos  # `+x` rounds, as in decimal
        return self.guard(lambda f: sign(operand(f)), expr.span)

    def guard(self, fn: Fn, span: Span) -> Fn:
        """Turn decimal signals (overflow, invalid operation) into located RunErrors."""
        digits = self.limits.max_number_digits

        def guarded(f: Frame) -> Any:
            try:
                return fn(f)
            except ArithmeticError as error:
                raise arithmetic_fault(error, span, digits) from None

        return guarded

    def binary(self, expr: n.Binary) -> Fn:
        leaf, chain = left_chain(expr)
        if len(chain) > _SEGMENT:
            return self.long_chain(leaf, chain)
        return self.single_binary(expr)

    def long_chain(self, leaf: n.Expr, chain: list[n.Binary]) -> Fn:
        """A left-deep chain of more than _SEGMENT binaries (`a + b + ...`) nests its closures
        as deep as it is long, too deep for Python's stack. It runs as segments instead: each
        segment's bottom operand reads the value of the segment before from a frame slot."""
        slot = self.new_slot()
        carried = f"#chain{slot}"  # no name of the language starts with `#`
        self.scopes.append({carried: slot})
        made: list[n.Expr] = []  # stand-ins, typed as what they replace while this compiles

        def stand_in(new: n.Expr, old: n.Expr) -> n.Expr:
            self.types[id(new)] = self.types.get(id(old), ANY)
            made.append(new)  # alive until compiled: types are keyed by id
            return new

        segments: list[Fn] = []
        below: n.Expr = leaf
        for position, node in enumerate(chain):
            if position and position % _SEGMENT == 0:
                segments.append(self.closure(below))
                below = stand_in(n.Name(name=carried, span=below.span), below)
            below = stand_in(replace(node, left=below), node)
        last = self.closure(below)
        self.scopes.pop()
        for stand_in_node in made:
            del self.types[id(stand_in_node)]

        def run(f: Frame) -> Any:
            for segment in segments:
                f[slot] = segment(f)
            return last(f)

        return run

    def single_binary(self, expr: n.Binary) -> Fn:
        op, limits = expr.op, self.limits
        if op in ("and", "or"):
            left = self.boolean(expr.left, f"`{op}` needs booleans")
            right = self.boolean(expr.right, f"`{op}` needs booleans")
            if op == "and":
                return lambda f: left(f) and right(f)
            return lambda f: left(f) or right(f)
        if op in n.MEMBERSHIP_OPS:
            return self.literal_membership(expr) or self.semantic(
                lambda a, b, left=None: operators.member(op, a, b, left), expr, charged=_container_work
            )
        kinds = {self.static(expr.left), self.static(expr.right)}
        if op in n.EQUALITY_OPS + n.ORDER_OPS:
            if len(kinds) == 1 and kinds <= ({"number", "string"} | ({"boolean"} if op in n.EQUALITY_OPS else set())):
                return pure_binary(_COMPARE[op], self.operand(expr.left), self.operand(expr.right))
            charged = _equality_work if op in n.EQUALITY_OPS else None
            return self.semantic(lambda a, b, left=None: operators.compare(op, a, b, left), expr, charged=charged)
        if op == "**":  # a fractional power costs hundreds of operations: charged, timed
            return self.semantic(lambda a, b, left=None: operators.arithmetic(op, a, b, limits), expr, charged=_one)
        if kinds == {"number"} and (
            op in ("+", "-", "*") or (op in ("/", "%") and isinstance(expr.right, n.NumberLit) and expr.right.value)
        ):
            return self.arithmetic(expr)
        if op in ("+", "-", "*") and kinds <= {"number", "any"}:
            return self.dynamic_arithmetic(expr)
        if op == "+":
            return self.concatenation(expr)
        return self.semantic(lambda a, b: operators.arithmetic(op, a, b, limits), expr)

    def literal_membership(self, expr: n.Binary) -> Fn | None:
        """`x in ["a", "b"]` with only string (or only number) literals: a set lookup. The
        same answer as the list scan, whose equality holds only between values of one type."""
        items = expr.right.items if isinstance(expr.right, n.ListExpr) else ()
        kinds = {type(item) for item in items}
        if len(kinds) != 1 or not kinds <= {n.StringLit, n.NumberLit}:
            return None
        literals = cast(tuple[n.StringLit | n.NumberLit, ...], items)  # what `kinds` holds
        members = frozenset(item.value for item in literals)
        kind = str if kinds == {n.StringLit} else Decimal
        item, wanted = self.closure(expr.left), expr.op == "in"
        if isinstance(expr.left, n.Name) and self.static(expr.left) == ("string" if kind is str else "number"):
            slot = self.slot_for(expr.left.name)  # a variable of the members' type: read in place
            if wanted:
                return lambda f: f[slot] in members
            return lambda f: f[slot] not in members

        def member(f: Frame) -> bool:
            value = item(f)
            return (type(value) is kind and value in members) is wanted

        return member

    def semantic(
        self, evaluate: Callable[..., Any], expr: n.Binary, charged: Callable[[Any, Any], int] | None = None
    ) -> Fn:
        """The general case: the operator's one definition (semantics/operators.py), with
        every type and limit check, located at the expression. `charged(a, b)`: the work of
        an operation whose cost grows with its operands (equality of lists, membership,
        powers), charged to the run before it runs (see runtime.py)."""
        left, right, span = self.closure(expr.left), self.closure(expr.right), expr.span
        if charged is not None:
            self.charging = True
            work = charged
            digits = self.limits.max_number_digits

            def run_charged(f: Frame) -> Any:
                a = left(f)
                b = right(f)
                runtime = f[0]
                charge(runtime, work(a, b), span)
                # What the operation compares beyond its top level (lists inside lists) is
                # counted as it goes, within what is left of the budget, and charged after.
                allowance = [runtime.limits.max_operations - runtime.operations]
                before = allowance[0]
                try:
                    return evaluate(a, b, allowance)
                except RunError as error:
                    raise error.at(span) from None
                except ArithmeticError as error:
                    raise arithmetic_fault(error, span, digits) from None
                finally:
                    runtime.operations += before - allowance[0]

            return run_charged

        def run(f: Frame) -> Any:
            a = left(f)  # left before right: errors come in reading order
            try:
                return evaluate(a, right(f))
            except RunError as error:
                raise error.at(span) from None

        return run

    def concatenation(self, expr: n.Binary) -> Fn:
        """`a + b` where either may be a text: two texts are sized (E0504 over the limit) and
        charged for the text they make before it is made (see `_charge_text`)."""
        left, right, span, limits = self.closure(expr.left), self.closure(expr.right), expr.span, self.limits
        self.charging = True
        add = operators.arithmetic

        def concatenate(f: Frame) -> Any:
            a = left(f)  # left before right: errors come in reading order
            b = right(f)
            if type(a) is str and type(b) is str:
                _charge_text(f[0], a, b, span)
            try:
                return add("+", a, b, limits)
            except RunError as error:
                raise error.at(span) from None

        return concatenate

    def dynamic_arithmetic(self, expr: n.Binary) -> Fn:
        """`+ - *` on operands of run-time type (fields of untyped objects, such as line items'
        `i.price * i.qty`): two numbers take Decimal's operator, as the specialised closures
        do; anything else (strings to join, a wrong type to report) the general path."""
        symbol, limits, span = expr.op, self.limits, expr.span
        op, digits = _ARITHMETIC[symbol], limits.max_number_digits
        left, right, general = self.closure(expr.left), self.closure(expr.right), operators.arithmetic
        concatenates = symbol == "+"  # two texts join: charged (see _charge_text)
        self.charging = self.charging or concatenates

        def run(f: Frame) -> Any:
            a = left(f)  # left before right: errors come in reading order
            b = right(f)
            if type(a) is Decimal and type(b) is Decimal:
                try:
                    return op(a, b)
                except ArithmeticError as error:
                    raise arithmetic_fault(error, span, digits) from None
            if concatenates and type(a) is str and type(b) is str:
                _charge_text(f[0], a, b, span)
            try:
                return general(symbol, a, b, limits)
            except RunError as error:
                raise error.at(span) from None

        return self.raw_arithmetic(expr, run)

    def arithmetic(self, expr: n.Binary) -> Fn:
        """Specialised closures for numbers the checker proved: + - * and division by a
        non-zero constant (the caller sends everything else down the general path)."""
        left, right = self.operand(expr.left), self.operand(expr.right)
        if expr.op in ("+", "*") and left[0] == "const" and right[0] != "const":
            # `2.5 * w` as `w * 2.5`: decimal + and * are commutative, rounding and exponent
            # included, and a constant raises nothing, so this can join a chain (specialize.py).
            left, right = right, left
        digits = self.limits.max_number_digits
        located = arithmetic_binary(_ARITHMETIC[expr.op], left, right, expr.span, digits, self.shapes)
        return self.raw_arithmetic(expr, located) if expr.op in ("+", "-", "*") else located

    # --- calls, fields, indexes -----------------------------------------------------------

    def call(self, expr: n.Call) -> Fn:
        function = js_calls.builtin_for(expr.function, self.floats)
        if special := js_calls.specialised(expr, self.closure, self.limits, self.floats):
            return special
        if expr.function == "sum" and len(expr.args) == 1 and isinstance(expr.args[0], n.Comprehension):
            return self.summed(expr.args[0], function.impl, expr.span)
        args = []
        for position, arg in enumerate(expr.args):
            accepts = function.arg_for(position).accepts
            fn = self.closure(arg)
            if ANY not in accepts and self.static(arg) == "any":
                fn = self.checked_arg(fn, accepts, f"argument of {expr.function}", arg.span)
            args.append(fn)
        parts, limits, span = tuple(args), self.limits, expr.span
        if function.clocked:
            self.reads_clock = True
            self.charging = self.charging or function.work is not None
            return calls.clocked(function, parts, limits, span)
        if function.builds is not None or function.built is not None:
            self.charging = True
            return calls.building(function, parts, limits, span)
        if function.work is not None:  # a cost that grows with the arguments
            self.charging = True
            return calls.charged(function, parts, limits, span)
        trailing = expr.args[1:]
        constant = trailing and all(isinstance(arg, n.LITERALS) for arg in trailing)
        constants = tuple(self.value_of(arg) for arg in trailing) if constant else None
        return calls.plain(function, parts, constants, limits, span)

    def value_of(self, literal: n.Expr) -> Any:
        value = getattr(literal, "value", None)
        return float_domain.literal(value) if self.floats else value

    def summed(self, comprehension: n.Comprehension, impl: Callable[..., Any], span: Span) -> Fn:
        """`sum(x for x in xs)` (see calls.summed)."""
        build = self.comprehension(comprehension)
        self.charging = True
        numbers = self.static(comprehension.element) == "number"
        return calls.summed(build, numbers, impl, self.limits, span)

    def checked_arg(self, fn: Fn, accepts: tuple[Type, ...], what: str, span: Span) -> Fn:
        kinds = tuple({_TYPES[t.name] for t in accepts if t.name in _TYPES})
        wanted = " or ".join(str(t) for t in accepts)

        def checked(f: Frame) -> Any:
            value = fn(f)
            if type(value) not in kinds:
                raise type_fault(f"{what} must be {wanted}", value, span)
            return value

        return checked

    def raw_field(self, expr: n.Expr) -> tuple[int, str, bool] | None:
        """For `var.name` where `var` iterates a list bound as given (lazy_items.py): the
        variable's slot, the field, and whether an item may leave it out (it reads as null)."""
        if not isinstance(expr, n.Field_) or not isinstance(expr.target, n.Name):
            return None
        slot = self.slot_for(expr.target.name)
        if slot not in self.raw_items:
            return None
        return slot, expr.name, expr.name in self.raw_items[slot]

    def field_read(self, expr: n.Field_) -> Fn:
        """`target.name`; a field of an item of a list bound as given is converted as read."""
        raw = self.raw_field(expr)
        if raw is None:
            return reads.field(self.closure(expr.target), expr.name, expr.span)
        slot, name, may_be_missing = raw
        return reads.raw_field(slot, name, may_be_missing, expr.span)

    def raw_arithmetic(self, expr: n.Binary, otherwise: Fn) -> Fn:
        """`a.x * b.y` (or + -) with both fields read from lists bound as given (reads.py), else
        `otherwise`, the closure compiled for the operation as usual."""
        left, right = self.raw_field(expr.left), self.raw_field(expr.right)
        if left is None or right is None:
            return otherwise
        return reads.raw_arithmetic(_ARITHMETIC[expr.op], left[:2], right[:2], otherwise)

    def comprehension(self, expr: n.Comprehension) -> Fn:
        iterable = self.typed(expr.iterable, "array", "`for ... in` needs a list")
        slot = self.new_slot()
        source = expr.iterable
        if isinstance(source, n.Name) and source.name in self.lazy and all(source.name not in s for s in self.scopes):
            self.raw_items[slot] = self.lazy[source.name]  # its items as given: see field_read
        self.scopes.append({expr.var: slot})
        element = self.closure(expr.element)
        condition = None if expr.condition is None else self.boolean(expr.condition, "a filter needs a boolean")
        self.scopes.pop()
        span = expr.span
        cost = self.comprehension_costs.get(span) or comprehension_cost(expr)
        return reads.comprehension(iterable, slot, element, condition, cost, span)

    def attempt(self, expr: n.Try) -> Fn:
        """`try body catch error: handler`: the handler runs with the failure in its slot when
        the body stops with an error `try` may catch (semantics/failures.py)."""
        body = self.closure(expr.body)
        slot = self.new_slot()
        self.scopes.append({expr.var: slot})
        handler = self.closure(expr.handler)
        self.scopes.pop()
        return reads.attempt(body, slot, handler)

    # --- templates ------------------------------------------------------------------------

    def template(self, template: n.Template, span: Span) -> Fn:
        parts = [self.template_part(part) for part in template.parts]
        limit = self.limits.max_string_length
        self.charging = True

        def render(f: Frame) -> str:
            # Each part is at most `limit` long (decided before it is built), the running total
            # is checked after each: the text never holds more than twice the limit. The whole
            # is charged before it is joined.
            pieces, used = [], 0
            try:
                for part in parts:
                    piece = part(f)
                    used += len(piece)
                    if used > limit:
                        raise too_long(limit)
                    pieces.append(piece)
            except RunError as error:
                raise error.at(span) from None
            charge(f[0], text_work(used, *pieces), span)
            return "".join(pieces)

        return render

    def template_part(self, part: n.TemplatePart) -> Fn:
        # Values bound as default arguments, read faster than closed-over variables.
        if isinstance(part, n.TextPart):
            return _constant(part.text)
        limit = self.limits.max_string_length
        if part.spec is None:
            value = self.closure(part.expr)

            def text(f: Frame, v: Fn = value) -> str:
                return to_text_within(v(f), limit)

            return text
        spec, number = parse_spec(part.spec), self.number(part.expr)
        assert spec is not None  # the parser rejects a spec that does not parse (syntax/templates.py)

        def formatted(f: Frame, v: Fn = number, s: FormatSpec = spec) -> str:
            value = v(f)
            if format_length(value, s) > limit:
                raise too_long(limit)
            return format_number(value, s)

        return formatted


def _equality_work(a: Any, b: Any) -> int:
    """Equality stops at the shorter operand (and at once for two different types)."""
    return 1 + min(size_of(a), size_of(b)) if type(a) is type(b) else 1


def _container_work(item: Any, container: Any) -> int:
    return 1 + size_of(container)


def _one(a: Any, b: Any) -> int:
    return 1


def _charge_text(runtime: Runtime, a: str, b: str, span: Span) -> None:
    """Charge the run for `a + b` before it is built; one over max_string_length is left to
    be refused (E0504), unbuilt and uncharged."""
    length = len(a) + len(b)
    if length <= runtime.limits.max_string_length:
        charge(runtime, text_work(length, a, b), span)


def _constant(value: object) -> Fn:
    """A closure that returns `value` (bound as a default argument: a faster read than a
    closed-over variable)."""

    def constant(f: Frame, v: object = value) -> object:
        return v

    return constant


def comprehension_cost(expr: n.Comprehension) -> int:
    """The operations charged per item: the node itself, its element and its filter."""
    return 1 + _size(expr.element) + (_size(expr.condition) if expr.condition is not None else 0)


def _size(expr: n.Node) -> int:
    return sum(1 for _ in walk(expr))
