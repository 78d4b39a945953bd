"""The certain fixes of a compute definition, applied where a model's definition arrives
(the meta-tools, so MCP and the agent loops; REST create): check, apply the fixes that have
one meaning, check again (`diagnostics.fixes.repair`). The caller saves what comes back and
says which fixes were applied. Other kinds, paths and definitions that do not serialize are
left as they are: the registry's own check reports their problems."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from toolkiln.api import check
from toolkiln.diagnostics.fixes import repair
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import Error
from toolkiln.registry.definitions import MAX_DEFINITION_BYTES, definition_kind, definition_size, read_as_data
from toolkiln.registry.examples import FIELD as EXAMPLES
from toolkiln.registry.kinds import DEFAULT
from toolkiln.semantics.values import to_json
from toolkiln.syntax.json_document import load_json
from toolkiln.syntax.json_positions import KEY_SUFFIX, value_offsets


@dataclass(frozen=True)
class Fixed:
    """A definition with its certain fixes applied, what was applied (each described as
    "`&&` -> `and` at logic.steps[0].if") and the one line naming them ("" for none)."""

    definition: Any
    applied: tuple[str, ...] = ()
    summary: str = ""


def with_certain_fixes(definition: Any) -> Fixed:
    """`definition` (a dict, JSON text or text DSL) with its certain fixes applied; as it is
    when none applies or it is not a compute definition."""
    text = _compute_text(definition)
    if text is None:
        return Fixed(definition)
    repaired = repair(text, checked_as_a_definition)
    if not repaired.applied:
        return Fixed(definition)
    if isinstance(definition, dict):
        data, problems = load_json(repaired.text)
        if problems or not isinstance(data, dict):  # a fix keeps a definition whole; never lose it
            return Fixed(definition)
        return Fixed(data, tuple(f.describe() for f in repaired.applied), repaired.summary())
    return Fixed(repaired.text, tuple(f.describe() for f in repaired.applied), repaired.summary())


def checked_as_a_definition(text: str) -> list[Diagnostic]:
    """`check` of a definition's text as the registry compiles it: without its `examples`
    (the registry takes them off first), blanked out with spaces so every offset, and every
    fix, stays the text's. Without this, `examples` is E0109 and hides the type check's fixes."""
    return check(_without_examples(text))


def _without_examples(text: str) -> str:
    offsets = value_offsets(text) if f'"{EXAMPLES}"' in text else {}
    key, value = offsets.get(EXAMPLES + KEY_SUFFIX), offsets.get(EXAMPLES)
    if key is None or value is None:
        return text
    try:
        _, end = json.JSONDecoder().raw_decode(text, value[0])
    except ValueError:
        return text
    start = key[0]
    before = text[:start].rstrip()
    if before.endswith(","):  # the comma before it goes, or else the one after it
        start = len(before) - 1
    else:
        after = len(text) - len(text[end:].lstrip())
        end = after + 1 if text.startswith(",", after) else end
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _compute_text(definition: Any) -> str | None:
    """The text the fixes are applied to: a dict as JSON (its diagnostics then have offsets),
    a string as it is; None for another kind, a path, or one too large to save anyway."""
    if not isinstance(definition, dict | str):
        return None
    try:
        if definition_size(definition) > MAX_DEFINITION_BYTES:
            return None
        kind, _ = definition_kind(read_as_data(definition))
        if kind is not DEFAULT:
            return None
        return definition if isinstance(definition, str) else to_json(definition, indent=1, exact=True)
    except (Error, TypeError, ValueError, RecursionError):  # the registry's check says what is wrong
        return None
