"""The type checker and static validator. It reports; it never raises.

It infers the parameters of bare logic (a name the logic reads but never assigns is a
parameter, typed by how it is used), tracks definite assignment through branches, types
every expression, and records those types for the interpreter's fast paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.records import record, set_field
from toolkiln.ast.spans import Span
from toolkiln.ast.types import (
    ANY,
    NULL,
    NUMBER,
    STRING,
    Type,
    fits,
    join,
    not_null,
)
from toolkiln.check.advice import advise
from toolkiln.check.constants import is_constant, misfit_item
from toolkiln.check.date_literals import iso_default
from toolkiln.check.expressions import ExpressionChecker, did_you_mean
from toolkiln.check.flow import FlowState
from toolkiln.check.nullability import declared_type
from toolkiln.check.scope import assigned_names, free_names
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.semantics.builtins import BUILTINS


@record()
class ParamInfo:
    name: str
    type: Type
    required: bool
    default: n.Expr | None = None
    description: str | None = None
    inferred: bool = False

    def __init__(
        self,
        name: str,
        type: Type,  # noqa: A002 - the field's name
        required: bool,
        default: n.Expr | None = None,
        description: str | None = None,
        inferred: bool = False,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "type", type)
        set_field(self, "required", required)
        set_field(self, "default", default)
        set_field(self, "description", description)
        set_field(self, "inferred", inferred)


@record()
class ToolSignature:
    """What a `call` step is checked against: the callee's parameters and result type."""

    parameters: tuple[ParamInfo, ...]
    result_type: Type

    def __init__(self, parameters: tuple[ParamInfo, ...], result_type: Type) -> None:
        set_field(self, "parameters", parameters)
        set_field(self, "result_type", result_type)


@record(frozen=False)
class CheckResult:
    diagnostics: list[Diagnostic]
    parameters: tuple[ParamInfo, ...] = ()
    types: dict[int, Type] = field(default_factory=dict)
    result_type: Type = ANY

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        parameters: tuple[ParamInfo, ...] = (),
        types: dict[int, Type] | None = None,
        result_type: Type = ANY,
    ) -> None:
        self.diagnostics = diagnostics
        self.parameters = parameters
        self.types = {} if types is None else types
        self.result_type = result_type

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def check_program(
    program: n.Program,
    parameters: tuple[ParamInfo, ...] | None = None,
    tools: Mapping[str, ToolSignature] | None = None,
) -> CheckResult:
    """Check `program`. With `parameters` (those of an earlier check of the same tool, as for an
    optimized program) they are taken as given instead of declared or inferred. `tools` are
    the tools its `call` steps may call, by name."""
    if parameters is not None:
        return Checker(program, {}, given=parameters, tools=tools).run()
    if program.parameters is not None:
        result = Checker(program, {}, tools=tools).run()
    else:
        # Bare logic: a first pass learns the parameter types from use; the second checks with them.
        inferring = Checker(program, dict.fromkeys(_inferred_names(program), ANY), tools=tools)
        result = inferring.run()
        if inferring.read_before_learned():  # a parameter was read before its type was known
            result = Checker(program, dict(inferring.inferred), tools=tools).run()
    inferred = [p.name for p in result.parameters if p.inferred]
    result.diagnostics = advise(program, result.diagnostics, inferred, result.types)
    return result


def _inferred_names(program: n.Program) -> list[str]:
    assigned = assigned_names(program)
    return [name for name in free_names(program) if name not in assigned and name not in BUILTINS]


class Checker(ExpressionChecker):
    """A program's declarations and steps, its paths and returns; its expressions are typed
    by `ExpressionChecker`."""

    def __init__(
        self,
        program: n.Program,
        inferred: dict[str, Type],
        given: tuple[ParamInfo, ...] | None = None,
        tools: Mapping[str, ToolSignature] | None = None,
    ) -> None:
        super().__init__(program, inferred)
        self.given = given
        self.tools = tools
        self.tables = None if program.tables is None else {t.name: t.type for t in program.tables}
        self.returns: list[Type] = []
        self.first_assignment: dict[str, Span] = {}

    # --- program --------------------------------------------------------------------------

    def run(self) -> CheckResult:
        state = FlowState()
        self.declarations(state)
        for name, type_ in self.inferred.items():
            state.assign(name, type_)
        self.block(self.program.steps, state)
        if state.reachable:
            last = self.program.steps[-1].span if self.program.steps else self.program.span
            self.report(
                codes.MISSING_RETURN,
                "not every path ends with `return`",
                last,
                hint="add `return <value>` at the end, and in every branch that lacks one",
            )
        for name, span in self.first_assignment.items():
            if name not in self.read:
                self.report(
                    codes.UNUSED_VARIABLE,
                    f"`{name}` is assigned but never read",
                    span,
                    hint="return it, use it, or remove the step",
                )
        result = ANY
        for index, type_ in enumerate(self.returns):
            result = type_ if index == 0 else join(result, type_)
        return CheckResult(self.diagnostics, self.parameter_info(), self.types, result)

    def parameter_info(self) -> tuple[ParamInfo, ...]:
        if self.given is not None:
            return self.given
        if self.program.parameters is not None:
            return tuple(
                ParamInfo(p.name, declared_type(p), p.default is None, p.default, p.description)
                for p in self.program.parameters
            )
        return tuple(ParamInfo(name, type_, True, inferred=True) for name, type_ in self.inferred.items())

    def declarations(self, state: FlowState) -> None:
        for info in self.given or ():
            state.assign(info.name, info.type)
        seen: set[str] = set()
        for param in self.program.parameters or ():
            if param.name in seen:
                self.report(codes.DUPLICATE_NAME, f"parameter `{param.name}` is declared twice", param.span)
            seen.add(param.name)
            state.assign(param.name, declared_type(param))
            if param.default is not None:
                self.default(param, param.default)
        tables: set[str] = set()
        for table in self.program.tables or ():
            if table.name in tables:
                self.report(codes.DUPLICATE_NAME, f"table `{table.name}` is declared twice", table.span)
            tables.add(table.name)

    def default(self, param: n.Param, default: n.Expr) -> None:
        if not is_constant(default):
            self.report(
                codes.DEFAULT_TYPE,
                f"the default of `{param.name}` must be a constant",
                default.span,
                hint="write a number, string, true, false, null or a list of those",
            )
            return
        actual = self.expr(default)
        iso = iso_default(param.type, default)
        if iso is not None:  # ISO 8601 text stands for a date or datetime, converted as an argument
            if not iso:
                self.report(
                    codes.DEFAULT_TYPE,
                    f"the default of `{param.name}` is not ISO 8601 text of a {not_null(param.type)}",
                    default.span,
                    hint='as "2026-01-31", or "2026-01-31T09:30:00Z" for a datetime',
                )
            return
        if actual != NULL and not fits(actual, param.type):
            self.report(
                codes.DEFAULT_TYPE,
                f"the default of `{param.name}` is {actual}, but the parameter is {param.type}",
                default.span,
            )
            return
        # A list's type joins its items' (`[1, "a"]` is array[any], which fits any array):
        # each item must fit the item type, as each item of an argument must.
        misfit = misfit_item(default, param.type, self.types)
        if misfit is not None:
            item, item_type = misfit
            self.report(
                codes.DEFAULT_TYPE,
                f"the default of `{param.name}` holds {self.types.get(id(item), ANY)}, "
                f"but the parameter is {param.type}, whose items are {item_type}",
                item.span,
            )

    # --- steps ----------------------------------------------------------------------------

    def block(self, steps: tuple[n.Step, ...], state: FlowState) -> None:
        warned = False
        for step in steps:
            if not state.reachable and not warned:
                self.report(codes.UNREACHABLE_STEP, "this step comes after `return` and never runs", step.span)
                warned = True
            self.step(step, state)

    def step(self, step: n.Step, state: FlowState) -> None:
        match step:
            case n.Assign(target=target, value=value):
                self.assign(target, self.expr(value, state), step.span, state)
            case n.Lookup():
                self.assign(step.target, self.lookup(step, state), step.span, state)
            case n.Format(template=template):
                self.template(template, state)
                self.assign(step.target, STRING, step.span, state)
            case n.CallTool():
                self.assign(step.target, self.call_tool(step, state), step.span, state)
            case n.If(condition=condition, then=then, otherwise=otherwise):
                then_state, else_state = self.branches(condition, "the condition of `if`", state)
                self.block(then, then_state)
                self.block(otherwise, else_state)
                state.join_branches(then_state, else_state)
            case n.Return(value=value):
                self.returns.append(self.expr(value, state))
                state.reachable = False
            case _:
                assert_never(step)

    def assign(self, target: str, type_: Type, span: Span, state: FlowState) -> None:
        state.assign(target, type_)
        self.first_assignment.setdefault(target, span)

    def lookup(self, step: n.Lookup, state: FlowState) -> Type:
        value_type = ANY
        if self.tables is not None:
            if step.table not in self.tables:
                self.report(
                    codes.UNKNOWN_TABLE,
                    f"unknown table `{step.table}`",
                    step.span,
                    hint=did_you_mean(step.table, list(self.tables))
                    or f"declared tables: {', '.join(self.tables) or 'none'}",
                )
            value_type = self.tables.get(step.table, ANY)
        key_type = self.expr(step.key, state)
        if key_type not in (ANY, STRING, NUMBER) and not key_type.is_numeric:
            self.mismatch(
                step.key, key_type, codes.ARGUMENT_TYPE, f"a lookup key must be a string or number, not {key_type}"
            )
        if step.default is None:
            return value_type
        default_type = self.expr(step.default, state)
        if default_type != NULL and not fits(default_type, value_type):
            self.report(
                codes.DEFAULT_TYPE,
                f"the default is {default_type}, but table `{step.table}` holds {value_type}",
                step.default.span,
            )
        return join(value_type, default_type) if default_type != NULL else value_type

    def call_tool(self, step: n.CallTool, state: FlowState) -> Type:
        """A call of another tool: its arguments against the callee's parameters; its result type."""
        types = [self.expr(arg.value, state) for arg in step.args]
        signature = None if self.tools is None else self.tools.get(step.tool)
        if signature is None:
            known = list(self.tools or ())
            hint = did_you_mean(step.tool, known) or (
                f"known tools: {', '.join(sorted(known)[:10])}"
                if known
                else "pass tools={...} to compile (or check), or register the tool first"
            )
            self.report(codes.UNKNOWN_TOOL, f"unknown tool `{step.tool}`", step.span, hint=hint)
            return ANY
        params = {p.name: p for p in signature.parameters}
        listed = (
            ", ".join(f"{p.name}: {p.type}" + ("" if p.required else " (optional)") for p in signature.parameters)
            or "none"
        )
        given: set[str] = set()
        for arg, type_ in zip(step.args, types):
            if arg.name in given:
                self.report(
                    codes.TOOL_ARGUMENTS,
                    f"argument `{arg.name}` of tool `{step.tool}` is passed twice",
                    arg.span,
                    hint="pass each argument once",
                )
                continue
            given.add(arg.name)
            param = params.get(arg.name)
            if param is None:
                self.report(
                    codes.TOOL_ARGUMENTS,
                    f"tool `{step.tool}` has no parameter `{arg.name}`",
                    arg.span,
                    hint=did_you_mean(arg.name, list(params)) or f"its parameters: {listed}",
                )
            elif param.type != ANY:
                self.require(
                    arg.value,
                    type_,
                    param.type,
                    state,
                    codes.ARGUMENT_TYPE,
                    f"argument `{arg.name}` of tool `{step.tool}`",
                )
        missing = [p.name for p in signature.parameters if p.required and p.name not in given]
        if missing:
            names = ", ".join(f"`{name}`" for name in missing)
            self.report(
                codes.TOOL_ARGUMENTS,
                f"the call of tool `{step.tool}` is missing the argument(s) {names}",
                step.span,
                hint=f"its parameters: {listed}",
            )
        return signature.result_type

    def template(self, template: n.Template, state: FlowState) -> None:
        for part in template.parts:
            if isinstance(part, n.Hole):
                type_ = self.expr(part.expr, state)
                if part.spec is not None:
                    self.require(
                        part.expr, type_, NUMBER, state, codes.FORMAT_SPEC_TYPE, f"the format spec `{part.spec}`"
                    )
