import json
import subprocess
import sys
from pathlib import Path

import pytest

import toolkiln as toolkiln_api

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def toolkiln(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def test_version_prints_the_package_version():
    result = toolkiln("--version")
    assert (result.returncode, result.stdout) == (0, f"toolkiln {toolkiln_api.__version__}\n")


def test_run_prints_the_result_as_json():
    # 12 * 2.50 + 1.500: the digits as computed, not 31.5
    result = toolkiln("run", EXAMPLES / "shipping_cost.json", "--args", '{"weight_kg": 12}')
    assert (result.returncode, result.stdout) == (0, "31.500\n")


def test_run_keeps_each_decimals_scale_or_writes_strings(tmp_path):
    source = tmp_path / "vat.tk"
    source.write_text('vat = round(net * 0.19, 2)\nreturn {"net": net, "vat": vat, "gross": net + vat, "k": 1e3}\n')
    result = toolkiln("run", source, "--args", '{"net": 100}')
    assert (result.returncode, result.stdout) == (0, '{"net": 100, "vat": 19.00, "gross": 119.00, "k": 1000}\n')
    result = toolkiln("run", source, "--args", '{"net": 100.0}', "--decimals", "string")
    assert json.loads(result.stdout) == {"net": "100.0", "vat": "19.00", "gross": "119.00", "k": "1000"}


def test_run_error_exit_1_with_code_and_location(tmp_path):
    source = tmp_path / "div.tk"
    source.write_text("return 10 / x\n")
    result = toolkiln("run", source, "--args", '{"x": 0}')
    assert result.returncode == 1
    assert "error[E0501]: division by zero" in result.stderr and f"{source}:1:8" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_with_csv_and_json_tables(tmp_path):
    source = tmp_path / "rate.tk"
    source.write_text("a = lookup zones[zone]\nb = lookup extra[zone] default 0\nreturn a + b\n")
    (tmp_path / "zones.csv").write_text("zone,rate\nnorth,4.50\nsouth,7\n")
    (tmp_path / "extra.json").write_text('{"extra": {"north": 0.5}}')
    result = toolkiln(
        "run",
        source,
        "--args",
        '{"zone": "north"}',
        "--tables",
        tmp_path / "zones.csv",
        "--tables",
        tmp_path / "extra.json",
    )
    assert (result.returncode, result.stdout) == (0, "5.00\n")


def test_usage_errors_exit_2():
    assert toolkiln("run", EXAMPLES / "shipping_cost.json", "--args", "{nope").returncode == 2
    assert toolkiln("frobnicate").returncode == 2
    assert toolkiln("explain", "E9999").returncode == 2


@pytest.mark.slow
def test_check_folder_exit_codes_and_formats(tmp_path):
    (tmp_path / "good.tk").write_text("return 1\n")
    assert toolkiln("check", tmp_path).returncode == 0
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.json").write_text('{"steps": [{"op": "return", "value": "1 +"}]}')
    text = toolkiln("check", tmp_path)
    assert text.returncode == 1 and "error[E0101]" in text.stdout and "2 file(s) checked: 1 error(s)" in text.stdout
    as_json = json.loads(toolkiln("check", tmp_path, "--format", "json").stdout)
    assert [(d["code"], d["line"], d["column"], d["severity"]) for d in as_json] == [("E0101", 1, 42, "error")]
    assert as_json[0]["file"].endswith("bad.json") and as_json[0]["path"] == "steps[0].value"
    github = toolkiln("check", tmp_path, "--format", "github").stdout
    assert github.startswith("::error file=") and "line=1,col=42,title=E0101" in github


def test_check_reports_unreadable_files(tmp_path):
    (tmp_path / "bin.tk").write_bytes(b"\xff\xfe\x00")
    result = toolkiln("check", tmp_path / "bin.tk", tmp_path / "missing.tk")
    assert result.returncode == 1 and result.stdout.count("E0100") == 2


@pytest.mark.slow
def test_fmt_rewrites_and_check_mode(tmp_path):
    source = tmp_path / "a.tk"
    source.write_text("x=1 # one\nreturn x\n")
    assert toolkiln("fmt", "--check", source).returncode == 1
    assert source.read_text() == "x=1 # one\nreturn x\n"
    assert toolkiln("fmt", source).returncode == 0
    assert source.read_text() == "x = 1  # one\nreturn x\n"
    assert toolkiln("fmt", "--check", source).returncode == 0
    broken = tmp_path / "b.tk"
    broken.write_text("x = (")
    result = toolkiln("fmt", broken)
    assert result.returncode == 1 and "E0101" in result.stderr and broken.read_text() == "x = ("


def test_explain_prints_the_explanation():
    result = toolkiln("explain", "e203")
    assert result.returncode == 0 and result.stdout.startswith("E0203 (possibly-unassigned, error)")
    assert "discount = 0" in result.stdout


@pytest.mark.parametrize("args", [["check", "/dev/null/x.tk"], ["run", "/nonexistent.tk"]])
def test_no_traceback_on_bad_paths(args):
    result = toolkiln(*args)
    assert result.returncode == 1 and "Traceback" not in result.stderr + result.stdout


def test_check_folder_takes_workflow_files_too(tmp_path):
    (tmp_path / "tool.tk").write_text("return 1\n")
    (tmp_path / "flow.wf").write_text('workflow w\ndescription "d"\non manual\nset a { x = nope.y }\n')
    result = toolkiln("check", tmp_path, "--format", "json")
    assert result.returncode == 1
    assert [(d["code"], Path(d["file"]).name, d["line"]) for d in json.loads(result.stdout)] == [
        ("E0702", "flow.wf", 4)
    ]


def test_fmt_folder_formats_workflow_files_and_leaves_n8n_exports_alone(tmp_path):
    (tmp_path / "tool.tk").write_text("x=1\nreturn x\n")
    flow = tmp_path / "flow.wf"
    flow.write_text('workflow w\ndescription "d"\non manual\nset a {  x = 1 }\n')
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"name": "w", "nodes": [], "connections": {}}))
    before = export.read_text()
    assert toolkiln("fmt", "--check", tmp_path).stdout.count("would reformat") == 2
    result = toolkiln("fmt", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tool.tk").read_text() == "x = 1\nreturn x\n"
    assert flow.read_text() == toolkiln_api.compile_workflow(flow.read_text()).to_text()
    assert "set a {\n  x = 1,\n}" in flow.read_text()
    assert export.read_text() == before
    assert toolkiln("fmt", "--check", tmp_path).returncode == 0


def registry_with_a_tool(path):
    """A registry folder as `toolkiln tools` leaves it: records, versions, a table, the audit log."""
    steps = [{"op": "math", "expression": "x * 2", "output": "r"}, {"op": "return", "value": "r"}]
    definition = {"name": "double", "description": "Doubles x", "parameters": {"x": {"type": "number"}}}
    with toolkiln_api.Registry(path) as reg:
        reg.create({**definition, "logic": {"steps": steps}})
        reg.update("double", {"description": "Doubles"})
    (path / "tables" / "rates.json").write_text('{"rates": {"a": 1}}')


def test_check_and_fmt_skip_hidden_and_registry_folders_and_excluded_paths(tmp_path):
    from toolkiln.cli import main

    (tmp_path / "tool.tk").write_text("return 1\n")
    registry_with_a_tool(tmp_path / ".toolkiln")  # the default registry of a project
    registry_with_a_tool(tmp_path / "shared_tools")  # a registry by any name
    for broken in (".venv/lib/x.tk", "vendor/v.tk", "drafts/wip.json", "keep/drafts/d.tk"):
        (tmp_path / broken).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / broken).write_text("return (\n")
    excluded = ["--exclude", "vendor", "--exclude", "drafts/*", "--exclude", "d.tk"]
    result = toolkiln("check", tmp_path, *excluded)
    assert (result.returncode, result.stdout.strip()) == (0, "1 file(s) checked: 0 error(s), 0 warning(s)")
    assert toolkiln("fmt", "--check", tmp_path, *excluded).returncode == 0

    named = tmp_path / ".toolkiln" / "tools"
    assert main(["check", str(named), "--format", "json"]) == 1  # named: walked (a record is no tool file)
    assert main(["check", str(tmp_path), "--exclude", "vendor"]) == 1  # drafts are checked again
    assert main(["check", str(tmp_path / ".venv")]) == 1
