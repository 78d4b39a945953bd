import json
from pathlib import Path

import pytest

from toolkiln.cli import main

GOLDEN = Path(__file__).parents[2] / "golden" / "workflows"


def test_compile_writes_the_n8n_json(tmp_path):
    out = tmp_path / "o.json"
    assert main(["workflow", "compile", str(GOLDEN / "order_total.wf"), "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((GOLDEN / "order_total.json").read_text())


def test_compile_reports_diagnostics_and_usage_errors(tmp_path, capsys):
    bad = tmp_path / "bad.wf"
    bad.write_text('workflow w\ndescription "d"\non manual\nset a { x = b.y }\n')
    assert main(["workflow", "compile", str(bad)]) == 1
    assert "error[E0702]: no step or trigger data named `b`" in capsys.readouterr().err
    assert main(["workflow", "compile", str(tmp_path / "missing.wf")]) == 1


def test_strict_makes_what_n8n_accepts_an_error(tmp_path, capsys):
    """A step no trigger reaches: n8n saves and runs the rest, so it is a warning (exit 0);
    --strict, for hand-written workflows, makes it the error E0710 (exit 1)."""
    source = tmp_path / "w.wf"
    source.write_text('workflow w\ndescription "d"\non manual\nset a { x = 1 }\nafter nothing\nset b { y = 2 }\n')
    assert main(["check", str(source)]) == 0
    assert "warning[W0719]" in capsys.readouterr().out
    assert main(["check", "--strict", str(source)]) == 1
    assert "error[E0710]" in capsys.readouterr().out
    assert main(["workflow", "compile", str(source), "-o", str(tmp_path / "w.json")]) == 0
    assert main(["workflow", "compile", "--strict", str(source), "-o", str(tmp_path / "s.json")]) == 1
    assert "error[E0710]" in capsys.readouterr().err and not (tmp_path / "s.json").exists()


def test_n8n_version_chooses_the_node_catalog(tmp_path, capsys):
    """Set 3.5 came with n8n 2.x: known to the default catalog (2.41.1, clean), newer than
    n8n 1.123.50's (a warning naming it); a release with no catalog is a usage error."""
    source = tmp_path / "w.wf"
    source.write_text('workflow w\ndescription "d"\non manual\nnode "N" type "n8n-nodes-base.set" version 3.5 {}\n')
    assert main(["check", str(source)]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
    assert main(["check", "--n8n-version", "1.123.50", str(source)]) == 0
    assert "newer than the node catalog of n8n 1.123.50" in capsys.readouterr().out
    assert main(["workflow", "compile", "--strict", str(source), "-o", str(tmp_path / "a.json")]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "workflow",
                "compile",
                "--strict",
                "--n8n-version",
                "1.123.50",
                str(source),
                "-o",
                str(tmp_path / "b.json"),
            ]
        )
        == 1
    )
    with pytest.raises(SystemExit) as info:
        main(["check", "--n8n-version", "0.1", str(source)])
    assert info.value.code == 2


def test_compile_and_fmt_take_a_higher_source_limit(tmp_path, capsys):
    source = tmp_path / "w.wf"
    text = (GOLDEN / "order_total.wf").read_text()
    source.write_text(text)
    small = str(len(text) - 1)
    assert main(["workflow", "compile", str(source), "--max-source-chars", small]) == 1
    assert "error[E0401]" in capsys.readouterr().err
    assert main(["workflow", "fmt", "--check", str(source), "--max-source-chars", small]) == 1
    assert "error[E0401]" in capsys.readouterr().err
    out = tmp_path / "o.json"
    assert main(["workflow", "compile", str(source), "--max-source-chars", str(len(text)), "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((GOLDEN / "order_total.json").read_text())
    with pytest.raises(SystemExit) as usage:
        main(["workflow", "compile", str(source), "--max-source-chars", "0"])
    assert usage.value.code == 2 and "must be at least 1, not 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "FILE.tk"],
        ["check", "FILE.wf"],
        ["run", "FILE.tk"],
        ["fmt", "FILE.tk"],
        ["fmt", "FILE.wf"],
        ["optimize", "FILE.tk"],
        ["workflow", "compile", "FILE.wf"],
        ["workflow", "import", "FILE.json"],
        ["workflow", "fmt", "FILE.wf"],
        ["n8n", "deploy", "FILE.wf", "--url", "http://127.0.0.1:9"],
        ["n8n", "deploy", "FILE.json", "--url", "http://127.0.0.1:9"],
    ],
)
def test_every_command_reports_a_missing_file_as_e0100_with_exit_1(tmp_path, capsys, argv):
    missing = str(tmp_path / "missing")
    assert main([arg.replace("FILE", missing) for arg in argv]) == 1
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert "error[E0100]: cannot read: No such file or directory" in output and f" --> {missing}." in output
    assert "Traceback" not in output


@pytest.mark.parametrize("argv", [["workflow", "compile", "--format", "json"], ["n8n", "deploy", "--json"]])
def test_a_missing_file_is_a_json_diagnostic_with_json_output(tmp_path, capsys, argv):
    missing = tmp_path / "missing.wf"
    assert main([*argv, str(missing)]) == 1
    (diagnostic,) = json.loads(capsys.readouterr().out)
    assert (diagnostic["code"], diagnostic["file"]) == ("E0100", str(missing))


def test_import_says_what_the_chosen_n8n_does_and_refuses_text_for_two_nodes_of_one_name(tmp_path, capsys):
    node = {"name": "A", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [0, 0], "parameters": {}}
    trigger = {**node, "name": "Go", "type": "n8n-nodes-base.manualTrigger"}
    export = tmp_path / "two.json"
    export.write_text(json.dumps({"name": "w", "nodes": [trigger, node, node], "connections": {}}))
    output = tmp_path / "two.wf"
    assert main(["workflow", "import", str(export), "-o", str(output), "--format", "json"]) == 1
    found = [(d["code"], d["message"]) for d in json.loads(capsys.readouterr().err)]
    assert [code for code, _ in found] == ["W0719", "E0722", "E0732"]
    assert found[-1][1] == "no DSL text: nodes 1 and 2 are both called `A`"
    assert not output.exists()
    assert main(["workflow", "import", str(export), "--n8n-version", "1.123.50", "--format", "json"]) == 1
    assert [d["code"] for d in json.loads(capsys.readouterr().err)] == ["W0719", "W0731", "E0732"]
