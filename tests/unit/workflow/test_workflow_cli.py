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
    assert main(["workflow", "compile", str(tmp_path / "missing.wf")]) == 2


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
    assert usage.value.code == 2 and "not a positive whole number" in capsys.readouterr().err
