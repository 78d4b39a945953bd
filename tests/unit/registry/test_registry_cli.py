"""`toolkiln tools ...`: output and exit codes. A few runs go through a real subprocess (exit
codes, no traceback, TOOLKILN_HOME, the working directory); the rest call `main` in-process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkiln.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def subprocess_tools(*args, home=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "TOOLKILN_HOME"}
    if home is not None:
        env["TOOLKILN_HOME"] = str(home)
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture
def tools(tmp_path, capsys):
    """tools(*args) -> (exit code, stdout, stderr), in-process, on the registry tmp_path/reg."""

    def run(*args):
        code = main(["tools", *map(str, args), "--registry", str(tmp_path / "reg")])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err

    return run


@pytest.mark.slow
def test_through_a_subprocess(tmp_path):
    home = tmp_path / "home"
    created = subprocess_tools("create", EXAMPLES / "shipping_cost.json", home=home)
    assert (created.returncode, created.stdout) == (0, "created shipping_cost (version 1, active)\n")
    run = subprocess_tools("run", "shipping_cost", "--args", '{"weight_kg": 12}', home=home)
    assert (run.returncode, run.stdout) == (0, "31.500\n")
    table = subprocess_tools("list", home=home).stdout.splitlines()
    assert table[0].split() == ["NAME", "KIND", "STATUS", "VERSION", "BY", "RISK", "RUNS", "DESCRIPTION"]
    assert table[1].split()[:7] == ["shipping_cost", "compute", "active", "1", "user", "low", "1"]
    missing = subprocess_tools("show", "nope", home=home)
    assert missing.returncode == 1 and "error[R0102]: no tool named `nope`" in missing.stderr
    assert subprocess_tools("run", "x", "--args", "{oops", home=home).returncode == 2
    assert subprocess_tools("export", "--format", "yaml", home=home).returncode == 2
    assert subprocess_tools("list", cwd=tmp_path).returncode == 0  # ./.toolkiln by default
    assert (tmp_path / ".toolkiln" / "tools").is_dir()


def test_create_list_show_and_run(tools):
    assert tools("create", EXAMPLES / "shipping_cost.json") == (0, "created shipping_cost (version 1, active)\n", "")
    assert tools("create", EXAMPLES / "late_fee.tk", "--created-by", "llm")[0] == 0
    assert tools("run", "shipping_cost", "--args", '{"weight_kg": 12}')[1] == "31.500\n"
    code, _, err = tools("run", "shippng_cost", "--args", '{"weight_kg": 12}')
    assert code == 1 and "error[R0102]" in err and "did you mean `shipping_cost`?" in err
    code, out, _ = tools("list")
    assert code == 0 and out.splitlines()[1].split()[:7] == ["late_fee", "compute", "active", "1", "llm", "medium", "0"]
    as_json = json.loads(tools("list", "--json", "--created-by", "user")[1])
    assert [(t["name"], t["usage_count"]) for t in as_json] == [("shipping_cost", 1)]
    assert as_json[0]["definition"]["name"] == "shipping_cost" and as_json[0]["created_at"].endswith("Z")
    assert json.loads(tools("list", "--json", "--status", "disabled")[1]) == []
    shown = tools("show", "late_fee")[1]
    assert shown.startswith("late_fee  (version 1, active)") and "tool late_fee(" in shown
    assert json.loads(tools("show", "late_fee", "--json")[1])["risk_level"] == "medium"


def test_update_versions_rollback_and_lifecycle(tools, tmp_path):
    assert tools("create", EXAMPLES / "shipping_cost.json")[0] == 0
    new = tmp_path / "shipping.tk"
    new.write_text('tool shipping_cost(weight_kg: number)\ndescription "Flat"\n{\n  return 10\n}\n')
    assert tools("update", "shipping_cost", new)[1] == "updated shipping_cost (version 2, active)\n"
    assert tools("update", "shipping_cost", "--description", "Flat rate")[1].startswith("updated")
    assert tools("update", "shipping_cost", "--description", "Flat rate")[1].startswith("shipping_cost unchanged")
    history = tools("history", "shipping_cost")[1].splitlines()
    assert [line.split()[0] for line in history[1:]] == ["1", "2"] and "(current)" in history[2]
    assert [v["version"] for v in json.loads(tools("history", "shipping_cost", "--json")[1])] == [1, 2]
    rolled = tools("rollback", "shipping_cost", "1")[1]
    assert rolled.startswith("rolled shipping_cost back to version 1: now version 3")
    history = tools("history", "shipping_cost")[1].splitlines()
    assert history[0].split() == ["VERSION", "SAVED", "CHANGE", "STATUS", "DESCRIPTION"]
    changes = [line.split("UTC")[1].split()[0] for line in history[1:]]
    assert changes == ["create", "update", "rollback"]  # on main "rollback" stood in the SAVED column
    assert tools("run", "shipping_cost", "--args", '{"weight_kg": 1}')[1] == "7.50\n"
    assert tools("disable", "shipping_cost") == (0, "shipping_cost is disabled\n", "")
    code, _, err = tools("run", "shipping_cost", "--args", "{}")
    assert code == 1 and "error[R0203]" in err and "enable it first" in err
    code, _, err = tools("approve", "shipping_cost")
    assert code == 1 and "error[R0202]" in err
    code, _, err = tools("delete", "shipping_cost", "--by", "llm")
    assert code == 1 and "error[R0201]" in err
    assert tools("enable", "shipping_cost")[1] == "shipping_cost is active\n"
    assert tools("delete", "shipping_cost")[1] == "deleted shipping_cost\n"


def test_errors_exit_1_and_usage_exits_2(tools, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"name": "bad", "description": "d", "parameters": {}, "logic": {"steps": [{"op": "return", "value": "y"}]}}'
    )
    code, _, err = tools("create", bad)
    assert code == 1 and "error[E0201]" in err and not (tmp_path / "reg" / "tools" / "bad.json").exists()
    assert f"{bad}:1:" in err  # the diagnostic names the file
    assert tools("show", "../etc")[0] == 1
    code, _, err = tools("run", "shipping_cost", "--args", "{}")
    assert code == 1 and "R0102" in err
    code, _, err = tools("create", tmp_path / "absent.tk")
    assert code == 1 and "error[E0100]" in err
    assert tools("update", "x")[0] == 2  # neither FILE nor --description
    assert tools("export", "--format", "mcp", "-o", tmp_path / "no" / "such" / "dir.json")[0] == 2
    for argv in (["export"], ["frobnicate"], ["rollback", "x", "one"]):
        with pytest.raises(SystemExit) as exit_:
            main(["tools", *argv])
        assert exit_.value.code == 2


def test_export_and_check(tools, tmp_path):
    for example in ("shipping_cost.json", "invoice_total.json"):
        assert tools("create", EXAMPLES / example)[0] == 0
    code, out, err = tools("export", "--format", "gemini")
    assert [d["name"] for d in json.loads(out)] == ["shipping_cost"]
    assert "invoice_total left out of the gemini export" in err
    out_file = tmp_path / "tools.json"
    assert tools("export", "--format", "mcp", "--meta", "-o", out_file)[0] == 0
    names = [d["name"] for d in json.loads(out_file.read_text())]
    assert names[0] == "create_compute_tool" and names[-2:] == ["invoice_total", "shipping_cost"]
    assert [t["type"] for t in json.loads(tools("export", "--format", "openai")[1])] == ["function", "function"]
    assert tools("check")[1].strip() == "2 tool(s) loaded; 0 file(s) with problems"
    (tmp_path / "reg" / "tools" / "shipping_cost.json").write_text("{")
    code, out, _ = tools("check")
    assert code == 1 and "error[E0105]" in out and "1 file(s) with problems" in out
    code, _, err = tools("list")
    assert code == 0 and "cannot be loaded" in err


def test_a_run_error_shows_the_expression_and_a_caret(tools, tmp_path):
    source = tmp_path / "ratio.json"
    source.write_text(
        '{"name": "ratio", "description": "d", "parameters": {"a": {"type": "number"}, "b": {"type": "number"}},'
        ' "logic": {"steps": [{"op": "return", "value": "a / b"}]}}'
    )
    assert tools("create", source)[0] == 0
    code, _, err = tools("run", "ratio", "--args", '{"a": 1, "b": 0}')
    lines = err.splitlines()
    assert code == 1 and lines[0] == "error[E0501]: division by zero"
    assert lines[1] == " --> definition: logic.steps[0].value:1:1" and lines[3:5] == ["| | a / b", "  | ^^^^^"]
    code, _, err = tools("run", "ratio", "--args", '{"a": 1, "bb": 0}')
    assert code == 1 and "`bb` was given: did you mean `b`?" in err
