"""A pytest plugin for benchmarks/suite_time.py: one JSON line per test phase (setup, call,
teardown) with its wall seconds and the CPU seconds it used, written to $SUITE_TIME_OUT.

CPU time is what the machine's cores must supply, whatever else runs on them: on a shared
machine wall time grows with the load, CPU time hardly does. It counts this process
(time.process_time) and the child processes it reaped meanwhile (getrusage(RUSAGE_CHILDREN)):
a server a fixture started is counted when the fixture stops it, in that teardown. With
pytest-xdist every worker loads the plugin and appends its own lines (one write each)."""

from __future__ import annotations

import json
import os
import resource
import time

import pytest


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write(line: dict) -> None:
    path = os.environ.get("SUITE_TIME_OUT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def timed(item: pytest.Item, phase: str):
    wall, cpu, children = time.monotonic(), time.process_time(), children_cpu()
    yield
    write(
        {
            "test": item.nodeid,
            "phase": phase,
            "wall": time.monotonic() - wall,
            "cpu": time.process_time() - cpu,
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
    wall, cpu = time.monotonic(), time.process_time()
    yield
    write(
        {
            "test": "(collection)",
            "phase": "collect",
            "wall": time.monotonic() - wall,
            "cpu": time.process_time() - cpu,
            "children_cpu": 0.0,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        }
    )
