"""Each optimizer pass on its golden cases (tests/golden/optimize/<pass>.txt: input `=>`
expected, cases separated by `---`), and the passes together on the shipped examples."""

from pathlib import Path

import pytest

import toolkiln
from toolkiln.backends.text_printer import print_text
from toolkiln.optimize import PASSES, optimize
from toolkiln.optimize.propagate_copies import propagate_copies
from toolkiln.syntax.loader import parse_source

GOLDEN = Path(__file__).parent.parent / "golden" / "optimize"


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
    assert print_text(rule(program)) == expected


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
    assert (rule(program) is program) == (print_text(program) == expected)


def test_copies_into_a_comprehension_rebuild_it_only_when_they_reach_it():
    program = parse_source("rate = 2\nys = [x * 3 for x in xs]\nreturn sum(ys) * rate").program
    comprehension = program.steps[1].value
    assert propagate_copies(program).steps[1].value is comprehension
    once = optimize(program)            # before, each round rebuilt the comprehension: four rounds
    assert once.steps[0].value.element is comprehension.element and optimize(once) is once


def test_a_variable_read_only_after_the_last_return_does_not_break_compilation():
    """Found by the equivalence property: liveness removed `v1 = 0` (only unreachable code
    reads it) while the unreachable `return v1` stayed, and the closure compiler had no slot."""
    source = "v1 = 0\nif 0 < a {\n  return 0\n} else {\n  v1 = 0\n  return 0\n}\nreturn v1\n"
    for optimized in (True, False):
        assert toolkiln.compile(source, optimize=optimized).run({"a": 1}) == 0
