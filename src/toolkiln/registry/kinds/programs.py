"""Script and executable tools: programs run in the sandbox (toolkiln.executables checks a
definition into a `ProgramSpec` and runs one; registry/programs.py is the registry's run)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.ast.records import record, set_field
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.executables.program_tools import CHANGEABLE, ProgramSpec, parse_program
from toolkiln.executables.skill_files import (
    RUSTYCLAW_SUFFIX,
    SKILL_FENCE,
    SKILL_SUFFIX,
    parse_skill,
    read_rustyclaw_skill,
    read_skill,
)
from toolkiln.registry.capabilities import refuse_ungranted, refuse_ungranted_executable, refuse_unless_admin_person
from toolkiln.registry.kinds.base import Compiled, CompileOptions, RunContext, Runnable, ToolKind, no_examples, refuse

if TYPE_CHECKING:
    from toolkiln.registry.capabilities import Capabilities
    from toolkiln.registry.models import ToolRecord
    from toolkiln.registry.principals import Principal

# MCP annotations: a program runs in a sandbox that keeps no writes, but may answer
# differently each time, and reaches the world when its `network` is on: never read-only for certain.
ANNOTATIONS = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": True}
# None restores the default (for sha256: pin the file anew).
OPTIONAL = ("sha256", "policy", "network", "timeout_secs", "sandbox", "riskLevel", "parameters", "secrets")
_SETTINGS = ("policy", "network", "timeout_secs", "sandbox")


@record(kw_only=True)
class ProgramCompiled(Compiled):
    """A script or executable tool: its checked spec (it has no compute tool)."""

    program: ProgramSpec

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
        program: ProgramSpec,
    ) -> None:
        super().__init__(kind, definition, name, description, risk_level, parameters, examples)
        set_field(self, "program", program)


class _ProgramKind(ToolKind):
    """What scripts and executables share: compiled by the executables' checker, run in the
    sandbox, saved or approved only with the capabilities they use."""

    name: str
    changeable: tuple[str, ...]
    optional = OPTIONAL
    annotations = ANNOTATIONS
    side_effects = True
    reapproval = False
    signed = True  # its sandbox and paths are believed only when signed here
    deploys = False
    not_tried = "its program runs only once a person approves it"
    has_examples = False
    runs_in = None  # the result says which sandbox ran it

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> ProgramCompiled:
        spec, problems = parse_program(source, pin=options.pin, allowed_folders=options.allowed_folders)
        if spec is None:
            raise CompileError(problems)
        return ProgramCompiled(
            self, spec.definition(), spec.name, spec.description, spec.risk_level, spec.parameters, program=spec
        )

    def examples_problems(self, found: Any) -> list[Diagnostic]:
        return no_examples(self.name, "are programs")

    def admit(self, compiled: Compiled, principal: Principal, capabilities: Capabilities, action: str) -> None:
        """A model's program stays in the sandbox (R0612), what it uses is granted (R0700), and
        only an admin person saves or approves one that uses a capability (R0701)."""
        assert isinstance(compiled, ProgramCompiled)
        spec = compiled.program
        if spec.sandbox == "none" and principal.kind != "person":
            raise refuse(
                codes.UNSANDBOXED_MODEL_TOOL,
                f'`{compiled.name}` asks for sandbox "none"; only a person may run a tool unsandboxed',
                "sandbox",
                hint="leave `sandbox` out: a model's tools run in bubblewrap",
            )
        refuse_ungranted(spec, capabilities)
        refuse_unless_admin_person(spec, principal, action)

    def runnable(self, record: ToolRecord, compiled: Compiled, context: RunContext) -> Runnable:
        from toolkiln.registry.programs import ProgramRun  # (its records: pydantic; a check needs none)

        assert isinstance(compiled, ProgramCompiled)
        return ProgramRun(record, compiled.program, context.capabilities, context.note_unsandboxed, context.secret)

    def claims(self, record: ToolRecord) -> list[str]:
        definition = record.definition
        said = [
            f"sandbox {definition.get('sandbox', 'bubblewrap')}",
            "network" if definition.get("network") else "no network",
        ]
        if "path" in definition:
            said.append(f"path {definition['path']}")
        return said

    def _settings(self, definition: Mapping[str, Any]) -> tuple[str, str]:
        settings = ", ".join(f"{key} {json.dumps(definition[key])}" for key in _SETTINGS)
        return settings, json.dumps(definition.get("parameters", {}), ensure_ascii=False, default=str)


class ScriptKind(_ProgramKind):
    """A script: its body is its program, so a new body is a new version. Written as JSON or
    as a `.skill` file (or text that starts with its `---` line)."""

    name = "script"
    changeable = CHANGEABLE["script"]

    def recognize(self, source: Any) -> Any | None:
        if isinstance(source, os.PathLike) and os.fspath(source).endswith(SKILL_SUFFIX):
            return read_skill(Path(source))
        if isinstance(source, os.PathLike) and os.fspath(source).endswith(RUSTYCLAW_SUFFIX):
            return read_rustyclaw_skill(Path(source))
        if isinstance(source, str) and source.startswith(SKILL_FENCE):
            return parse_skill(source)
        return None

    def text(self, record: ToolRecord) -> str:
        definition = record.definition
        settings, parameters = self._settings(definition)
        return (
            f"  {definition['runtime']} script; {settings}\n  parameters: {parameters}\n\n{definition['body'].rstrip()}"
        )


class ExecutableKind(_ProgramKind):
    """An executable file, pinned by its SHA-256; every new version waits for a person (it may
    pin a new file)."""

    name = "executable"
    changeable = CHANGEABLE["executable"]
    reapproval = True

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> ProgramCompiled:
        if options.allowed_folders == ():  # no folder granted: R0700 before its path is looked at
            refuse_ungranted_executable(str(source.get("name", "?")))
        return super().compile(source, tools, options)

    def text(self, record: ToolRecord) -> str:
        definition = record.definition
        settings, parameters = self._settings(definition)
        return (
            f"  executable {definition['path']}\n  pinned to SHA-256 {definition['sha256']}\n  {settings}\n"
            f"  parameters: {parameters}"
        )


SCRIPT = ScriptKind()
EXECUTABLE = ExecutableKind()
