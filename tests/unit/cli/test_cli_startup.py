"""A command imports only what it needs: `toolkiln run` of a compute tool loads no server, LLM
client, n8n client or sandbox (issue 34), so that it starts in a blink."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "shipping_cost.json"
UNNEEDED = ("toolkiln.server", "toolkiln.llm", "toolkiln.n8n", "toolkiln.executables", "toolkiln.cli.serve")

_PROBE = """
import json, sys
from toolkiln.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_run_of_a_compute_tool_imports_no_server_llm_n8n_or_sandbox() -> None:
    argv = ["run", str(EXAMPLE), "--args", '{"weight_kg": 12}']
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=False)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 0
    assert done.stdout.strip() == "31.500"
    loaded = [name for name in report["modules"] if name.startswith(UNNEEDED)]
    assert loaded == []


def test_an_unknown_command_still_lists_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "toolkiln", "frob"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "'run'" in done.stderr and "'serve'" in done.stderr and "'n8n'" in done.stderr
