"""A tool or workflow file by its name and text: the diagnostics `toolkiln check` reports for it
and the canonical text `toolkiln fmt` writes. The command line reads files and calls these; the
language server (toolkiln.lsp) calls them on the text an editor holds, so both report the same
codes, messages and spans (one function each, not copies).

What a file is follows its name and content: `.wf` is the workflow DSL; a `.json` file holding an
n8n workflow (nodes and connections) is linted as one; anything else is a tool (text DSL or
JSON). Imports are made where used: checking a tool file loads nothing of workflows or n8n.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from toolkiln.syntax.limits import MAX_SOURCE_CHARS

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic


def is_n8n_export_text(name: str, text: str) -> bool:
    """A .json file holding an n8n workflow (nodes and connections) rather than a tool."""
    if not name.endswith(".json"):
        return False
    from toolkiln.backends.n8n.document import looks_like_n8n

    try:
        return looks_like_n8n(json.loads(text))
    except (ValueError, RecursionError):
        return False


def is_workflow_text(name: str, text: str) -> bool:
    """Checked as a workflow: a .wf file, or an n8n export."""
    return name.endswith(".wf") or is_n8n_export_text(name, text)


def check_text(text: str, name: str, *, strict: bool = False, n8n_version: str | None = None) -> list[Diagnostic]:
    """Every diagnostic of the file `name` holding `text`, located in it and sorted: what
    `toolkiln check` reports (`strict` and `n8n_version` as its options, for workflows)."""
    if is_workflow_text(name, text):
        from toolkiln.workflow import check_workflow

        return check_workflow(text, name, strict=strict, n8n_version=n8n_version)
    from toolkiln import api

    return api.check(text, name=name)


def canonical_text(
    text: str, name: str, max_source_chars: int = MAX_SOURCE_CHARS
) -> tuple[str | None, list[Diagnostic]]:
    """What `toolkiln fmt` writes for the file `name` holding `text`, or None and the
    diagnostics of why it has none. An n8n export is n8n's to write: None and no diagnostic."""
    if name.endswith(".wf"):
        return canonical_workflow_text(text, name, max_source_chars)
    if is_n8n_export_text(name, text):
        return None, []
    return _canonical_tool(text, name)


def _canonical_tool(text: str, name: str) -> tuple[str | None, list[Diagnostic]]:
    from toolkiln.syntax.loader import parse_string

    parsed = parse_string(text, name)
    if parsed.program is None:
        return None, [d.located(parsed.source) for d in parsed.diagnostics]
    if parsed.format == "json":
        from toolkiln.backends.json_printer import print_json
        from toolkiln.semantics.values import to_json

        return to_json(print_json(parsed.program), indent=2) + "\n", []
    from toolkiln.backends.text_printer import print_text  # (and the checker's advice it uses)

    return print_text(parsed.program, parsed.comments), []


def canonical_workflow_text(
    text: str, name: str, max_source_chars: int = MAX_SOURCE_CHARS
) -> tuple[str | None, list[Diagnostic]]:
    """The canonical text of workflow DSL `text` whatever the file's name (`toolkiln workflow fmt`)."""
    from toolkiln.backends.workflow_printer import print_workflow
    from toolkiln.errors import CompileError
    from toolkiln.syntax.comments import comments
    from toolkiln.workflow import compile_workflow

    try:
        compiled = compile_workflow(text, name, max_source_chars=max_source_chars)
        return print_workflow(compiled.ast, comments(text)), []  # the file's comments kept
    except CompileError as error:
        return None, error.diagnostics
