"""`tool.run_many` over many rows in one process and in a process pool (`workers=N`).

    python benchmarks/bench_pool.py [--rows N] [--workers W ...] [--workload lead|invoice|shipping]

Runs the workload of benchmarks/compare.py (default: the lead score, 21 comparisons) over N
rows (default 1,000,000; every row different) once in this process and once per pool size
given, checks that every run gave the same results in the same order, and prints a markdown
table: wall-clock seconds, rows per second, and the speed-up over one process. A pool's time
includes starting its workers (each checks and compiles the tool again) and shipping the rows
and results between processes: what a user waits for.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import WORKLOADS, machine

import toolkiln


def rows_for(args: dict, count: int) -> list[dict]:
    """`count` argument sets, each with its first number argument varied (so no two
    neighbouring rows are alike and no result can be cached)."""
    key = next(k for k, v in args.items() if type(v) in (int, float))
    return [{**args, key: args[key] + i % 997} for i in range(count)]


def timed(run, rows: list[dict]) -> tuple[float, list]:
    start = time.perf_counter()
    results = run(rows)
    return time.perf_counter() - start, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[2], help="pool sizes to measure")
    parser.add_argument("--workload", choices=[w.name for w in WORKLOADS], default="lead")
    options = parser.parse_args(argv)

    workload = next(w for w in WORKLOADS if w.name == options.workload)
    tool = toolkiln.compile(workload.toolkiln)
    rows = rows_for(workload.float_args, options.rows)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"toolkiln {toolkiln.__version__} - {now} - Python {platform.python_version()} - {machine()}")
    print(f"workload: {workload.title}; {options.rows:,} rows, float arguments\n")

    alone, expected = timed(tool.run_many, rows)
    table = [
        "| run | wall (s) | rows/s | speed-up |",
        "|---|---:|---:|---:|",
        f"| one process | {alone:.2f} | {options.rows / alone:,.0f} | 1.00x |",
    ]
    for workers in options.workers:
        seconds, results = timed(lambda batch, w=workers: tool.run_many(batch, workers=w), rows)
        if results != expected:
            print(f"workers={workers} gave other results than one process", file=sys.stderr)
            return 1
        table.append(f"| pool of {workers} | {seconds:.2f} | {options.rows / seconds:,.0f} | {alone / seconds:.2f}x |")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
