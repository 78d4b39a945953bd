"""A skill file's front matter read without PyYAML when it is plainly written (issue 34): PyYAML
costs about 106 M instructions to import and 16 M to read ten lines, more than the rest of a
`toolkiln check` of the file.

`plain_front_matter` reads only a plain subset: `key: value` lines at two-space steps of
indentation, a `key:` line opening a nested mapping, values that are words (text starting with a
letter), whole numbers written `0` or `12`, and one-line flow collections of those (`[text]`,
`{type: string, description: The text}`). Anything else (a quote, a comment, a block sequence,
an anchor, a tab, a float, `yes`/`no`/`null` and the other words YAML 1.1 reads as something
else, a key given twice, ...) answers None, which means "ask PyYAML", not "invalid": PyYAML then
reads it and words any error. A property test holds it to that: whatever it reads, PyYAML's
safe loader reads to the same values and types.
"""

from __future__ import annotations

import re
from typing import Any

# What YAML 1.1 (PyYAML's resolver) reads as a bool or as null, however it is spelt here.
_NOT_TEXT = frozenset(
    ("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE")
    + ("on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL")
)
# Characters that may change how YAML reads a line (quotes, comments, anchors, aliases, tags,
# block scalars, directives, complex keys, tabs): a text holding one is PyYAML's to read.
_SPECIAL = re.compile(r"[\"'#&*!|>%@`?\t\\]")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+\-./() ]*")
_WHOLE = re.compile(r"0|[1-9][0-9]{0,17}")
_STEP = 2  # spaces of indentation per level
MAX_DEPTH = 32  # a deeper nesting is PyYAML's to read (and this reader's recursion stays shallow)


def plain_front_matter(text: str) -> dict[str, Any] | None:
    """The mapping the front matter `text` holds, when it is plainly written; else None."""
    if _SPECIAL.search(text):
        return None
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines or any(line != line.rstrip() for line in lines):
        return None
    found, after = _mapping(lines, 0, 0)
    return found if after == len(lines) else None


def _mapping(lines: list[str], start: int, depth: int) -> tuple[dict[str, Any] | None, int]:
    """The mapping at indentation `depth` that starts at `lines[start]`, and the index of the
    line after it (one pass: a 256 KiB front matter of short lines is read in linear time)."""
    mapping: dict[str, Any] = {}
    indent = " " * (depth * _STEP)
    at = start
    while at < len(lines) and lines[at].startswith(indent) and lines[at][len(indent)] != " ":
        key, separator, value = lines[at][len(indent) :].partition(":")
        if not separator or not _plain_key(key) or key in mapping:
            return None, at
        if value == "":
            if depth == MAX_DEPTH:
                return None, at
            nested, at = _mapping(lines, at + 1, depth + 1)
            if not nested:
                return None, at
            mapping[key] = nested
            continue
        read = _value(value[1:]) if value.startswith(" ") else None
        if read is None:
            return None, at
        mapping[key] = read[0]
        at += 1
    return mapping, at


def _value(text: str) -> tuple[Any] | None:
    """(the value) of a plain value's text, or None when it is not plainly one."""
    if text.startswith("[") and text.endswith("]"):
        items = [_scalar(item.strip()) for item in _flow_items(text[1:-1])]
        return None if any(item is None for item in items) else ([item[0] for item in items if item],)
    if text.startswith("{") and text.endswith("}"):
        mapping: dict[str, Any] = {}
        for entry in _flow_items(text[1:-1]):
            key, separator, value = entry.strip().partition(": ")
            read = _scalar(value.strip()) if separator and _plain_key(key) and key not in mapping else None
            if read is None:
                return None
            mapping[key] = read[0]
        return (mapping,)
    return _scalar(text)


def _plain_key(key: str) -> bool:
    """A name YAML reads as that text (`on`, `yes` or `null` as a key is a bool or None to it)."""
    return _KEY.fullmatch(key) is not None and key not in _NOT_TEXT


def _flow_items(text: str) -> list[str]:
    """The comma-separated items of a flow collection's inside (none when it is blank)."""
    return [] if not text.strip() else text.split(",")


def _scalar(text: str) -> tuple[Any] | None:
    """(a word or a whole number) for the plain scalar `text`; None for anything else."""
    if _WHOLE.fullmatch(text):
        return (int(text),)
    if not _WORD.fullmatch(text) or text.endswith(" ") or "  " in text or text in _NOT_TEXT:
        return None  # (a word holds no `:`, `,`, bracket or brace: nothing a flow or a key would take)
    return (text,)
