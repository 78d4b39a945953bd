"""The error finder that runs without Lark (syntax/lr_driver.py) gives every broken source the
diagnostics Lark's path gives (code, message, span, hint, fix: the whole diagnostic), checked
both ways (issue 34): the golden error fixtures, the examples, the broken model outputs of
tests/corpus and generated valid programs with characters and tokens deleted, inserted or cut
off; the fuzz strategies' token soup and deep nesting, in a tool's block and alone; and every
attack expression of ../shared/corpus/attacks (simpleeval, asteval, evalidate), as a step and
alone; and the same expressions (and the examples' own, edited) in a JSON-DSL tool, whose
expressions the finder explains too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.syntax import error_tables, lr_driver
from toolkiln.syntax import text as text_front
from toolkiln.syntax.grammar import compute_parser

ROOT = Path(__file__).resolve().parents[2]
FILES = ["tests/golden/diagnostics/*.tk", "examples/*.tk", "tests/corpus/broken_model_output/*.tk"]
SOURCES = [path.read_text() for pattern in FILES for path in sorted(ROOT.glob(pattern))]
ATTACKS = ROOT.parent / "shared" / "corpus" / "attacks"
HEADER = 'tool t(a: number, s: string, xs: list) description "d"\n{\n'
FUZZ = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = [
    *"(){}[]+-*/%<>=!&|^,.:;\"'#\n \t",
    "if ",
    "else",
    "return ",
    " and ",
    " or ",
    "not ",
    "==",
    "**",
    "tool ",
    "x",
    "1",
    "1.5",
    '"s"',
    "\u00a0",
    "@",
    "$",
    "\u2014",
    "elif",
    "&&",
    "===",
    "null",
    "true",
    "=>",
    "let ",
]


@pytest.fixture(scope="module", autouse=True)
def kept_tables() -> None:
    """Lark's parser keeps its tables in the session's state home when it loads (again, if
    this process's was loaded under another test's state home)."""
    if error_tables.compute_tables() is None:
        compute_parser.cache_clear()
        compute_parser()
    assert error_tables.compute_tables() is not None


def _diagnostics(text: str, *, finder: bool, json_tool: bool = False) -> list[str]:
    """The diagnostics of a text-DSL source, or of a JSON-DSL tool (as JSON text: its spans
    point into the file) computing `text`, with the finder on or off (Lark's path alone)."""
    real = lr_driver.compute_tables
    lr_driver.compute_tables = real if finder else (lambda: None)  # type: ignore[assignment]
    try:
        diagnostics = toolkiln.check(_json_tool(text)) if json_tool else text_front.parse_text(text)[1]
    finally:
        lr_driver.compute_tables = real  # type: ignore[assignment]
    return [repr(diagnostic) for diagnostic in diagnostics]


def _json_tool(expression: str) -> str:
    steps = [{"op": "math", "expression": expression, "output": "x"}, {"op": "return", "value": "x"}]
    parameters = {"a": {"type": "number"}, "s": {"type": "string"}, "xs": {"type": "array"}}
    tool = {"name": "t", "description": "d", "parameters": parameters, "logic": {"steps": steps}}
    return json.dumps(tool, indent=2)


def _json_expressions() -> list[str]:
    """The expressions of the JSON examples' math, condition and return steps."""
    found: list[str] = []
    for path in sorted(ROOT.glob("examples/*.json")):
        stack: list[object] = [json.loads(path.read_text())]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                found += [value[key] for key in ("expression", "if", "value") if isinstance(value.get(key), str)]
                stack += value.values()
            elif isinstance(value, list):
                stack += value
    return found


_EDIT = st.tuples(
    st.floats(0, 1), st.sampled_from(["delete", "insert", "cut"]), st.sampled_from(PIECES), st.integers(1, 4)
)


def _edited(text: str, edits: list[tuple[float, str, str, int]]) -> str:
    for where, how, piece, width in edits:
        at = int(where * len(text))
        if how == "delete":
            text = text[:at] + text[at + width :]
        elif how == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at]
    return text


def _agree(text: str, *, json_tool: bool = False) -> None:
    with_finder = _diagnostics(text, finder=True, json_tool=json_tool)
    assert with_finder == _diagnostics(text, finder=False, json_tool=json_tool), text


@FUZZ
@given(source=st.sampled_from(SOURCES), edits=st.lists(_EDIT, min_size=1, max_size=3))
def test_a_broken_source_gets_the_same_diagnostics_with_and_without_lark(source, edits):
    _agree(_edited(source, edits))


@FUZZ
@given(program=S.programs(comments=True), edits=st.lists(_EDIT, min_size=0, max_size=3))
def test_an_edited_generated_program_gets_the_same_diagnostics_either_way(program, edits):
    _agree(_edited(S.to_text_dsl(program), edits))


@FUZZ
@given(body=S.token_soup() | S.deep_nesting(), in_a_tool=st.booleans())
def test_fuzz_text_gets_the_same_diagnostics_either_way(body, in_a_tool):
    _agree(HEADER + body + "\n}\n" if in_a_tool else body)


def _attack_expressions() -> list[str]:
    found = []
    for path in sorted(ATTACKS.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            expression = case if isinstance(case, str) else case.get("expr")
            if isinstance(expression, str):
                found.append(expression)
    return found


@FUZZ
@given(expression=st.sampled_from(_json_expressions()), edits=st.lists(_EDIT, min_size=1, max_size=3))
def test_an_edited_json_expression_gets_the_same_diagnostics_either_way(expression, edits):
    _agree(_edited(expression, edits), json_tool=True)


@FUZZ
@given(expression=S.token_soup() | S.deep_nesting() | S.expression_texts)
def test_a_fuzz_json_expression_gets_the_same_diagnostics_either_way(expression):
    _agree(expression, json_tool=True)


@pytest.mark.skipif(
    not ATTACKS.is_dir(), reason=f"the attack suites are not at {ATTACKS} (a checkout without ../shared)"
)
def test_every_attack_expression_gets_the_same_diagnostics_either_way():
    attacks = _attack_expressions()
    assert len(attacks) > 100
    for expression in attacks:
        for text in (HEADER + "  return " + expression + "\n}\n", HEADER + "  " + expression + "\n}\n", expression):
            _agree(text)
        _agree(expression, json_tool=True)
