"""Steps and whole programs -> one closure `run(frame) -> value`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Protocol, assert_never, cast

from toolkiln.ast import compute as n
from toolkiln.ast.spans import NO_SPAN, Span
from toolkiln.ast.visitor import walk
from toolkiln.check import CheckResult
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.interpret.arguments import ArgumentError, compile_binder, converter, single_scalar
from toolkiln.interpret.decimal_scope import DecimalScope
from toolkiln.interpret.expressions import ExprCompiler, comprehension_cost
from toolkiln.interpret.faults import fault, type_fault, unexpected
from toolkiln.interpret.float_domain import computes_in_floats, with_decimal_result
from toolkiln.interpret.lazy_items import lazy_parameters
from toolkiln.interpret.plan import Fn, Frame, Shapes
from toolkiln.interpret.runner import RunPlan, in_scope, lower
from toolkiln.interpret.runtime import Runtime, charge, check_clock
from toolkiln.interpret.steps import returning, store, store_constant, when
from toolkiln.semantics.builtin_registry import NUMBER_BYTES, list_work
from toolkiln.semantics.dates import Clock
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import render_number
from toolkiln.semantics.values import type_name, value_reader

_NEXT = object()  # a block finished without returning
_ABSENT = object()
_PLAIN, _RETURN, _BRANCH = 0, 1, 2
_ASSIGNING = frozenset(n.ASSIGNING_STEPS)
_Assigning = n.Assign | n.Lookup | n.Format | n.CallTool  # the types of ASSIGNING_STEPS


class Callee(Protocol):
    """A tool that a `call` step runs (a `toolkiln.Tool`, or a registry's stand-in for one):
    within the caller's run (`caller`: its limits, budget, deadline and clock)."""

    def run_call(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any: ...


class CompiledProgram:
    """A checked program turned into closures for one set of limits; `tools` are the callees
    of its `call` steps, by name."""

    def __init__(
        self,
        program: n.Program,
        checked: CheckResult,
        limits: Limits,
        tools: Mapping[str, Callee] | None = None,
        *,
        written: n.Program | None = None,
    ) -> None:
        """`written` is the program as its author wrote it, when `program` is its optimized
        form: the operation budget is charged for what was written, so that optimizing never
        lets a program through that the budget stops as written."""
        slots: dict[str, int] = {}
        for param in checked.parameters:
            slots.setdefault(param.name, len(slots) + 1)
        # One walk for everything asked of the whole tree: the variables' slots, the size.
        cost, kinds = 0, set()
        for node in walk(program):
            cost += 1
            kind = type(node)
            kinds.add(kind)
            if kind in _ASSIGNING:
                slots.setdefault(cast(_Assigning, node).target, len(slots) + 1)  # by its kind
        self.limits = limits
        self.tools = tools or {}
        self.scope = DecimalScope(limits.context)
        self.returns: dict[int, bool] = {}  # id(if step) -> whether it may return
        comprehension_costs = None
        if written is not None and written is not program:
            cost, comprehension_costs = written_costs(written)
        lazy = lazy_parameters(program, checked.parameters)
        self.shapes = Shapes()
        self.exprs = ExprCompiler(checked.types, limits, slots, comprehension_costs, lazy, self.shapes)
        self.exprs.floats = floats = computes_in_floats(program, checked.parameters, checked.types)
        self.tables = {t.name: t.type for t in program.tables or ()}
        self.read = value_reader(
            limits.max_number_digits,
            limits.max_list_length,
            limits.max_string_length,
            max(limits.max_operations, limits.max_list_length),
        )
        # Defaults go through their parameter's check like arguments (the checker refuses one
        # that does not fit its type; a hand-built program is refused here, when it is used).
        self.defaults: dict[str, Any] = {}
        bad_defaults: dict[str, ArgumentError] = {}
        for p in checked.parameters:
            if p.default is not None:
                value = self.scope.run(self.exprs.closure(p.default), [None])
                try:
                    self.defaults[p.name] = self.scope.run(converter(p.type, p.name, limits), value)
                except ArgumentError as error:
                    bad_defaults[p.name] = ArgumentError(
                        f"the default of {error.message[0].lower()}{error.message[1:]}"
                    )
        self.single = single_scalar(checked.parameters, limits)
        self.body = self.block(program.steps)
        if floats:
            self.body = with_decimal_result(self.body)
        self.frame_size = self.exprs.frame_size
        self.bind = compile_binder(
            checked.parameters, slots, self.frame_size, limits, self.defaults, bad_defaults, lazy, floats
        )
        self.cost = cost
        self.over_budget = cost > limits.max_operations
        self.timed = n.Comprehension in kinds or self.exprs.charging or n.CallTool in kinds
        # Slot 0 holds the run's state; only comprehensions, lookups and calls read it.
        self.stateful = self.timed or n.Lookup in kinds or n.CallTool in kinds or self.exprs.reads_clock

        plan = RunPlan(
            limits,
            self.frame_size,
            self.bind,
            self.body,
            cost,
            self.stateful,
            self.timed,
            self.single,
            self.shapes.takes_value(self.body),
        )
        self.execute = lower(plan)
        self.run = in_scope(self.scope, self.execute)

    def run_within(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any:
        """Run as the callee of `caller`'s run, in the decimal scope: on the caller's operation
        budget (this program's size charged to it first), deadline and clock, so that a chain
        of calls costs what one run may, however deep or long."""
        return self.scope.run_sealed(self._within, args, tables, caller)  # (_within raises only RunErrors)

    def _within(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any:
        if self.over_budget:
            raise fault(codes.OPERATION_BUDGET, f"the program has {self.cost:,} operations")
        charge(caller, self.cost, None)
        runtime = Runtime(self.limits, tables, caller.operations, caller.deadline, caller.now)
        try:
            frame = self.bind(args)
            frame[0] = runtime
            return self.body(frame)
        except RunError:
            raise
        except Exception as error:
            raise unexpected(error) from error
        finally:
            caller.operations = runtime.operations

    def run_many(
        self, rows: Iterable[Mapping[str, Any] | None], tables: Mapping[str, Any], clock: Clock | None = None
    ) -> list[Any]:
        """`run` per row, entering the decimal scope once; a failing row gives its RunError.
        The rows are listed first: a generator of rows must not run in the scope."""
        return self.scope.run_sealed(self._rows, list(rows), tables, clock)  # (execute raises only RunErrors)

    def _rows(self, rows: list[Mapping[str, Any] | None], tables: Mapping[str, Any], clock: Clock | None) -> list[Any]:
        results: list[Any] = []
        execute, append = self.execute, results.append
        for row in rows:
            try:
                append(execute(row, tables, clock))
            except RunError as error:
                append(error)
        return results

    # --- blocks ---------------------------------------------------------------------------

    def block(self, steps: tuple[n.Step, ...]) -> Fn:
        compiled: list[tuple[Fn, int]] = []
        for step in steps:
            kind = _RETURN if isinstance(step, n.Return) else _BRANCH if self.may_return(step) else _PLAIN
            compiled.append((self.step(step), kind))
            if kind == _RETURN:
                break  # the rest is unreachable (the checker warned)
        if len(compiled) == 1 and compiled[0][1] == _RETURN:
            return compiled[0][0]  # a lone `return`: its expression is the block
        if compiled and compiled[-1][1] == _RETURN and all(k == _PLAIN for _, k in compiled[:-1]):
            plain, result = tuple(fn for fn, _ in compiled[:-1]), compiled[-1][0]

            def straight(f: Frame) -> Any:
                for step in plain:
                    step(f)
                return result(f)

            return straight
        items = tuple(compiled)

        def general(f: Frame) -> Any:
            for step, kind in items:
                if kind == _PLAIN:
                    step(f)
                elif kind == _RETURN:
                    return step(f)
                else:
                    value = step(f)
                    if value is not _NEXT:
                        return value
            return _NEXT

        return general

    def sequence(self, steps: tuple[n.Step, ...]) -> Fn:
        """Steps none of which returns, run for their effect (what they return is ignored)."""
        plain = tuple(self.step(step) for step in steps)
        if len(plain) == 1:
            return plain[0]
        if not plain:
            return _nothing

        def run_all(f: Frame) -> None:
            for step in plain:
                step(f)

        return run_all

    def may_return(self, step: n.Step) -> bool:
        """Whether `step` is a `return` or an `if` with one somewhere inside (memoized by node,
        so nested ifs are looked at once each)."""
        if isinstance(step, n.Return):
            return True
        if not isinstance(step, n.If):
            return False
        known = self.returns.get(id(step))
        if known is None:
            known = self.returns[id(step)] = any(self.may_return(s) for s in step.then + (step.otherwise or ()))
        return known

    def step(self, step: n.Step) -> Fn:
        exprs = self.exprs
        match step:
            case n.Assign(target=target, value=n.NumberLit() | n.StringLit() | n.BoolLit() as literal):
                return store_constant(exprs.slots[target], exprs.value_of(literal), self.shapes)
            case n.Assign(target=target, value=value):
                return store(exprs.slots[target], exprs.closure(value), self.shapes)
            case n.Format(target=target, template=template):
                return store(exprs.slots[target], exprs.template(template, step.span), self.shapes)
            case n.Lookup():
                return store(exprs.slots[step.target], self.lookup(step), self.shapes)
            case n.CallTool():
                return store(exprs.slots[step.target], self.call_tool(step), self.shapes)
            case n.If(condition=condition, then=then, otherwise=otherwise):
                test = exprs.test(condition, "the condition of `if` needs a boolean")
                if self.may_return(step):
                    otherwise_block = self.block(otherwise) if otherwise else None
                    return returning(test, self.block(then), otherwise_block, _NEXT, self.shapes)
                # Neither branch returns: the `if` is a plain step, its branches plain sequences.
                return when(test, self.sequence(then), self.sequence(otherwise) if otherwise else None, self.shapes)
            case n.Return(value=value):
                return exprs.closure(value)
            case _:
                assert_never(step)

    def lookup(self, step: n.Lookup) -> Fn:
        key_fn = self.exprs.closure(step.key)
        default = None if step.default is None else self.exprs.closure(step.default)
        name, span = step.table, step.span
        declared = self.tables.get(name)
        expected = None if declared is None or declared.name == "any" else declared.name
        nullable = declared is not None and declared.nullable  # `table t: number?` may hold null
        read, max_list = self.read, self.limits.max_list_length
        most = max(self.limits.max_operations, max_list)  # values one read converts, as an argument's

        def lookup(f: Frame) -> Any:
            table = f[0].tables.get(name)
            if table is None:
                raise fault(
                    codes.MISSING_TABLE,
                    f"table `{name}` was not supplied",
                    span,
                    hint="pass tables={...} to run, or --tables FILE on the command line",
                )
            key = key_fn(f)
            if type(key) is Decimal:
                key = render_number(key)
            elif type(key) is not str:
                raise type_fault("a lookup key must be a string or number", key, span)
            value = table.get(key, _ABSENT)
            if value is _ABSENT:
                if default is None:
                    sample = ", ".join(list(table)[:5])
                    raise fault(
                        codes.KEY_NOT_FOUND,
                        f"key {key!r} is not in table `{name}`",
                        span,
                        hint=f"add a default; some keys: {sample}" if sample else "the table is empty",
                    )
                return default(f)
            if type(value) is list and len(value) > max_list:
                raise fault(
                    codes.LIST_TOO_LONG,
                    f"table `{name}` holds a list longer than {max_list:,} items at key {key!r}",
                    span,
                )
            left = [most]
            try:
                value = read(value, left)  # within the run's bounds, like an argument
            except RunError as error:
                raise fault(codes.INVALID_TABLE, f"table `{name}` at key {key!r:.40}: {error.message}", span) from None
            if left[0] != most:  # a list or object, copied: charged for what the copy holds
                charge(f[0], list_work(most - left[0], NUMBER_BYTES), span)
            if expected is not None and not (value is None and nullable) and not _has_type(value, expected):
                raise fault(
                    codes.INVALID_TABLE,
                    f"table `{name}` holds {type_name(value)} {value!r:.60} at key {key!r:.40}, declared {expected}",
                    span,
                )
            return value

        return lookup

    def call_tool(self, step: n.CallTool) -> Fn:
        """Build the arguments, run the callee with this run's tables and limits; a failure in
        the callee keeps its code and is located at the call step."""
        name = step.tool
        span = None if step.span == NO_SPAN else step.span
        callee = self.tools.get(name)
        if callee is None:  # the checker refuses this; a hand-built program may not

            def missing(f: Frame) -> Any:
                raise fault(codes.UNKNOWN_TOOL, f"unknown tool `{name}`", span, hint="pass tools={...} to compile")

            return missing
        args = tuple((arg.name, self.exprs.closure(arg.value)) for arg in step.args)
        run_call = callee.run_call

        def call(f: Frame) -> Any:
            values = {arg: value(f) for arg, value in args}
            state = f[0]
            try:
                result = run_call(values, state.tables, state)  # on this run's budget, clock and time
            except RunError as error:
                raise RunError(
                    error.code, f"in tool `{name}`: {error.message}", span or error.span, error.hint
                ) from error
            check_clock(state, span)  # the callee ran on a clock of its own
            return result

        return call


def _has_type(value: Any, expected: str) -> bool:
    if expected == "integer":
        return type(value) is Decimal and value == value.to_integral_value()
    return type_name(value) == expected


def _nothing(f: Frame) -> None:
    return None


def written_costs(program: n.Program) -> tuple[int, dict[Span, int]]:
    """The static operation count of a program and each comprehension's per-item cost."""
    cost, comprehensions = 0, {}
    for node in walk(program):
        cost += 1
        if type(node) is n.Comprehension:
            comprehensions[node.span] = comprehension_cost(node)
    return cost, comprehensions
