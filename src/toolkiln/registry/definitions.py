"""From what a person or a model wrote to a checked definition the registry may store.

Nothing reaches the disk without going through `compile_definition`: the size limit, the
compiler (parse + type check), the name rules. Every problem is a `CompileError` whose
diagnostics say where and how to fix it.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.api import compile as compile_source
from toolkiln.ast.spans import Span
from toolkiln.backends.json_printer import print_json
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.executables.program_tools import CHANGEABLE as PROGRAM_CHANGEABLE
from toolkiln.executables.program_tools import PROGRAM_KINDS, ProgramSpec, parse_program
from toolkiln.executables.skill_files import SKILL_FENCE, SKILL_SUFFIX, parse_skill, read_skill
from toolkiln.registry import examples
from toolkiln.registry.equality import same_data
from toolkiln.registry.names import META_TOOL_NAMES, NAME_RULE
from toolkiln.semantics.values import to_json
from toolkiln.syntax.json_front import load_json
from toolkiln.syntax.loader import read_source_file
from toolkiln.tool import Tool

if TYPE_CHECKING:
    from toolkiln.n8n.deploy import Webhook

MAX_DEFINITION_BYTES = 256 * 1024
# The fields of a tool definition (the JSON DSL) that `update` may change.
CHANGEABLE = ("description", "parameters", "logic", "riskLevel", "tables", "examples")
WORKFLOW_CHANGEABLE = ("description", "parameters", "workflow", "riskLevel", "n8n")
_OPTIONAL = ("riskLevel", "tables", "parameters", "n8n", "examples")
# Of script and executable tools: None restores the default (for sha256: pin the file anew).
_PROGRAM_OPTIONAL = ("sha256", "policy", "network", "timeout_secs", "sandbox")
KINDS = ("compute", "workflow", *PROGRAM_KINDS)
_ALIASES = {"risk_level": "riskLevel", "risk": "riskLevel"}


@dataclass(frozen=True)
class Compiled:
    """A definition that compiled, and the canonical JSON form that is stored. A compute tool
    is its `tool`; for a workflow tool, `tool` checks its arguments and `target` is the
    compiled workflow; a script or executable tool is its `program` (and has no `tool`)."""

    tool: Tool | None
    definition: dict[str, Any]
    kind: str = "compute"
    target: WorkflowTarget | None = None
    examples: list[dict[str, Any]] | None = None  # also in `definition`; run before saving
    program: ProgramSpec | None = None

    @property
    def compute(self) -> Tool:
        """The compiled tool of a compute or workflow tool (a program tool has none)."""
        assert self.tool is not None, f"a {self.kind} tool has no compiled logic"
        return self.tool

    @property
    def name(self) -> str:
        if self.program is not None:
            return self.program.name
        assert self.compute.name is not None
        return self.compute.name

    @property
    def description(self) -> str:
        return self.program.description if self.program is not None else self.compute.description or ""

    @property
    def risk_level(self) -> str:
        return self.program.risk_level if self.program is not None else self.compute.risk_level or "low"

    @property
    def parameters(self) -> dict[str, Any]:
        return self.program.parameters if self.program is not None else self.compute.parameters

    @property
    def warnings(self) -> list[Diagnostic]:
        return [] if self.tool is None else self.tool.warnings


def _diagnostic(code: codes.Code, message: str, path: str | None = None, hint: str | None = None) -> Diagnostic:
    span = None if path is None else Span(line=0, column=0, end_line=0, end_column=0, path=path)
    return Diagnostic.of(code, message, span, hint)


def refuse(code: codes.Code, message: str, path: str | None = None, hint: str | None = None) -> CompileError:
    return CompileError([_diagnostic(code, message, path, hint)])


def definition_size(source: Any) -> int:
    """The size of a definition in bytes (UTF-8 text, or its JSON text for a dict)."""
    if isinstance(source, str):
        return len(source.encode("utf-8", errors="surrogatepass"))
    if isinstance(source, bytes):
        return len(source)
    if isinstance(source, os.PathLike):
        try:
            return os.stat(source).st_size
        except OSError:
            return 0  # the compiler reports the unreadable file
    try:
        return len(to_json(source).encode("utf-8", errors="surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        return 0  # the compiler reports what is not JSON data


def compile_definition(
    source: Any,
    tools: Mapping[str, Any] | None = None,
    *,
    pin: bool = False,
    allowed_folders: tuple[Path, ...] | None = None,
) -> Compiled:
    """Check a tool definition for the registry; CompileError with every diagnostic if it fails.
    `tools` are the tools its `call` steps may call (the registry's `Callees`); `pin`: an
    executable tool without `sha256` is pinned to its file as it is now (creating and
    updating pin; a stored definition is never re-pinned), read only inside `allowed_folders`
    (None: anywhere) so that nothing outside the granted folders is ever opened."""
    size = definition_size(source)
    if size > MAX_DEFINITION_BYTES:
        raise refuse(
            codes.SOURCE_TOO_LARGE,
            f"the definition is {size:,} bytes; a registered tool may have at most {MAX_DEFINITION_BYTES:,} (256 KB)",
            hint="split the logic into smaller tools, or move data into a lookup table",
        )
    if isinstance(source, Mapping) and not isinstance(source, dict):
        source = dict(source)
    source, found = _split_examples(source)
    kind, source = definition_kind(source)
    problems = [] if found is None else _examples_problems(kind, found)
    try:
        compiled = _compile_kind(kind, source, tools, pin, allowed_folders)
    except CompileError as error:
        raise CompileError(error.diagnostics + problems) from None
    if problems:
        raise CompileError(problems)
    if found is not None:
        compiled = replace(compiled, definition={**compiled.definition, examples.FIELD: found}, examples=found)
    if compiled.name in META_TOOL_NAMES:
        raise refuse(
            codes.INVALID_NAME,
            f"`{compiled.name}` is the name of a meta-tool",
            "name",
            hint=f"choose another name ({NAME_RULE}, not one of {', '.join(META_TOOL_NAMES)})",
        )
    return compiled


def _compile_kind(
    kind: str, source: Any, tools: Mapping[str, Any] | None, pin: bool, allowed_folders: tuple[Path, ...] | None
) -> Compiled:
    if kind == "workflow":
        return compile_workflow_tool(source)
    if kind in PROGRAM_KINDS:
        spec, problems = parse_program(source, pin=pin, allowed_folders=allowed_folders)
        if spec is None:
            raise CompileError(problems)
        return Compiled(None, spec.definition(), kind=kind, program=spec)
    tool = compile_source(source, tools=tools)
    if tool.name is None:
        raise refuse(
            codes.MISSING_FIELD,
            "a registered tool needs a name and a description; this is bare logic",
            hint='write a tool definition: {"name": "...", "description": "...", '
            '"parameters": {...}, "logic": {"steps": [...]}}',
        )
    return Compiled(tool, print_json(tool.program))


def _split_examples(source: Any) -> tuple[Any, Any]:
    """The definition without its `examples`, and the examples (None when it has none). The
    compiler knows nothing of examples: they are the registry's. A JSON text with examples is
    compiled as the data it holds (its diagnostics then locate by path, not line)."""
    obj = source
    if isinstance(source, str | os.PathLike):
        text = _json_text(source)
        if text is None or f'"{examples.FIELD}"' not in text:
            return source, None
        obj, diagnostics = load_json(text)
        if diagnostics:
            return source, None  # the compiler reports what is wrong with it
    if not isinstance(obj, dict) or examples.FIELD not in obj:
        return source, None
    return {key: value for key, value in obj.items() if key != examples.FIELD}, obj[examples.FIELD]


def _examples_problems(kind: str, found: Any) -> list[Diagnostic]:
    if kind != "compute":
        acts = "act in n8n" if kind == "workflow" else "are programs"
        return [
            _diagnostic(
                codes.INVALID_EXAMPLE,
                f"a {kind} tool has no examples: its runs {acts}, so none is run before approval",
                examples.FIELD,
                hint=f"leave `examples` out; test the {kind} tool after a person approves it",
            )
        ]
    return examples.examples_problems(found)


def definition_kind(source: Any) -> tuple[str, Any]:
    """The kind of a definition and what to compile: a JSON object (or its text, or a .json
    file) with `"kind": "workflow"` is a workflow tool; anything else is compute (an explicit
    `"kind": "compute"` is dropped, the compute format has no such field). A `.skill` file,
    or text that starts with its `---` line, is a script tool."""
    obj = source
    if isinstance(source, os.PathLike) and os.fspath(source).endswith(SKILL_SUFFIX):
        return "script", read_skill(Path(source))
    if isinstance(source, str) and source.startswith(SKILL_FENCE):
        return "script", parse_skill(source)
    if isinstance(source, str | os.PathLike):
        text = _json_text(source)
        if text is None or '"kind"' not in text:
            return "compute", source  # the cheap common case: no kind, nothing parsed twice
        obj, diagnostics = load_json(text)
        if diagnostics:
            return "compute", source  # the compiler reports what is wrong with it
    if not isinstance(obj, dict) or "kind" not in obj:
        return "compute", source
    kind = obj["kind"]
    if kind == "workflow" or kind in PROGRAM_KINDS:
        return kind, obj
    if kind == "compute":
        return kind, {key: value for key, value in obj.items() if key != "kind"}
    raise refuse(
        codes.INVALID_DECLARATION,
        f"unknown tool kind {str(kind)[:40]!r}",
        "kind",
        hint=f"kinds are: {', '.join(KINDS)} (compute when absent)",
    )


def _json_text(source: str | os.PathLike[str]) -> str | None:
    if isinstance(source, str):
        return source if source.lstrip().startswith("{") else None
    if not str(source).lower().endswith(".json"):
        return None
    text = read_source_file(Path(source))  # a regular file of bounded size only; never blocks
    return text if isinstance(text, str) else None  # the compiler reports the unreadable file


def apply_changes(current: dict[str, Any], changes: Any) -> Any:
    """The definition `update` should compile: `changes` merged into the current definition.

    `changes` is a mapping of definition fields (description, parameters, logic, riskLevel,
    tables; `None` removes an optional one), or `{"definition": ...}`, or a whole new
    definition (text DSL, JSON text, a path). The name cannot change."""
    name = current.get("name")
    kind = str(current.get("kind", "compute"))
    changeable = WORKFLOW_CHANGEABLE if kind == "workflow" else PROGRAM_CHANGEABLE.get(kind, CHANGEABLE)
    if not isinstance(changes, Mapping):
        new = changes
    elif "definition" in changes:
        extra = sorted(set(changes) - {"definition"})
        if extra:
            raise refuse(
                codes.UNKNOWN_FIELD, f"`definition` replaces the whole tool; drop {', '.join(extra)}", extra[0]
            )
        new = changes["definition"]
    else:
        new = dict(current)
        problems = []
        for key, value in changes.items():
            field = _ALIASES.get(key, key) if isinstance(key, str) else key
            if field == "name":
                if value != name:
                    problems.append(
                        _diagnostic(
                            codes.INVALID_NAME,
                            f"a tool cannot be renamed (from `{name}`)",
                            "name",
                            hint="create a tool under the new name and delete the old one",
                        )
                    )
                continue
            if field not in changeable:
                close = difflib.get_close_matches(str(key), list(changeable), n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"changeable fields: {', '.join(changeable)}"
                problems.append(
                    _diagnostic(
                        codes.UNKNOWN_FIELD, f"unknown field `{str(key)[:40]}` in the changes", str(key)[:64], hint
                    )
                )
                continue
            if value is None and field in _OPTIONAL + _PROGRAM_OPTIONAL:
                new.pop(field, None)
            else:
                new[field] = value
        if problems:
            raise CompileError(problems)
        return new
    if isinstance(new, Mapping) and "name" in new and new["name"] != name:
        raise refuse(
            codes.INVALID_NAME,
            f"a tool cannot be renamed (from `{name}` to `{str(new['name'])[:64]}`)",
            "name",
            hint="create a tool under the new name and delete the old one",
        )
    return new


def only_description_changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether two definitions differ in nothing but the tool's description (no new version then)."""
    strip = {"description"}
    return same_data({k: v for k, v in old.items() if k not in strip}, {k: v for k, v in new.items() if k not in strip})


def verify_stored(
    record_definition: dict[str, Any],
    *,
    name: str,
    description: str,
    parameters: dict[str, Any],
    risk_level: str,
    kind: str = "compute",
    tools: Mapping[str, Any] | None = None,
) -> tuple[Compiled | None, list[Diagnostic]]:
    """Recheck a stored definition, and that the record's copies of its name, description,
    parameters, risk level and kind agree with it. Diagnostics' paths are prefixed `definition.`."""
    try:
        compiled = compile_definition(record_definition, tools)
    except CompileError as error:
        return None, [_under_definition(d) for d in error.diagnostics if d.is_error]
    problems = []
    for field, stored, derived in (
        ("name", name, compiled.name),
        ("description", description, compiled.description),
        ("parameters", parameters, compiled.parameters),
        ("risk_level", risk_level, compiled.risk_level),
        ("kind", kind, compiled.kind),
    ):
        if not same_data(stored, derived):
            problems.append(
                _diagnostic(
                    codes.WRONG_JSON_TYPE,
                    f"the record's `{field}` does not match its definition",
                    field,
                    hint="edit the definition only and save the tool again with "
                    "`toolkiln tools update`, or restore the file",
                )
            )
    return (None if problems else compiled), problems


def _under_definition(d: Diagnostic) -> Diagnostic:
    span = d.span
    if span is None:
        return d.model_copy(update={"span": Span(line=0, column=0, end_line=0, end_column=0, path="definition")})
    path = "definition" if not span.path else f"definition.{span.path}"
    return d.model_copy(update={"span": span.model_copy(update={"path": path})})


# A workflow tool definition (see toolkiln.registry.workflows for deploying and running one).
WORKFLOW_REQUIRED = ("kind", "name", "description", "workflow")
WORKFLOW_OPTIONAL = ("parameters", "riskLevel", "n8n")


@dataclass(frozen=True)
class WorkflowTarget:
    """A workflow tool's compiled workflow: the n8n JSON, the webhook a run calls, the server
    named by the definition (None: the registry's)."""

    n8n: dict[str, Any]
    webhook: Webhook
    url: str | None


def _at(code: codes.Code, message: str, path: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic.of(code, message, Span(line=0, column=0, end_line=0, end_column=0, path=path), hint)


def compile_workflow_tool(obj: dict[str, Any]) -> Compiled:
    """Check a workflow tool definition; CompileError with every problem found."""
    problems = [
        _at(codes.MISSING_FIELD, f"a workflow tool needs `{key}`", key) for key in WORKFLOW_REQUIRED if key not in obj
    ]
    for key in obj:
        if key not in WORKFLOW_REQUIRED + WORKFLOW_OPTIONAL:
            close = difflib.get_close_matches(str(key), WORKFLOW_REQUIRED + WORKFLOW_OPTIONAL, n=1)
            problems.append(
                _at(
                    codes.UNKNOWN_FIELD,
                    f"unknown field `{str(key)[:40]}` in a workflow tool",
                    str(key)[:64],
                    f"did you mean `{close[0]}`?"
                    if close
                    else f"a workflow tool's fields: {', '.join(WORKFLOW_REQUIRED + WORKFLOW_OPTIONAL)}",
                )
            )
    url = _server(obj.get("n8n"), problems)
    arguments = _argument_tool(obj, problems)
    target = _workflow(obj.get("workflow"), url, problems) if "workflow" in obj else None
    if problems or arguments is None or target is None:
        raise CompileError(problems)
    definition = {"kind": "workflow", **{k: v for k, v in arguments.definition.items() if k != "logic"}}
    if "n8n" in obj:
        definition["n8n"] = {"url": url}
    definition["workflow"] = obj["workflow"]
    return Compiled(arguments.compute, definition, kind="workflow", target=target)


def _argument_tool(obj: dict[str, Any], problems: list[Diagnostic]) -> Compiled | None:
    """The compute tool that checks the arguments: the same name, description, parameters and
    risk level, with logic that returns the arguments in order."""
    names = list(obj["parameters"]) if isinstance(obj.get("parameters"), dict) else []
    logic = {"steps": [{"op": "return", "value": f"[{', '.join(map(str, names))}]"}]}
    fields = {key: obj[key] for key in ("name", "description", "parameters", "riskLevel") if key in obj}
    try:
        return compile_definition({**fields, "logic": logic})
    except CompileError as error:
        # Errors in the generated logic only repeat a bad parameter, reported at its own path.
        problems.extend(d for d in error.diagnostics if not (d.span and (d.span.path or "").startswith("logic")))
        return None


def _server(value: Any, problems: list[Diagnostic]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"url"} or not isinstance(value["url"], str):
        problems.append(
            _at(
                codes.WRONG_JSON_TYPE,
                '`n8n` must be {"url": "http://..."}',
                "n8n",
                "the API key is never part of a definition: it comes from the environment "
                "(TOOLKILN_N8N_API_KEY) or Registry(..., n8n=client)",
            )
        )
        return None
    from toolkiln.n8n.client import check_url
    from toolkiln.n8n.errors import N8nConfigError

    try:
        return check_url(value["url"])
    except N8nConfigError as error:
        problems.append(_at(codes.INVALID_DECLARATION, error.message, "n8n.url", error.hint))
        return None


def _workflow(text: Any, url: str | None, problems: list[Diagnostic]) -> WorkflowTarget | None:
    if not isinstance(text, str):
        problems.append(_at(codes.WRONG_JSON_TYPE, "`workflow` must be the workflow DSL text", "workflow"))
        return None
    from toolkiln.n8n.deploy import webhooks_of
    from toolkiln.workflow import compile_workflow

    try:
        n8n = compile_workflow(text).to_n8n()
    except CompileError as error:
        # Located inside the `workflow` string, as compute expressions are inside theirs.
        problems.extend(
            d.model_copy(
                update={"span": (d.span or Span(line=0, column=0, end_line=0, end_column=0)).shifted("workflow")}
            )
            for d in error.diagnostics
        )
        return None
    hooks = webhooks_of(n8n)
    if not hooks:
        problems.append(
            _at(
                codes.INVALID_TRIGGER,
                "a workflow tool's workflow needs a webhook trigger",
                "workflow",
                'start it with `on webhook POST "/path"`: a run posts the arguments there',
            )
        )
        return None
    return WorkflowTarget(n8n, hooks[0], url)
