"""What the approval-of-each-call check costs a call through `Registry.invoke`.

    python benchmarks/bench_call_rules.py [--rounds R] [--number N]

Times `reg.invoke(name, args, principal=model)` of a small compute tool (examples/
shipping_cost.json, in a registry of its own) with the policy's call rules:

  * none (the default policy);
  * three rules present that do not match this call (`risk=high`, `capability=network`,
    `principal=service`): the check runs every rule, the capability rule looks up what the
    tool uses (its compiled form, kept by the store);
  * one rule that matches (`principal=model`): the call is kept for approval instead of run
    (a file written per call, durably: what holding a call costs, not a run).

Rounds alternate the cases; the table gives the best and the median microseconds per call and
the ratio of each best to the best without rules. Run it with an older toolkiln on PYTHONPATH
to time the same call before the check existed (rows it cannot express say so).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import timeit
from dataclasses import replace
from pathlib import Path

from toolkiln import Registry
from toolkiln.registry.index import STATE_DIR_ENV
from toolkiln.registry.principals import Principal

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shipping_cost.json"
ARGS = {"weight_kg": 12.5}
MODEL = Principal("model", "agent", "run", via="token agent")
NOT_MATCHING = ("risk=high", "capability=network", "principal=service")


def policies(reg: Registry) -> dict[str, object]:
    """The policies timed, by name: those this toolkiln can express."""
    found: dict[str, object] = {"no call rules": reg.policy}
    try:
        from toolkiln.registry.call_rules import CallRule
    except ImportError:  # a toolkiln from before approval of each call
        return found
    rules = tuple(CallRule.parse(text) for text in NOT_MATCHING)
    found["3 call rules, none matching"] = replace(reg.policy, call_rules=rules)  # type: ignore[type-var]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--number", type=int, default=20_000, help="calls per timing")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="toolkiln-bench-calls-"))
    os.environ.setdefault(STATE_DIR_ENV, str(base / "state"))
    try:
        rows = measure(base, args.rounds, args.number)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{datetime.date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}")
    print()
    print("| case | best us/call | median us/call | best vs no rules |")
    print("|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def measure(base: Path, rounds: int, number: int) -> list[tuple[str, str, str, str]]:
    definition = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    args = ARGS
    with Registry(base / "reg") as reg:
        reg.create(definition)
        name = definition["name"]
        cases = policies(reg)
        times: dict[str, list[float]] = {case: [] for case in cases}
        for round_number in range(rounds):
            order = list(cases)[round_number % len(cases) :] + list(cases)[: round_number % len(cases)]
            for case in order:
                reg.policy = cases[case]  # type: ignore[assignment]
                assert reg.invoke(name, args, principal=MODEL).ok
                seconds = timeit.timeit(lambda: reg.invoke(name, args, principal=MODEL), number=number)
                times[case].append(seconds / number * 1e6)
        rows = _rows(times)
        held = _held_cost(reg, name, args)
    return rows + ([held] if held else [])


def _rows(times: dict[str, list[float]]) -> list[tuple[str, str, str, str]]:
    reference = min(times["no call rules"])
    return [
        (case, f"{min(found):.2f}", f"{statistics.median(found):.2f}", f"{min(found) / reference:.3f}x")
        for case, found in times.items()
    ]


def _held_cost(reg: Registry, name: str, args: dict) -> tuple[str, str, str, str] | None:
    """A call kept for approval (200 of them, each a durable file)."""
    try:
        from toolkiln.registry.call_rules import CallRule
    except ImportError:
        return None
    rule = (CallRule.parse("principal=model"),)
    # (a caller may keep 100 calls waiting by default, R0735: the 601 held here need more)
    reg.policy = replace(reg.policy, call_rules=rule, max_pending_calls=1000)  # type: ignore[type-var]
    found = [timeit.timeit(lambda: reg.invoke(name, args, principal=MODEL), number=200) / 200 * 1e6 for _ in range(3)]
    assert reg.invoke(name, args, principal=MODEL).pending
    return ("1 rule matching: the call kept (durable file)", f"{min(found):.0f}", f"{statistics.median(found):.0f}", "")


if __name__ == "__main__":
    sys.exit(main())
