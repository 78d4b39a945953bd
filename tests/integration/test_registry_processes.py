"""The registry under real processes: concurrent writers, a writer killed mid-write, changes
seen across processes, broken files found by a fresh process."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from toolkiln import Registry

WORKER = Path(__file__).with_name("registry_worker.py")
OPS_PER_WORKER = 40  # operations each of the eight stress workers does, at least (~3 s together)
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and fork-free POSIX semantics")


def definition(name, expression, description="A test tool"):
    return {
        "name": name,
        "description": description,
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
    }


def worker(*args, **kwargs):
    return subprocess.Popen(
        [sys.executable, str(WORKER), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def assert_every_file_is_valid(root: Path) -> Registry:
    for path in list((root / "tools").glob("*.json")) + list((root / "versions").rglob("*.json")):
        json.loads(path.read_text())  # raises on a torn file
    for line in (root / "audit.jsonl").read_text().splitlines():
        json.loads(line)
    reg = Registry(root, trust_check_cache=False)
    assert reg.problems == [], [p.message for p in reg.problems]
    return reg


def wait_for_files(folder: Path, prefix: str, count: int, procs, timeout: float = 120.0) -> None:
    """Poll until `count` files named `prefix*` are in `folder`; fail early if a worker died."""
    deadline = time.monotonic() + timeout
    while len(list(folder.glob(f"{prefix}*"))) < count:
        for proc in procs:
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"a worker exited ({proc.returncode}) before writing its {prefix} file:\n{err}")
        assert time.monotonic() < deadline, f"only {len(list(folder.glob(prefix + '*')))}/{count} {prefix} files"
        time.sleep(0.01)


@pytest.mark.slow
def test_eight_processes_lose_no_write(tmp_path):
    root, sync = tmp_path / "reg", tmp_path / "sync"
    sync.mkdir()
    with Registry(root) as reg:
        reg.create(definition("shared", "x"))
    workers, ops = 8, OPS_PER_WORKER
    procs = [worker("stress", root, i, ops, sync, workers) for i in range(workers)]
    # A start barrier: no worker writes before all have opened the registry.
    wait_for_files(sync, "ready-", workers, procs)
    (sync / "go").touch()
    counts = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        counts.append(json.loads(out))
    # They worked at the same time: every worker was still at work when the last one began.
    assert max(c["started"] for c in counts) < min(c["finished"] for c in counts)
    assert all(c["operations"] >= ops for c in counts)
    keys = ("creates", "updates", "shared_updates", "runs", "foreign_runs")
    total = {key: sum(c[key] for c in counts) for key in keys}
    assert sum(total.values()) - total["foreign_runs"] == sum(c["operations"] for c in counts)
    runs_by_tool = {}
    for c in counts:
        for name, runs in c["runs_by_tool"].items():
            runs_by_tool[name] = runs_by_tool.get(name, 0) + runs
    assert total["creates"] > 8 and total["shared_updates"] > 8 and total["runs"] > 8

    reg = assert_every_file_is_valid(root)
    # Every change is in the audit log, once: no write was lost or doubled.
    entries = reg.audit_log()
    assert len(entries) == 1 + total["creates"] + total["updates"] + total["shared_updates"]
    assert len(reg) == 1 + total["creates"]
    # Each update of the shared tool read the latest version under the lock: versions are gapless.
    shared = reg.get("shared")
    assert shared.version == 1 + total["shared_updates"]
    assert [r.version for r in reg.history("shared")] == list(range(1, shared.version + 1))
    # Run counts of all processes add up, tool by tool (each process flushed at exit).
    assert {r.name: r.usage_count for r in reg.list() if r.usage_count} == runs_by_tool
    assert sum(runs_by_tool.values()) == total["runs"]
    assert total["foreign_runs"] > 0  # tools made by another process ran without restart


def test_a_writer_killed_mid_write_leaves_the_old_or_the_new_version(tmp_path):
    root = tmp_path / "reg"
    with Registry(root) as reg:
        reg.create(definition("victim", "x"))
    for attempt in range(4):
        proc = worker("churn", root)
        watchdog = threading.Timer(120, proc.kill)  # a hung worker ends readline() with EOF
        watchdog.start()
        # The worker prints the number of each completed update and goes straight on to the next
        # write; killing right after the (attempt + 1)th lands in a different write each time.
        for expected_line in range(1, attempt + 2):
            line = proc.stdout.readline()  # the worker never stops writing: this cannot block for long
            assert line == f"{expected_line}\n", proc.stderr.read() if proc.poll() is not None else line
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        watchdog.cancel()
        reg = assert_every_file_is_valid(root)
        victim = reg.get("victim")
        # Description and logic were written together: the file is one whole version.
        expected = int(victim.description.split()[0]) if victim.version > 1 else 0
        assert reg.run("victim", {"x": 0}) == expected
        assert expected >= attempt + 1  # the update it reported is there (or a later one)
        versions = [r.version for r in reg.history("victim")]
        assert versions == list(range(1, victim.version + 1))
    assert victim.version > 1  # the churn did get to write


def test_a_killed_write_of_a_huge_file_leaves_the_old_file(tmp_path):
    root = tmp_path / "reg"
    with Registry(root) as reg:
        reg.create(definition("victim", "x + 1"))
    before = (root / "tools" / "victim.json").read_bytes()
    proc = worker("big-write", root, 400_000_000)
    assert proc.stdout.readline() == "writing\n"
    deadline = time.monotonic() + 30
    while not [p for p in (root / "tools").iterdir() if p.name.endswith(".tmp") and p.stat().st_size > 1_000_000]:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert (root / "tools" / "victim.json").read_bytes() == before
    reg = assert_every_file_is_valid(root)
    assert reg.run("victim", {"x": 1}) == 2
    assert reg.create(definition("after", "x")).version == 1  # the dead writer's lock is gone
    for leftover in (root / "tools").glob(".*.tmp"):
        os.utime(leftover, (0, 0))  # make it look a minute old
    reg.refresh()
    assert not list((root / "tools").glob(".*.tmp"))  # stale temporaries are cleaned up


def test_changes_of_another_process_are_seen_without_restart(tmp_path):
    root = tmp_path / "reg"
    reg = Registry(root)
    code = (
        "import sys; from toolkiln import Registry; r = Registry(sys.argv[1]);"
        "r.create({'name': 'made_elsewhere', 'description': 'd', 'parameters': {'x': {'type': 'number'}},"
        " 'logic': {'steps': [{'op': 'return', 'value': 'x * 7'}]}})"
    )
    subprocess.run([sys.executable, "-c", code, str(root)], check=True, timeout=60)
    assert reg.run("made_elsewhere", {"x": 2}) == 14
    subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", "disable", "made_elsewhere", "--registry", str(root)],
        check=True,
        timeout=60,
        capture_output=True,
    )
    assert reg.get("made_elsewhere").status == "disabled"


def test_a_broken_file_is_reported_by_a_fresh_process_and_the_rest_load(tmp_path):
    root = tmp_path / "reg"
    with Registry(root) as reg:
        for name in ("one", "two", "three"):
            reg.create(definition(name, "x"))
    path = root / "tools" / "two.json"
    path.write_bytes(path.read_bytes()[:100])  # truncated
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", "list", "--json", "--registry", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert [t["name"] for t in json.loads(result.stdout)] == ["one", "three"]
    assert "1 file(s)" in result.stderr
