"""Tool files for the executables' tests, written on the spot (this module holds no tests)."""

from __future__ import annotations

from pathlib import Path

from toolkiln.executables import SandboxPolicy

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
