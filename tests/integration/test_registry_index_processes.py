"""The start-up index under real processes: registries started again and again (each may write
the index), one killed while it does, and a writer changing the tools meanwhile. Every start
sees records and runs that agree, and a fresh start after it all is whole."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from toolkiln import Registry
from toolkiln.registry import mirror as mirror_module

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and POSIX semantics")
TOOLS = 30
SECONDS = 3.0

# Starts a registry again and again; each time, every tool listed must run as its record says
# (its description names the multiplier its expression uses). Prints the starts it made.
STARTER = """
import sys, time
from toolkiln.registry import Registry
root, seconds = sys.argv[1], float(sys.argv[2])
starts, end = 0, time.monotonic() + seconds
while time.monotonic() < end:
    reg = Registry(root, durable=False)
    for record in reg.list():
        factor = int(record.description.split()[-1])
        assert record.definition["logic"]["steps"][0]["value"] == f"x * {factor}", record
        result = reg.run(record.name, {"x": 1})
        # a change between list and run is allowed: then the run is of a newer version
        assert result == factor or reg.get(record.name).version > record.version, (record.name, result)
    assert [p.file for p in reg.problems if p.file.startswith("tools")] == [], reg.problems
    starts += 1
print(starts)
"""

WRITER = """
import sys, time, random
from toolkiln.registry import Registry
root, seconds, count = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
reg = Registry(root, durable=False)
writes, end = 0, time.monotonic() + seconds
while time.monotonic() < end:
    name, factor = f"tool_{random.randrange(count)}", random.randrange(2, 1000)
    reg.update(name, {"description": f"times {factor}", "logic": {"steps": [{"op": "return", "value": f"x * {factor}"}]}})
    writes += 1
print(writes)
"""


def definition(i: int) -> dict:
    return {
        "name": f"tool_{i}",
        "description": "times 1",
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": "x * 1"}]},
    }


def start(script: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_restarts_a_killed_one_and_a_writer_leave_a_whole_index(tmp_path, monkeypatch):
    root = tmp_path / "reg"
    with Registry(root, durable=False) as reg:
        for i in range(TOOLS):
            reg.create(definition(i))
    starters = [start(STARTER, root, SECONDS) for _ in range(2)]
    writer = start(WRITER, root, SECONDS, TOOLS)
    victim = start(STARTER, root, SECONDS)
    time.sleep(SECONDS / 3)
    victim.send_signal(signal.SIGKILL)
    results = [proc.communicate(timeout=120) for proc in [*starters, writer]]
    victim.wait(timeout=30)
    for proc, (out, err) in zip([*starters, writer], results, strict=True):
        assert proc.returncode == 0, err
        assert int(out) > 0
    assert os.path.exists(root / ".cache" / "index.json")
    json.loads((root / ".cache" / "index.json").read_bytes().split(b"\n", 1)[1])  # whole, not torn

    decoded: list[str] = []
    real = mirror_module.decode_record
    monkeypatch.setattr(mirror_module, "decode_record", lambda data, file: decoded.append(file) or real(data, file))
    Registry(root, durable=False)  # reads what changed since the last index, and writes it
    decoded.clear()
    fresh = Registry(root, durable=False)
    assert decoded == []  # every file vouched for by the index
    assert fresh.problems == [] and len(fresh) == TOOLS
    for record in fresh.list():
        assert fresh.run(record.name, {"x": 1}) == int(record.description.split()[-1])
