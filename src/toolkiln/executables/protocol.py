"""The executable protocol: `TOOL description` prints `{"name", "description", "input_schema"}`;
`TOOL run` reads the arguments as JSON on stdin and writes its result to stdout (JSON or text),
its errors to stderr or as `{"error": ..., "details": ...}`.

Arguments never become program text: they reach the program as JSON on stdin and, for
convenience, as environment variables `TK_ARG_<NAME>` holding each one's JSON encoding (and
`SKILL_ARGS`, all of them, as RustyClaw's skills read them). They
are checked against the tool's `input_schema` before anything runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.executables.discovery import MODEL_PREFIX, Discovery, FoundExecutable, Scope, model_name
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.policy import SandboxPolicy
from toolkiln.executables.result import RunResult
from toolkiln.executables.runner import run_program

MAX_ARGUMENTS_BYTES = 65536  # as JSON; one environment string may not pass 128 KiB (execve)
_ENV_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ExecutableTool:
    """A trusted executable and the description it gave. `content` is the program that
    described itself, and the one every call runs."""

    name: str
    description: str
    input_schema: dict[str, Any]
    found: FoundExecutable = field(repr=False)
    run_policy: SandboxPolicy | None = None  # how its runs are sandboxed when the caller gives none

    @property
    def model_name(self) -> str:
        return model_name(self.name)

    @property
    def scope(self) -> Scope:
        return self.found.scope


def describe(found: FoundExecutable, policy: SandboxPolicy | None = None) -> ExecutableTool:
    """Run `TOOL description` and check what it printed (R0602 for a file that is not
    trusted, which is then never run; R0604 for a description that is not valid)."""
    require_trusted(found)
    result = run_program(found.name, found.content, ["description"], policy=policy)
    if result.error:
        raise _bad_description(found, f"`{found.name} description` failed: {result.error['error']}")
    described = result.output
    if not isinstance(described, dict):
        raise _bad_description(found, f"`{found.name} description` did not print a JSON object")
    name, text, schema = described.get("name"), described.get("description"), described.get("input_schema")
    if name != found.name:
        raise _bad_description(found, f"its name is {name!r}; it must be {found.name!r}, the file's name")
    if not isinstance(text, str) or not text.strip():
        raise _bad_description(found, "`description` must be a non-empty text")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise _bad_description(found, '`input_schema` must be a JSON Schema with "type": "object"')
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # 60 ms: when a schema is read
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise _bad_description(found, f"`input_schema` is not a valid JSON Schema: {error.message}") from None
    return ExecutableTool(name, text, schema, found)


def call(tool: ExecutableTool, arguments: Any, policy: SandboxPolicy | None = None) -> RunResult:
    """Check `arguments` against the tool's schema (R0603), then run `TOOL run` with them
    (under `policy`, else the tool's own `run_policy`, else the default sandbox)."""
    require_trusted(tool.found)
    stdin = encode_arguments(tool, arguments)
    return run_program(
        tool.name,
        tool.found.content,
        ["run"],
        stdin=stdin,
        extra_env=argument_env(arguments),
        policy=policy or tool.run_policy,
    )


def encode_arguments(tool: ExecutableTool, arguments: Any) -> bytes:
    """The arguments as the JSON the program reads on stdin, once they pass the schema."""
    return checked_arguments(tool.name, tool.input_schema, arguments, path=str(tool.found.path))


def checked_arguments(name: str, schema: dict[str, Any], arguments: Any, *, path: str | None = None) -> bytes:
    """`arguments` as JSON once they are an object of at most 64 KiB that `schema` accepts;
    else R0603 naming the property and the rule it broke."""
    if not isinstance(arguments, dict):
        raise _bad_arguments(name, path, f"the arguments must be a JSON object, not {type(arguments).__name__}")
    try:
        encoded = json.dumps(arguments, allow_nan=False).encode()
    except (TypeError, ValueError) as error:
        raise _bad_arguments(name, path, f"the arguments are not JSON: {error}") from None
    if len(encoded) > MAX_ARGUMENTS_BYTES:
        raise _bad_arguments(
            name, path, f"the arguments are {len(encoded)} bytes of JSON; at most {MAX_ARGUMENTS_BYTES}"
        )
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(part) for part in errors[0].path) or "(the arguments)"
        raise _bad_arguments(name, path, f"{where}: {errors[0].message}")
    return encoded


def argument_env(arguments: dict[str, Any]) -> dict[str, str]:
    """`TK_ARG_<NAME>` -> the JSON of each argument whose name is letters, digits and `_`. Two
    names that differ only in case would be one variable: neither gets one (both are on stdin).
    `SKILL_ARGS` holds them all, as stdin does: what RustyClaw's skills read."""
    env: dict[str, str] = {"SKILL_ARGS": json.dumps(arguments)}
    clashes: set[str] = set()
    for name, value in arguments.items():
        if not _ENV_SAFE.fullmatch(name):
            continue
        key = f"TK_ARG_{name.upper()}"
        if key in env:
            clashes.add(key)
        env[key] = json.dumps(value)
    return {key: value for key, value in env.items() if key not in clashes}


def require_trusted(found: FoundExecutable) -> None:
    if found.trust == "trusted":
        return
    why = {
        "new": "is new since its folder was trusted",
        "changed": "changed since its folder was trusted",
        "untrusted-folder": "is in a folder that was never trusted",
    }[found.trust]
    raise ExecutableError(
        codes.UNTRUSTED_EXECUTABLE,
        f"{found.path} {why}; it was not run",
        f"read it, then: toolkiln trust {found.path.parent}",
        path=str(found.path),
    )


def _bad_description(found: FoundExecutable, message: str) -> ExecutableError:
    return ExecutableError(codes.BAD_TOOL_DESCRIPTION, f"{found.path}: {message}", path=str(found.path))


def _bad_arguments(name: str, path: str | None, message: str) -> ExecutableError:
    return ExecutableError(codes.INVALID_TOOL_ARGUMENTS, f"{name}: {message}", path=path)


@dataclass(frozen=True)
class LoadedTools:
    """What `load_tools` made of a discovery: the tools ready to call, the files not run
    because they are not trusted, and the descriptions that failed."""

    tools: dict[str, ExecutableTool]
    untrusted: tuple[FoundExecutable, ...]
    failed: tuple[ExecutableError, ...]


def load_tools(discovery: Discovery, policy: SandboxPolicy | None = None) -> LoadedTools:
    """Describe every trusted executable of `discovery`; never run an untrusted one."""
    tools: dict[str, ExecutableTool] = {}
    failed: list[ExecutableError] = []
    for found in discovery.found:
        if found.trust != "trusted":
            continue
        try:
            tools[found.name] = describe(found, policy)
        except ExecutableError as error:
            failed.append(error)
    untrusted = tuple(found for found in discovery.found if found.trust != "trusted")
    return LoadedTools(tools, untrusted, tuple(failed))


def find_tool(discovery: Discovery, name: str) -> FoundExecutable:
    """The executable called `name` (or `custom_tool_<name>`, as a model names it); R0605."""
    bare = name.removeprefix(MODEL_PREFIX)
    for found in discovery.found:
        if found.name == bare:
            return found
    known = ", ".join(found.name for found in discovery.found) or "none"
    raise ExecutableError(codes.EXECUTABLE_NOT_FOUND, f"no executable tool `{name}` (found: {known})")
