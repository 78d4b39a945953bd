"""Kitz's custom tools as toolkiln definitions (`toolkiln tools import --from kitz DIR`).

Kitz keeps each tool it made in `data/custom-tools/<name>.json`: `name`, `description`,
`type` ("compute" or "n8n"), a `parameters` map, `riskLevel`, `createdAt`, `createdBy`, and
either `logic` (its ComputeLogic steps) or `n8nWorkflowId` with, for a tool made from a
template, `templateSource` (a file of `data/n8n-workflows/`).

    read_kitz(Path("kitz_os/data"))   # KitzFolder(tools=[KitzTool...], problems=[Problem...])

What each field means there is kept:
- a compute tool's steps are toolkiln's JSON steps, except `lookup`, which reads a field of an
  object argument by a literal key: it becomes `get(table, "key")`, which is what Kitz did (a
  missing key is null). A condition other than `variable <op> number` is W1103: Kitz did not
  compute it, toolkiln does;
- an n8n tool made from a template becomes a workflow tool running that template (the workflow
  only in Kitz's n8n, without the file, is E1102);
- `riskLevel` is kept; `createdBy` names Kitz's toolFactory (a model) or not: a tool a model
  made is created as the model's (`llm`), so the policy applies to it as to any model's tool;
  a file never makes a tool a person's. `createdAt`, `createdBy`, `templateSource` and
  `n8nWorkflowId` go into the audit note of the create.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError, Error, error_details
from toolkiln.registry.models import Actor, Problem
from toolkiln.syntax.loader import read_regular_file
from toolkiln.workflow import import_n8n

if TYPE_CHECKING:
    from toolkiln.registry.models import ToolRecord

KITZ_TYPES = ("compute", "n8n")
_REQUIRED = ("name", "type", "description")  # what Kitz's loader skips a file without
_MODEL_CREATORS = re.compile(r"toolFactory\w*")  # Kitz's meta-tools, called by its model
# The one condition Kitz computes: a variable name, an operator and a number.
_KITZ_CONDITION = re.compile(r"\s*[A-Za-z_]\w*\s*(>=|<=|==|!=|>|<)\s*-?\d+(\.\d+)?\s*")
_MAX_DEPTH = 200  # conditions nested deeper are refused by the compute language anyway
_MAX_FILE_BYTES = 1 << 20
TEMPLATE_SLUG = re.compile(r"[A-Za-z0-9][\w.-]{0,127}")


@dataclass(frozen=True)
class KitzTool:
    """One Kitz file as a toolkiln definition, who it is created as, and what to record."""

    file: str
    definition: dict[str, Any]
    created_by: Actor
    note: str
    warnings: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class KitzFolder:
    tools: list[KitzTool]
    problems: list[Problem]  # the files that cannot be imported, each with why


@dataclass(frozen=True)
class KitzImport:
    created: list[ToolRecord]
    warnings: list[Diagnostic]  # each with the file it is about
    problems: list[Problem]  # the files not imported, each with why


class Creates(Protocol):
    """The registry as the import uses it (`toolkiln.Registry` is one)."""

    def create(self, definition: Any, created_by: Any = "user", *, note: str | None = None) -> ToolRecord: ...


def import_kitz(registry: Creates, folder: Path, importer: Actor = "user") -> KitzImport:
    """Create a tool of each Kitz custom tool in `folder` (Kitz's `data/` or its
    `custom-tools/`); a file that cannot be imported is a problem, the others are created."""
    read = read_kitz(folder, importer)
    created, problems = [], list(read.problems)
    warnings = [replace(w, file=tool.file) for tool in read.tools for w in tool.warnings]
    for tool in read.tools:
        try:
            created.append(registry.create(tool.definition, tool.created_by, note=tool.note))
        except Error as error:
            found = tuple(replace(d, file=tool.file) for d in creation_diagnostics(error))
            problems.append(Problem(file=tool.file, diagnostics=found))
    return KitzImport(created, warnings, sorted(problems, key=lambda p: p.file))


def creation_diagnostics(error: Error) -> list[Diagnostic]:
    """What a refused create says, as diagnostics: a compile error's own, else its coded errors."""
    if isinstance(error, CompileError):
        return list(error.diagnostics)
    found = []
    for details in error_details(error):
        code = codes.lookup_code(details.code or "") or codes.INVALID_REQUEST
        span = None if details.path is None else _at(details.path)
        found.append(Diagnostic.of(code, details.message, span, hint=details.hint))
    return found


class KitzRefused(Error):
    """What cannot be taken from Kitz as it is: the diagnostic says why (E1101, E1102)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def kitz_folders(folder: Path) -> tuple[Path, Path]:
    """(custom-tools, n8n-workflows): `folder` is Kitz's `data/` or its `custom-tools/`."""
    if (folder / "custom-tools").is_dir():
        return folder / "custom-tools", folder / "n8n-workflows"
    return folder, folder.parent / "n8n-workflows"


def read_kitz(folder: Path, importer: Actor = "user") -> KitzFolder:
    """Every `*.json` of Kitz's custom-tools folder, translated; `importer` is who imports
    (the actor of each tool no model made)."""
    tools_folder, templates = kitz_folders(folder)
    tools: list[KitzTool] = []
    problems: list[Problem] = []
    for path in sorted(tools_folder.glob("*.json")):
        try:
            tools.append(kitz_tool(_read(path), path.name, templates, importer))
        except KitzRefused as refused:
            problems.append(Problem(file=path.name, diagnostics=(replace(refused.diagnostic, file=path.name),)))
    return KitzFolder(tools, problems)


def kitz_tool(data: dict[str, Any], file: str, templates: Path, importer: Actor = "user") -> KitzTool:
    """One Kitz custom tool (the decoded JSON of `file`) as a toolkiln definition."""
    for field in _REQUIRED:
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise KitzRefused(_invalid(f"a Kitz custom tool needs `{field}`, a string", field, _KITZ_FIELDS))
    kind = data["type"]
    warnings: list[Diagnostic] = []
    if kind == "compute":
        definition = _compute(data, warnings)
    elif kind == "n8n":
        definition = _workflow(data, templates)
    else:
        raise KitzRefused(_invalid(f"`type` is {kind[:40]!r}: a Kitz tool is `compute` or `n8n`", "type", _KITZ_FIELDS))
    creator = data.get("createdBy")
    made_by_model = isinstance(creator, str) and _MODEL_CREATORS.fullmatch(creator) is not None
    return KitzTool(file, definition, "llm" if made_by_model else importer, _note(data, file), tuple(warnings))


def _read(path: Path) -> dict[str, Any]:
    # A link is read only when it stays in its folder (a Kitz folder is handed over, and may
    # point anywhere); a FIFO or a device is refused unread, without waiting on it.
    if not path.resolve().is_relative_to(path.parent.resolve()):
        raise KitzRefused(_invalid("the file is a link out of its folder: not read", None))
    try:
        raw = read_regular_file(path, _MAX_FILE_BYTES)
    except OSError as error:
        raise KitzRefused(_invalid(f"cannot read the file: {error.strerror}", None)) from None
    if len(raw) > _MAX_FILE_BYTES:
        raise KitzRefused(_invalid(f"the file is over {_MAX_FILE_BYTES:,} bytes", None))
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise KitzRefused(_invalid(f"the file is not JSON: {str(error)[:200]}", None)) from None
    if not isinstance(data, dict):
        raise KitzRefused(_invalid("a Kitz custom tool is a JSON object", None))
    return data


_KITZ_FIELDS = 'a Kitz custom tool has "name", "description", "type" ("compute" or "n8n"), "parameters"'


def _invalid(message: str, path: str | None, hint: str | None = None) -> Diagnostic:
    span = None if path is None else _at(path)
    return Diagnostic.of(codes.PEER_FILE_INVALID, message, span, hint=hint)


def _at(path: str) -> Span:
    return Span(line=0, column=0, end_line=0, end_column=0, path=path)


def _common(data: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {key: data[key] for key in ("name", "description", "parameters", "riskLevel") if key in data}
    if kept.get("parameters") == {}:
        del kept["parameters"]
    return kept


# --- compute tools --------------------------------------------------------------------------


def _compute(data: dict[str, Any], warnings: list[Diagnostic]) -> dict[str, Any]:
    logic = data.get("logic")
    if not isinstance(logic, dict) or not isinstance(logic.get("steps"), list):
        raise KitzRefused(
            _invalid(
                'a compute tool needs `logic`: {"steps": [...]}', "logic", "give the steps Kitz's createCompute took"
            )
        )
    translated, found = kitz_logic(logic)
    warnings.extend(found)
    return {**_common(data), "logic": translated}


def kitz_logic(logic: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Kitz's ComputeLogic as toolkiln's JSON logic with the meaning Kitz gave it, and a W1103
    warning at each condition Kitz did not compute (paths start at `logic`)."""
    warnings: list[Diagnostic] = []
    steps = logic.get("steps")
    if not isinstance(steps, list):
        return logic, warnings  # toolkiln's checker says what is wrong, at its path
    return {**logic, "steps": _steps(steps, "logic.steps", warnings, depth=0)}, warnings


def _steps(steps: list[Any], path: str, warnings: list[Diagnostic], depth: int) -> list[Any]:
    if depth > _MAX_DEPTH:
        raise KitzRefused(_invalid(f"conditions nest deeper than {_MAX_DEPTH} levels", path))
    return [_step(step, f"{path}[{index}]", warnings, depth) for index, step in enumerate(steps)]


def _step(step: Any, path: str, warnings: list[Diagnostic], depth: int) -> Any:
    """A step as toolkiln reads it with the meaning Kitz gave it; anything malformed is left
    as it is, for toolkiln's checker to report at its path."""
    if not isinstance(step, dict):
        return step
    op = step.get("op")
    if op == "lookup" and isinstance(step.get("table"), str) and isinstance(step.get("key"), str):
        # Kitz: vars[table][key], the key a literal, undefined when missing.
        rest = {k: v for k, v in step.items() if k not in ("op", "table", "key")}
        return {"op": "math", "expression": f"get({step['table']}, {json.dumps(step['key'])})", **rest}
    if op != "condition":
        return step
    condition = step.get("if")
    if isinstance(condition, str) and _KITZ_CONDITION.fullmatch(condition) is None:
        warnings.append(
            Diagnostic.of(
                codes.PEER_MEANING_DIFFERS,
                f"Kitz did not compute `{condition[:80]}`: it compares only `variable <op> number`, and "
                "read anything else as false or as the truth of a variable of that whole name",
                _at(f"{path}.if"),
                hint="toolkiln computes the condition as written: check that this is what the tool means",
            )
        )
    translated = dict(step)
    for branch in ("then", "else"):
        if isinstance(step.get(branch), list):
            translated[branch] = _steps(step[branch], f"{path}.{branch}", warnings, depth + 1)
    return translated


# --- n8n tools --------------------------------------------------------------------------------


def _workflow(data: dict[str, Any], templates: Path) -> dict[str, Any]:
    source = data.get("templateSource")
    where = f"n8n workflow {data.get('n8nWorkflowId')!r} of Kitz's n8n"
    if not isinstance(source, str) or not TEMPLATE_SLUG.fullmatch(source):
        raise KitzRefused(
            _elsewhere(
                f"the tool runs {where}, which is not in the folder",
                None,
                "export it from that n8n (`n8n export:workflow --id=ID`) and import it with `toolkiln workflow import`",
            )
        )
    return {"kind": "workflow", **_common(data), "workflow": template_workflow(source, templates, "templateSource")}


def template_workflow(slug: str, templates: Path, path: str | None = None) -> str:
    """The workflow DSL of Kitz's template `slug` (`templates/<slug>.json`); KitzRefused
    (E1102, at `path`) when it is not there, does not import, or starts on a schedule."""
    file = templates / f"{slug}.json"
    if not TEMPLATE_SLUG.fullmatch(slug) or not file.is_file():
        raise KitzRefused(
            _elsewhere(
                f"the template `{slug[:128]}` is not in {templates}",
                path,
                "put Kitz's data/n8n-workflows/ beside data/custom-tools/",
            )
        )
    try:
        document = _read(file)
        text = import_n8n(document, file.name).to_text()
    except KitzRefused as refused:
        message = f"{file.name}: {refused.diagnostic.message}"
        raise KitzRefused(replace(refused.diagnostic, message=message)) from None
    except CompileError as error:
        first = error.diagnostics[0] if error.diagnostics else None
        why = first.message if first is not None else str(error)
        raise KitzRefused(_elsewhere(f"the template {file.name} does not import: {why}", path, _FIX_TEMPLATE)) from None
    if not _starts_on_webhook(document):
        raise KitzRefused(
            _elsewhere(
                f"the template {file.name} starts on a schedule, not a webhook: it cannot be called as a tool",
                path,
                f"deploy it as an automation: `toolkiln workflow import {file.name}`, then `toolkiln n8n deploy`",
            )
        )
    return text


def _starts_on_webhook(document: dict[str, Any]) -> bool:
    nodes = document.get("nodes")
    return isinstance(nodes, list) and any(
        isinstance(node, dict) and node.get("type") == "n8n-nodes-base.webhook" for node in nodes
    )


_FIX_TEMPLATE = "`toolkiln workflow import FILE` shows every problem of the template with its place"


def _elsewhere(message: str, path: str | None, hint: str) -> Diagnostic:
    return Diagnostic.of(codes.PEER_WORKFLOW_ELSEWHERE, message, None if path is None else _at(path), hint=hint)


def _note(data: dict[str, Any], file: str) -> str:
    """What Kitz recorded of the tool, for the audit entry of its create."""
    kept = [
        f"{key} {str(data[key])[:100]}"
        for key in ("createdAt", "createdBy", "templateSource", "n8nWorkflowId")
        if key in data
    ]
    return "imported from Kitz " + file + (": " + ", ".join(kept) if kept else "")
