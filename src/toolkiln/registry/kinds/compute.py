"""Compute tools: logic in the text or JSON DSL, checked and run by toolkiln's interpreter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolkiln.api import compile as compile_source
from toolkiln.ast.records import record, set_field
from toolkiln.backends.json_printer import print_json
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry import examples
from toolkiln.registry.formats import COMPUTE_ANNOTATIONS
from toolkiln.registry.kinds.base import Compiled, CompileOptions, RunContext, Runnable, ToolKind, refuse

if TYPE_CHECKING:
    from toolkiln.registry.models import ToolRecord
    from toolkiln.semantics.values import DecimalEncoding
    from toolkiln.tool import Tool  # (the interpreter: loaded by the compiler when a tool compiles)

ANNOTATIONS = COMPUTE_ANNOTATIONS  # a pure function of its arguments and tables


@record(kw_only=True)
class ComputeCompiled(Compiled):
    """A compute tool: its compiled `Tool`."""

    compute: Tool

    def __init__(
        self,
        kind: ToolKind,
        definition: dict[str, Any],
        name: str,
        description: str,
        risk_level: str,
        parameters: dict[str, Any],
        examples: list[dict[str, Any]] | None = None,
        *,
        compute: Tool,
    ) -> None:
        super().__init__(kind, definition, name, description, risk_level, parameters, examples)
        set_field(self, "compute", compute)

    @property
    def tool(self) -> Tool:
        return self.compute


class ComputeKind(ToolKind):
    name = "compute"
    changeable = ("description", "parameters", "logic", "riskLevel", "tables", "examples")
    optional = ("riskLevel", "tables", "parameters", "examples")
    annotations = ANNOTATIONS
    side_effects = False
    reapproval = False
    signed = False  # nothing it does reaches past its budgets: its status is believed unsigned
    deploys = False
    not_tried = None
    has_examples = True
    runs_in = "the toolkiln interpreter (no process)"

    def from_json(self, obj: dict[str, Any]) -> Any:
        return {key: value for key, value in obj.items() if key != "kind"}  # the DSL has no `kind`

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> ComputeCompiled:
        tool = compile_source(source, tools=tools)
        if tool.name is None:
            raise refuse(
                codes.MISSING_FIELD,
                "a registered tool needs a name and a description; this is bare logic",
                hint='write a tool definition: {"name": "...", "description": "...", '
                '"parameters": {...}, "logic": {"steps": [...]}}',
            )
        return ComputeCompiled(
            self,
            print_json(tool.program),
            tool.name,
            tool.description or "",
            tool.risk_level or "low",
            tool.parameters,
            compute=tool,
        )

    def examples_problems(self, found: Any) -> list[Diagnostic]:
        return examples.examples_problems(found)

    def runnable(self, record: ToolRecord, compiled: Compiled, context: RunContext) -> Runnable:
        assert compiled.tool is not None
        return context.with_tables(record.name, compiled.tool)

    def try_run(self, compiled: Compiled, args: Mapping[str, Any], tables: Mapping[str, Any], clock: Any) -> Any:
        assert compiled.tool is not None
        return compiled.tool.run(args, tables=tables, clock=clock)

    def text(self, record: ToolRecord) -> str:
        from toolkiln.api import to_text

        return to_text(record.definition).rstrip()

    def source_text(self, definition: Mapping[str, Any]) -> str | None:
        from toolkiln.api import to_text
        from toolkiln.errors import Error

        logic = {k: v for k, v in definition.items() if k != examples.FIELD}  # examples have no text form
        try:
            return to_text(logic)
        except Error:
            return None  # a version that no longer parses

    def editable_text(self, definition: Mapping[str, Any]) -> str | None:
        return None if examples.FIELD in definition else self.source_text(definition)

    def result_text(self, result: Any, decimals: DecimalEncoding) -> str:
        from toolkiln.semantics.values import dumps

        return dumps(result, decimals=decimals)  # its numbers as computed: 19.00 stays 19.00


COMPUTE = ComputeKind()
