"""Kodelet's custom tools, as Kodelet ran them (docs/executables.md#kodelets-tools).

Kodelet's protocol is toolkiln's (`TOOL description`, `TOOL run`) with what Kodelet added:

- the tool's name is the `name` its description prints (letters, digits, `_` and `-`), not
  its file's name; a description slower than 5 s fails discovery;
- an optional `TOOL config` prints `{"timeout": "30m"}` (a Go duration): the time a run may
  take (by default 120 s). A config that fails, is slow (5 s) or prints no JSON object is no
  config; one that prints a broken object or duration is an error;
- output past 100 KiB is cut, with a marker, and is not an error;
- folders: `~/.kodelet/tools`, `~/.kodelet/plugins/*/tools`, then the project's
  `./kodelet-tools` (Kodelet's earlier folder), `./.kodelet/plugins/*/tools` and
  `./.kodelet/tools`; a tool of a later folder hides one of the same name before it.

What toolkiln keeps of its own: every file runs only once `toolkiln trust` has recorded it
(Kodelet ran a cloned project's tools at start-up), in the sandbox, with none of the parent's
environment (Kodelet passed it all), and the config's timeout is at most 1 hour.

    found = discover_kodelet(TrustStore(toolkiln_home()))    # runs nothing
    tools = load_kodelet(found).tools                        # description and config, sandboxed
    call(tools["code-search"], {"query": "TODO"})            # runs under the tool's own limits
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from toolkiln.diagnostics import codes
from toolkiln.executables.discovery import Discovery, FoundExecutable, Scope
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import read_program, tool_files
from toolkiln.executables.policy import MAX_TIMEOUT_SECONDS, SandboxPolicy
from toolkiln.executables.protocol import ExecutableTool, LoadedTools, require_trusted
from toolkiln.executables.runner import run_program
from toolkiln.executables.trust import TrustStore

PROBE_SECONDS = 5.0  # `description` and `config` each; a slower one is no description / no config
DEFAULT_TIMEOUT_SECONDS = 120.0  # Kodelet's default for a run
MAX_OUTPUT_BYTES = 100 * 1024  # Kodelet's max_output_size: past it, cut with a marker
# With `custom_tool_` before it, a name fits the 64 characters of a model's function name.
KODELET_NAME = re.compile(r"[A-Za-z0-9_-]{1,52}")
_REGISTRY_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_GO_DURATION = re.compile(r"(?:(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+")
_GO_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),
    "μs": Decimal("1e-6"),
    "ms": Decimal("0.001"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
}


def kodelet_folders(home: Path | None = None, project: Path | None = None) -> list[tuple[Scope, Path]]:
    """Kodelet's tool folders, in the order their tools hide each other (later wins)."""
    home = home if home is not None else Path.home()
    project = project if project is not None else Path.cwd()
    return [
        *(("global", folder) for folder in _plugin_tools(home / ".kodelet" / "plugins")),
        ("global", home / ".kodelet" / "tools"),
        ("project", project / "kodelet-tools"),
        *(("project", folder) for folder in _plugin_tools(project / ".kodelet" / "plugins")),
        ("project", project / ".kodelet" / "tools"),
    ]


def _plugin_tools(plugins: Path) -> list[Path]:
    try:
        return sorted(path / "tools" for path in plugins.iterdir() if (path / "tools").is_dir())
    except OSError:  # no plugins folder
        return []


def discover_kodelet(store: TrustStore, *, home: Path | None = None, project: Path | None = None) -> Discovery:
    """Every executable of Kodelet's folders, each with its trust as `toolkiln trust` recorded
    it (Kodelet's own folders are no more trusted than a project's); nothing is executed. A
    found file's `name` is its file name: its tool name is the one its description prints."""
    found: list[FoundExecutable] = []
    skipped: list[tuple[Path, str]] = []
    for scope, folder in kodelet_folders(home, project):
        for path in tool_files(folder) if folder.is_dir() else []:
            try:
                content, sha256 = read_program(path, follow_link=True)
            except ExecutableError as error:
                skipped.append((path, error.message))
                continue
            trust = store.status(folder, path.name, sha256)
            found.append(FoundExecutable(path.name, path, scope, sha256, trust, content))
    return Discovery(tuple(found), tuple(skipped))


def load_kodelet(discovery: Discovery, policy: SandboxPolicy | None = None) -> LoadedTools:
    """Describe every trusted executable of `discovery`, Kodelet's way; a later folder's tool
    hides an earlier one of the same name. An untrusted file is never run."""
    tools: dict[str, ExecutableTool] = {}
    failed: list[ExecutableError] = []
    for found in _trusted(discovery.found):
        try:
            tool = describe_kodelet(found, policy)
        except ExecutableError as error:
            failed.append(error)
            continue
        tools[tool.name] = tool
    untrusted = tuple(found for found in discovery.found if found.trust != "trusted")
    return LoadedTools(dict(sorted(tools.items())), untrusted, tuple(failed))


def _trusted(found: Iterable[FoundExecutable]) -> list[FoundExecutable]:
    return [each for each in found if each.trust == "trusted"]


def describe_kodelet(found: FoundExecutable, policy: SandboxPolicy | None = None) -> ExecutableTool:
    """Run `TOOL description` and the optional `TOOL config` (each at most 5 s, sandboxed);
    R0604 for a description (or config) Kodelet would refuse too."""
    require_trusted(found)
    base = policy or SandboxPolicy()
    probe = dataclasses.replace(base, timeout_seconds=min(base.timeout_seconds, PROBE_SECONDS), cpu_seconds=5)
    result = run_program(found.name, found.content, ["description"], policy=probe)
    if result.timed_out or result.capped or result.exit_code != 0:
        reason = (result.error or {}).get("error", "failed")
        raise _bad(found, f"failed to run description command: {reason} {result.stderr.strip()[:200]}".rstrip())
    described = result.output
    if not isinstance(described, dict):
        raise _bad(found, "failed to parse tool description: it is not a JSON object")
    name, text = described.get("name"), described.get("description")
    if not isinstance(name, str) or not name:
        raise _bad(found, "tool name is required")
    if not KODELET_NAME.fullmatch(name):
        raise _bad(found, f"the tool name {name[:80]!r} is not 1 to 52 letters, digits, `_` or `-`")
    if not isinstance(text, str) or not text.strip():
        raise _bad(found, "tool description is required")
    schema = _schema(found, described.get("input_schema"))
    timeout = _config_timeout(found, probe) or DEFAULT_TIMEOUT_SECONDS
    runs = dataclasses.replace(
        base,
        timeout_seconds=timeout,
        cpu_seconds=math.ceil(timeout),
        output_bytes=MAX_OUTPUT_BYTES,
        truncate_output=True,
    )
    return ExecutableTool(name, text, schema, found, runs)


def _schema(found: FoundExecutable, schema: Any) -> dict[str, Any]:
    """The input schema; Kodelet took a tool without one as taking any object."""
    if schema is None:
        return {"type": "object"}
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise _bad(found, '`input_schema` must be a JSON Schema with "type": "object"')
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise _bad(found, f"`input_schema` is not a valid JSON Schema: {error.message}") from None
    return {"type": "object", **schema}


def _config_timeout(found: FoundExecutable, probe: SandboxPolicy) -> float | None:
    """The timeout `TOOL config` asks for, in seconds (at most 1 hour); None when the tool has
    no config: the command fails, is slow, or prints no JSON object."""
    result = run_program(found.name, found.content, ["config"], policy=probe)
    text = result.stdout.strip()
    if result.timed_out or result.capped or result.exit_code != 0 or not text.startswith("{"):
        return None
    config = result.output
    if not isinstance(config, dict):
        raise _bad(found, "failed to parse tool config: it is not a JSON object")
    timeout = config.get("timeout")
    if timeout is None or timeout == "":
        return None
    seconds = go_duration_seconds(timeout) if isinstance(timeout, str) else None
    if seconds is None or seconds <= 0:
        raise _bad(found, f"failed to parse tool config timeout {str(timeout)[:40]!r}: give a duration such as 30m")
    return min(seconds, MAX_TIMEOUT_SECONDS)


def registry_name(name: str) -> str:
    """A Kodelet tool's name as a registry name (lower case, `_` for `-`); R0604 if it cannot be one."""
    converted = name.lower().replace("-", "_")
    if not _REGISTRY_NAME.fullmatch(converted):
        raise ExecutableError(
            codes.BAD_TOOL_DESCRIPTION,
            f"`{name[:80]}` has no registry name: a registry name starts with a letter",
            "rename the tool in its description",
        )
    return converted


def go_duration_seconds(text: str) -> float | None:
    """A Go duration (`30m`, `1h30m`, `1.5s`, `300ms`, `-2s`) in seconds; None if it is none."""
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text.removeprefix("+"))
    if body == "0":
        return 0.0
    if len(body) > 64 or not _GO_DURATION.fullmatch(body):
        return None
    try:
        total = sum(Decimal(number) * _UNIT_SECONDS[unit] for number, unit in _GO_PART.findall(body))
    except InvalidOperation:
        return None
    return sign * float(total)


def _bad(found: FoundExecutable, message: str) -> ExecutableError:
    return ExecutableError(codes.BAD_TOOL_DESCRIPTION, f"{found.path}: {message}", path=str(found.path))
