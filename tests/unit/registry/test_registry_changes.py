"""`reg.run` reuses the tool it ran while nothing changed, and still sees every change: made
through a registry in another process (at the next run, by the shared change counter), or by
hand (within the 50 ms the folder goes unwatched during runs)."""

import json
import os
import subprocess
import sys
import time

import pytest
from unit.registry.stores import FOLDER_ONLY

from toolkiln.registry import Registry, ToolNotActive
from toolkiln.registry.changes import WATCH_SECONDS
from toolkiln.registry.postgres.urls import is_database_url

NOTIFIED_SECONDS = 5  # (a notification takes about a millisecond here; a loaded machine may take longer)

# Another process with its own registry on the same folder: runs `double` for each line read.
OTHER = """
import sys
from toolkiln.registry import Registry
reg = Registry(sys.argv[1])
if len(sys.argv) > 2:  # a longer reuse than 50 ms, so that only the counter can tell of changes
    reg._hot_seconds = float(sys.argv[2])
for line in sys.stdin:
    try:
        print(reg.run("double", {"x": int(line)}), flush=True)
    except Exception as error:
        print(type(error).__name__, flush=True)
"""


@pytest.fixture
def other(registry_location, request):
    """Ask the other process to run `double` with x; its answer."""
    reuse = getattr(request, "param", None)
    child = subprocess.Popen(
        [sys.executable, "-c", OTHER, str(registry_location), *([str(reuse)] if reuse else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )

    def ask(x: int) -> str:
        child.stdin.write(f"{x}\n")
        child.stdin.flush()
        return child.stdout.readline().strip()

    def answer(x: int, expected: str) -> str:
        """What the other process answers; on a database, once the change's notification has
        reached it (a message, a moment after the commit; the folder's counter is shared
        memory, seen at once)."""
        deadline = time.monotonic() + (NOTIFIED_SECONDS if is_database_url(str(registry_location)) else 0)
        while (got := ask(x)) != expected and time.monotonic() < deadline:
            time.sleep(0.01)
        return got

    yield answer
    child.stdin.close()
    child.wait(timeout=30)


@pytest.mark.parametrize("other", [3600], indirect=True)
def test_a_change_through_another_registry_is_seen_at_the_next_run(reg, make_def, other):
    reg.create(make_def())
    assert other(5, "10") == "10"
    assert other(6, "12") == "12"  # (now from the reused tool)
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    assert other(5, "15") == "15"  # no wait: the counter says something changed
    reg.disable("double")
    assert other(5, "ToolNotActive") == "ToolNotActive"
    reg.enable("double")
    assert other(5, "15") == "15"
    reg.rollback("double", 1)
    assert other(5, "10") == "10"


@FOLDER_ONLY  # (the folder's watch: a database's hand edit is seen by the counter it bumps, docs/fleets.md)
def test_a_hand_edit_is_seen_within_the_watch_interval(reg, make_def, other):
    reg.create(make_def())
    assert other(5, "10") == "10"
    path = reg.path / "tools" / "double.json"
    record = json.loads(path.read_text())
    record["definition"]["logic"]["steps"][0]["expression"] = "x * 4"
    temporary = path.with_name(".double.json.edit")
    temporary.write_text(json.dumps(record, indent=2))
    os.replace(temporary, path)  # as editors and git write a file: no counter bump
    time.sleep(WATCH_SECONDS * 2)
    assert other(5, "20") == "20"


def test_runs_in_one_process_see_its_own_changes_at_once(reg, make_def):
    reg.create(make_def())
    assert reg.run("double", {"x": 1}) == 2
    reg.update("double", {"logic": make_def(expression="x + 100")["logic"]})
    assert reg.run("double", {"x": 1}) == 101
    reg.disable("double")
    with pytest.raises(ToolNotActive):
        reg.run("double", {"x": 1})


def test_without_a_counter_every_run_looks_at_the_folder(tmp_path, make_def):
    root = tmp_path / "reg"
    (root / ".cache").mkdir(parents=True)
    os.symlink("/dev/zero", root / ".cache" / "changes")  # never opened through a link
    with Registry(root) as reg, Registry(root) as elsewhere:
        assert reg._store.changes.value() is None
        reg.create(make_def())
        assert elsewhere.run("double", {"x": 2}) == 4
        reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
        assert elsewhere.run("double", {"x": 2}) == 6
    assert os.path.islink(root / ".cache" / "changes")  # left as it was


def test_runs_are_counted_with_the_time_of_the_last(reg, make_def):
    reg.create(make_def())
    before = time.time()
    for x in range(3):
        reg.run("double", {"x": x})
    reg.flush()
    record = reg.get("double")
    assert record.usage_count == 3
    assert before - 1 <= record.last_used_at.timestamp() <= time.time() + 1


def test_runs_counted_by_threads_while_others_drain_are_each_counted_once(reg, make_def):
    import threading

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    reg.create(make_def())
    reg.create(make_def("triple", "x * 3"))
    runs, done = 3000, threading.Event()

    def run(name: str) -> None:
        for x in range(runs):
            reg.run(name, {"x": x})

    def read() -> None:  # drains the pending runs again and again, as get and flush do
        while not done.is_set():
            reg.get("double")
            reg.flush()

    runners = [threading.Thread(target=run, args=(name,)) for name in ("double", "double", "triple")]
    reader = threading.Thread(target=read)
    try:
        for thread in [reader, *runners]:
            thread.start()
        for thread in runners:
            thread.join()
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(interval)
    assert reg.get("double").usage_count == 2 * runs and reg.get("triple").usage_count == runs
    reg.flush()
    with Registry(reg.location) as reopened:
        assert reopened.get("double").usage_count == 2 * runs


def test_list_stays_sorted_and_current_through_changes_and_runs(reg, make_def):
    for name in ("mid", "alpha", "zulu"):
        reg.create(make_def(name=name))
    assert [r.name for r in reg.list()] == ["alpha", "mid", "zulu"]
    reg.run("mid", {"x": 1})
    reg.run("mid", {"x": 2})
    reg.delete("alpha")
    reg.create(make_def(name="beta"))
    listed = reg.list()
    assert [r.name for r in listed] == ["beta", "mid", "zulu"]
    assert [r.usage_count for r in listed] == [0, 2, 0]
    assert listed[1].last_used_at is not None and listed[0].last_used_at is None
    reg.disable("zulu")
    assert [r.name for r in reg.list(status="active")] == ["beta", "mid"]
