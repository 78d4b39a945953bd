"""`toolkiln tools create / discover / repin / run` for script and executable tools, with the
real bubblewrap, in-process (`main`): what a user types, what they see, what ran."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkiln.cli import main

pytestmark = pytest.mark.usefixtures("bwrap_installed")
Tools = Callable[..., tuple[int, str, str]]

SKILL = """---
name: word_count
description: Counts the words of a text.
runtime: python
parameters:
  type: object
  properties: {text: {type: string}}
  required: [text]
timeout_secs: 5
---
import json, sys
print(len(json.load(sys.stdin)["text"].split()))
"""
DESCRIBED = """#!/bin/sh
touch {marker}
if [ "$1" = description ]; then
  echo '{{"name": "{name}", "description": "Greets.", "input_schema": {{"type": "object"}}}}'
else
  echo '{{"greeting": "hello"}}'
fi
"""


@pytest.fixture
def tools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Tools:
    """tools(*args) -> (exit code, stdout, stderr) on the registry tmp_path/reg."""

    def run(*args: object) -> tuple[int, str, str]:
        code = main(["tools", *map(str, args), "--registry", str(tmp_path / "reg")])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err

    return run


def test_a_skill_file_is_created_shown_listed_and_run(tools: Tools, tmp_path: Path):
    skill = tmp_path / "word_count.skill"
    skill.write_text(SKILL, encoding="utf-8")
    assert tools("create", skill) == (0, "created word_count (version 1, active)\n", "")
    code, out, _ = tools("run", "word_count", "--args", '{"text": "a b  c"}')
    assert code == 0
    result = json.loads(out)
    assert (result["output"], result["sandbox"], result["exit_code"]) == (3, "bubblewrap", 0)
    _, shown, _ = tools("show", "word_count")
    assert "python script" in shown and 'sandbox "bubblewrap"' in shown and shown.rstrip().endswith(".split()))")
    _, listed, _ = tools("list")
    assert listed.splitlines()[1].split()[:3] == ["word_count", "script", "active"]
    code, _, err = tools("run", "word_count", "--args", '{"text": 7}')
    assert code == 1 and "error[R0603]" in err
    skill.write_text(SKILL.replace(".split()", ".split(' ')"), encoding="utf-8")
    assert tools("update", "word_count", skill) == (0, "updated word_count (version 2, active)\n", "")
    assert json.loads(tools("run", "word_count", "--args", '{"text": "a b  c"}')[1])["output"] == 4


def test_a_bad_skill_file_is_an_error_with_its_line(tools: Tools, tmp_path: Path):
    skill = tmp_path / "broken.skill"
    skill.write_text("---\nname: [unclosed\n---\necho hi\n", encoding="utf-8")
    code, out, err = tools("create", skill)
    assert (code, out) == (1, "")
    assert "error[R0608]" in err and f"{skill}:" in err


def test_a_models_json_script_waits_until_a_person_approves_it(tools: Tools, tmp_path: Path):
    definition = tmp_path / "echo.json"
    definition.write_text(
        json.dumps({"kind": "script", "name": "echo", "description": "Echoes.", "runtime": "bash", "body": "cat\n"}),
        encoding="utf-8",
    )
    assert tools("create", definition, "--created-by", "llm")[1] == "created echo (version 1, pending_approval)\n"
    code, _, err = tools("run", "echo")
    assert code == 1 and "pending approval" in err
    assert tools("approve", "echo")[0] == 0
    assert json.loads(tools("run", "echo")[1])["output"] == {}


def test_discover_lists_without_running_and_registers_only_trusted_files(
    tools: Tools,
    tmp_path: Path,
    writable_folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    home, project = tmp_path / "home", writable_folder / "project"
    (project / "toolkiln-tools").mkdir(parents=True)
    marker = writable_folder / "ran"
    tool = project / "toolkiln-tools" / "greet"
    tool.write_text(DESCRIBED.format(marker=marker, name="greet"), encoding="utf-8")
    tool.chmod(0o755)
    monkeypatch.setenv("TOOLKILN_HOME", str(home))
    listing = ["discover", "--home", home, "--project", project, "--json"]
    code, out, _ = tools(*listing)
    assert code == 0
    assert [(e["name"], e["trust"]) for e in json.loads(out)["executables"]] == [("greet", "untrusted-folder")]
    code, out, _ = tools(*listing, "--register")
    assert json.loads(out)["executables"][0]["registered"] == "not registered: not trusted (not run)"
    assert not marker.exists()  # an untrusted file is never executed, not even for `description`
    assert main(["trust", str(project / "toolkiln-tools"), "--home", str(home)]) == 0
    assert "added    greet" in capsys.readouterr().out
    code, out, _ = tools(*listing, "--register")
    assert (code, json.loads(out)["executables"][0]["registered"]) == (0, "registered: version 1, active")
    assert json.loads(tools("run", "greet")[1])["output"] == {"greeting": "hello"}

    tool.write_text(tool.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    code, _, err = tools("run", "greet")
    assert code == 1 and "error[R0609]" in err
    code, out, _ = tools("repin", "greet")
    assert code == 0 and "version 2, pending_approval" in out
    assert tools("approve", "greet")[0] == 0
    assert json.loads(tools("run", "greet")[1])["sandbox"] == "bubblewrap"


def test_a_compute_run_says_what_ran_it(tools: Tools):
    examples = Path(__file__).resolve().parents[2] / "examples"
    tools("create", examples / "shipping_cost.json")
    code, out, err = tools("run", "shipping_cost", "--args", '{"weight_kg": 12}')
    assert (code, out, err) == (0, "31.500\n", "ran in the toolkiln interpreter (no process)\n")


def test_the_example_skill_file_registers_and_runs(tools: Tools):
    examples = Path(__file__).resolve().parents[2] / "examples"
    assert tools("create", examples / "word_stats.skill")[0] == 0
    code, out, _ = tools("run", "word_stats", "--args", '{"text": "the cat and the hat"}')
    assert code == 0 and json.loads(out)["output"] == {"words": 5, "distinct": 4}
