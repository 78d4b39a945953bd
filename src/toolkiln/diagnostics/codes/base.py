"""A diagnostic code, the registry of all of them, and the lookup `toolkiln explain` uses."""

from __future__ import annotations

from typing import Literal

from toolkiln.ast.records import record, set_field

Severity = Literal["error", "warning"]


@record()
class Code:
    code: str
    name: str
    severity: Severity
    title: str
    explanation: str

    def __init__(self, code: str, name: str, severity: Severity, title: str, explanation: str) -> None:
        set_field(self, "code", code)
        set_field(self, "name", name)
        set_field(self, "severity", severity)
        set_field(self, "title", title)
        set_field(self, "explanation", explanation)


CODES: dict[str, Code] = {}
_NAMES: set[str] = set()  # of CODES (a scan of them for each code took 1-2 ms of every start-up)


def register(code: str, name: str, title: str, explanation: str) -> Code:
    severity: Severity = "warning" if code.startswith("W") else "error"
    entry = Code(code, name, severity, title, explanation.strip())
    # Codes and names are looked up both ways (`toolkiln explain`): each must be unique.
    assert code not in CODES and name not in _NAMES, (code, name)
    CODES[code] = entry
    _NAMES.add(name)
    return entry


def lookup_code(text: str) -> Code | None:
    """Find a code by number (`E0201`, `e201`, `201`, `R201`) or by name (`unknown-variable`)."""
    key = text.strip().upper()
    for entry in CODES.values():
        if key in (entry.code, entry.name.upper()):
            return entry
    letter, digits = (key[0], key[1:]) if key[:1].isalpha() else (None, key)
    if digits.isdigit():
        for entry in CODES.values():
            if entry.code[1:] == digits.zfill(4) and letter in (None, entry.code[0]):
                return entry
    return None
