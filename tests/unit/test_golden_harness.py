"""The golden-file harness of tests/conftest.py, run for real through pytester: a missing expected
file fails with the command that creates it, --update-golden creates and rewrites it, a
difference fails."""

from pathlib import Path

CONFTEST = Path(__file__).parents[1] / "conftest.py"
# The inner runs need none of the installed plugins (hypothesis alone costs seconds per run).
QUIET = ("-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:cacheprovider")

TEST = """
from pathlib import Path

OUTPUT = Path(__file__).with_name("output.txt")


def test_output(golden):
    golden(Path(__file__).parent / "golden" / "case.out", OUTPUT.read_text())
"""


def test_missing_expected_file_fails_until_update_golden_creates_it(pytester):
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_case=TEST)
    (pytester.path / "output.txt").write_text("rendered 1\n")
    expected = pytester.path / "golden" / "case.out"

    missing = pytester.runpytest(*QUIET)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*golden file*case.out does not exist*", "*--update-golden*"])
    assert not expected.exists()

    pytester.runpytest(*QUIET, "--update-golden").assert_outcomes(passed=1)
    assert expected.read_text() == "rendered 1\n"
    pytester.runpytest(*QUIET).assert_outcomes(passed=1)


def test_a_difference_fails_and_update_golden_rewrites(pytester):
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_case=TEST)
    (pytester.path / "output.txt").write_text("rendered 2\n")
    expected = pytester.path / "golden" / "case.out"
    expected.parent.mkdir()
    expected.write_text("rendered 1\n")

    different = pytester.runpytest(*QUIET)
    different.assert_outcomes(failed=1)
    different.stdout.fnmatch_lines(["*output differs from*case.out*--update-golden*"])
    assert expected.read_text() == "rendered 1\n"

    pytester.runpytest(*QUIET, "--update-golden").assert_outcomes(passed=1)
    assert expected.read_text() == "rendered 2\n"
