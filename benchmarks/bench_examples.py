"""Compile and run cost of the shipped examples (examples/*.json, examples/*.tk).

    python benchmarks/bench_examples.py [--compile-runs N] [--repeat R] [--min-time S]

For each example it measures
  * compile: the median of N calls of `toolkiln.compile(text)` on the file's text (parse,
    check and closure compilation; the file is read once, outside the timing), and
  * run: `tool.run(args)` with one realistic argument set, timed with `timeit` (the loop count
    is chosen so that one timing takes at least `--min-time` seconds), best of R timings,
and prints a markdown table. It is a script, not a test; it takes well under a minute.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
import timeit
from decimal import Decimal
from pathlib import Path
from typing import Any

import toolkiln

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# One realistic argument set per example; `tables` names a table file in examples/.
CASES: list[dict[str, Any]] = [
    {"file": "shipping_cost.json", "args": {"weight_kg": 12}},
    {
        "file": "invoice_total.json",
        "args": {
            "items": [
                {"price": Decimal("19.99"), "qty": 3},
                {"price": Decimal("450"), "qty": 1},
                {"price": Decimal("4.75"), "qty": 12},
                {"price": Decimal("129.00"), "qty": 2},
                {"price": Decimal("0.99"), "qty": 40},
            ],
            "tax_rate": Decimal("0.19"),
        },
    },
    {"file": "late_fee.tk", "args": {"days_overdue": 30, "amount": Decimal("1234.56")}},
    {
        "file": "invoice_breakdown.tk",
        "args": {
            "lines": [
                {
                    "sku": f"S-{i}",
                    "category": ("paper", "ink", "toner")[i % 3],
                    "qty": i % 15 + 1,
                    "price": Decimal("4.75"),
                }
                for i in range(20)
            ]
        },
    },
    {
        "file": "lead_score.tk",
        "tables": "industry_weights.csv",
        "args": {
            "company_size": 250,
            "budget": 30000,
            "industry": "fintech",
            "days_since_engagement": 12,
            "source": "webinar",
            "is_decision_maker": True,
        },
    },
    {
        "file": "customer_message.json",
        "args": {
            "customer_name": "Ada",
            "order_id": "A-1001",
            "amount": Decimal("1234.5"),
            "status": "Shipped",
            "tracking_code": "1Z999AA10123456784",
        },
    },
    {"file": "sales_commission.json", "args": {"sales": Decimal("118500"), "quota": Decimal("100000")}},
    # Reads the system clock once per run (no clock= given), as a deployed tool does.
    {"file": "payment_reminder.tk", "args": {"invoice_number": "2026-0042", "issued": "2026-01-05"}},
]


def machine() -> str:
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def bench_compile(text: str, tables: dict | None, runs: int) -> float:
    """Median microseconds of one compile."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        toolkiln.compile(text, tables=tables)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def bench_run(tool: toolkiln.Tool, args: dict, repeat: int, min_time: float) -> float:
    """Best microseconds per call over `repeat` timings of an auto-sized loop."""
    timer = timeit.Timer(lambda: tool.run(args))
    number = 1
    while True:  # like Timer.autorange, but to `min_time` seconds
        if timer.timeit(number) >= min_time:
            break
        number *= 2
    best = min(timer.repeat(repeat=repeat, number=number))
    return best / number * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile-runs", type=int, default=200, help="compiles per example (median)")
    parser.add_argument("--repeat", type=int, default=5, help="run timings per example (best)")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per run timing")
    options = parser.parse_args(argv)

    started = time.perf_counter()
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(
        f"toolkiln {toolkiln.__version__} examples benchmark - {now} - "
        f"Python {platform.python_version()} ({platform.python_implementation()}) - {machine()}"
    )
    print(
        f"compile: median of {options.compile_runs} runs; run: best of {options.repeat} timeit "
        f"timings of >= {options.min_time} s each\n"
    )
    print("| example | compile (us) | run (us/call) | runs/s |")
    print("|---|---:|---:|---:|")
    for case in CASES:
        path = EXAMPLES / case["file"]
        text = path.read_text(encoding="utf-8")
        tables = toolkiln.load_table_file(EXAMPLES / case["tables"]) if "tables" in case else None
        tool = toolkiln.compile(text, tables=tables)
        tool.run(case["args"])  # fail early (and warm up) if the case is wrong
        compile_us = bench_compile(text, tables, options.compile_runs)
        run_us = bench_run(tool, case["args"], options.repeat, options.min_time)
        print(f"| {case['file']} | {compile_us:,.0f} | {run_us:,.2f} | {1e6 / run_us:,.0f} |")
    print(f"\ntotal benchmark time: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
