"""Registry.runner(name): the same kind of handle as tool.runner(), for a registered tool; and
run counts that are exact without the GIL (per-thread cells, added up when read)."""

import threading
from decimal import Decimal

import pytest

from toolkiln.errors import RunError
from toolkiln.interpret.runner import Runner
from toolkiln.registry.errors import ToolNotActive
from toolkiln.registry.usage import Tally


def test_a_registry_runner_runs_counts_and_follows_updates(reg, make_def):
    reg.create(make_def())
    runner = reg.runner("double")
    assert isinstance(runner, Runner) and runner.name == "double"
    assert runner.run({"x": 2}) == Decimal(4) == reg.run("double", {"x": 2})
    with pytest.raises(RunError) as caught:
        runner.run({"x": "two"})
    assert caught.value.code == "E0508"
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    assert runner.run({"x": 2}) == Decimal(6)  # the new version, as reg.run would run it
    reg.flush()
    assert reg.get("double").usage_count == 4


def test_a_registry_runner_refuses_at_once_what_run_refuses(reg, make_def):
    reg.create(make_def(risk="high"), created_by="llm")  # pending approval
    with pytest.raises(ToolNotActive):
        reg.runner("double")


def test_runs_counted_in_many_threads_are_each_counted_once():
    tally, threads, runs = Tally(), 8, 5000
    start = threading.Barrier(threads)
    cells = []

    def count() -> None:
        start.wait()
        cell = tally.cell()
        cells.append(cell)
        for _ in range(runs):
            cell = tally.cell()
            cell[0] += 1
            cell[1] = 1.0

    workers = [threading.Thread(target=count) for _ in range(threads)]
    for worker in workers:
        worker.start()
    taken = [tally.take()[0]]  # (while they count: each run is in one take, once)
    for worker in workers:
        worker.join()
    taken.append(tally.take()[0])
    assert sum(taken) == threads * runs and tally.take() == (0, 1.0)
    assert len({id(cell) for cell in cells}) == threads  # one cell a thread, written by it alone
