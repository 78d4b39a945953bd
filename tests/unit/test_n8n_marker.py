"""Every integration test that uses the real n8n (the `n8n` fixture) is marked `n8n` by
tests/integration/conftest.py, and no other test is: `pytest -m "not n8n"` then never installs
or starts n8n. Checked against the test functions' own parameters, read from the source."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = ROOT / "tests" / "integration"


def fixtures_taking_n8n(tree: ast.Module) -> set[str]:
    """Module fixtures that take `n8n` (a test taking one of them needs n8n too)."""
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and not node.name.startswith("test_")
        and "n8n" in {a.arg for a in node.args.args}
    }


def n8n_users() -> set[str]:
    found = set()
    for path in sorted(INTEGRATION.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        needs = {"n8n"} | fixtures_taking_n8n(tree)
        for node in tree.body:
            is_test = isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
            if is_test and needs & {a.arg for a in node.args.args}:
                found.add(f"{path.relative_to(ROOT).as_posix()}::{node.name}")
    return found


def test_the_files_with_n8n_tests_are_collected_first_in_their_order():
    """So one xdist worker starts n8n and runs them all (tests/integration/conftest.py)."""
    files = ["test_sandbox.py", "test_n8n_real.py", "test_server_api.py", "test_workflow_deploy.py"]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + [str(INTEGRATION / name) for name in files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    order = [line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line]
    in_order = [name for i, name in enumerate(order) if i == 0 or order[i - 1] != name]
    assert in_order == [f"tests/integration/{name}" for name in (files[1], files[3], files[0], files[2])]


def collected_tests(*options: str) -> set[str]:
    """The integration tests pytest collects (with `options`), by file and function."""
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *options, str(INTEGRATION)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collected.returncode in (0, 5), collected.stdout + collected.stderr  # (5: none collected)
    return {line.split("[")[0] for line in collected.stdout.splitlines() if "::" in line}


def test_exactly_the_tests_that_use_n8n_are_marked_n8n():
    marked = collected_tests("-m", "n8n")
    # (a file that skips itself where ../shared/corpus is missing collects no test at all)
    expected = n8n_users() & collected_tests()
    assert (
        expected and "tests/integration/test_n8n_real.py::test_unreachable_server_is_a_connection_error" not in marked
    )
    assert marked == expected
