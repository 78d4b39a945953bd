"""The runnable example of each framework in docs/frameworks.md (examples/frameworks/) runs as
a user would run it, and prints the registry's reply with its digits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "frameworks"
SHIPPING_12_KG = 'shipping_cost -> {"ok": true, "result": 31.500}'


@pytest.mark.parametrize("example", ["langchain_agent.py", "pydantic_ai_agent.py"])
def test_the_example_runs_and_prints_the_registrys_reply(example, tmp_path):
    environment = {**os.environ, "TOOLKILN_STATE_DIR": str(tmp_path), "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    ran = subprocess.run(
        [sys.executable, str(EXAMPLES / example)], capture_output=True, text=True, env=environment, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert SHIPPING_12_KG in ran.stdout.splitlines()
