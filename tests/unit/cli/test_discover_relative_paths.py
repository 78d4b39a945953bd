"""`toolkiln tools discover` with relative folders: a program is read by its absolute path
only, so `--project .` and `--home DIR` must mean the folders they name (before, every file
under them was skipped with "is not an absolute path")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkiln.cli import main

PROGRAM = '#!/bin/sh\necho \'{"name": "greet", "description": "Greets."}\'\n'


def _program(folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "greet"
    path.write_text(PROGRAM)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(("kodelet", "subfolder"), [(False, "toolkiln-tools"), (True, ".kodelet/tools")])
def test_a_relative_project_finds_its_tools(tmp_path, monkeypatch, capsys, kodelet, subfolder):
    program = _program(tmp_path / "project" / subfolder)
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    kodelet_flag = ["--kodelet"] if kodelet else []
    code = main(["tools", "discover", "--home", "../home", "--project", ".", "--json", *kodelet_flag])
    found = json.loads(capsys.readouterr().out)
    assert code == 0
    assert found["skipped"] == []
    assert [(e["name"], e["path"], e["trust"]) for e in found["executables"]] == [
        ("greet", str(program), "untrusted-folder")
    ]
