"""Script and executable tools as `Registry.run` runs them (see toolkiln.executables).

A run's result says which sandbox ran the program:

    {"output": <stdout as JSON, else text>, "sandbox": "bubblewrap", "exit_code": 0,
     "duration_seconds": 0.012, "stderr": ""}

A program that fails (a status other than 0, its own `{"error": ...}` object, the time limit,
the output cap) is a RunError R0611 naming the sandbox; a run refused before it starts is a
RunError with the executables' code (R0601, R0603, R0609, R0610, R0612), or R0700 when it needs
a capability the registry was not granted (the registry may have been opened with fewer than
the one that saved the tool). An unsandboxed run is written to the audit log before it starts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.program_tools import ProgramSpec
from toolkiln.registry.capabilities import Capabilities
from toolkiln.registry.errors import RegistryError
from toolkiln.registry.json_values import plain_json
from toolkiln.registry.models import ToolRecord
from toolkiln.registry.program_calls import ProgramRequests
from toolkiln.semantics.chance import held_source
from toolkiln.semantics.dates import Clock
from toolkiln.semantics.limits import Limits


class ProgramRun:
    """A script or executable tool, ready to run: `run(args)` as a compute tool's."""

    def __init__(
        self,
        record: ToolRecord,
        spec: ProgramSpec,
        capabilities: Capabilities,
        note_unsandboxed: Callable[[ToolRecord], None],
        secret: Callable[[str], str | None] = lambda name: None,
    ) -> None:
        self._record = record
        self._spec = spec
        self._capabilities = capabilities
        self._note_unsandboxed = note_unsandboxed
        self._secret = secret

    def run(
        self,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,  # (a program reads the system's clock)
    ) -> dict[str, Any]:
        missing = self._capabilities.missing_for(self._spec)
        if missing is not None:
            raise RunError(
                codes.CAPABILITY_NOT_GRANTED.code,
                f"{missing}; it was not run",
                hint="the operator grants this when starting the server (`--allow`); see docs/security.md",
            )
        secrets = self._secret_values()
        if self._spec.sandbox == "none":
            self._note_unsandboxed(self._record)
        from toolkiln.executables.program_runs import run_program_tool  # the sandbox: on a program's run only

        try:
            result = run_program_tool(
                self._spec,
                plain_json(dict(args or {})),
                created_by=self._record.created_by,
                allowed_folders=self._capabilities.executable_folders,
                secrets=secrets,
                serve=ProgramRequests(),  # (a javascript tool's utils.callTool: as this run's caller)
                seeded=held_source() is not None,
            )
        except ExecutableError as error:
            raise RunError(error.code, error.message, hint=error.hint) from None
        failure = redacted(result.error, secrets)
        if failure is not None:
            details = failure.get("details")
            raise RunError(
                codes.PROGRAM_FAILED.code,
                f"`{self._record.name}` ({result.sandbox}): {failure['error']}",
                hint=None if details is None else str(details)[:2000],
            )
        answer = {
            "output": result.output,
            "sandbox": result.sandbox,
            "exit_code": result.exit_code,
            "duration_seconds": round(result.duration_seconds, 6),
            "stderr": result.stderr,
        }
        shown: dict[str, Any] = redacted(answer, secrets)  # whoever called: a model, a route, a log
        return shown

    def _secret_values(self) -> dict[str, str]:
        return secret_values(self._record.name, self._spec.secrets, self._secret)


def secret_values(tool: str, names: Iterable[str], secret: Callable[[str], str | None]) -> dict[str, str]:
    """The values of the secrets `tool` declares; R0742 (nothing runs) when one is not set."""
    values: dict[str, str] = {}
    for name in names:
        try:
            value = secret(name)
        except RegistryError as error:
            raise RunError(error.code, error.message, hint=error.hint) from None
        if value is None:
            raise RunError(
                codes.SECRET_MISSING.code,
                f"`{tool}` needs the secret {name}, which is not set; it was not run",
                hint=f"a person sets it: toolkiln secrets set {name}",
            )
        values[name] = value
    return values


def redacted(value: Any, secrets: Mapping[str, str]) -> Any:
    """`value` (JSON) with every occurrence of a secret's value, in any text or key, replaced by
    `[redacted:NAME]`: what a program prints of its secrets reaches no caller."""
    if not secrets:
        return value
    if isinstance(value, str):
        for name, secret in sorted(secrets.items(), key=lambda item: -len(item[1])):  # longest first
            if secret:
                value = value.replace(secret, f"[redacted:{name}]")
        return value
    if isinstance(value, dict):
        return {redacted(key, secrets): redacted(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [redacted(item, secrets) for item in value]
    return value
