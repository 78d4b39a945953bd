"""The composite GitHub Action (action.yml, issue 30 item 1): its shape, that its inputs reach
the scripts only as environment variables, that every toolkiln command it names parses, and
its check and SARIF steps run as written (bash, the `toolkiln` on PATH) on fixture files."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from toolkiln.cli.app import build_parser

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
SCRIPTS = {step["name"]: step for step in ACTION["runs"]["steps"] if "run" in step}
GOOD = 'tool t(a: number)\ndescription "d"\n{\n  return a\n}\n'
BAD = 'tool t(a: number)\ndescription "d"\n{\n  return a + zz\n}\n'


def test_it_is_a_composite_action_whose_scripts_take_inputs_only_from_the_environment():
    assert ACTION["runs"]["using"] == "composite"
    assert set(SCRIPTS) == {"Install toolkiln", "Write the SARIF report", "Check and annotate"}
    for step in SCRIPTS.values():
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], f"{step['name']}: an input pasted into a script can inject a command"
    declared = set(ACTION["inputs"])
    used = {m for step in ACTION["runs"]["steps"] for m in re.findall(r"inputs\.([\w-]+)", json.dumps(step))}
    assert used == declared


def test_every_toolkiln_command_it_runs_exists_and_parses():
    commands = [line.strip() for step in SCRIPTS.values() for line in step["run"].splitlines()]
    commands = [line for line in commands if line.startswith("toolkiln ")]
    assert len(commands) == 2
    for line in commands:
        words = shlex.split(line.split(" > ")[0].replace('"${strict[@]}"', "--strict").replace('"${paths[@]}"', "."))
        parsed = build_parser(words[1]).parse_args(words[1:])
        assert parsed.handler.__name__ == "cmd_check" and parsed.strict and parsed.format in ("github", "sarif")


def run_step(name: str, folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "CHECK_PATHS": "good.tk bad.tk", "CHECK_STRICT": "false", **env}
    script = SCRIPTS[name]["run"]
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "good.tk").write_text(GOOD)
    (tmp_path / "bad.tk").write_text(BAD)
    return tmp_path


def test_the_check_step_annotates_and_fails_on_an_error(checkout):
    run = run_step("Check and annotate", checkout)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith("::error file=bad.tk,line=4,col=14,title=E0201::")
    assert run_step("Check and annotate", checkout, CHECK_PATHS="good.tk", CHECK_STRICT="true").returncode == 0


def test_the_sarif_step_writes_the_report_and_leaves_failing_to_the_check_step(checkout):
    run = run_step("Write the SARIF report", checkout, SARIF_FILE="out.sarif")
    assert run.returncode == 0, run.stderr
    log = json.loads((checkout / "out.sarif").read_text())
    assert [result["ruleId"] for result in log["runs"][0]["results"]] == ["E0201"]


def test_a_path_cannot_inject_a_command(checkout):
    run = run_step("Check and annotate", checkout, CHECK_PATHS="good.tk;touch${IFS}injected $(touch injected2)")
    assert not (checkout / "injected").exists() and not (checkout / "injected2").exists()
    assert run.returncode != 0
