"""A compiled tool: checked once, run many times."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.types import or_null
from toolkiln.ast.visitor import walk
from toolkiln.check import CheckResult, ToolSignature, check_program
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import RunError, UsageError
from toolkiln.interpret import CompiledProgram
from toolkiln.interpret.runner import Runner, fast_run
from toolkiln.interpret.runtime import Runtime
from toolkiln.io.tables import normalize_tables
from toolkiln.optimize import optimize
from toolkiln.semantics.builtin_registry import HOMES
from toolkiln.semantics.chance import RandomSource, as_source, drawing_from
from toolkiln.semantics.dates import Clock, fixed_clock
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits
from toolkiln.semantics.values import to_plain

# The builtins whose results are not fixed by their arguments.
_RANDOM = frozenset(HOMES["random_builtins"].split())

# What runs under given Limits: the program (optimized for them) and its check.
Runnable = Callable[[Limits], tuple[n.Program, CheckResult]]


class Optimized:
    """The Runnable of an optimized tool: the program optimized for the limits it runs under
    (folds fail where runs would), and that form's check. A class, not a closure, so that a
    Tool can say how to rebuild it when pickled."""

    def __init__(self, program: n.Program, checked: CheckResult, signatures: Mapping[str, ToolSignature] | None):
        self.program, self.checked, self.signatures = program, checked, signatures

    def __call__(self, limits: Limits) -> tuple[n.Program, CheckResult]:
        optimized = optimize(self.program, limits=limits)
        if optimized is self.program:
            return optimized, self.checked
        return optimized, check_program(optimized, self.checked.parameters, tools=self.signatures)


def as_clock(clock: Clock | datetime | None) -> Clock | None:
    """A clock as `Tool.run` takes it (a function, or a datetime for a clock that stands still)."""
    if isinstance(clock, datetime):
        return fixed_clock(clock)
    if clock is not None and not callable(clock):
        raise RunError(
            codes.INVALID_ARGUMENT.code,
            f"clock must be a function returning a datetime, or a datetime, not {type(clock).__name__}",
        )
    return clock


def _unpickled(
    program: n.Program,
    diagnostics: list[Diagnostic],
    tables: dict[str, Any],
    limits: Limits,
    tools: dict[str, Any],
    optimized: bool,
) -> Tool:
    """A pickled Tool, checked and compiled again: its check's types are keyed by the ids of
    the program's nodes, and its run is closures, neither of which outlives the process."""
    signatures = {name: tool.signature for name, tool in tools.items()} if tools else None
    checked = check_program(program, tools=signatures)
    checked.diagnostics = diagnostics  # as located when it was compiled
    runnable = Optimized(program, checked, signatures) if optimized else None
    return Tool(program, checked, tables=tables, limits=limits, runnable=runnable, tools=tools)


class Tool:
    def __init__(
        self,
        program: n.Program,
        checked: CheckResult,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        runnable: Runnable | None = None,
        tools: Mapping[str, Any] | None = None,
    ) -> None:
        """`program` is the tool as written; `runnable(limits)` what runs under those limits
        (its form optimized for them, and that form's check); `tools` the tools its `call`
        steps call, by name (anything with `run_call`, see `Callee`)."""
        self.program = program
        self.checked = checked
        self.limits = limits or DEFAULT_LIMITS
        self.tables = normalize_tables(tables)
        self.tools: dict[str, Any] = dict(tools or {})
        self._runnable = runnable
        self._default = self._compile(self.limits)
        # `run`'s hot path, the default Runner's (interpret/runner.py) inlined in one attribute:
        # enter the decimal scope, execute.
        self._hot = (self._default.scope.enter, self._default.execute, self.tables)
        self._runner: Runner | None = None
        self._compiled: dict[Limits, CompiledProgram] = {self.limits: self._default}

    def with_tables(self, tables: Mapping[str, Any] | None) -> Tool:
        """The same checked tool with other tables bound (nothing is checked again)."""
        return Tool(
            self.program, self.checked, tables=tables, limits=self.limits, runnable=self._runnable, tools=self.tools
        )

    @property
    def name(self) -> str | None:
        return self.program.name

    @property
    def description(self) -> str | None:
        return self.program.description

    @property
    def risk_level(self) -> str | None:
        return self.program.risk_level

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.checked.diagnostics if not d.is_error]

    @property
    def draws_random(self) -> bool:
        """Whether the tool's own logic calls uuid(), random() or random_int() (the tools it
        calls are not looked into): its results are not fixed by its arguments."""
        return any(type(node) is n.Call and node.function in _RANDOM for node in walk(self.program))

    @property
    def result_type(self) -> str:
        return str(self.checked.result_type)

    @property
    def result_schema(self) -> dict[str, Any]:
        """The JSON Schema of what the tool returns: a record's `properties`, a list's `items`
        (`{}` when the type is only known at run time)."""
        return self.checked.result_type.json_schema()

    @property
    def signature(self) -> ToolSignature:
        """What another tool's `call` step is checked against: parameters and result type."""
        return ToolSignature(self.checked.parameters, self.checked.result_type)

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema that arguments must satisfy (inferred where not declared)."""
        properties: dict[str, Any] = {}
        required = []
        for param in self.checked.parameters:
            # An optional parameter takes its default when given null (see compile_binder).
            schema = (param.type if param.required else or_null(param.type)).json_schema()
            if param.description is not None:
                schema["description"] = param.description
            if param.name in self._default.defaults:
                schema["default"] = to_plain(self._default.defaults[param.name])
            properties[param.name] = schema
            if param.required:
                required.append(param.name)
        return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}

    def _program_for(self, limits: Limits | None) -> CompiledProgram:
        if limits is None:
            return self._compiled[self.limits]
        compiled = self._compiled.get(limits)
        if compiled is None:
            compiled = self._compiled[limits] = self._compile(limits)
        return compiled

    def _compile(self, limits: Limits) -> CompiledProgram:
        runs = (self.program, self.checked) if self._runnable is None else self._runnable(limits)
        return CompiledProgram(*runs, limits, self.tools, written=self.program)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its program, diagnostics, tables, limits and callees; rebuilt (checked and
        compiled again) when unpickled, so that a process pool can ship it to its workers."""
        optimized = self._runnable is not None
        return _unpickled, (self.program, self.checked.diagnostics, self.tables, self.limits, self.tools, optimized)

    def runner(self) -> Runner:
        """The tool's fast path as a handle: `runner.run(args)` is `tool.run(args)` with the
        tool's own tables and limits, in one plain function call (made once, then kept)."""
        runner = self._runner
        if runner is None:
            default = self._default
            runner = self._runner = Runner(fast_run(default.scope, default.execute, self.tables), self.name)
        return runner

    def run(
        self,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,
        random: RandomSource | int | None = None,
    ) -> Any:
        """Check the arguments, run, and return the value (numbers as exact `Decimal`, dates as
        `datetime.date`, datetimes as aware `datetime.datetime`). `clock` is what `today()` and
        `now()` read: a function returning an aware datetime, or one aware datetime (a clock
        that stands still); the system's clock if None. `random` is what `uuid()`, `random()`
        and `random_int()` draw from: a random.Random or a whole-number seed; the operating
        system's generator if None. Raises RunError (with `.code`) on bad arguments or a
        run-time failure."""
        if tables is None and limits is None and clock is None and random is None:
            enter, execute, own_tables = self._hot
            try:
                return enter(execute, args, own_tables)
            except RuntimeError as error:
                return self._default.scope.recover(error, execute, args, own_tables)
        run_tables = self.tables if tables is None else {**self.tables, **normalize_tables(tables)}
        with drawing_from(as_source(random)):
            return self._program_for(limits).run(args, run_tables, as_clock(clock))

    def run_call(self, args: dict[str, Any], tables: Mapping[str, Any], caller: Runtime) -> Any:
        """Run as the callee of another tool's `call` step: with the caller's run-time tables
        (over this tool's own), and within the caller's run (`caller`: its limits, operation
        budget, deadline and clock). `args` hold run-time values already."""
        merged = {**self.tables, **tables} if self.tables else tables
        return self._program_for(caller.limits).run_within(args, merged, caller)

    def run_many(
        self,
        rows: Iterable[Mapping[str, Any] | None],
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,
        workers: int | None = None,
        chunk_size: int | None = None,
        random: RandomSource | int | None = None,
    ) -> list[Any | RunError]:
        """Run once per row; a failing row yields its RunError instead of stopping the batch.
        Each row's run reads `clock` (see `run`) afresh; the rows draw from `random` (see `run`)
        one after another. With `workers` (2 or more), the rows are run in that many worker
        processes, in chunks of `chunk_size` rows (chosen from the batch size when not given);
        the results are the same, in the same order."""
        for option, given in (("workers", workers), ("chunk_size", chunk_size)):
            if given is not None and not (type(given) is int and given >= 1):
                raise UsageError(f"{option} must be a whole number of at least 1, not {given!r:.40}")
        source = as_source(random)
        if source is not None and workers is not None and workers > 1:
            # Each worker would draw its own copy's sequence: the rows would repeat each other.
            raise UsageError("a random source is one sequence: run_many(random=...) runs without workers")
        if workers is not None and workers > 1:
            from toolkiln.io.pool import run_in_pool  # multiprocessing: only for a pool (issue 34)

            runner = partial(self.run_many, tables=tables, limits=limits, clock=clock)
            return run_in_pool(runner, list(rows), workers, chunk_size)
        run_tables = self.tables if tables is None else {**self.tables, **normalize_tables(tables)}
        with drawing_from(source):
            return self._program_for(limits).run_many(rows, run_tables, as_clock(clock))

    def __repr__(self) -> str:
        params = ", ".join(p.name for p in self.checked.parameters)
        return f"<Tool {self.name or '(logic)'}({params}) -> {self.result_type}>"
