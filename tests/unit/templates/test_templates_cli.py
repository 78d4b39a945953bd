"""`toolkiln templates list|show|render`: output, files, and exit codes 1 and 2 without tracebacks."""

import json
from pathlib import Path

from toolkiln.cli import main

GOLDEN = Path(__file__).parents[2] / "golden" / "templates"


def test_list_names_every_template(capsys):
    assert main(["templates", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "daily-summary",
        "lead-followup",
        "new-lead-welcome",
        "order-status-notify",
        "payment-reminder",
    ]
    assert lines[1].endswith("Lead follow-up")


def test_show_gives_parameters_and_the_dsl(capsys):
    assert main(["templates", "show", "daily-summary"]) == 0
    out = capsys.readouterr().out
    assert '  send_at: time = "08:00"\n      Time of day of the run' in out
    assert "  owner_phone: string (required)" in out
    assert "workflow daily_summary\n" in out and 'on schedule daily at "${send_at}"' in out


def test_render_to_a_file_with_values(tmp_path):
    out = tmp_path / "wf.json"
    assert main(["templates", "render", "daily-summary", "--set", "owner_phone=+34600000000", "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((GOLDEN / "daily-summary.json").read_text())


def test_render_dsl_to_standard_output(capsys):
    assert (
        main(["templates", "render", "lead-followup", "--set", "inactive_days=10", "--set", "message=a=b, c", "--dsl"])
        == 0
    )
    out = capsys.readouterr().out
    assert "query { inactive_days = 10 }" in out and '", a=b, c"' in out and "${" not in out


def test_bad_values_and_unknown_templates_exit_1_with_diagnostics(capsys):
    assert main(["templates", "render", "lead-followup", "--set", "send_at=9am"]) == 1
    assert "error[E0804]: `send_at` is a time parameter: '9am' is not a time of day" in capsys.readouterr().err
    assert main(["templates", "render", "daily-summary", "--format", "json"]) == 1
    [missing] = json.loads(capsys.readouterr().out)
    assert (missing["code"], missing["path"]) == ("E0802", "owner_phone")
    assert main(["templates", "show", "nope"]) == 1
    assert "error[E0801]: no template named `nope`" in capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["templates", "render", "lead-followup", "--set", "inactive_days"]) == 2
    assert "write it as KEY=VALUE" in capsys.readouterr().err
    assert main(["templates", "render", "lead-followup", "-o", str(tmp_path / "no" / "such" / "dir.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolkiln: cannot write") and "Traceback" not in err
