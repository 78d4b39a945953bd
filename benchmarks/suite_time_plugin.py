"""A pytest plugin for benchmarks/suite_time.py: one JSON line per test phase (setup, call,
teardown) with its wall seconds and the CPU seconds it used, written to $SUITE_TIME_OUT.

CPU time is what the machine's cores must supply, whatever else runs on them: on a shared
machine wall time grows with the load, CPU time hardly does. It counts this process
(time.process_time) and the child processes it reaped meanwhile (getrusage(RUSAGE_CHILDREN)):
a server a fixture started is counted when the fixture stops it, in that teardown; a server
forked by the tests' fork server (tests/integration/server_forks.py) when the fork server
reaps it. With pytest-xdist every worker loads the plugin and appends its own lines (one write
each)."""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path

# Bound once, at import: a test that monkeypatches `time.monotonic` (a fake clock) must not
# change what its own timing reads (it made set-up and tear-down walls negative or huge).
from time import monotonic, process_time
from time import time as wall_clock

import pytest


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + fork_server_cpu()


def fork_server_cpu() -> float:
    """The fork server's CPU seconds and those of the servers it forked and reaped (its own
    children, which this process's RUSAGE_CHILDREN does not see)."""
    forks = sys.modules.get("server_forks")
    pid = forks.fork_server_pid() if forks else None
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except OSError:
        return 0.0  # it ended with the session
    return sum(int(tick) for tick in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime


def write(line: dict) -> None:
    path = os.environ.get("SUITE_TIME_OUT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def timed(item: pytest.Item, phase: str):
    started = wall_clock()  # on the clock every worker shares: when each worker ran out of work
    wall, cpu, children = monotonic(), process_time(), children_cpu()
    yield
    write(
        {
            "test": item.nodeid,
            "phase": phase,
            "start": started,
            "wall": monotonic() - wall,
            "cpu": process_time() - cpu,
            "children_cpu": children_cpu() - children,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        }
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from timed(item, "teardown")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    wall, cpu = monotonic(), process_time()
    yield
    write(
        {
            "test": "(collection)",
            "phase": "collect",
            "wall": monotonic() - wall,
            "cpu": process_time() - cpu,
            "children_cpu": 0.0,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        }
    )
