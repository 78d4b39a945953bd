"""The registry's two stores side by side: a folder, and a PostgreSQL database (issue 29).

    python benchmarks/bench_stores.py --cluster postgresql://toolkiln@127.0.0.1:5432/postgres
        [--tools 2000] [--writes 200] [--changes 50]

`--cluster` names a PostgreSQL the script may create a throwaway database on (dropped at the
end; scripts/postgres-install.sh starts one). For each store: `create` and `update` per
second, `list()`, start-up with --tools tools (the database filled by `registry migrate` from a
generated folder), `reg.run` against `tool.run` of the same tool (the hot path: no round trip
while nothing changed), and how long a change made through one registry takes to reach a
run through another (p50/p99; the database's through LISTEN/NOTIFY). Prints one markdown table.
A script, not a test.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from bench_registry import bench_writes, definition, generate, machine

from toolkiln import Registry
from toolkiln.registry.index import STATE_DIR_ENV
from toolkiln.registry.migrate import migrate


@contextmanager
def throwaway_database(cluster: str) -> Iterator[str]:
    name = "toolkiln_bench_" + secrets.token_hex(4)
    with psycopg.connect(cluster, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{cluster.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(cluster, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def writes(location: str, count: int) -> dict[str, str]:
    """bench_registry's creates and updates, durable (the folder's fsyncs, the database's commits)."""
    return {measure: result for measure, result, _ in bench_writes(location, count, durable=True)}


def reads(location: str, tools: int) -> dict[str, str]:
    start = time.perf_counter()
    reg = Registry(location)
    opened = time.perf_counter() - start
    with reg:
        assert len(reg.list()) == tools
        listing = min(timeit.repeat(reg.list, number=3, repeat=3)) / 3
        name = next(r.name for r in reg.list() if r.name.startswith("shipping_cost"))
        args = {"weight_kg": 12.5}
        tool = reg._runnable(name)
        number, direct, through = 5000, float("inf"), float("inf")
        for _ in range(7):  # (alternating rounds, best of each: a busy machine slows both alike)
            direct = min(direct, timeit.timeit(lambda: tool.run(args), number=number) / number)
            through = min(through, timeit.timeit(lambda: reg.run(name, args), number=number) / number)
    return {
        f"start-up, {tools:,} tools": f"{opened:.2f} s",
        f"list() of {tools:,} tools": f"{listing * 1e3:.1f} ms",
        "reg.run (shipping_cost)": f"{through * 1e6:.1f} us ({through / direct:.2f}x tool.run)",
    }


def propagation(location: str, changes: int) -> dict[str, str]:
    """Seconds from a change's return in one registry to a run through another that sees it."""
    waits = []
    with Registry(location) as writer, Registry(location) as reader:
        writer.create(definition("moving", "x + 0"))
        reader.run("moving", {"x": 1})
        for i in range(1, changes + 1):
            writer.update("moving", {"logic": definition("x", f"x + {i}")["logic"]})
            start = time.perf_counter()
            while reader.run("moving", {"x": 0}) != i:
                time.sleep(0.0001)
            waits.append(time.perf_counter() - start)
    waits.sort()
    p99 = waits[min(len(waits) - 1, round(len(waits) * 0.99))]
    return {
        "a change reaches another registry, p50 / p99": f"{statistics.median(waits) * 1e3:.2f} / {p99 * 1e3:.2f} ms"
    }


def side_by_side(
    cluster: str, tools: int, write_count: int, changes: int, stores: tuple[str, ...]
) -> dict[str, dict[str, str]]:
    """Each of `stores` ("folder", "database") measured: a column of results per store."""
    base = Path(tempfile.mkdtemp(prefix="toolkiln-bench-stores-"))
    os.environ.setdefault(STATE_DIR_ENV, str(base / "state"))
    columns: dict[str, dict[str, str]] = {}
    try:
        generate(base / "many", tools)
        if "folder" in stores:
            columns["folder"] = writes(str(base / "w"), write_count) | propagation(str(base / "p"), changes)
            columns["folder"] |= reads(str(base / "many"), tools)
        if "database" in stores:
            with throwaway_database(cluster) as writes_db, throwaway_database(cluster) as many_db:
                columns["database"] = writes(writes_db, write_count) | propagation(writes_db, changes)
                with Registry(base / "many") as source, Registry(many_db) as target:
                    migrate(source, target)
                columns["database"] |= reads(many_db, tools)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return columns


def print_columns(columns: dict[str, dict[str, str]]) -> None:
    """One markdown table, a column per store, with the date and the machine."""
    print(f"{time.strftime('%Y-%m-%d')}, Python {sys.version.split()[0]}, {machine()}")
    print()
    stores = list(columns)
    print("| measure | " + " | ".join(stores) + " |")
    print("|---|" + "---:|" * len(stores))
    for measure in columns[stores[0]]:
        print(f"| {measure} | " + " | ".join(columns[store][measure] for store in stores) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", required=True, help="a PostgreSQL URL to make a throwaway database on")
    parser.add_argument("--tools", type=int, default=2000)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--changes", type=int, default=50)
    args = parser.parse_args()
    print_columns(side_by_side(args.cluster, args.tools, args.writes, args.changes, ("folder", "database")))


if __name__ == "__main__":
    sys.exit(main())
