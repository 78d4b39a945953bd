"""Typing expressions: each expression's type, recorded for the interpreter's fast paths, and
the diagnostics of operands, arguments, fields, indexes and names. The statements, the
declarations and the program around them are checked in checker.py, on top of this."""

from __future__ import annotations

from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import (
    ANY,
    ARRAY,
    BOOLEAN,
    DATE,
    DATETIME,
    INTEGER,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    Type,
    array_of,
    fits,
    join,
    not_null,
    record_of,
)
from toolkiln.ast.visitor import left_chain
from toolkiln.check.date_literals import literal_problems
from toolkiln.check.flow import FlowState
from toolkiln.check.nullability import coalesce_type, declared_type, not_null_where
from toolkiln.check.scope import assigned_names
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.failures import CAUGHT_ERROR
from toolkiln.semantics.foreign_names import SAME_AS_BUILTIN, WRITE_INSTEAD

# Functions models reach for from other languages, and what to call instead.
FUNCTION_ALIASES = {**SAME_AS_BUILTIN, **WRITE_INSTEAD}
# Arithmetic and order on two numbers (what the checks below would find well typed).
_NUMERIC_RESULTS = {**dict.fromkeys(n.ARITHMETIC_OPS, NUMBER), **dict.fromkeys(n.ORDER_OPS, BOOLEAN)}
_VERBS = {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "divide",
    "%": "take the remainder of",
    "**": "raise to a power",
}
_LITERAL_TYPES: dict[type, Type] = {n.StringLit: STRING, n.BoolLit: BOOLEAN, n.NullLit: NULL}


class ExpressionChecker:
    """The state that typing expressions reads and learns, and the typing itself."""

    def __init__(self, program: n.Program, inferred: dict[str, Type]) -> None:
        self.program = program
        self.inferred = inferred  # bare logic: parameter -> type learned so far
        self.untyped_reads: dict[str, set[int]] = {}  # parameter -> reads made while it was `any`
        self.declared: dict[str, n.Param] = {p.name: p for p in program.parameters or ()}
        self.assigned = assigned_names(program)
        self.diagnostics: list[Diagnostic] = []
        self.types: dict[int, Type] = {}
        self.scopes: list[dict[str, Type]] = []
        self.read: set[str] = set()
        self.reported: set[tuple[str, str]] = set()

    def report(self, code: codes.Code, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.of(code, message, span, hint))

    def branches(self, condition: n.Expr, what: str, state: FlowState) -> tuple[FlowState, FlowState]:
        """A boolean condition's two branches: after `x != null` (or `x == null`), `x` is not
        null in the branch where that holds."""
        self.require(condition, self.expr(condition, state), BOOLEAN, state, codes.CONDITION_TYPE, what)
        then_state, else_state = state.branch(), state.branch()
        self.learn(condition, True, then_state)
        self.learn(condition, False, else_state)
        return then_state, else_state

    def learn(self, condition: n.Expr, holds: bool, state: FlowState) -> None:
        """Where `condition` is `holds`, the names its null tests prove not null are not null."""
        for name in not_null_where(condition, holds):
            type_ = self.types.get(id(name))
            if type_ is not None and type_.nullable and not self._in_scope(name.name):
                state.definite[name.name] = not_null(type_)

    # --- expressions ----------------------------------------------------------------------

    def expr(self, expr: n.Expr, state: FlowState | None = None) -> Type:
        type_ = self._expr(expr, state or FlowState())
        self.types[id(expr)] = type_
        return type_

    def _expr(self, expr: n.Expr, state: FlowState) -> Type:
        match expr:  # the commonest kinds first: each case is an isinstance
            case n.Binary():
                return self.binary(expr, state)
            case n.Name(name=name):
                return self.name(expr, name, state)
            case n.NumberLit(value=value):
                return INTEGER if value == value.to_integral_value() else NUMBER
            case n.StringLit() | n.BoolLit() | n.NullLit():
                return _LITERAL_TYPES[type(expr)]
            case n.Unary():
                return self.unary(expr, state)
            case n.Conditional():
                return self.conditional(expr, state)
            case n.Call():
                return self.call(expr, state)
            case n.Field_():
                return self.field(expr, state)
            case n.Index(target=target, index=index):
                return self.index(target, index, state)
            case n.ListExpr(items=items):
                return self.list_type(items, state)
            case n.RecordExpr(entries=entries):
                return record_of(tuple((entry.key, self.expr(entry.value, state)) for entry in entries))
            case n.Comprehension():
                return self.comprehension(expr, state)
            case n.Try():
                return self.attempt(expr, state)
            case _:
                assert_never(expr)

    def unary(self, expr: n.Unary, state: FlowState) -> Type:
        expected = BOOLEAN if expr.op == "not" else NUMBER
        operand_type = self.expr(expr.operand, state)
        self.require(expr.operand, operand_type, expected, state, codes.OPERAND_TYPE, f"`{expr.op}`")
        return INTEGER if operand_type == INTEGER and expr.op != "not" else expected

    def conditional(self, expr: n.Conditional, state: FlowState) -> Type:
        then_state, else_state = self.branches(expr.test, "the condition of `... if ... else ...`", state)
        return join(self.expr(expr.then, then_state), self.expr(expr.otherwise, else_state))

    def field(self, expr: n.Field_, state: FlowState) -> Type:
        target, field_name = expr.target, expr.name
        type_ = self.expr(target, state)
        if type_ == ANY:
            self.bind(target, OBJECT)
        elif type_.name == "object" and type_.nullable:
            self.may_be_null(target, codes.NO_FIELD, f"cannot read field `{field_name}` of a {type_}")
        elif type_.name != "object":
            self.mismatch(target, type_, codes.NO_FIELD, f"cannot read field `{field_name}` of a {type_}")
        else:
            return self.field_type(type_, field_name, expr.span)
        return ANY

    def list_type(self, items: tuple[n.Expr, ...], state: FlowState) -> Type:
        item_type: Type | None = None
        for item in items:
            type_ = self.expr(item, state)
            item_type = type_ if item_type is None else join(item_type, type_)
        return array_of(item_type or ANY)

    def field_type(self, record: Type, name: str, span: Span) -> Type:
        """The type of a record's field; reading one its type does not have is E0320."""
        found = record.field_type(name)
        if found is None:
            keys = [key for key, _ in record.fields or ()]
            hint = did_you_mean(name, keys) or (f"its fields: {', '.join(keys)}" if keys else "it has no fields")
            self.report(codes.UNKNOWN_RECORD_FIELD, f"the record has no field `{name}`", span, hint=hint)
            return ANY
        return found

    def name(self, expr: n.Name, name: str, state: FlowState) -> Type:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.inferred:
            if self.inferred[name] == ANY:
                self.untyped_reads.setdefault(name, set()).add(id(expr))
            return self.inferred[name]
        self.read.add(name)
        known = state.type_of(name)
        if known is not None:
            return known
        if name in state.maybe:
            self.report_once(
                codes.POSSIBLY_UNASSIGNED,
                name,
                f"`{name}` may be unassigned here: not every path before this assigns it",
                expr.span,
                hint=f"assign `{name}` on every branch, or before the `if`",
            )
        elif name in self.assigned:
            self.report_once(
                codes.UNASSIGNED_VARIABLE,
                name,
                f"`{name}` is read before it is assigned",
                expr.span,
                hint=f"move the step that assigns `{name}` before this one",
            )
        else:
            names = list(state.definite) + [v for scope in self.scopes for v in scope]
            hint: str | None
            if name in BUILTINS:
                hint = (
                    f"`{name}` is a built-in function: call it as {BUILTINS[name].signature}, "
                    "or name the parameter differently"
                )
            else:
                hint = did_you_mean(name, names) or (
                    "declare it as a parameter" if self.program.parameters is not None else None
                )
            self.report_once(codes.UNKNOWN_VARIABLE, name, f"unknown variable `{name}`", expr.span, hint=hint)
        return ANY

    def report_once(self, code: codes.Code, name: str, message: str, span: Span, hint: str | None) -> None:
        if (code.code, name) not in self.reported:
            self.reported.add((code.code, name))
            self.report(code, message, span, hint)

    def binary(self, expr: n.Binary, state: FlowState) -> Type:
        """Types a left-deep chain in a loop (see `left_chain`), left operands first."""
        leaf, chain = left_chain(expr)
        type_ = self.expr(leaf, state)
        # The right of `and` runs where its left holds, the right of `or` where it does not:
        # the null tests on the left narrow it. One state for a run of the same operator.
        narrowed, run_op = state, None
        for node in chain:
            if node.op in n.LOGIC_OPS:
                if node.op != run_op:
                    narrowed, run_op, learnt = state.branch(), node.op, node.left
                else:
                    learnt = node.left.right if isinstance(node.left, n.Binary) else node.left
                self.learn(learnt, node.op == "and", narrowed)
            else:
                run_op = None
            right = self.expr(node.right, narrowed if node.op in n.LOGIC_OPS else state)
            type_ = self.binary_type(node, type_, right, state)
            if node is not expr:
                self.types[id(node)] = type_
        return type_

    def binary_type(self, expr: n.Binary, lt: Type, rt: Type, state: FlowState) -> Type:
        op = expr.op
        if lt.is_numeric and rt.is_numeric and op in _NUMERIC_RESULTS:
            return _NUMERIC_RESULTS[op]  # the usual case, with nothing to report or learn
        if op == "+" and STRING in (lt, rt):
            return self.text_plus(expr, lt, rt, state)
        if op in n.ARITHMETIC_OPS:
            hint = "build text with a format template" if STRING in (lt, rt) else None
            self.operands(expr, lt, rt, NUMBER, state, f"`{op}` ({_VERBS[op]})", hint)
            return NUMBER
        if op in n.ORDER_OPS:
            return self.ordering(expr, lt, rt, state)
        if op in n.EQUALITY_OPS:
            return self.equality(expr, lt, rt)
        if op in n.LOGIC_OPS:
            self.operands(expr, lt, rt, BOOLEAN, state, f"`{op}`")
            return BOOLEAN
        return self.membership(expr, lt, rt, state)  # `in`, `not in`

    def operands(
        self, expr: n.Binary, lt: Type, rt: Type, want: Type, state: FlowState, what: str, hint: str | None = None
    ) -> None:
        """Both operands of `expr` must be `want`."""
        for side, type_ in ((expr.left, lt), (expr.right, rt)):
            self.require(side, type_, want, state, codes.OPERAND_TYPE, what, hint)

    def text_plus(self, expr: n.Binary, lt: Type, rt: Type, state: FlowState) -> Type:
        hint = "to build text from numbers use a format template or text(x)"
        self.operands(expr, lt, rt, STRING, state, "`+` on text", hint)
        return STRING

    def ordering(self, expr: n.Binary, lt: Type, rt: Type, state: FlowState) -> Type:
        want = STRING if STRING in (lt, rt) else _ordered_kind(lt, rt)
        hint = "take a datetime's date with to_date(t) to compare it with a date" if want.name[:4] == "date" else None
        self.operands(expr, lt, rt, want, state, f"`{expr.op}` comparing {want}s", hint)
        return BOOLEAN

    def equality(self, expr: n.Binary, lt: Type, rt: Type) -> Type:
        if lt == ANY and rt not in (ANY, NULL):
            self.bind(expr.left, rt)
        elif rt == ANY and lt not in (ANY, NULL):
            self.bind(expr.right, lt)
        elif ANY not in (lt, rt) and NULL not in (lt, rt) and not (fits(lt, rt) or fits(rt, lt)):
            self.report(
                codes.OPERAND_TYPE,
                f"comparing {lt} with {rt} is always {expr.op == '!='}".lower(),
                expr.span,
                hint="convert one side with number(...) or text(...)",
            )
        return BOOLEAN

    def membership(self, expr: n.Binary, lt: Type, rt: Type, state: FlowState) -> Type:
        op, left, right = expr.op, expr.left, expr.right
        if rt == STRING:
            self.require(left, lt, STRING, state, codes.OPERAND_TYPE, f"`{op}` on text")
        elif rt.name == "array":
            item = rt.item_type()
            if lt == ANY:
                self.bind(left, item)
            elif item != ANY and not (fits(lt, item) or fits(item, lt)):
                self.report(codes.OPERAND_TYPE, f"a {lt} is never in a list of {item}", expr.span)
        elif rt.name == "object" and not rt.nullable:
            self.require(left, lt, STRING, state, codes.OPERAND_TYPE, f"`{op}` on an object's keys")
        elif rt == ANY:
            if lt != STRING:  # `"k" in x` leaves x open: a string, an object or a list
                self.bind(right, ARRAY)
        else:
            self.mismatch(
                right, rt, codes.OPERAND_TYPE, f"`{op}` needs a list, string or object on its right, not {rt}"
            )
        return BOOLEAN

    def call(self, expr: n.Call, state: FlowState) -> Type:
        function = BUILTINS.get(expr.function)
        if function is None:
            for arg in expr.args:
                self.expr(arg, state)
            alias = FUNCTION_ALIASES.get(expr.function)
            hint = f"use {alias}" if alias else did_you_mean(expr.function, list(BUILTINS))
            self.report(
                codes.UNKNOWN_FUNCTION,
                f"unknown function `{expr.function}`",
                expr.span,
                hint=hint or "see the list of built-in functions in the language reference",
            )
            return ANY
        types = [self.expr(arg, state) for arg in expr.args]
        if not function.arity_ok(len(expr.args)):
            self.report(
                codes.WRONG_ARITY,
                f"{expr.function} cannot take {len(expr.args)} argument(s)",
                expr.span,
                hint=f"call it as {function.signature}",
            )
            return function.result(types)
        for position, (arg, type_) in enumerate(zip(expr.args, types)):
            spec = function.arg_for(position)
            if ANY in spec.accepts:
                continue
            if type_ == ANY:
                if len(spec.accepts) == 1:
                    self.bind(arg, spec.accepts[0])
            elif not any(fits(type_, option) for option in spec.accepts):
                wanted = " or ".join(str(t) for t in spec.accepts)
                message = f"argument `{spec.name}` of {expr.function} must be {wanted}, not {type_}"
                if any(fits(not_null(type_), option) for option in spec.accepts):
                    self.may_be_null(arg, codes.ARGUMENT_TYPE, message)
                else:
                    self.mismatch(arg, type_, codes.ARGUMENT_TYPE, message)
        for code, message, span, hint in literal_problems(function, expr.args):
            self.report(code, message, span, hint)
        types = [self.types[id(arg)] for arg in expr.args]
        if expr.function == "coalesce" and types:
            return coalesce_type(types)
        return function.result(types)

    def index(self, target: n.Expr, index: n.Expr, state: FlowState) -> Type:
        target_type, index_type = self.expr(target, state), self.expr(index, state)
        if target_type.name == "array":
            self.require(index, index_type, NUMBER, state, codes.NOT_INDEXABLE, "a list index")
            return target_type.item_type()
        if target_type.name == "object" and not target_type.nullable:
            self.require(index, index_type, STRING, state, codes.NOT_INDEXABLE, "an object key")
            if isinstance(index, n.StringLit):
                return self.field_type(target_type, index.value, index.span)
            return ANY
        if target_type == STRING:
            self.require(index, index_type, NUMBER, state, codes.NOT_INDEXABLE, "a string index")
            return STRING
        if target_type != ANY:
            self.mismatch(target, target_type, codes.NOT_INDEXABLE, f"a {target_type} cannot be indexed")
        return ANY

    def comprehension(self, expr: n.Comprehension, state: FlowState) -> Type:
        iterable_type = self.expr(expr.iterable, state)
        if iterable_type == ANY:
            self.bind(expr.iterable, ARRAY)
        elif iterable_type.name != "array":
            self.mismatch(
                expr.iterable,
                iterable_type,
                codes.NOT_ITERABLE,
                f"`for {expr.var} in ...` needs a list, not {iterable_type}",
            )
        self.scopes.append({expr.var: iterable_type.item_type()})
        element = self.expr(expr.element, state)
        if expr.condition is not None:
            self.require(
                expr.condition,
                self.expr(expr.condition, state),
                BOOLEAN,
                state,
                codes.CONDITION_TYPE,
                "the `if` filter of a comprehension",
            )
        self.scopes.pop()
        return array_of(element)

    def attempt(self, expr: n.Try, state: FlowState) -> Type:
        """`try body catch error: handler` is the join of its two values; `error` is the
        failure as a record (semantics/failures.py)."""
        body = self.expr(expr.body, state)
        self.scopes.append({expr.var: CAUGHT_ERROR})
        handler = self.expr(expr.handler, state)
        self.scopes.pop()
        return join(body, handler)

    # --- type expectations ----------------------------------------------------------------

    def require(
        self,
        expr: n.Expr,
        actual: Type,
        expected: Type,
        state: FlowState,
        code: codes.Code,
        what: str,
        hint: str | None = None,
    ) -> None:
        if actual == ANY:
            self.bind(expr, expected)
        elif actual.nullable and not expected.nullable and fits(not_null(actual), expected):
            self.may_be_null(expr, code, f"{what} needs {expected}, but this is {actual}")
        elif not fits(actual, expected):
            self.mismatch(expr, actual, code, f"{what} needs {expected}, but this is {actual}", hint)

    def may_be_null(self, expr: n.Expr, code: codes.Code, message: str) -> None:
        """A `T?` where a `T` is needed: the fix is a null test or a coalesce, not a new type."""
        hint = "replace null with coalesce(value, default), or test `value != null` first"
        self.report(code, f"{message}: it may be null", expr.span, hint=hint)

    def bind(self, expr: n.Expr, expected: Type) -> None:
        """Learn an inferred parameter's type from how it is used."""
        if expected.is_numeric:
            expected = NUMBER  # a literal `1` does not make a parameter integer-only
        if (
            isinstance(expr, n.Name)
            and expr.name in self.inferred
            and not self._in_scope(expr.name)
            and self.inferred[expr.name] == ANY
        ):
            self.inferred[expr.name] = expected
            self.types[id(expr)] = expected
            self.untyped_reads.get(expr.name, set()).discard(id(expr))

    def read_before_learned(self) -> bool:
        """Whether a parameter was read as `any` somewhere other than where its type was
        learned: then that read's type (and what followed from it) needs a second pass."""
        return any(reads and self.inferred[name] != ANY for name, reads in self.untyped_reads.items())

    def _in_scope(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def mismatch(self, expr: n.Expr, actual: Type, code: codes.Code, message: str, hint: str | None = None) -> None:
        if isinstance(expr, n.Name) and not self._in_scope(expr.name):
            if expr.name in self.inferred:
                message = f"parameter `{expr.name}` is used as {actual} elsewhere; here: {message}"
                self.report(
                    codes.PARAMETER_TYPE,
                    message,
                    expr.span,
                    hint="a parameter has one type: convert with number(...) or text(...)",
                )
                return
            param = self.declared.get(expr.name)
            if param is not None and expr.name not in self.assigned:
                self.report(
                    codes.PARAMETER_TYPE,
                    f"parameter `{expr.name}` is declared {declared_type(param)}; {message}",
                    expr.span,
                    hint="change the declared type, or convert with number(...) or text(...)",
                )
                return
        self.report(code, message, expr.span, hint)


def _ordered_kind(lt: Type, rt: Type) -> Type:
    """What an ordering comparison of these types compares: dates, datetimes, else numbers."""
    return next((not_null(t) for t in (lt, rt) if not_null(t) in (DATE, DATETIME)), NUMBER)


def did_you_mean(name: str, options: list[str]) -> str | None:
    import difflib  # (only for an unknown name: not loaded by every command)

    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
