"""Script and executable tools as the registry stores them: a definition checked into a
`ProgramSpec`, data only (nothing here runs a program; see program_runs.py).

    {"kind": "script", "name": "greet", "description": "Greets someone.",
     "runtime": "python", "body": "import json, sys\\n...",
     "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
     "policy": "allow", "network": false, "timeout_secs": 10, "sandbox": "bubblewrap"}

    {"kind": "executable", "name": "git_info", "description": "...",
     "path": "/home/me/.toolkiln/tools/git_info", "sha256": "<hex>", "parameters": {...}, ...}

A script's body is its program: a new body is a new version of the tool. An executable is
pinned by the SHA-256 of its file; a definition without `sha256` is pinned to the file as it
is when the definition is checked (`pin=True`), and a run refuses a file that changed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, get_args

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.codes import lookup_code
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.executables.errors import ExecutableError
from toolkiln.executables.files import read_program
from toolkiln.executables.plain_schemas import plainly_valid
from toolkiln.executables.policy import MAX_TIMEOUT_SECONDS, SANDBOX_KINDS, SandboxKind, SandboxPolicy
from toolkiln.syntax.words import RISK_LEVELS, TOOL_NAME

ProgramKind = Literal["script", "executable"]
Runtime = Literal["bash", "python", "javascript"]
Permission = Literal["allow", "deny", "elevated"]
PROGRAM_KINDS: tuple[ProgramKind, ...] = get_args(ProgramKind)
RUNTIMES: tuple[Runtime, ...] = get_args(Runtime)
PERMISSIONS: tuple[Permission, ...] = get_args(Permission)
# The interpreter line put before a script's body: the body is never a command line.
# Node runs without its JIT (--jitless): V8's JIT reserves more address space than a run's
# 512 MiB RLIMIT_AS allows (node aborts at start below about 800 MiB), and no code pages are
# written and executed. Its heap stays under the limit (--max-old-space-size, in MiB).
SHEBANGS: dict[Runtime, str] = {
    "bash": "#!/usr/bin/env bash\n",
    "python": "#!/usr/bin/env python3\n",
    "javascript": "#!/usr/bin/env -S node --jitless --no-expose-wasm --max-old-space-size=256\n",
}
MAX_BODY_BYTES = 128 * 1024
DEFAULT_TIMEOUT_SECS = 10
NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
_MIB = 1 << 20
_SHA256 = re.compile(r"[0-9a-f]{64}")
# A secret is handed to the program as an environment variable of its name (registry/secrets.py)
SECRET_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
MAX_SECRETS = 32

COMMON_FIELDS = ("description", "parameters", "policy", "network", "timeout_secs", "sandbox", "riskLevel", "secrets")
# What `update` may change of each kind (the name and kind never change).
CHANGEABLE: dict[str, tuple[str, ...]] = {
    "script": ("runtime", "body", *COMMON_FIELDS),
    "executable": ("path", "sha256", *COMMON_FIELDS),
}
# The fields only one kind has, as `ProgramSpec.definition()` writes them.
OWN_FIELDS: dict[ProgramKind, tuple[str, ...]] = {"script": ("runtime", "body"), "executable": ("path", "sha256")}
REQUIRED: dict[ProgramKind, tuple[str, ...]] = {
    "script": ("kind", "name", "description", "runtime", "body"),
    "executable": ("kind", "name", "description", "path"),
}


@dataclass(frozen=True)
class ProgramSpec:
    """A checked script or executable tool definition."""

    kind: ProgramKind
    name: str
    description: str
    parameters: dict[str, Any]
    risk_level: str
    permission: Permission
    network: bool
    timeout_secs: float
    sandbox: SandboxKind
    runtime: Runtime | None = None  # scripts
    body: str | None = None  # scripts
    path: str | None = None  # executables: absolute
    sha256: str | None = None  # executables: the pinned file
    secrets: tuple[str, ...] = ()  # names of the registry's secrets it gets as environment variables

    def definition(self) -> dict[str, Any]:
        """The canonical JSON the registry stores: every field, defaults written out."""
        own = {field: getattr(self, field) for field in OWN_FIELDS[self.kind]}
        return {
            "kind": self.kind,
            "name": self.name,
            "description": self.description,
            **own,
            "parameters": self.parameters,
            "policy": self.permission,
            "network": self.network,
            "timeout_secs": self.timeout_secs,
            "sandbox": self.sandbox,
            "riskLevel": self.risk_level,
            **(
                {"secrets": list(self.secrets)} if self.secrets else {}
            ),  # (absent: definitions of old stay as they were)
        }

    def sandbox_policy(self) -> SandboxPolicy:
        """The limits of one run. `elevated` lifts the resource limits (2 GiB, 256 processes,
        64 MiB files, 8 MiB of output); it never adds network access, which only `network` gives."""
        cpu = max(1, math.ceil(self.timeout_secs))
        if self.permission == "elevated":
            return SandboxPolicy(
                sandbox=self.sandbox,
                network=self.network,
                timeout_seconds=self.timeout_secs,
                cpu_seconds=cpu,
                memory_bytes=2048 * _MIB,
                processes=256,
                file_size_bytes=64 * _MIB,
                writable_bytes=64 * _MIB,
                output_bytes=8 * _MIB,
            )
        return SandboxPolicy(
            sandbox=self.sandbox, network=self.network, timeout_seconds=self.timeout_secs, cpu_seconds=cpu
        )


def _at(message: str, path: str, hint: str | None = None, code: codes.Code = codes.INVALID_PROGRAM_TOOL) -> Diagnostic:
    return Diagnostic.of(code, message, Span(line=0, column=0, end_line=0, end_column=0, path=path), hint)


def parse_program(
    obj: dict[str, Any], *, pin: bool = False, allowed_folders: tuple[Path, ...] | None = None
) -> tuple[ProgramSpec | None, list[Diagnostic]]:
    """The spec of a script or executable tool definition, or None and every problem found.
    `pin`: an executable without `sha256` is pinned to its file as it is now, read as
    `files.read_program` reads it (inside `allowed_folders` when given: see there)."""
    kind = obj.get("kind")
    assert kind in PROGRAM_KINDS, kind  # the registry dispatches on kind before calling this
    problems = _field_problems(kind, obj)
    name, description = obj.get("name"), obj.get("description")
    if "name" in obj and not (isinstance(name, str) and TOOL_NAME.fullmatch(name)):
        problems.append(
            _at(f"`name` must match ^{TOOL_NAME.pattern}$, not {str(name)[:40]!r}", "name", code=codes.INVALID_NAME)
        )
    if "description" in obj and not (isinstance(description, str) and description.strip()):
        problems.append(_at("`description` must be a non-empty text", "description"))
    parameters = _parameters(obj.get("parameters", NO_PARAMETERS), problems)
    permission = _choice(obj, "policy", PERMISSIONS, "allow", problems)
    sandbox = _choice(obj, "sandbox", SANDBOX_KINDS, "bubblewrap", problems)
    network = obj.get("network", False)
    if not isinstance(network, bool):
        problems.append(_at("`network` must be true or false", "network"))
    timeout = _timeout(obj.get("timeout_secs", DEFAULT_TIMEOUT_SECS), problems)
    risk = _choice(obj, "riskLevel", RISK_LEVELS, "low", problems)
    secrets = declared_secrets(obj.get("secrets", []), problems)
    if permission == "elevated" or network is True:
        risk = "high"  # more than the default sandbox: every model-made version waits for a person
    own = _OWN_READERS[kind](obj, pin, allowed_folders, problems)
    if problems:
        return None, problems
    spec = ProgramSpec(
        kind=kind,
        name=obj["name"],
        description=obj["description"],
        parameters=parameters,
        risk_level=risk,
        permission=permission,
        network=network,
        timeout_secs=timeout,
        sandbox=sandbox,
        secrets=secrets,
        **own,
    )
    return spec, []


def _field_problems(kind: ProgramKind, obj: dict[str, Any]) -> list[Diagnostic]:
    required = REQUIRED[kind]
    known = (*required, *CHANGEABLE[kind])
    problems = [
        _at(f"a {kind} tool needs `{key}`", key, code=codes.MISSING_FIELD) for key in required if key not in obj
    ]
    for key in obj:
        if key not in known:
            from difflib import get_close_matches  # (12 M instructions to import: on this error only)

            close = get_close_matches(str(key), known, n=1)
            hint = (
                f"did you mean `{close[0]}`?" if close else f"a {kind} tool's fields: {', '.join(dict.fromkeys(known))}"
            )
            problems.append(
                _at(f"unknown field `{str(key)[:40]}` in a {kind} tool", str(key)[:64], hint, codes.UNKNOWN_FIELD)
            )
    return problems


def _choice(obj: dict[str, Any], key: str, allowed: tuple[str, ...], default: str, problems: list[Diagnostic]) -> Any:
    value = obj.get(key, default)
    if value not in allowed:
        problems.append(_at(f"`{key}` is {str(value)[:40]!r}; use one of {', '.join(allowed)}", key))
        return default
    return value


def _parameters(schema: Any, problems: list[Diagnostic]) -> dict[str, Any]:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        problems.append(
            _at(
                '`parameters` must be a JSON Schema with "type": "object"',
                "parameters",
                'e.g. {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}',
            )
        )
        return NO_PARAMETERS
    if plainly_valid(schema):  # the common schema, without importing jsonschema (plain_schemas.py)
        return schema
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # 60 ms: when a schema is read
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        problems.append(_at(f"`parameters` is not a valid JSON Schema: {error.message}", "parameters"))
    return schema


def declared_secrets(value: Any, problems: list[Diagnostic]) -> tuple[str, ...]:
    """The names of the secrets a tool declares: a list of upper-case environment variable names."""
    if not isinstance(value, list) or len(value) > MAX_SECRETS:
        problems.append(_at(f"`secrets` must be a list of at most {MAX_SECRETS} secret names", "secrets"))
        return ()
    for index, name in enumerate(value):
        if not isinstance(name, str) or not SECRET_NAME.fullmatch(name) or name.startswith("TK_ARG_"):
            problems.append(
                _at(
                    f"{str(name)[:40]!r} is not a secret name",
                    f"secrets[{index}]",
                    "an upper-case letter, then up to 63 of A-Z, 0-9 and _ (not TK_ARG_...), e.g. WEATHER_API_KEY",
                    codes.INVALID_SECRET_NAME,
                )
            )
    return tuple(dict.fromkeys(name for name in value if isinstance(name, str)))


def _timeout(value: Any, problems: list[Diagnostic]) -> float:
    """Seconds; a whole number is kept whole (stored JSON reads back as the same value)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal) or not 0 < value <= MAX_TIMEOUT_SECONDS:
        problems.append(
            _at(
                f"`timeout_secs` is {str(value)[:40]}; it must be more than 0 and at most {MAX_TIMEOUT_SECONDS:g}",
                "timeout_secs",
            )
        )
        return DEFAULT_TIMEOUT_SECS
    seconds = float(value)
    return int(seconds) if seconds.is_integer() else seconds


def _script_fields(
    obj: dict[str, Any], pin: bool, allowed_folders: tuple[Path, ...] | None, problems: list[Diagnostic]
) -> dict[str, Any]:
    runtime = _choice(obj, "runtime", RUNTIMES, "bash", problems) if "runtime" in obj else None
    body = obj.get("body")
    if "body" in obj:
        if not isinstance(body, str) or not body.strip():
            problems.append(_at("`body` must be the program's text, not empty", "body"))
        elif len(body.encode("utf-8", errors="surrogatepass")) > MAX_BODY_BYTES:
            problems.append(_at(f"`body` is larger than {MAX_BODY_BYTES // 1024} KiB", "body"))
        elif "\x00" in body:
            problems.append(_at("`body` holds a NUL character", "body"))
    return {"runtime": runtime, "body": body}


def _executable_fields(
    obj: dict[str, Any], pin: bool, allowed_folders: tuple[Path, ...] | None, problems: list[Diagnostic]
) -> dict[str, Any]:
    path, sha256 = obj.get("path"), obj.get("sha256")
    if "path" in obj and not (isinstance(path, str) and Path(path).is_absolute() and "\x00" not in path):
        problems.append(_at("`path` must be the absolute path of the executable file", "path"))
        return {}
    if sha256 is not None and not (isinstance(sha256, str) and _SHA256.fullmatch(sha256)):
        problems.append(_at("`sha256` must be 64 lower-case hex digits (the file's SHA-256)", "sha256"))
    elif sha256 is None and path is not None:
        if not pin:
            problems.append(
                _at("an executable tool is pinned: `sha256` is missing", "sha256", code=codes.MISSING_FIELD)
            )
        else:
            sha256 = _pinned(Path(path), allowed_folders, problems)
    return {"path": path, "sha256": sha256}


def _pinned(path: Path, allowed_folders: tuple[Path, ...] | None, problems: list[Diagnostic]) -> str | None:
    """The SHA-256 of the file at `path`, or None and the problem. Whether it is a program
    (R0614) is checked when it runs, so that a capability the file needs is refused first."""
    try:
        sha256 = read_program(path, allowed_folders=allowed_folders)[1]
    except ExecutableError as error:
        problems.append(_at(error.message, "path", error.hint, lookup_code(error.code) or codes.EXECUTABLE_NOT_FOUND))
        return None
    return sha256


# What each kind reads of its own fields (a script its runtime and body, an executable its file).
_OWN_READERS = {"script": _script_fields, "executable": _executable_fields}
