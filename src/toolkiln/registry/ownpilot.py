"""OwnPilot's custom tools as toolkiln script tools (`toolkiln tools import --from ownpilot FILE`).

An OwnPilot custom tool is JSON: `name`, `description`, `parameters` (a JSON Schema), `code`
(JavaScript: the body of an async function of `args`, with `utils` and `fetch`),
`permissions` and `requiredApiKeys`. It becomes a `javascript` script tool whose body runs
that code unchanged with toolkiln's own `utils` (executables/ownpilot_js.py), in bubblewrap.

    read_ownpilot(Path("fetch_weather.json"))   # OwnPilotTool(definition, mapped, created_by)

What maps, and is shown (`mapped`): `network` is the script's `network`; each of
`requiredApiKeys` is a declared secret (`weatherapi` -> `WEATHERAPI`, an environment variable
of the run, which `utils.getApiKey("weatherapi")` reads). What does not map is refused, coded:
`filesystem`, `database`, `shell`, `email` and `scheduling` (E1104), a file that is not an
OwnPilot tool (E1101). A tool OwnPilot's model made (`createdBy: "llm"`) is created as the
model's: it waits for a person's approval before it runs, with its network too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import Error
from toolkiln.executables.ownpilot_js import ownpilot_body
from toolkiln.executables.program_tools import SECRET_NAME
from toolkiln.registry.kitz import creation_diagnostics
from toolkiln.registry.models import Actor, Problem
from toolkiln.syntax.loader import read_regular_file
from toolkiln.syntax.words import TOOL_NAME

if TYPE_CHECKING:
    from toolkiln.registry.kitz import Creates
    from toolkiln.registry.models import ToolRecord

PERMISSIONS = ("network", "filesystem", "database", "shell", "email", "scheduling")
UNMAPPED = {
    "filesystem": "a script sees no user files (only its private /tmp)",
    "database": "a script reaches no database",
    "shell": "a script runs no host commands",
    "email": "a script sends no mail",
    "scheduling": "a script schedules nothing (a workflow with a Schedule Trigger does)",
}
_MAX_FILE_BYTES = 1 << 20
_FIELDS = 'an OwnPilot custom tool has "name", "description", "parameters", "code", "permissions"'


@dataclass(frozen=True)
class OwnPilotTool:
    """One OwnPilot tool as a toolkiln definition, who it is created as, and what was mapped
    onto what (one line each: shown to whoever imports it)."""

    file: str
    definition: dict[str, Any]
    created_by: Actor
    mapped: tuple[str, ...]


@dataclass(frozen=True)
class OwnPilotImport:
    created: list[ToolRecord]
    mapped: list[str]  # "file: what -> what", for every tool created
    problems: list[Problem]


class OwnPilotRefused(Error):
    """What cannot be taken from OwnPilot as it is (E1101, E1104)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def import_ownpilot(registry: Creates, paths: list[Path], importer: Actor = "user") -> OwnPilotImport:
    """Create a script tool of each OwnPilot tool file; a file that cannot be imported is a
    problem, the others are created."""
    created: list[ToolRecord] = []
    mapped: list[str] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            tool = read_ownpilot(path, importer)
            created.append(registry.create(tool.definition, tool.created_by, note=import_note(tool)))
        except OwnPilotRefused as refused:
            problems.append(Problem(file=path.name, diagnostics=(replace(refused.diagnostic, file=path.name),)))
            continue
        except Error as error:
            found = tuple(replace(d, file=path.name) for d in creation_diagnostics(error))
            problems.append(Problem(file=path.name, diagnostics=found))
            continue
        mapped.extend(f"{tool.file}: {line}" for line in tool.mapped)
    return OwnPilotImport(created, mapped, problems)


def read_ownpilot(path: Path, importer: Actor = "user") -> OwnPilotTool:
    """One OwnPilot tool file as a toolkiln definition; OwnPilotRefused says why not."""
    return ownpilot_tool(_read(path), path.name, importer)


def ownpilot_tool(data: dict[str, Any], file: str, importer: Actor = "user") -> OwnPilotTool:
    """One OwnPilot tool (decoded JSON) as a `javascript` script tool definition."""
    for field in ("name", "description", "code"):
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise _refused(f"an OwnPilot custom tool needs `{field}`, a string", field, _FIELDS)
    name = data["name"]
    if not TOOL_NAME.fullmatch(name):
        raise _refused(f"`name` {name[:60]!r} is not a tool name: lower case letters, digits and _", "name")
    network = _permissions(data.get("permissions", []))
    api_keys = _api_keys(data.get("requiredApiKeys", []))
    definition: dict[str, Any] = {
        "kind": "script",
        "name": name,
        "description": data["description"],
        "runtime": "javascript",
        "body": ownpilot_body(data["code"]),
        "network": network,
    }
    if data.get("parameters") not in (None, {}):
        definition["parameters"] = data["parameters"]
    if api_keys:
        definition["secrets"] = sorted(set(api_keys.values()))
    mapped = ["permission network -> network: true"] if network else []
    mapped += [f"requiredApiKeys {key} -> secret {secret}" for key, secret in sorted(api_keys.items())]
    created_by: Actor = "llm" if data.get("createdBy") == "llm" else importer
    return OwnPilotTool(file, definition, created_by, tuple(mapped))


def _permissions(permissions: Any) -> bool:
    """Whether the tool has the network; E1104 for a permission with no counterpart."""
    if not isinstance(permissions, list) or not all(isinstance(p, str) for p in permissions):
        raise _refused(
            "`permissions` must be a list of names", "permissions", f"OwnPilot's are {', '.join(PERMISSIONS)}"
        )
    for index, permission in enumerate(permissions):
        if permission in UNMAPPED:
            raise OwnPilotRefused(
                Diagnostic.of(
                    codes.PEER_PERMISSION_UNMAPPED,
                    f"permission `{permission}` has no counterpart in toolkiln: {UNMAPPED[permission]}",
                    _at(f"permissions[{index}]"),
                    hint="remove it if the code does not need it; only `network` maps (a script's network)",
                )
            )
        if permission not in PERMISSIONS:
            raise _refused(f"`{permission[:40]}` is not an OwnPilot permission", f"permissions[{index}]")
    return "network" in permissions


def _api_keys(required: Any) -> dict[str, str]:
    """Each required API key's name -> the secret that holds it (upper case, `_` between)."""
    if not isinstance(required, list):
        raise _refused("`requiredApiKeys` must be a list of {name, ...}", "requiredApiKeys")
    found: dict[str, str] = {}
    for index, entry in enumerate(required):
        key = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(key, str):
            key = ""
        secret = re.sub(r"[^A-Z0-9]+", "_", key.upper()).strip("_")
        if not SECRET_NAME.fullmatch(secret) or secret.startswith("TK_ARG_"):
            raise _refused(
                f"requiredApiKeys[{index}] has no name toolkiln can keep as a secret",
                f"requiredApiKeys[{index}].name",
                "a name that starts with a letter, as weatherapi (the secret WEATHERAPI)",
            )
        found[key] = secret
    return found


def import_note(tool: OwnPilotTool) -> str:
    return "imported from OwnPilot" + (f" ({'; '.join(tool.mapped)})" if tool.mapped else "")


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular_file(path, _MAX_FILE_BYTES)
    except OSError as error:
        raise _refused(f"cannot read the file: {error.strerror}", None) from None
    if len(raw) > _MAX_FILE_BYTES:
        raise _refused(f"the file is over {_MAX_FILE_BYTES:,} bytes", None)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise _refused(f"the file is not JSON: {str(error)[:200]}", None) from None
    if not isinstance(data, dict):
        raise _refused("an OwnPilot custom tool is a JSON object", None, _FIELDS)
    return data


def _refused(message: str, path: str | None, hint: str | None = None) -> OwnPilotRefused:
    return OwnPilotRefused(
        Diagnostic.of(codes.PEER_FILE_INVALID, message, None if path is None else _at(path), hint=hint)
    )


def _at(path: str) -> Span:
    return Span(line=0, column=0, end_line=0, end_column=0, path=path)
