"""From what a person or a model wrote to a checked definition the registry may store.

Nothing reaches the disk without going through `compile_definition`: the size limit, the
compiler of the definition's kind (kinds/), the name rules. Every problem is a `CompileError`
whose diagnostics say where and how to fix it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.registry import examples
from toolkiln.registry.equality import same_data
from toolkiln.registry.kinds import DEFAULT, KINDS, Compiled, ToolKind, kind_of
from toolkiln.registry.kinds.base import CompileOptions, at_path, refuse
from toolkiln.registry.names import META_TOOL_NAMES, NAME_RULE
from toolkiln.semantics.values import to_json
from toolkiln.syntax.json_document import load_json
from toolkiln.syntax.loader import read_source_file

__all__ = ["Compiled", "apply_changes", "compile_definition", "definition_kind", "refuse", "verify_stored"]

MAX_DEFINITION_BYTES = 256 * 1024
_ALIASES = {"risk_level": "riskLevel", "risk": "riskLevel"}
# Fields whose presence in a JSON text means it is read as data before it is compiled.
_READ_AS_DATA = ("kind", examples.FIELD)


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
    source, found = _split_examples(read_as_data(source))
    kind, source = definition_kind(source)
    problems = [] if found is None else kind.examples_problems(found)
    try:
        compiled = kind.compile(source, tools, CompileOptions(pin, allowed_folders))
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


def read_as_data(source: Any) -> Any:
    """A JSON text (or .json file) with a top-level `kind` or `examples` as the data it holds,
    parsed once: its kind is read from it, and the compiler knows nothing of examples (its
    diagnostics then locate by path, not line). Anything else as it is."""
    if not isinstance(source, str | os.PathLike):
        return source
    text = _json_text(source)
    if text is None or not any(f'"{field}"' in text for field in _READ_AS_DATA):
        return source  # the cheap common case: nothing parsed before the compiler parses it
    obj, diagnostics = load_json(text)
    if diagnostics or not isinstance(obj, dict) or not any(field in obj for field in _READ_AS_DATA):
        return source  # the compiler reports what is wrong with it
    return obj


def _split_examples(source: Any) -> tuple[Any, Any]:
    """The definition without its `examples`, and the examples (None when it has none): they
    are the registry's, run before saving."""
    if not isinstance(source, dict) or examples.FIELD not in source:
        return source, None
    return {key: value for key, value in source.items() if key != examples.FIELD}, source[examples.FIELD]


def definition_kind(source: Any) -> tuple[ToolKind, Any]:
    """The kind of a definition and what it compiles: a form only one kind has (a `.skill`
    file, ...), else a JSON object's `kind` (compute when absent). A JSON object is no kind's
    own form: its `kind` alone says (so a stored record imports only its own kind)."""
    if not isinstance(source, dict):
        for kind in KINDS.values():
            recognized = kind.recognize(source)
            if recognized is not None:
                return kind, recognized
    if not isinstance(source, dict) or "kind" not in source:
        return DEFAULT, source
    name = source["kind"]
    if isinstance(name, str) and name in KINDS:
        kind = KINDS[name]
        return kind, kind.from_json(source)
    raise refuse(
        codes.INVALID_DECLARATION,
        f"unknown tool kind {str(name)[:40]!r}",
        "kind",
        hint=f"kinds are: {', '.join(KINDS)} ({DEFAULT.name} when absent)",
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
    kind = kind_of(str(current.get("kind", DEFAULT.name)))
    changeable = kind.changeable
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
                        at_path(
                            codes.INVALID_NAME,
                            f"a tool cannot be renamed (from `{name}`)",
                            "name",
                            hint="create a tool under the new name and delete the old one",
                        )
                    )
                continue
            if field not in changeable:
                from difflib import get_close_matches  # (12 M instructions to import: on this error only)

                close = get_close_matches(str(key), list(changeable), n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"changeable fields: {', '.join(changeable)}"
                problems.append(
                    at_path(codes.UNKNOWN_FIELD, f"unknown field `{str(key)[:40]}` in the changes", str(key)[:64], hint)
                )
                continue
            if value is None and field in kind.optional:
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
        ("kind", kind, compiled.kind.name),
    ):
        if not same_data(stored, derived):
            problems.append(
                at_path(
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
        return replace(d, span=Span(line=0, column=0, end_line=0, end_column=0, path="definition"))
    path = "definition" if not span.path else f"definition.{span.path}"
    return replace(d, span=span.shifted(path))
