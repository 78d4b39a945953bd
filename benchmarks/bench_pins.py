"""What pinning callers to the callee versions they were approved with costs a run of a caller.

    python benchmarks/bench_pins.py [--before SRC] [--rounds R] [--number N]

Times `reg.run` and `reg.invoke` of `order_total`, which calls `shipping_cost` (both in a
registry of their own), in three states:

  * a caller made active by a person: no pins, each call finds the callee by name (as before);
  * a caller a person approved: pinned to the callee's current version, which it finds by
    name at each call as an unpinned one does;
  * the same caller after a new version of the callee was approved: pinned to the older
    version, compiled with the caller, a call checks that the callee is not disabled and
    joins its tables (none here).

With `--before SRC` (the `src` folder of an older toolkiln, e.g. `git archive` of a commit) the
same cases run in a process with that toolkiln on PYTHONPATH and the table puts both side by
side; a toolkiln without pins runs every caller unpinned (the third state runs the new callee
version there). Rounds alternate the cases; best and median CPU microseconds per call (this
thread's CPU time, so other processes on a loaded machine count less than on a wall clock).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

SHIPPING = {
    "name": "shipping_cost",
    "description": "Shipping cost of a parcel",
    "parameters": {"weight_kg": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "weight_kg * 2.5 + 5"}]},
}
TOTAL = {
    "name": "order_total",
    "description": "Price plus shipping",
    "riskLevel": "high",  # (a model's waits for a person's approval)
    "parameters": {"w": {"type": "number"}, "price": {"type": "number"}},
    "logic": {
        "steps": [
            {"op": "call", "tool": "shipping_cost", "args": {"weight_kg": "w"}, "output": "cost"},
            {"op": "return", "value": "price + cost"},
        ]
    },
}
ARGS = {"w": 12.5, "price": 40}
CPU = time.thread_time  # (CPU time of this thread: the machine's other load counts less than on a wall clock)
CASES = ("unpinned caller", "pinned, callee at its version", "pinned to an older callee version")


def registries(base: Path) -> dict[str, Any]:
    """One registry per case, set up as the case says."""
    from toolkiln import Registry

    made = {}
    for number, case in enumerate(CASES):
        reg = Registry(base / f"reg{number}", durable=False)
        reg.create(SHIPPING, created_by="llm")
        if case == "unpinned caller":
            reg.create({**TOTAL, "riskLevel": "low"})
        else:
            reg.create(TOTAL, created_by="llm")
            reg.approve("order_total", by="user")
        if case == "pinned to an older callee version":
            reg.update("shipping_cost", {"logic": {"steps": [{"op": "return", "value": "weight_kg * 3 + 5"}]}})
        made[case] = reg
    return made


def measure(rounds: int, number: int) -> dict[str, dict[str, list[float]]]:
    from toolkiln.registry.index import STATE_DIR_ENV

    base = Path(tempfile.mkdtemp(prefix="toolkiln-bench-pins-"))
    os.environ.setdefault(STATE_DIR_ENV, str(base / "state"))
    try:
        regs = registries(base)
        times: dict[str, dict[str, list[float]]] = {case: {"run": [], "invoke": []} for case in CASES}
        for _ in range(rounds):
            for case, reg in regs.items():
                reg.run("order_total", ARGS)  # (warm: compiled, hot)
                run = timeit.Timer(lambda reg=reg: reg.run("order_total", ARGS), timer=CPU).timeit(number)
                invoke = timeit.Timer(lambda reg=reg: reg.invoke("order_total", ARGS, principal="user"), timer=CPU)
                invoke = invoke.timeit(number // 4)
                times[case]["run"].append(run / number * 1e6)
                times[case]["invoke"].append(invoke / (number // 4) * 1e6)
        for reg in regs.values():
            reg.close()
        return times
    finally:
        shutil.rmtree(base, ignore_errors=True)


def before(src: Path, rounds: int, number: int) -> dict[str, dict[str, list[float]]]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    argv = [sys.executable, __file__, "--json", "--rounds", str(rounds), "--number", str(number)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def shown(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the src folder of an older toolkiln, run side by side")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=20_000, help="runs per timing")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    old = before(args.before, args.rounds, args.number) if args.before else None
    now = measure(args.rounds, args.number)
    if args.json:
        print(json.dumps(now))
        return
    print(f"{datetime.date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}")
    print("CPU us per call, best / median")
    print()
    print("| case | call | before | after |")
    print("|---|---|---:|---:|")
    for case in CASES:
        for call in ("run", "invoke"):
            was = shown(old[case][call]) if old else "-"
            print(f"| {case} | reg.{call} | {was} | {shown(now[case][call])} |")


if __name__ == "__main__":
    main()
