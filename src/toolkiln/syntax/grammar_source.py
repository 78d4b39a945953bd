"""The grammars' text and the compute parser's options, without Lark (the error finder that
runs without it keys its tables on them, as the parser's cache does)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

COMPUTE_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "start": ["start", "expr_start"],
    "propagate_positions": True,
    "maybe_placeholders": True,
}
WORKFLOW_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}


def grammar_text(name: str) -> str:
    """The text of `grammar/<name>`, from the installed package (wheel or editable)."""
    packaged = resources.files("toolkiln") / "grammar" / name
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    # An editable install runs from the source tree, where the grammar is at the top level.
    return (Path(__file__).resolve().parents[3] / "grammar" / name).read_text(encoding="utf-8")
