"""Shared by every test: the `--update-golden` switch and the `golden` fixture that compares an
output with its expected file (tests/golden/...). A missing expected file is a failure, never a
silent pass: run the command in the failure message to create it, then review the new file."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import hypothesis_profiles
import pytest
from integration.postgres_support import postgres_cluster

pytest_plugins = ["pytester"]  # tests/unit/test_golden_harness.py runs pytest on this file


def pytest_configure(config):
    keep_bytecode_out_of_the_tree()
    try:  # (before any test module is imported: `examples(n)` reads the profile at import)
        hypothesis_profiles.load_profile()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    # The registry's index key (toolkiln/registry/index.py) is kept per user, outside every
    # registry folder: the tests (and the processes they start) keep theirs in a folder of
    # their own, never in the real home.
    os.environ["TOOLKILN_STATE_DIR"] = tempfile.mkdtemp(prefix="toolkiln-test-state-")


def keep_bytecode_out_of_the_tree() -> None:
    """Under PYTHONDONTWRITEBYTECODE (set to keep __pycache__ folders out of a checkout) every
    Python process compiles each module it imports from source: each test process its test
    modules (pytest's assertion rewriting too), each `python -m toolkiln` the package, each
    server, sandbox and worker again. The suite keeps its bytecode in ~/.cache/toolkiln/pycache
    instead (PYTHONPYCACHEPREFIX, here and in every process it starts: xdist's workers are
    started after this): nothing is written into the checkout, and a module is compiled once."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or os.path.join(
        os.path.expanduser("~"), ".cache", "toolkiln", "pycache"
    )
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix


# Tests over ~10 s (measured with --durations) in files that are not the test suite's to edit
# (test_optimizer_equivalence.py is owned by the optimizer work, test_workflow_comments.py and
# test_import.py by the workflow work); every other slow test has @pytest.mark.slow in its file.
SLOW_ELSEWHERE = frozenset(
    {
        "tests/property/test_optimizer_equivalence.py::test_optimized_programs_behave_as_written",
        "tests/property/test_optimizer_equivalence.py::test_optimizing_twice_changes_nothing",
        "tests/property/test_workflow_comments.py::test_formatting_keeps_every_comment_in_order_with_its_step",
        "tests/unit/workflow/test_import.py::test_a_ten_thousand_node_export_imports_and_lints_clean",
        "tests/unit/workflow/test_import.py::test_a_five_thousand_node_export_recompiles_from_its_text_when_the_limit_allows",
    }
)


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("[")[0] in SLOW_ELSEWHERE:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="write the expected outputs of golden tests (missing or different) from the current behaviour",
    )


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")


@pytest.fixture
def golden(request, update_golden):
    """`golden(expected_path, actual_text)`: assert that the file holds exactly `actual_text`.
    With --update-golden the file is (re)written instead. A missing file fails with the command
    that creates it."""
    command = f"python -m pytest '{request.node.nodeid}' --update-golden"

    def compare(expected: Path, actual: str) -> None:
        if update_golden:
            expected.parent.mkdir(parents=True, exist_ok=True)
            expected.write_text(actual, encoding="utf-8")
            return
        if not expected.exists():
            pytest.fail(
                f"golden file {expected} does not exist.\n"
                f"Create it from the current output with\n    {command}\n"
                "then review the new file (git diff / git status) before committing it.",
                pytrace=False,
            )
        assert actual == expected.read_text(encoding="utf-8"), (
            f"output differs from {expected}; if the change is intended, run `{command}` and review the diff"
        )

    return compare


@pytest.fixture(scope="session")
def postgres_cluster_url() -> Iterator[str]:
    """A running PostgreSQL for the `postgres` tests, unit and integration alike (one per test
    process: tests/integration/postgres_support.py)."""
    with postgres_cluster() as url:
        yield url
