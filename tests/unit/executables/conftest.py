"""Shared by the executables' unit tests: tool files written on the spot, a toolkiln home of the
test's own, and a folder every user may write (as root, programs run as the user nobody)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.executables import SandboxPolicy, TrustStore

UNSANDBOXED = SandboxPolicy(sandbox="none", timeout_seconds=20)

DESCRIBED_PYTHON = """#!/usr/bin/env python3
import json, sys
if sys.argv[1] == "description":
    print(json.dumps({{"name": "{name}", "description": "Echoes its arguments.",
                      "input_schema": {schema}}}))
else:
    {run}
"""
ECHO_RUN = "print(json.dumps(json.load(sys.stdin)))"


def write_tool(folder: Path, file_name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def python_tool(folder: Path, name: str, *, schema: str = '{"type": "object"}', run: str = ECHO_RUN) -> Path:
    """A Python executable `name.py` that describes itself with `schema` and runs `run`."""
    return write_tool(folder, f"{name}.py", DESCRIBED_PYTHON.format(name=name, schema=schema, run=run))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("TOOLKILN_HOME", str(folder))
    return folder


@pytest.fixture
def store(home: Path) -> TrustStore:
    return TrustStore(home)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder under /tmp that any user may enter and write (pytest's own is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="toolkiln-test-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
