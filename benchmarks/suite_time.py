"""Where the test suite's time goes: per file, per folder and per test, in wall seconds and in
CPU seconds (this process and the processes it started and reaped: servers, n8n, sandboxes).

    python benchmarks/suite_time.py [--top 25] [--report FILE] [-- PYTEST ARGS ...]

Runs `python -m pytest PYTEST ARGS` (default: the whole suite as configured) with the plugin in
suite_time_plugin.py, then prints markdown tables: the folders, the files that took the most
wall time, the tests that did, and each with its CPU seconds and its share in set-up and
tear-down (where fixtures start and stop servers). `--report FILE` prints the tables of an
earlier run's lines without running anything. On a shared machine compare CPU seconds: wall
time grows with everyone else's load. Wall minus CPU is waiting (on another process that was
not reaped yet, a sleep, the network on 127.0.0.1, or the cores being busy). A script, not a test.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Totals:
    __slots__ = ("wall", "cpu", "fixtures", "tests")

    def __init__(self) -> None:
        self.wall = self.cpu = self.fixtures = 0.0
        self.tests: set[str] = set()

    def add(self, line: dict) -> None:
        self.wall += line["wall"]
        self.cpu += line["cpu"] + line["children_cpu"]
        if line["phase"] in ("setup", "teardown"):
            self.fixtures += line["wall"]
        self.tests.add(line["test"])


def grouped(lines: list[dict], key) -> dict[str, Totals]:
    groups: dict[str, Totals] = collections.defaultdict(Totals)
    for line in lines:
        groups[key(line["test"])].add(line)
    return groups


def folder_of(test: str) -> str:
    parts = test.split("::")[0].split("/")
    return "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:2])


def table(title: str, groups: dict[str, Totals], top: int) -> str:
    rows = sorted(groups.items(), key=lambda kv: kv[1].wall, reverse=True)[:top]
    out = [f"\n{title}\n", "| | tests | wall (s) | CPU (s) | in set-up/tear-down (s) |", "|---|---:|---:|---:|---:|"]
    for name, t in rows:
        out.append(f"| `{name}` | {len(t.tests)} | {t.wall:.1f} | {t.cpu:.1f} | {t.fixtures:.1f} |")
    return "\n".join(out)


def workers(lines: list[dict]) -> str:
    """When each worker started its first test and ended its last, and how long it ran tests:
    a worker that ends long before another waited for the slowest files at the end."""
    timed = [line for line in lines if "start" in line]
    if not timed:
        return ""
    first = min(line["start"] for line in timed)
    out = ["\nWorkers\n", "| worker | first test at (s) | last test ended at (s) | in tests (s) |"]
    out.append("|---|---:|---:|---:|")
    for worker in sorted({line["worker"] for line in timed}):
        own = [line for line in timed if line["worker"] == worker]
        begin = min(line["start"] for line in own) - first
        end = max(line["start"] + line["wall"] for line in own) - first
        out.append(f"| {worker} | {begin:.0f} | {end:.0f} | {sum(line['wall'] for line in own):.0f} |")
    return "\n".join(out)


def report(lines: list[dict], top: int) -> str:
    collect = [line for line in lines if line["phase"] == "collect"]
    tests = [line for line in lines if line["phase"] != "collect"]
    everything = Totals()
    for line in tests:
        everything.add(line)
    head = (
        f"{len(everything.tests)} tests: {everything.wall:.0f} s of wall time in tests "
        f"({everything.fixtures:.0f} s in set-up/tear-down), {everything.cpu:.0f} s of CPU; "
        f"collection {sum(c['wall'] for c in collect):.0f} s wall, "
        f"{sum(c['cpu'] for c in collect):.0f} s CPU over {len(collect)} process(es)"
    )
    return "\n".join(
        [
            head,
            workers(tests),
            table("Folders", grouped(tests, folder_of), top),
            table(f"The {top} files that took longest", grouped(tests, lambda t: t.split("::")[0]), top),
            table(f"The {top} tests that took longest", grouped(tests, lambda t: t), top),
        ]
    )


def replay(lines: list[dict], workers: int, cores: int = 2, collection: float = 20.0) -> float:
    """Seconds the run's tests would take on `workers` workers sharing `cores` cores: each test,
    in the order they started, goes to the next free worker; its CPU seconds share the cores
    with the other workers' and its waiting (wall minus CPU) takes no core. An estimate (CPU of
    processes reaped after the test counts as waiting), for comparing worker counts."""
    tests: dict[str, list[float]] = {}
    for line in sorted((line for line in lines if "start" in line), key=lambda line: line["start"]):
        cpu = line["cpu"] + line["children_cpu"]
        wall = line["wall"] if 0 <= line["wall"] < 3600 else cpu  # (a test's fake clock)
        spent = tests.setdefault(line["test"], [0.0, 0.0])
        spent[0], spent[1] = spent[0] + cpu, spent[1] + max(wall, cpu)
    queue = [[collection, 1.0]] * workers + [[wall, cpu / wall if wall else 0.0] for cpu, wall in tests.values()]
    running: list[list[float]] = []
    clock = 0.0
    while queue or running:
        while queue and len(running) < workers:
            running.append(list(queue.pop(0)))
        demand = sum(share for _, share in running)
        speed = min(1.0, cores / demand) if demand else 1.0
        rates = [speed if share else 1.0 for _, share in running]
        step = min(left / rate for (left, _), rate in zip(running, rates))
        for job, rate in zip(running, rates):
            job[0] -= step * rate
        running = [job for job in running if job[0] > 1e-9]
        clock += step
    return clock


def run(pytest_args: list[str]) -> tuple[list[dict], float, int]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "lines.jsonl"
        env = {**os.environ, "SUITE_TIME_OUT": str(out)}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "benchmarks"), env.get("PYTHONPATH")) if p)
        start = time.monotonic()
        code = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "suite_time_plugin", "-q", *pytest_args], cwd=ROOT, env=env
        ).returncode
        seconds = time.monotonic() - start
        lines = [json.loads(text) for text in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    return lines, seconds, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--report", type=Path, help="print the tables of an earlier run's lines (JSON lines)")
    parser.add_argument("--keep", type=Path, help="also write this run's lines to this file")
    parser.add_argument(
        "--replay", type=int, nargs="+", metavar="WORKERS", help="with --report: replay the run on these worker counts"
    )
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    if args.report:
        lines = [json.loads(text) for text in args.report.read_text(encoding="utf-8").splitlines()]
        print(report(lines, args.top))
        for workers in args.replay or ():
            print(f"replayed on {workers} workers and 2 cores: about {replay(lines, workers):.0f} s")
        return 0
    lines, seconds, code = run(args.pytest_args)
    if args.keep:
        args.keep.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    load = os.getloadavg()
    print(
        f"\n{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average at the end {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}; "
        f"pytest {' '.join(args.pytest_args) or '(the whole suite)'}: exit {code}, {seconds:.0f} s"
    )
    print(report(lines, args.top))
    return code


if __name__ == "__main__":
    sys.exit(main())
