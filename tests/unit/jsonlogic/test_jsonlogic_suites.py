"""Every case of the JsonLogic community suites (engine-suites/ and the reference engine's
tests.json), imported and run in both number modes. The suites are read from
../shared/corpus/jsonlogic beside the repository, never copied into it.

A case passes when the imported tool answers what the suite expects, or fails with the code
of the suite's error (jsonlogic_suites.ERROR_CODES). The cases that do not pass are listed below,
each with its reason (docs/jsonlogic.md lists them too); any other failing case fails the test,
and so does a listed case that starts to pass (the list must shrink with it)."""

from __future__ import annotations

import pytest
from jsonlogic_suites import SUITES, all_cases, outcome, same

import toolkiln

pytestmark = pytest.mark.skipif(
    not SUITES.is_dir(), reason=f"the JsonLogic suites are not at {SUITES} (a checkout without ../shared)"
)

DEPTH = (
    "reduce whose body is a constant and whose initial value is a nested list: the tool answers the "
    "body's value at the last item, where the engine stops with 'Exceeded Allowed Depth' (a limit of "
    "its own on accumulators, not a meaning of the rule)"
)
EXPECTED_FAILURES = {
    "engine-suites/additional.json#5": DEPTH,
    "engine-suites/additional.json#6": DEPTH,
    "engine-suites/additional.json#7": DEPTH,
    "engine-suites/additional.json#8": DEPTH,
}
CASES = all_cases() if SUITES.is_dir() else []


@pytest.mark.parametrize("numbers", ["exact", "float"])
def test_every_suite_case_answers_as_the_suite_expects(numbers):
    unexpected = []
    for case in CASES:
        passed, answer = outcome(case, numbers)
        if passed == (case.id in EXPECTED_FAILURES):
            verdict = "now passes: remove it from EXPECTED_FAILURES" if passed else answer
            unexpected.append(f"{case.id} ({case.description}): {verdict}")
    assert not unexpected, "\n".join(unexpected)


def test_the_targets_hold():
    """Every case of compatible.json passes, and at least 1,100 cases in all."""
    assert len(CASES) > 1_400
    compatible = [case for case in CASES if case.file == "engine-suites/compatible.json"]
    assert len(compatible) == 278 and not any(case.id in EXPECTED_FAILURES for case in compatible)
    assert len(CASES) - len(EXPECTED_FAILURES) >= 1_100


# What the tool answers for each case the engine stops with "Exceeded Allowed Depth": the
# body's value at the last item, which is what the rule means (reduce as "let").
DEPTH_ANSWERS = {
    "engine-suites/additional.json#5": 0,
    "engine-suites/additional.json#6": [[]],
    "engine-suites/additional.json#7": [{}],
    "engine-suites/additional.json#8": {"a": []},
}


@pytest.mark.parametrize("case_id", sorted(DEPTH_ANSWERS))
def test_the_depth_limit_cases_answer_what_the_rule_means(case_id):
    (case,) = [case for case in CASES if case.id == case_id]
    assert case.error == {"type": "Exceeded Allowed Depth"}
    for numbers in ("exact", "float"):
        answer = toolkiln.import_jsonlogic(case.rule, numbers=numbers).run({"data": case.data})
        assert same(answer, DEPTH_ANSWERS[case_id], numbers), (numbers, answer)
