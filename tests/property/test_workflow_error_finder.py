"""The error finder gives a `.wf` text with a syntax error the diagnostic Lark's path gives
(issue 34): over the repository's workflows (golden files, rendered starters, the docs' blocks,
every step kind) cut off or edited at random, the mutations of test_workflow_parser.py (tokens
dropped, doubled, swapped, joined, grammar words where names go, comments and newlines), and
the public n8n exports of ../shared/corpus imported to DSL text and edited: `parse_workflow`
answers the same (workflow and every diagnostic) with and without the finder."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_workflow_parser import CORPUS, REPOSITORY, mutated

from toolkiln.ast.spans import LineIndex
from toolkiln.syntax import error_tables, workflow_errors
from toolkiln.syntax.workflow_lark import workflow_parser
from toolkiln.syntax.workflow_text import parse_workflow

FUZZ = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = [*"{}()[],:.\"'#\n -<>=*", "->", "set ", "if ", "else", "after ", "respond ", "returns ", "on ", "nothing"]


@pytest.fixture(scope="module", autouse=True)
def kept_tables() -> None:
    """Lark's workflow parser keeps its tables in the session's state home when it loads."""
    if error_tables.workflow_tables() is None:
        workflow_parser.cache_clear()
        workflow_parser()
    assert error_tables.workflow_tables() is not None


def _parsed(text: str, *, finder: bool) -> tuple[str, list[str]]:
    real = workflow_errors.workflow_tables
    workflow_errors.workflow_tables = real if finder else (lambda: None)  # type: ignore[assignment]
    try:
        workflow, diagnostics = parse_workflow(text)
    finally:
        workflow_errors.workflow_tables = real  # type: ignore[assignment]
    return repr(workflow), [repr(diagnostic) for diagnostic in diagnostics]


def _agree(text: str) -> None:
    assert _parsed(text, finder=True) == _parsed(text, finder=False), text


def test_a_broken_workflow_is_answered_by_the_finder():
    """(Else the comparisons below would only compare Lark with itself.)"""
    text = dict(REPOSITORY)["tests/golden/workflows/order_total.wf"].replace("set priced {", "set priced {{")
    found = workflow_errors.explain_workflow_error(text, LineIndex(text))
    assert found is not None and found.code == "E0101"
    _agree(text)


@pytest.mark.parametrize(("where", "text"), REPOSITORY, ids=[where for where, _ in REPOSITORY])
def test_every_prefix_of_a_repository_workflow_gets_the_same_answer(where, text):
    for end in range(0, len(text), max(1, len(text) // 30)):
        _agree(text[:end])


_EDIT = st.tuples(st.floats(0, 1), st.sampled_from(["delete", "insert"]), st.sampled_from(PIECES), st.integers(1, 3))


@FUZZ
@given(source=st.sampled_from([text for _, text in REPOSITORY]), edits=st.lists(_EDIT, min_size=1, max_size=3))
def test_an_edited_repository_workflow_gets_the_same_answer(source, edits):
    text = source
    for where, how, piece, width in edits:
        at = int(where * len(text))
        text = text[:at] + text[at + width :] if how == "delete" else text[:at] + piece + text[at:]
    _agree(text)


@FUZZ
@given(mutated())
def test_a_mutated_workflow_gets_the_same_answer(text):
    _agree(text)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the public n8n corpus is not at {CORPUS}")
def test_the_public_n8n_exports_edited_get_the_same_answer():
    from toolkiln.workflow import import_n8n

    files = sorted(CORPUS.glob("*.json"))
    assert files
    for path in files:
        text = import_n8n(json.loads(path.read_text()), path.stem).to_text()
        third = len(text) // 3
        _agree(text[:third] + "{" + text[third:])  # a brace too many
        _agree(text[: 2 * third])  # cut off
