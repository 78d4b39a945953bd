"""The error finder that runs without Lark (syntax/lr_driver.py) gives every broken source the
diagnostics Lark's path gives: sources of the repository (golden diagnostics, examples) with
characters and tokens deleted, inserted or cut off, checked both ways (issue 34)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.syntax import error_tables, lr_driver
from toolkiln.syntax import text as text_front
from toolkiln.syntax.grammar import compute_parser

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    path.read_text() for path in sorted([*ROOT.glob("tests/golden/diagnostics/*.tk"), *ROOT.glob("examples/*.tk")])
]
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


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.sampled_from(SOURCES), edits=st.lists(_EDIT, min_size=1, max_size=3))
def test_a_broken_source_gets_the_same_diagnostics_with_and_without_lark(source, edits):
    text = source
    for where, how, piece, width in edits:
        at = int(where * len(text))
        if how == "delete":
            text = text[:at] + text[at + width :]
        elif how == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at]
    assert _diagnostics(text, finder=True) == _diagnostics(text, finder=False)
