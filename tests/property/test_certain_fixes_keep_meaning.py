"""A certain fix never changes what a correct program computes: applied to a program that
already checks (generated valid programs, both syntaxes, and the shipped examples), the
repair applies nothing and gives back the same text, so the same printed program and the
same results. This is what lets the factory apply fixes on a model's behalf."""

from __future__ import annotations

from pathlib import Path

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples

import toolkiln
from toolkiln.diagnostics.fixes import repair

CLEAN = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def assert_unchanged(text: str) -> None:
    assert not any(d.is_error for d in toolkiln.check(text))
    repaired = repair(text, toolkiln.check)
    assert repaired.applied == () and repaired.text == text
    assert toolkiln.apply_fixes(text) == text


@CLEAN
@given(S.programs(comments=True))
def test_no_fix_applies_to_a_generated_text_program(model):
    assert_unchanged(S.to_text_dsl(model))


@CLEAN
@given(S.programs())
def test_no_fix_applies_to_a_generated_json_program(model):
    assert_unchanged(S.json_text(S.to_json_dsl(model), indent="  "))


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".tk", ".json")), ids=str)
def test_no_fix_applies_to_a_shipped_example(path):
    assert_unchanged(path.read_text(encoding="utf-8"))
