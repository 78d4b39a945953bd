"""`--seed N` of `toolkiln run` and `toolkiln tools run`: the same seed, the same draws of
uuid() and random_int(); without one, the system's (issue 27, item 5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DICE = 'tool dice(sides: integer)\ndescription "A die"\n{\n  return {"id": uuid(), "throw": random_int(1, sides)}\n}\n'


def toolkiln(*argv: str, home: Path) -> str:
    env = {**os.environ, "TOOLKILN_STATE_DIR": str(home / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "toolkiln", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_seed_repeats_the_draws_of_a_file_and_of_a_registry_tool(tmp_path: Path):
    tool = tmp_path / "dice.tk"
    tool.write_text(DICE, encoding="utf-8")
    file_run = ["run", str(tool), "--args", '{"sides": 1000000}']
    seeded = toolkiln(*file_run, "--seed", "3", home=tmp_path)
    assert seeded == toolkiln(*file_run, "--seed", "3", home=tmp_path)
    assert seeded != toolkiln(*file_run, "--seed", "4", home=tmp_path)
    registry = ["tools", "--registry", str(tmp_path / "r")]
    toolkiln(*registry, "create", str(tool), home=tmp_path)
    tool_run = [*registry, "run", "dice", "--args", '{"sides": 1000000}']
    assert toolkiln(*tool_run, "--seed", "3", home=tmp_path) == seeded
    assert toolkiln(*tool_run, home=tmp_path) != toolkiln(*tool_run, home=tmp_path)
