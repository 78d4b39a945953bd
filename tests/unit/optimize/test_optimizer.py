"""Each optimizer pass on its golden cases (tests/golden/optimize/<pass>.txt: input `=>`
expected, cases separated by `---`), and the passes together on the shipped examples."""

from dataclasses import replace
from pathlib import Path

import pytest

import toolkiln
from toolkiln.backends.text_printer import print_text
from toolkiln.optimize import PASSES, optimize
from toolkiln.optimize.propagate_copies import propagate_copies
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits
from toolkiln.syntax.loader import parse_source

GOLDEN = Path(__file__).parents[2] / "golden" / "optimize"


def cases():
    for rule in PASSES:
        text = (GOLDEN / f"{rule.__name__}.txt").read_text(encoding="utf-8")
        for number, case in enumerate(text.split("\n---\n")):
            source, expected = case.split("\n=>\n")
            yield pytest.param(rule, source + "\n", expected.strip("\n") + "\n", id=f"{rule.__name__}-{number}")


@pytest.mark.parametrize("rule, source, expected", list(cases()))
def test_pass_golden(rule, source, expected):
    assert not [d for d in toolkiln.check(source) if d.is_error]
    program = parse_source(source).program
    assert print_text(rule(program, limits=DEFAULT_LIMITS)) == expected


def test_every_pass_has_golden_cases():
    assert {p.stem for p in GOLDEN.glob("*.txt")} == {rule.__name__ for rule in PASSES}


def test_rewritten_nodes_keep_the_span_of_what_they_replace():
    program = parse_source("rate = 2\nreturn 1 / (rate - 2)").program
    optimized = optimize(program)
    division = optimized.steps[-1].value
    assert division.right.span.line == 2 and division.right.span.column == 13
    with pytest.raises(toolkiln.RunError) as info:
        toolkiln.compile("rate = 2\nreturn 1 / (rate - 2)").run()
    assert info.value.code == "E0501" and info.value.span.column == 8


def test_optimize_is_a_fixed_point_and_idempotent():
    source = "a = 1\nb = a + 1\nif b > 1 { c = b * x } else { c = 0 }\nreturn c"
    once = optimize(parse_source(source).program)
    assert optimize(once) is once
    assert print_text(once) == "c = 2 * x\nreturn c\n"


@pytest.mark.parametrize("rule, source, expected", list(cases()))
def test_a_pass_returns_the_program_itself_exactly_when_it_changes_nothing(rule, source, expected):
    """Each pass scans first and returns the program untouched when it finds nothing to do:
    the scan must never miss a rewrite, and no pass may rebuild what it does not change."""
    program = parse_source(source).program
    assert (rule(program, limits=DEFAULT_LIMITS) is program) == (print_text(program) == expected)


def test_copies_into_a_comprehension_rebuild_it_only_when_they_reach_it():
    program = parse_source("rate = 2\nys = [x * 3 for x in xs]\nreturn sum(ys) * rate").program
    comprehension = program.steps[1].value
    assert propagate_copies(program, limits=DEFAULT_LIMITS).steps[1].value is comprehension
    once = optimize(program)  # before, each round rebuilt the comprehension: four rounds
    assert once.steps[0].value.element is comprehension.element and optimize(once) is once


def test_a_variable_read_only_after_the_last_return_does_not_break_compilation():
    """Found by the equivalence property: liveness removed `v1 = 0` (only unreachable code
    reads it) while the unreachable `return v1` stayed, and the closure compiler had no slot."""
    source = "v1 = 0\nif 0 < a {\n  return 0\n} else {\n  v1 = 0\n  return 0\n}\nreturn v1\n"
    for optimized in (True, False):
        assert toolkiln.compile(source, optimize=optimized).run({"a": 1}) == 0


@pytest.mark.parametrize(
    "source, limits, code",
    [
        ("return 123456 * 1000", Limits(max_number_digits=5), "E0506"),
        ('return upper("abcdefghij")', Limits(max_string_length=5), "E0504"),
        ("return abs(-(2 ** 40))", Limits(max_number_digits=5), "E0506"),
    ],
)
def test_a_fold_fails_where_the_run_would_under_smaller_limits(source, limits, code):
    """Folding computes under the limits the program runs with, so a constant too large for
    them is not folded away: the optimized tool fails as the tool as written does, whether
    the limits are given at compile time or per call."""
    for optimized in (True, False):
        with pytest.raises(toolkiln.RunError) as per_call:
            toolkiln.compile(source, optimize=optimized).run({}, limits=limits)
        with pytest.raises(toolkiln.RunError) as at_compile:
            toolkiln.compile(source, optimize=optimized, limits=limits).run({})
        assert per_call.value.code == at_compile.value.code == code
    assert toolkiln.compile(source).run({}) is not None  # within the defaults it folds and runs


def test_the_operation_budget_counts_the_program_as_written():
    """Folding `2 * 3` leaves one node of five; the budget still charges the five written."""
    with pytest.raises(toolkiln.RunError) as info:
        toolkiln.compile("return 2 * 3").run({}, limits=Limits(max_operations=2))
    assert info.value.code == "E0503"
    costly = "xs = [1, 2, 3]\nreturn [x * (2 * 3 + 1) for x in xs]"
    budget = Limits(max_operations=20)
    outcomes = []
    for optimized in (True, False):
        try:
            outcomes.append(toolkiln.compile(costly, optimize=optimized).run({}, limits=budget))
        except toolkiln.RunError as error:
            outcomes.append(error.code)
    assert outcomes[0] == outcomes[1] == "E0503"


def test_only_pure_builtins_fold(monkeypatch):
    program = parse_source("return abs(-2)").program
    assert print_text(optimize(program)) == "return 2\n"
    monkeypatch.setitem(BUILTINS, "abs", replace(BUILTINS["abs"], pure=False))
    assert print_text(optimize(program)) == "return abs(-2)\n"
