"""The floor, defined once: what toolkiln's runs are measured against (docs/performance.md,
"The floor"). compare.py and bench_lists.py take it from here.

The floor of a workload is its logic written by hand in Python, computing in exact decimals:

- each number argument is converted to a Decimal by `floor_number`: an int or a Decimal by
  `Decimal(x)`, a float by the exact decimal of its shortest repr, computed as toolkiln
  computes it (`from_float_fast`: by scaling for floats of at most four decimal places, the
  faster way for them, through the repr otherwise); `by_repr` is the plain `Decimal(repr(x))` a
  programmer would write, a second row, never the floor;
- nothing else is checked: no types, bounds, lengths or unknown keys, no budget or limit;
- it computes in the thread's decimal context, as set by Python (toolkiln enters its own);
- it is timed like toolkiln, on the same arguments (compare.py: one argument set per workload,
  called again and again), by `timed` (a loop of calls, garbage collection off) in alternating
  rounds; a figure is the median over the rounds, with the fastest and slowest round
  (`spread`), and a ratio is of medians.

`python benchmarks/floor.py` shows why another harness finds another ratio: the shipping
workload against the floor and against the repr row, with one argument repeated and with 4,000
different ones.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from decimal import Decimal
from itertools import repeat
from typing import Any

from toolkiln.semantics.numbers import from_float_fast


def floor_number(number: Any) -> Decimal:
    """An argument as the floor takes it: exact, a float by its shortest repr's decimal."""
    return from_float_fast(number) if type(number) is float else Decimal(number)


def by_repr(number: Any) -> Decimal:
    """The same decimal, by `Decimal(repr(x))`: what exactness costs written the plain way."""
    return Decimal(repr(number)) if type(number) is float else Decimal(number)


# The workloads' logic in exact decimals, numbers taken through `convert` ---------------------

_2_5, _0_9 = Decimal("2.5"), Decimal("0.9")


def shipping_decimal(a: dict, convert: Callable[[Any], Decimal] = floor_number) -> Decimal:
    weight = convert(a["weight_kg"])
    base = weight * _2_5 + 5
    return base if weight <= 10 else base * _0_9


_0_10, _0_05 = Decimal("0.10"), Decimal("0.05")


def invoice_decimal(a: dict, convert: Callable[[Any], Decimal] = floor_number) -> Decimal:
    subtotal = sum((convert(item["price"]) * convert(item["qty"]) for item in a["items"]), Decimal(0))
    rate = _0_10 if subtotal >= 1000 else _0_05 if subtotal >= 500 else 0
    net = subtotal * (1 - rate)
    return net + net * convert(a["tax_percent"]) / 100


# Timing -----------------------------------------------------------------------------------------


def timed(run: Callable, args: Any, number: int) -> float:
    """Seconds per call of `number` calls of `run(args)`, garbage collection off (as timeit)."""
    loop = repeat(None, number)
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in loop:
            run(args)
        elapsed = time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()
    return elapsed / number


def calibrate(run: Callable, args: Any, min_time: float) -> int:
    """How many calls make one timing last at least `min_time` seconds."""
    number = 1
    while timed(run, args, number) * number < min_time:
        number *= 2
    return number


def spread(times: list[float]) -> tuple[float, float, float]:
    """The median, fastest and slowest of per-call times over the rounds."""
    return statistics.median(times), min(times), max(times)


# Why two harnesses disagree ---------------------------------------------------------------------

SHIPPING_TOOL = """tool shipping(weight_kg: number "Parcel weight in kilograms")
description "Shipping cost: 2.50 per kg plus 5.00, 10% off above 10 kg"
{
  return weight_kg * 2.5 + 5 if weight_kg <= 10 else (weight_kg * 2.5 + 5) * 0.9
}
"""


def argument_lists(count: int = 4000, seed: int = 1) -> dict[str, list[dict]]:
    """The shipping workload's arguments three ways: compare.py's one set repeated, and `count`
    different weights with two decimal places and at full float precision."""
    import random

    rng = random.Random(seed)
    return {
        "one weight (12.5), repeated": [{"weight_kg": 12.5}] * count,
        f"{count:,} weights, 2 decimal places": [{"weight_kg": round(rng.uniform(0.1, 40), 2)} for _ in range(count)],
        f"{count:,} weights, full precision": [{"weight_kg": rng.uniform(0.1, 40)} for _ in range(count)],
    }


def main() -> None:
    """toolkiln / floor and toolkiln / the repr row on the shipping workload, for each argument
    list: the conversion and the arguments move the ratio, which is why the floor fixes both."""
    import toolkiln

    run = toolkiln.compile(SHIPPING_TOOL).run  # as compare.py times it
    print("| arguments | toolkiln (us) | floor (us) | by repr (us) | toolkiln / floor | toolkiln / by repr |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, args in argument_lists().items():
        engines = [run, shipping_decimal, lambda a: shipping_decimal(a, by_repr)]
        each = [(lambda batch, engine=engine: [engine(a) for a in batch]) for engine in engines]
        numbers = [calibrate(call, args, 0.1) for call in each]
        times: list[list[float]] = [[], [], []]
        for _ in range(7):
            for call, number, kept in zip(each, numbers, times):
                kept.append(timed(call, args, number) / len(args))
        tk, fl, rp = (spread(kept)[0] for kept in times)
        print(f"| {label} | {tk * 1e6:.2f} | {fl * 1e6:.2f} | {rp * 1e6:.2f} | {tk / fl:.2f}x | {tk / rp:.2f}x |")


if __name__ == "__main__":
    main()
