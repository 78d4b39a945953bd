"""What a change must pass before the registry saves it: its examples run as they say, its
calls make no cycle, every tool that calls it still checks against it, a program uses only
what the registry was granted (and a model's stays in the sandbox), and a tool keeps its name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.registry.callees import calls_of
from toolkiln.registry.capabilities import Capabilities
from toolkiln.registry.definitions import Compiled, compile_definition, refuse
from toolkiln.registry.errors import DependencyCycle
from toolkiln.registry.examples import run_examples
from toolkiln.registry.principals import Principal
from toolkiln.registry.reads import Reads
from toolkiln.semantics.limits import Limits
from toolkiln.tool import Tool


def passing(
    compiled: Compiled, tables: Mapping[str, Any], limits: Limits | None, budget: tuple[float, float] | None = None
) -> Compiled:
    """`compiled`, once its examples pass with the registry's tables and limits; else
    CompileError with a diagnostic per failing example. `budget`: (seconds, deadline) for all
    the examples together (see run_examples)."""
    if compiled.examples and compiled.tool is not None:
        problems = run_examples(compiled.tool, compiled.examples, tables=tables, limits=limits, budget=budget)
        if problems:
            raise CompileError(problems)
    return compiled


def refuse_cycle(calls: Mapping[str, frozenset[str]], name: str, compiled: Compiled) -> None:
    """DependencyCycle if saving `compiled` as `name` would make tools call each other in a cycle."""
    called = calls_of(compiled.definition)
    if not called:
        return
    from toolkiln.registry import dependencies  # (networkx: loaded only once tools call others)

    cycle = dependencies.cycle_through(calls, name, called)
    if cycle is not None:
        shown = " -> ".join(cycle)
        raise DependencyCycle(
            f"`{name}` would call itself: {shown}",
            cycle=cycle,
            hint="a tool may not call, directly or through others, a tool that calls it; remove one of these calls",
        )


def recheck_callers(reads: Reads, name: str, compiled: Compiled) -> None:
    """Check every tool that calls `name` (directly or not) against its new version; when any
    would no longer check, CompileError with their diagnostics (prefixed with the caller)."""
    old, callers = reads.callers_of(name)
    if not callers:
        return
    if old is not None and _shape(old.tool) == _shape(compiled.tool):
        return  # same parameters and result: callers are unaffected
    overrides: dict[str, Compiled] = {name: compiled}
    problems: list[Diagnostic] = []
    for caller, record in callers:
        try:
            overrides[caller] = compile_definition(record.definition, reads.callees.with_overrides(overrides))
        except CompileError as error:
            problems.extend(
                replace(d, message=f"in `{caller}`, which calls `{name}`: {d.message}")
                for d in error.diagnostics
                if d.is_error
            )
    if problems:
        raise CompileError(problems)


def _shape(tool: Tool | None) -> tuple[object, ...]:
    """What a caller's check depends on: the callee's parameters (name, type, required) and result."""
    if tool is None:
        return ()  # (only tools that compute are called)
    signature = tool.signature
    return tuple((p.name, p.type, p.required) for p in signature.parameters), signature.result_type


def admit_program(compiled: Compiled, principal: Principal, capabilities: Capabilities, action: str) -> None:
    """`compiled` may be saved (or approved) by `principal` under `capabilities`, as its kind
    says (a model's program stays in the sandbox, what it uses is granted, ...)."""
    compiled.kind.admit(compiled, principal, capabilities, action)


def refuse_rename(old: str, new: str) -> CompileError:
    return refuse(
        codes.INVALID_NAME,
        f"a tool cannot be renamed (from `{old}` to `{new}`)",
        "name",
        hint="create a tool under the new name and delete the old one",
    )
