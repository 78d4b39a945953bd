"""A skill file's front matter is read without PyYAML when it is plainly written
(executables/plain_yaml.py, issue 34). That may only skip PyYAML where PyYAML's safe loader
(toolkiln's, which refuses aliases) reads the same values of the same types: whatever
`plain_front_matter` reads, PyYAML reads alike; everything else is PyYAML's to read or refuse."""

from __future__ import annotations

from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.executables.plain_yaml import plain_front_matter
from toolkiln.executables.skill_files import _loader_without_aliases, parse_skill

# Keys and scalars as a front matter spells them: mostly plain, now and then nearly plain (words
# YAML 1.1 reads as bools or null, numbers it reads as octal, floats or sexagesimal, quoted and
# commented text, anchors, tags, a space too many).
PLAIN_KEYS = ["name", "type", "text", "_x", "description", "required"]
TRICKY_KEYS = ["on", "yes", "Off", "null", "y", "n", "a b", "1", "k:", "name"]
PLAIN_SCALARS = [
    "word_stats",
    "The text to count",
    "Counts the words.",
    "e.g. a/b (c) d-e+f",
    "a - b",
    "x.",
    "0",
    "5",
    "12",
]
TRICKY_SCALARS = [
    "a  b",
    "on",
    "Yes",
    "NO",
    "true",
    "False",
    "null",
    "Null",
    "~",
    "y",
    "N",
    "012",
    "0o7",
    "-3",
    "+4",
    "1_000",
    "0x1F",
    "1.5",
    ".inf",
    "1e3",
    "1:20",
    "2026-01-31",
    "'quoted'",
    '"q"',
    "a # comment",
    "a: b",
    "a,b",
    "[a",
    "a]",
    "{a}",
    "*alias",
    "&anchor x",
    "!!str 5",
    "|",
    ">",
    "- item",
    "@x",
    "%x",
    "`x`",
    "a\tb",
    "",
    " ",
    "a:",
]


def mostly(plain: list[str], tricky: list[str]) -> st.SearchStrategy[str]:
    """One of `plain`, or one time in eight one of `tricky`."""
    return st.integers(0, 7).flatmap(lambda pick: st.sampled_from(plain if pick else tricky))


scalars = mostly(PLAIN_SCALARS, TRICKY_SCALARS)
keys = mostly(PLAIN_KEYS, TRICKY_KEYS)


def flow_sequence() -> st.SearchStrategy[str]:
    separators = mostly([", "], [",", " , ", ", ,"])
    return st.tuples(st.lists(scalars, max_size=3), separators).map(lambda p: "[" + p[1].join(p[0]) + "]")


def flow_mapping() -> st.SearchStrategy[str]:
    entries = st.lists(st.tuples(keys, mostly([": "], [":", " : "]), scalars), max_size=3)
    return entries.map(lambda found: "{" + ", ".join(k + colon + v for k, colon, v in found) + "}")


values = st.one_of(scalars, scalars, flow_sequence(), flow_mapping())


@st.composite
def front_matters(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """Lines of a mapping at `depth` (two spaces a level, now and then one or four)."""
    lines = []
    for _ in range(draw(st.integers(1 if depth else 0, 4))):
        indent = " " * draw(st.sampled_from([depth * 2] * 12 + [depth * 2 + 1, depth * 4]))
        key = draw(keys)
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            lines.append(f"{indent}{key}:")
            lines += draw(front_matters(depth + 1))
        else:
            lines.append(f"{indent}{key}:{draw(mostly([' '], ['', '  ']))}{draw(values)}")
        if draw(st.integers(0, 15)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "# note", "- item", "...", "name: again", "  more"])))
    return lines


def typed(value: Any) -> Any:
    """`value` with the type of every part spelt out (True == 1 in Python, not here)."""
    if isinstance(value, dict):
        return ("dict", sorted((typed(k), typed(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    return (type(value).__name__, value)


def pyyaml(text: str) -> Any:
    return yaml.load(text, Loader=_loader_without_aliases())


@settings(max_examples=examples(3000), deadline=None)
@given(front_matters())
def test_whatever_it_reads_pyyaml_reads_alike(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    found = plain_front_matter(text)
    if found is not None:
        assert typed(found) == typed(pyyaml(text)), text


SKILL = """---
name: word_stats
description: Counts the words and the distinct words of a text.
runtime: python
parameters:
  type: object
  properties:
    text: {type: string, description: The text to count}
  required: [text]
timeout_secs: 5
---
print(1)
"""


def test_the_shipped_skill_files_front_matter_is_plain() -> None:
    front = SKILL.split("---\n")[1]
    assert plain_front_matter(front) is not None and typed(plain_front_matter(front)) == typed(pyyaml(front))


@pytest.mark.parametrize(
    "front",
    ["name: on\n", "on: x\n", "timeout_secs: 012\n", "name: 'x'\n", "a: b # c\n", "a:\n    b: c\n", "a: [b, ]\n"],
)
def test_what_yaml_reads_otherwise_is_left_to_pyyaml(front: str) -> None:
    assert plain_front_matter(front) is None
    text = SKILL.replace("timeout_secs: 5\n", front)
    assert parse_skill(text) == {"kind": "script", **pyyaml(text.split("---\n")[1]), "body": "print(1)\n"}
