"""The checker cases of tests/unit/check/data/*.test (the format: check_cases.py and
CONTRIBUTING.md): each case gives exactly the codes its markers name, on their lines."""

import pytest
from check_cases import Case, CaseFileError, Expected, all_cases, annotated, mismatches, parse_cases

import toolkiln
from toolkiln.diagnostics import codes

CASES = all_cases()


def found_in(source: str) -> list[tuple[int | None, str, str | None]]:
    return [(d.span.line if d.span else None, d.code, d.hint) for d in toolkiln.check(source)]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: Case):
    found = found_in(case.source)
    problems = mismatches(case, found)
    assert not problems, (
        f"{case.id} (line {case.line}):\n"
        + "\n".join(problems)
        + "\nthe checker found:\n"
        + annotated(case.source, found)
    )


def test_every_marked_code_is_registered():
    assert [e.code for case in CASES for e in case.expected if e.code not in codes.CODES] == []


def test_markers_name_codes_on_their_lines_and_leave_the_source():
    [case] = parse_cases(
        "-- a comment\n\n[case c]\nx = 1  # W0209\n# a plain comment\nreturn 1 +  # E0101 hint: expected a value\n\n",
        "f.test",
    )
    assert case.source == "x = 1\n# a plain comment\nreturn 1 +\n"
    assert case.expected == (Expected(1, "W0209"), Expected(3, "E0101", "expected a value"))
    [two] = parse_cases("[case two]\nreturn 1\nx = 2  # W0208 W0209\n", "f.test")
    assert two.expected == (Expected(2, "W0208"), Expected(2, "W0209"))
    [hints] = parse_cases("[case h]\nreturn a + b  # E0301 hint: a # b  # E0203 hint: c\n", "f.test")
    assert hints.expected == (Expected(1, "E0301", "a # b"), Expected(1, "E0203", "c"))


def test_a_code_missing_or_not_expected_or_a_hint_that_differs_is_a_mismatch():
    [case] = parse_cases("[case c]\nreturn totl  # E0201 hint: did you mean `total`?\n", "f.test")
    assert mismatches(case, [(1, "E0201", "did you mean `total`?")]) == []
    assert mismatches(case, []) == ["line 1: expected E0201, not reported"]
    assert mismatches(case, [(1, "E0201", "did you mean `total`?"), (1, "W0209", None)]) == [
        "line 1: W0209 reported, not expected"
    ]
    assert mismatches(case, [(2, "E0201", "did you mean `total`?")]) == [
        "line 1: expected E0201, not reported",
        "line 2: E0201 reported, not expected",
    ]
    assert mismatches(case, [(1, "E0201", "declare it")]) == [
        "line 1: E0201 hint ['declare it'], expected 'did you mean `total`?'"
    ]


def test_the_failure_shows_the_source_as_the_case_would_be_written():
    assert annotated("x = 1\nreturn 2\n", [(1, "W0209", None), (None, "E0100", None)]) == (
        "x = 1  # W0209\nreturn 2\n-- without a line: E0100"
    )


@pytest.mark.parametrize(
    "text",
    [
        "x = 1\n[case c]\nreturn 1\n",  # source before the first case
        "[case Has Spaces]\nreturn 1\n",
        "[case c]\n\n",  # no source
        "[case c]\nreturn 1  # E0301,\n",  # a marker that is not codes
        "[case c]\nreturn 1  # see E0301\n",  # a code in a comment that is not a marker
        "[case c]\nreturn 1\n[case c]\nreturn 2\n",
    ],
)
def test_a_file_that_does_not_read_as_cases_is_refused(text):
    with pytest.raises(CaseFileError):
        parse_cases(text, "f.test")
