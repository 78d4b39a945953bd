"""Definition files only the registry compiles: a script's `.skill`, RustyClaw's `.yaml`, and a
JSON definition with a top-level `kind` or `examples` (a script, executable or workflow tool,
or a compute tool with its examples). `toolkiln check` checks them as `toolkiln tools create`
would, without a registry; `run`, `fmt` and `optimize`, which take a compute tool's file, refuse
them with E0116 instead of reading them as the text DSL.

Everything here is imported only when such a file is met: checking a `.tk` or a plain `.json`
tool loads nothing of the registry or of the executables.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.errors import CompileError

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic

SKILL_SUFFIXES = (".skill", ".yaml")  # the suffixes toolkiln.executables.skill_files reads
# A JSON text with one of these top-level fields is read as data by the registry (definitions.py).
_DEFINITION_FIELDS = ("kind", "examples")


def is_definition_file(path: Path, text: str) -> bool:
    """Whether only the registry compiles the file `path` holding `text`."""
    return path.suffix in SKILL_SUFFIXES or _json_definition(text) is not None


def _json_definition(text: str) -> dict[str, Any] | None:
    """The JSON object `text` holds when it has a top-level `kind` or `examples` (the cheap
    test first: a plain tool file is not parsed twice)."""
    if not any(f'"{field}"' in text for field in _DEFINITION_FIELDS):
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None  # the compiler reports what is wrong with it
    return obj if isinstance(obj, dict) and any(field in obj for field in _DEFINITION_FIELDS) else None


def check_definition(path: Path, text: str) -> list[Diagnostic]:
    """What `toolkiln tools create` finds wrong with the file, without a registry: the
    registry's compiler of its kind, then its examples (run with no registry tables); the
    warnings of a compute tool that checks. Nothing is saved, and nothing run but a compute
    tool's examples."""
    from toolkiln.registry.definitions import compile_definition
    from toolkiln.registry.examples import run_examples  # (what admission.passing runs: not
    # imported from there, which loads the registry's pydantic models)

    try:
        # Pinned as `tools create` pins with the local user's capabilities: an executable's
        # file is hashed wherever it is (read only, never run).
        compiled = compile_definition(path, pin=True)
    except CompileError as error:
        found = error.diagnostics
    else:
        tool = compiled.tool
        ran = run_examples(tool, compiled.examples, tables={}, limits=None) if tool and compiled.examples else []
        found = ran or (tool.warnings if tool is not None else [])
    return located_in_file(found, path, text)


def located_in_file(diagnostics: list[Diagnostic], path: Path, text: str | None = None) -> list[Diagnostic]:
    """The registry's diagnostics of the definition file `path` (holding `text`, read when not
    given) at its name and their line where one is known, in reading order: what `check` and
    `tools create` show."""
    from toolkiln.cli.common import read_source
    from toolkiln.diagnostics.model import sort_key

    if text is None:
        text = read_source(path)[0] or ""
    return sorted((_located(diagnostic, path, text) for diagnostic in diagnostics), key=sort_key)


def _located(diagnostic: Diagnostic, path: Path, text: str) -> Diagnostic:
    """The diagnostic in the file: a JSON definition's by its value's offset, a skill file's at
    the front matter's line of its top-level field (YAML keeps no offsets; the path says the rest)."""
    from toolkiln.diagnostics.source import Source

    if diagnostic.file is not None:  # located already (a skill file's YAML error, at its line)
        return diagnostic
    if path.suffix not in SKILL_SUFFIXES:
        if not text.lstrip().startswith("{"):  # (the text DSL's own diagnostics name their file)
            return replace(diagnostic, file=str(path))
        from toolkiln.syntax.json_positions import value_offsets

        return diagnostic.located(Source(name=str(path), text=text, json_offsets=value_offsets))
    span = diagnostic.span
    key = span.path.split(".")[0].split("[")[0] if span is not None and span.path else None
    line = _front_matter_line(text, key) if key else None
    if span is None or key is None or line is None:
        return replace(diagnostic, file=str(path))
    number, line_text = line
    placed = replace(span, line=number, column=1, end_line=number, end_column=len(key) + 1, in_file=True)
    return replace(diagnostic, file=str(path), span=placed, snippet=line_text, snippet_start=0)


def _front_matter_line(text: str, key: str) -> tuple[int, str] | None:
    """The number and text of the front matter's line that starts the top-level field `key`
    (`parameters` for a diagnostic at `parameters.properties.x`), if written as `key:` there."""
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.rstrip() == "---":
            return None
        if line.startswith((f"{key}:", f"{key} :")):
            return number, line
    return None


def other_kind(path: Path, text: str | None) -> str | None:
    """The kind of tool a definition file is when it is not a compute tool's (None: it is one,
    or says nothing else): what `run`, `fmt` and `optimize` refuse with E0116."""
    if path.suffix in SKILL_SUFFIXES:
        return "script"
    obj = _json_definition(text) if text is not None else None
    kind = obj.get("kind") if obj is not None else None
    if not isinstance(kind, str):
        return None
    from toolkiln.registry.kinds import DEFAULT  # (on the error path only)

    return kind if kind != DEFAULT.name else None


def refuse_skill_file(path: Path, command: str) -> None:
    """CompileError (E0116) for a skill file given to `command`, before the text DSL reads it."""
    if path.suffix in SKILL_SUFFIXES:
        raise CompileError([not_a_compute_file(path, "script", command)])


def compute_file_problems(path: Path, command: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """What to report of a file `command` could not compile: E0116 alone when it is another
    kind's definition (the compute front end's errors about its fields would mislead), else
    `diagnostics` (the file is read again only here, on the error path)."""
    from toolkiln.cli.common import read_source

    kind = other_kind(path, read_source(path)[0])
    return diagnostics if kind is None else [not_a_compute_file(path, kind, command)]


def not_a_compute_file(path: Path, kind: str, command: str) -> Diagnostic:
    """E0116: `command` takes a compute tool's file, and `path` holds a `kind` tool's definition."""
    from toolkiln.ast.spans import Span
    from toolkiln.diagnostics import codes
    from toolkiln.diagnostics.model import Diagnostic

    what = "a script tool's skill file" if path.suffix in SKILL_SUFFIXES else f"a `{kind[:40]}` tool's definition"
    return replace(
        Diagnostic.of(
            codes.NOT_A_COMPUTE_FILE,
            f"`toolkiln {command}` takes a compute tool's file; this is {what}",
            Span(line=1, column=1, end_line=1, end_column=1),
            hint="check it with `toolkiln check`, register it with `toolkiln tools create`, "
            "then run it with `toolkiln tools run`",
        ),
        file=str(path),
    )
