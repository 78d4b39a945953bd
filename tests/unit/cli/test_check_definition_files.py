"""`toolkiln check` of the definition files `toolkiln tools create` takes and the text DSL does
not read: a script's `.skill`, RustyClaw's `.yaml`, a JSON definition with a `kind` or its
`examples`. Checked as the registry would check them (nothing registered), located in the file;
`run`, `fmt` and `optimize` refuse them with E0116, not with the text DSL's syntax error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolkiln.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SKILL = EXAMPLES / "word_stats.skill"
BAD_SKILL = """---
name: Bad Name
description: Counts words.
runtime: cobol
timeout_secs: -3
---
print(1)
"""
RUSTYCLAW = """---
name: weather_check
description: Says the weather.
runtime: bash
sandbox: true
---
echo sunny
"""
SCRIPT_JSON = {"kind": "script", "name": "greet", "description": "Greets.", "runtime": "python", "body": "print(1)"}


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", *args])
    return code, capsys.readouterr().out


def as_json(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[dict[str, object]]]:
    code, out = check(capsys, "--format", "json", *map(str, paths))
    return code, json.loads(out)


def test_the_shipped_skill_file_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, str(SKILL)) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)\n")


def test_a_broken_skill_file_gets_the_registry_codes_at_the_lines_of_its_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.skill"
    bad.write_text(BAD_SKILL)
    code, found = as_json(capsys, bad)
    assert code == 1
    assert [(d["code"], d["path"], d["line"], d["file"]) for d in found] == [
        ("E0110", "name", 2, str(bad)),
        ("R0608", "runtime", 4, str(bad)),
        ("R0608", "timeout_secs", 5, str(bad)),
    ]
    code, out = check(capsys, str(bad))
    assert f"--> {bad}:4:1 (at runtime)" in out and "4 | runtime: cobol" in out
    assert "E0101" not in out and out.endswith("1 file(s) checked: 3 error(s), 0 warning(s)\n")


def test_a_skill_files_yaml_error_is_r0608_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.skill"
    broken.write_text("---\nname: [x\n---\nbody\n")
    code, found = as_json(capsys, broken)
    assert code == 1 and [(d["code"], d["file"], d["line"]) for d in found] == [("R0608", str(broken), 3)]


# A schema jsonschema alone judges (a pattern is a regex it checks): the same R0608 either way.
UNUSUAL_SCHEMA = SKILL.read_text().replace(
    "    text: {type: string, description: The text to count}", '    text: {type: string, pattern: "("}'
)


@pytest.mark.parametrize("name", ["bad.skill", "examples.json", "unusual.skill"])
def test_what_tools_create_refuses_check_shows_alike_at_the_same_lines(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = json.loads((EXAMPLES / "shipping_cost.json").read_text())
    wrong_example = {**tool, "examples": [{"args": {"weight_kg": 12}, "expect": 1}, {"args": {}}]}
    bad = tmp_path / name
    texts = {
        "bad.skill": BAD_SKILL,
        "examples.json": json.dumps(wrong_example, indent=2),
        "unusual.skill": UNUSUAL_SCHEMA,
    }
    bad.write_text(texts[name])
    assert main(["tools", "--registry", str(tmp_path / "registry"), "create", str(bad)]) == 1
    refused = capsys.readouterr().err
    code, out = check(capsys, str(bad))
    assert code == 1 and "<input>" not in refused and f"--> {bad}:" in refused
    assert name != "unusual.skill" or "`parameters` is not a valid JSON Schema: '(' is not a 'regex'" in refused
    assert out == refused + f"1 file(s) checked: {refused.count('error[')} error(s), 0 warning(s)\n"


def test_a_folder_check_takes_skill_files_but_not_yaml_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SKILL, tmp_path / "word_stats.skill")
    (tmp_path / "bad.skill").write_text(BAD_SKILL)
    (tmp_path / "config.yaml").write_text("not: [a skill\n")
    code, out = check(capsys, str(tmp_path))
    assert code == 1
    assert "bad.skill:2:1" in out and "config.yaml" not in out
    assert out.endswith("2 file(s) checked: 3 error(s), 0 warning(s)\n")


def test_a_named_yaml_file_is_checked_as_rustyclaw_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "weather_check.yaml"
    skill.write_text(RUSTYCLAW)  # its `sandbox: true` is RustyClaw's Docker switch: dropped, not an error
    assert check(capsys, str(skill)) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)\n")
    skill.write_text(RUSTYCLAW.replace("bash", "cobol"))
    code, found = as_json(capsys, skill)
    assert code == 1 and [(d["code"], d["line"]) for d in found] == [("R0608", 4)]


def test_json_definitions_of_other_kinds_are_checked_by_their_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "greet.json"
    script.write_text(json.dumps(SCRIPT_JSON))
    assert check(capsys, str(script)) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)\n")
    executable = tmp_path / "tool.json"
    missing = tmp_path / "missing"
    executable.write_text(json.dumps({"kind": "executable", "name": "t", "description": "d", "path": str(missing)}))
    code, found = as_json(capsys, executable)
    assert code == 1 and [(d["code"], d["path"], d["line"]) for d in found] == [("R0605", "path", 1)]


def test_a_compute_tools_examples_are_run_and_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = json.loads((EXAMPLES / "shipping_cost.json").read_text())
    good = tmp_path / "good.json"
    good.write_text(json.dumps({**tool, "examples": [{"args": {"weight_kg": 12}, "expect": 31.5}]}, indent=2))
    assert check(capsys, str(good)) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)\n")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**tool, "examples": [{"args": {"weight_kg": 12}, "expect": 1}]}, indent=2))
    code, found = as_json(capsys, wrong)
    assert code == 1 and [d["code"] for d in found] == ["E0611"] and found[0]["in_file"] is True
    expect_line = next(n for n, line in enumerate(wrong.read_text().splitlines(), 1) if '"expect": 1' in line)
    assert (found[0]["path"], found[0]["line"]) == ("examples[0].expect", expect_line)


def test_sarif_names_the_skill_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.skill"
    bad.write_text(BAD_SKILL)
    code, out = check(capsys, "--format", "sarif", str(bad))
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and [r["ruleId"] for r in results] == ["E0110", "R0608", "R0608"]
    place = results[1]["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"].endswith("bad.skill") and place["region"]["startLine"] == 4


@pytest.mark.parametrize("command", [["run"], ["fmt", "--check"], ["optimize"]])
def test_commands_on_a_compute_file_refuse_a_skill_file_with_e0116(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "greet.json"
    script.write_text(json.dumps(SCRIPT_JSON))
    for path in (SKILL, script):
        assert main([*command, str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"error[E0116]: `toolkiln {command[0]}` takes a compute tool's file")
        assert f"--> {path}:1:1" in err and "E0101" not in err and "E0109" not in err


def test_check_registers_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TOOLKILN_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greet.json").write_text(json.dumps(SCRIPT_JSON))
    shutil.copy(SKILL, tmp_path / "word_stats.skill")
    assert check(capsys, str(tmp_path)) == (0, "2 file(s) checked: 0 error(s), 0 warning(s)\n")
    assert not home.exists() and not (tmp_path / ".toolkiln").exists()  # no registry, no record
