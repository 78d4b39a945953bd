"""Go to definition of a called tool (`x = call NAME(...)`, `{"op": "call", "tool": "NAME"}`):
its file beside the document (NAME.tk, then NAME.json), else its record in the registry when
the registry is a folder (tools/NAME.json). A registry in a database has no file to open: no
answer. Nothing is run or loaded: only whether a regular file of that name exists."""

from __future__ import annotations

from pathlib import Path

from toolkiln.registry.layout import TOOLS
from toolkiln.registry.names import name_problem

SIBLING_SUFFIXES = (".tk", ".json")


def tool_file(tool: str, document: Path | None, registry: Path | None) -> Path | None:
    """The file that defines `tool`, or None. `tool` must be a valid tool name (no path)."""
    if name_problem(tool) is not None:
        return None
    candidates = [document.parent / f"{tool}{suffix}" for suffix in SIBLING_SUFFIXES] if document else []
    if registry is not None:
        candidates.append(registry / TOOLS / f"{tool}.json")
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate.resolve()
        except OSError:  # a name too long, a loop of links: not a definition
            continue
    return None
