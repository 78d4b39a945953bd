"""The repository's pre-commit hooks (.pre-commit-hooks.yaml, issue 30 item 1), run by
pre-commit itself on a fixture git repository that uses this clone as its hook repository.

Offline: pre-commit fetches the hooks from the local clone at its HEAD, and the test's config
runs them with `language: system` (the `toolkiln` on PATH, this tree's) instead of building a
virtualenv of the package, which would install its dependencies from an index."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GOOD = 'tool shipping(\n  weight_kg: number,\n)\ndescription "Shipping cost"\n{\n  return weight_kg * 2.5 + 5\n}\n'
UNKNOWN_NAME = GOOD.replace("weight_kg * 2.5", "weight * 2.5")
NOT_CANONICAL = GOOD.replace("weight_kg * 2.5 + 5", "weight_kg*2.5+5")
JSON_TOOL = (
    '{"name": "t", "description": "d", "parameters": {"a": {"type": "number"}},'
    ' "logic": {"steps": [{"op": "return", "value": "a +"}]}}'
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository whose .pre-commit-config.yaml takes every hook of this clone."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: pre-commit fetches the hooks from one")
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    committed = yaml.safe_load(git(ROOT, "show", "HEAD:.pre-commit-hooks.yaml"))
    assert committed == manifest, "commit .pre-commit-hooks.yaml: pre-commit reads the hooks at HEAD"
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    hooks = [{"id": hook["id"], "language": "system"} for hook in manifest]
    hooks[1]["files"] = r"^tools/"  # the JSON hook, scoped to the tool folder as docs/ci.md says
    config = {"repos": [{"repo": str(ROOT), "rev": git(ROOT, "rev-parse", "HEAD").strip(), "hooks": hooks}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (repo / "package.json").write_text('{"name": "not a tool"}')
    return repo


def pre_commit(repo: Path, tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_hooks_pass_a_repository_of_good_tools(project, tmp_path):
    run = pre_commit(project, tmp_path, {"shipping.tk": GOOD})
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("Passed") == 2, run.stdout  # the JSON hook has no file in tools/: skipped


def test_the_check_hook_fails_on_an_error_and_names_its_code(project, tmp_path):
    run = pre_commit(project, tmp_path, {"shipping.tk": UNKNOWN_NAME, "tools/t.json": JSON_TOOL})
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert any(line.startswith("toolkiln check.") and line.endswith("Failed") for line in lines), run.stdout
    assert any(line.startswith("toolkiln check (JSON tools)") and line.endswith("Failed") for line in lines)
    assert "E0201" in run.stdout and "E0101" in run.stdout and "package.json" not in run.stdout


def test_the_fmt_hook_fails_on_a_file_not_in_canonical_form(project, tmp_path):
    run = pre_commit(project, tmp_path, {"shipping.tk": NOT_CANONICAL})
    assert run.returncode == 1
    assert "would reformat shipping.tk" in run.stdout, run.stdout
    assert any(line.startswith("toolkiln fmt --check") and line.endswith("Failed") for line in run.stdout.splitlines())
