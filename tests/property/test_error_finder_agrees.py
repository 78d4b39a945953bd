"""The error finder that runs without Lark (syntax/lr_driver.py) gives every broken source the
diagnostics Lark's path gives (code, message, span, hint, fix: the whole diagnostic), checked
both ways (issue 34): the golden error fixtures, the examples, the broken model outputs of
tests/corpus and generated valid programs with characters and tokens deleted, inserted or cut
off; the fuzz strategies' token soup and deep nesting, in a tool's block and alone; and every
attack expression of ../shared/corpus/attacks (simpleeval, asteval, evalidate), as a step and
alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

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


def _diagnostics(text: str, *, finder: bool) -> list[str]:
    real = lr_driver.compute_tables
    lr_driver.compute_tables = real if finder else (lambda: None)  # type: ignore[assignment]
    try:
        _, diagnostics = text_front.parse_text(text)
    finally:
        lr_driver.compute_tables = real  # type: ignore[assignment]
    return [repr(diagnostic) for diagnostic in diagnostics]


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


def _agree(text: str) -> None:
    assert _diagnostics(text, finder=True) == _diagnostics(text, finder=False), text


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


@pytest.mark.skipif(
    not ATTACKS.is_dir(), reason=f"the attack suites are not at {ATTACKS} (a checkout without ../shared)"
)
def test_every_attack_expression_gets_the_same_diagnostics_either_way():
    attacks = _attack_expressions()
    assert len(attacks) > 100
    for expression in attacks:
        for text in (HEADER + "  return " + expression + "\n}\n", HEADER + "  " + expression + "\n}\n", expression):
            _agree(text)
