"""The repair corpus (issue 33): mistakes models make, in both syntaxes and whole definitions,
each with the program the certain fixes alone must give, or null where only a model can
repair it. A fix that stops applying, or one that starts applying where the corpus says a
model is needed (a guess), fails here; so does the share of the issue's target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkiln
from toolkiln.diagnostics.fixes import repair

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
CASES = json.loads((CORPUS / "repairs" / "cases.json").read_text(encoding="utf-8"))["cases"]
EARLIER = sorted((CORPUS / "broken_model_output").iterdir())


def problems(diagnostics: list[toolkiln.Diagnostic]) -> list[toolkiln.Diagnostic]:
    """Errors and the hint warnings (W0120-W0139): what a clean program has none of."""
    return [d for d in diagnostics if d.is_error or "W0120" <= d.code <= "W0139"]


def same_program(text: str, other: str, syntax: str) -> bool:
    if syntax == "json":
        return json.loads(text) == json.loads(other)
    return toolkiln.to_text(text) == toolkiln.to_text(other)


def test_the_corpus_holds_over_a_hundred_cases_in_both_syntaxes():
    assert len(CASES) >= 100
    assert {case["syntax"] for case in CASES} == {"text", "json"}
    assert len({case["name"] for case in CASES}) == len(CASES)
    assert any(case["fixed"] is None for case in CASES)  # the corpus is not only what the fixes do


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_case_is_flagged_with_a_hint_and_repaired_as_the_corpus_says(case):
    first = problems(toolkiln.check(case["broken"]))
    assert first and any(d.hint for d in first)
    repaired = repair(case["broken"], toolkiln.check)
    if case["fixed"] is None:
        assert problems(repaired.diagnostics), "a fix applied where the corpus says only a model can repair"
    else:
        assert problems(repaired.diagnostics) == [], repaired.diagnostics
        assert same_program(repaired.text, case["fixed"], case["syntax"])
        assert repaired.summary().startswith("applied ")


def test_at_least_80_percent_are_clean_after_the_certain_fixes_alone():
    texts = [case["broken"] for case in CASES] + [path.read_text(encoding="utf-8") for path in EARLIER]
    clean = sum(not problems(repair(text, toolkiln.check).diagnostics) for text in texts)
    assert clean / len(texts) >= 0.80, f"{clean} of {len(texts)}"
