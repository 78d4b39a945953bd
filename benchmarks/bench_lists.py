"""How the invoice scales with its line items: toolkiln against the floor, per item.

    python benchmarks/bench_lists.py [--items 10 100 1000 10000] [--rounds 5]

For each list length, the invoice workload of benchmarks/compare.py (sum of price x qty, a
discount tier, tax) runs with that many line items (float prices, int quantities, as json.loads
gives them) through `tool.run` and through the floor: the same logic hand-written in exact
decimals with toolkiln's own float conversion and no checks. Both results are compared first.
The table gives the median microseconds per run over alternating rounds with the fastest and
slowest round, the cost per line item, and toolkiln / floor, a ratio of medians (the speed
issue's target: within 1.5x per item). The floor and the timing are floor.py's, as compare.py's. The last two columns
add toolkiln's check of the items (every field's type and bounds, as its binder makes it; the
floor makes none) to the floor: what that check costs, and what the rest of toolkiln costs.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import INVOICE, machine, setup_floor_checked
from floor import calibrate, invoice_decimal, spread, timed

import toolkiln


def invoice_args(count: int) -> dict:
    prices = [19.99, 450.0, 4.75, 129.0, 0.99, 12.5, 3.2]
    items = [{"price": prices[i % len(prices)], "qty": 1 + i % 13} for i in range(count)]
    return {"items": items, "tax_percent": 19}


def rounds(runs: list, count: int, min_time: float = 0.1) -> list[list[float]]:
    """Per-call seconds of each of `runs` (functions of no argument), in alternating rounds."""
    calls = [(lambda _, run=run: run()) for run in runs]
    numbers = [calibrate(call, None, min_time) for call in calls]
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(count):
        for call, number, kept in zip(calls, numbers, times):
            kept.append(timed(call, None, number))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[10, 100, 1_000, 10_000])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args(argv)

    tool = toolkiln.compile(INVOICE.toolkiln)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"toolkiln {toolkiln.__version__} - {now} - Python {platform.python_version()} - {machine()}\n")
    floor_checked = setup_floor_checked(INVOICE)
    print(
        "| line items | floor (us) | toolkiln (us) | fastest - slowest, floor / toolkiln (us) "
        "| floor per item (us) | toolkiln per item (us) | toolkiln / floor "
        "| floor + check (us) | toolkiln / (floor + check) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in options.items:
        args = invoice_args(count)
        floor = partial(invoice_decimal, args)
        run = partial(tool.run, args)
        if run() != floor():
            print(f"{count} items: toolkiln gave {run()}, the floor {floor()}", file=sys.stderr)
            return 1
        checked = partial(floor_checked, args)
        (f, f_low, f_high), (t, t_low, t_high), (c, _, _) = map(spread, rounds([floor, run, checked], options.rounds))
        low_high = f"{f_low * 1e6:,.1f}-{f_high * 1e6:,.1f} / {t_low * 1e6:,.1f}-{t_high * 1e6:,.1f}"
        per_item = f"{f / count * 1e6:.2f} | {t / count * 1e6:.2f}"
        with_check = f"{c * 1e6:,.1f} | {t / c:.2f}x"
        print(
            f"| {count:,} | {f * 1e6:,.1f} | {t * 1e6:,.1f} | {low_high} | {per_item} | {t / f:.2f}x | {with_check} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
