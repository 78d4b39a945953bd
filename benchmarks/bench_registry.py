"""Cost of the tool registry: start-up with 10,000 tools, writes, and runs through the registry.

    python benchmarks/bench_registry.py [--tools N] [--writes N] [--dir DIR]
    python benchmarks/bench_registry.py --store dir|postgres|both [--cluster URL] [--tools N]

`--store postgres` or `both` (issue 29) measures a PostgreSQL registry (and the folder beside
it, in one table): create, update, list, start-up with --tools tools, `reg.run` against
`tool.run`, and how long a change takes to reach another process's run (p50/p99), on a
throwaway database made on `--cluster` (default $TOOLKILN_PG_URL; scripts/postgres-install.sh
starts one). `--store dir` (the default) is the folder's full set below.

Measures
  * start-up: `Registry(path)` over N tool files (default 10,000), cold (the first start, no
    .cache/ yet: every file read and decoded) and warm (the start-up index vouches for every
    file: none read); no definition is checked at start (each is compiled when first used);
    the first `list()` after a warm start (it reads the records) and later ones; `problems`
    (every definition checked, the first time with an empty check cache, then with one that
    knows every file);
  * writes: `create` and `update` (a logic change, so a new version) per second, durable (three
    to five fsyncs each, the default) and with `durable=False`;
  * runs: `reg.run(name, args)` per second against `tool.run(args)` on the same compiled tool,
    in a registry holding the N tools (the per-call cost of noticing other processes' changes);
and prints a markdown table. The tool files are generated from the examples (not timed). It is
a script, not a test; with the defaults it takes one to two minutes, most of it the first full check.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import shutil
import sys
import tempfile
import time
import timeit
from functools import partial
from pathlib import Path

import toolkiln
from toolkiln.registry.codec import encode_record
from toolkiln.registry.index import STATE_DIR_ENV
from toolkiln.registry.models import ToolRecord, utc_now

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TEMPLATES = ("shipping_cost.json", "invoice_total.json", "late_fee.tk", "customer_message.json")


def machine() -> str:
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def generate(root: Path, count: int) -> None:
    """Write `count` tool files straight to tools/ (as the registry would), from the examples."""
    templates = []
    for name in TEMPLATES:
        tool = toolkiln.compile(EXAMPLES / name)
        templates.append((tool, toolkiln.to_json(EXAMPLES / name)))
    (root / "tools").mkdir(parents=True, exist_ok=True)
    now = utc_now()
    for i in range(count):
        tool, definition = templates[i % len(templates)]
        name = f"{tool.name}_{i}"
        record = ToolRecord(
            name=name,
            description=tool.description or "",
            parameters=tool.parameters,
            risk_level=tool.risk_level or "low",
            status="active",
            created_by="user",
            created_at=now,
            updated_at=now,
            version=1,
            definition={**definition, "name": name},
        )
        (root / "tools" / f"{name}.json").write_text(encode_record(record), encoding="utf-8")


def timed(fn, repeat: int = 3) -> float:
    """Best of `repeat` wall-clock seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_startup(root: Path, count: int) -> list[tuple[str, str, str]]:
    generate(root, count)
    shutil.rmtree(root / ".cache", ignore_errors=True)
    start = time.perf_counter()
    from toolkiln.registry.registry import Registry  # (toolkiln.Registry is imported on first use)

    imported = time.perf_counter() - start
    start = time.perf_counter()
    cold = Registry(root)  # a first start: reads and decodes every file, checks none, writes the index
    first = time.perf_counter() - start
    assert len(cold) == count
    warm = timed(lambda: Registry(root))  # every file vouched for by the index: none read
    fresh = Registry(root)
    start = time.perf_counter()
    fresh.list()  # reads every record the start did not
    first_list = time.perf_counter() - start
    listing = timed(fresh.list)
    refresh = min(timeit.repeat(cold._store.refresh, number=2000, repeat=3)) / 2000
    start = time.perf_counter()
    assert not cold.problems  # checks every definition (the check cache is empty)
    check = time.perf_counter() - start
    # (the 10,000 tools compiled above would otherwise stay alive for the garbage collector to
    # walk again and again: 5 s of this measurement, against 0.15 s in a process of its own)
    del cold, fresh
    gc.collect()
    rechecked = timed(lambda: Registry(root).problems, repeat=1)
    return [
        ("import of the registry module", f"{imported:.2f} s", "once per process, before the first start"),
        (f"start-up, {count:,} tools, cold (no .cache)", f"{first:.2f} s", f"{first / count * 1e3:.3f} ms per tool"),
        (f"start-up, {count:,} tools, warm (the index)", f"{warm:.2f} s", f"{warm / count * 1e3:.3f} ms per tool"),
        (f"first list() after a warm start, {count:,} tools", f"{first_list:.2f} s", "reads every record"),
        (f"list() of {count:,} tools", f"{listing * 1e3:.0f} ms", "records read"),
        ("per-call change check, nothing changed", f"{refresh * 1e6:.1f} us", "2 stat calls"),
        (f"problems, {count:,} tools never checked", f"{check:.2f} s", "every definition checked and compiled"),
        (f"start-up + problems, {count:,} tools checked before", f"{rechecked:.2f} s", "the check cache"),
    ]


def definition(name: str, expression: str) -> dict:
    return {
        "name": name,
        "description": "Benchmark tool",
        "parameters": {"x": {"type": "number"}},
        "logic": {
            "steps": [{"op": "math", "expression": expression, "output": "y"}, {"op": "return", "value": "round(y, 2)"}]
        },
    }


def bench_writes(root: Path, writes: int, durable: bool) -> list[tuple[str, str, str]]:
    reg = toolkiln.Registry(root, durable=durable)
    start = time.perf_counter()
    for i in range(writes):
        reg.create(definition(f"bench_{i}", "x * 2 + 1"))
    create = time.perf_counter() - start
    start = time.perf_counter()
    for i in range(writes):
        reg.update(f"bench_{i}", {"logic": definition("x", f"x * 3 + {i}")["logic"]})
    update = time.perf_counter() - start
    label = "durable (fsync)" if durable else "durable=False"
    return [
        (f"create, {label}", f"{writes / create:,.0f} /s", f"{create / writes * 1e3:.2f} ms each"),
        (f"update (new version), {label}", f"{writes / update:,.0f} /s", f"{update / writes * 1e3:.2f} ms each"),
    ]


RUN_CASES = (("shipping_cost", {"weight_kg": 12.5}), ("invoice_total", None))


def bench_runs(root: Path, rounds: int = 7) -> list[tuple[str, str, str]]:
    """`reg.run` against `tool.run` of the same tool, alternating in rounds (best of each)."""
    reg = toolkiln.Registry(root, usage_flush_seconds=1.0)
    rows = []
    for prefix, args in RUN_CASES:
        name = next(r.name for r in reg.list() if r.name.startswith(prefix))
        tool = reg._runnable(name)  # the very tool the registry runs
        args = args or _example_args(prefix)
        assert reg.run(name, args) == tool.run(args)
        best = {"tool": float("inf"), "reg": float("inf")}
        number = 20_000
        direct, through = partial(tool.run, args), partial(reg.run, name, args)
        for _ in range(rounds):
            best["tool"] = min(best["tool"], timeit.timeit(direct, number=number) / number)
            best["reg"] = min(best["reg"], timeit.timeit(through, number=number) / number)
        rows.append((f"{prefix}: tool.run(args), no registry", f"{best['tool'] * 1e6:.2f} us", ""))
        rows.append(
            (
                f"{prefix}: reg.run(name, args)",
                f"{best['reg'] * 1e6:.2f} us",
                f"{best['reg'] / best['tool']:.2f}x tool.run",
            )
        )
    reg.flush()
    return rows


def _example_args(prefix: str) -> dict:
    """The invoice example's arguments: five line items and a tax rate."""
    assert prefix == "invoice_total"
    items = [{"price": p, "qty": q} for p, q in ((19.99, 3), (450, 1), (4.75, 12), (129, 2), (0.99, 40))]
    return {"items": items, "tax_rate": 0.19}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10_000, help="tools for the start-up and run benchmarks")
    parser.add_argument("--writes", type=int, default=300, help="creates (and as many updates) per write benchmark")
    parser.add_argument("--dir", type=Path, help="where to build the registries (default: a temporary folder)")
    parser.add_argument("--runs-only", action="store_true", help="only the run measurements (a registry of --tools)")
    parser.add_argument("--store", choices=("dir", "postgres", "both"), default="dir", help="which store to measure")
    parser.add_argument("--cluster", default=os.environ.get("TOOLKILN_PG_URL"), help="PostgreSQL for --store postgres")
    parser.add_argument("--changes", type=int, default=100, help="changes timed reaching another process (p50/p99)")
    args = parser.parse_args()
    if args.store != "dir":
        return compare_stores(args)
    base = Path(tempfile.mkdtemp(prefix="toolkiln-bench-", dir=args.dir))
    os.environ.setdefault(STATE_DIR_ENV, str(base / "state"))  # the index key: not in the user's home
    try:
        if args.runs_only:
            generate(base / "big", args.tools)
            rows = bench_runs(base / "big")
        else:
            rows = bench_startup(base / "big", args.tools)
            rows += bench_runs(base / "big")
            rows += bench_writes(base / "durable", args.writes, durable=True)
            rows += bench_writes(base / "fast", args.writes * 3, durable=False)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{datetime.date.today().isoformat()}, Python {platform.python_version()}, {machine()}")
    print()
    print("| measure | result | detail |")
    print("|---|---:|---|")
    for measure, result, detail in rows:
        print(f"| {measure} | {result} | {detail} |")


def compare_stores(args: argparse.Namespace) -> None:
    """--store postgres|both: bench_stores.py's table, with this script's --tools and --writes."""
    if not args.cluster:
        raise SystemExit("--store postgres needs --cluster URL (or $TOOLKILN_PG_URL): scripts/postgres-install.sh")
    from bench_stores import print_columns, side_by_side

    stores = ("database",) if args.store == "postgres" else ("folder", "database")
    print_columns(side_by_side(args.cluster, args.tools, args.writes, args.changes, stores))


if __name__ == "__main__":
    sys.exit(main())
