"""The runnable example of each framework in docs/frameworks.md (examples/frameworks/) runs as
a user would run it, and prints the registry's reply with its digits; importing the framework,
building the tools and running never opens a connection off this machine (offline/: an audit
hook ends the process at the first attempt)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "frameworks"
OFFLINE = Path(__file__).resolve().parent / "offline"
SHIPPING_12_KG = 'shipping_cost -> {"ok": true, "result": 31.500}'


@pytest.mark.parametrize(
    "example", ["langchain_agent.py", "pydantic_ai_agent.py", "llamaindex_agent.py", "openai_agents_agent.py"]
)
def test_the_example_runs_and_prints_the_registrys_reply(example, tmp_path):
    path = os.pathsep.join([str(OFFLINE), os.environ.get("PYTHONPATH", "")])
    environment = {**os.environ, "PYTHONPATH": path, "TOOLKILN_STATE_DIR": str(tmp_path), "HOME": str(tmp_path)}
    ran = subprocess.run(
        [sys.executable, str(EXAMPLES / example)], capture_output=True, text=True, env=environment, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert SHIPPING_12_KG in ran.stdout.splitlines()


def test_the_offline_guard_stops_a_connection_off_this_machine(tmp_path):
    """The guard itself: the audit event a connect raises first ends the process with 97 (raised
    here by hand, so that nothing is sent even if the guard failed)."""
    probe = tmp_path / "probe.py"
    probe.write_text("import socket, sys\nsys.audit('socket.connect', socket.socket(), ('192.0.2.1', 9))\n")
    environment = {**os.environ, "PYTHONPATH": str(OFFLINE)}
    ran = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, env=environment, timeout=60)
    assert ran.returncode == 97 and "192.0.2.1" in ran.stderr
