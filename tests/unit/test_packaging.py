"""The wheel ships the grammars, the workflow templates and the web page's templates and static
files as package data, and the installed package finds them."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_contains_the_grammars(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = tmp_path.glob("toolkiln-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for grammar in (ROOT / "grammar").glob("*.lark"):
        assert f"toolkiln/grammar/{grammar.name}" in names
    assert "toolkiln/cli/app.py" in names and "toolkiln/version.py" in names
    for template in (ROOT / "src" / "toolkiln" / "templates" / "starters").glob("*.wf"):
        assert f"toolkiln/templates/starters/{template.name}" in names
    web = ROOT / "src" / "toolkiln" / "server" / "web"
    assets = [*(web / "templates").glob("*.html"), *(p for p in (web / "static").rglob("*") if p.is_file())]
    for asset in assets:  # the web page, with the vendored editor in a folder of its own
        assert f"toolkiln/server/web/{asset.relative_to(web).as_posix()}" in names
    schema = sorted((ROOT / "src" / "toolkiln" / "registry" / "postgres" / "sql").glob("*.sql"))
    assert schema and all(f"toolkiln/registry/postgres/sql/{sql.name}" in names for sql in schema)
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    probe = (
        "from toolkiln.syntax.grammar import grammar_text, compute_parser; import toolkiln.syntax.grammar as g;"
        f"assert g.__file__.startswith({str(installed)!r}); compute_parser();"
        "from toolkiln import templates; assert len(templates.list()) == 5;"
        "templates.render('lead-followup'); print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(installed), "PATH": ""},
        cwd=tmp_path,
        timeout=60,
    )
    assert result.stdout.strip() == "ok", result.stderr
