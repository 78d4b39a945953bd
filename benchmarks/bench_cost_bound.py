"""How tight the static cost bound is: for each run of the shipped examples (several sizes
each) and of the corpus (the JsonLogic suites, Kitz's ComputeLogic), the operations the
interpreter charged against the bound at the run's sizes (measured / bound: 1 is exact; the bound must never be below).

    python benchmarks/bench_cost_bound.py

Reads ../shared/corpus/jsonlogic beside the repository (as the tests do; never copied).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "check"))

from cost_cases import Run, corpus_runs, example_runs, operations  # the tests' own runs

from toolkiln.check.cost import cost_bound


def ratios(runs: list[Run]) -> tuple[list[float], int, float]:
    """measured/bound per run, how many runs the bound missed, and ms to derive a bound."""
    found, missed, taken = [], 0, 0.0
    for run in runs:
        started = time.perf_counter()
        bound = cost_bound(run.tool.program, run.tool.checked, callees=run.tool.tools.get)
        taken += time.perf_counter() - started
        measured, allowed = operations(run.tool, run.args, run.tables), bound.at(run.args, run.tables)
        missed += measured > allowed
        found.append(measured / allowed)
    return found, missed, taken / max(len(runs), 1) * 1e3


def main() -> None:
    print(f"{'runs of':<26} {'runs':>5} {'over':>5} {'min':>7} {'median':>7} {'max':>7} {'exact':>6} {'ms/bound':>9}")
    sets = (("the shipped examples", list(example_runs())), ("the corpus (JsonLogic, Kitz)", list(corpus_runs())))
    for label, runs in sets:
        found, missed, ms = ratios(runs)
        exact = sum(1 for ratio in found if ratio == 1)
        low, middle, high = min(found), statistics.median(found), max(found)
        print(f"{label:<26} {len(runs):>5} {missed:>5} {low:>7.4f} {middle:>7.3f} {high:>7.3f} {exact:>6} {ms:>9.3f}")
    print("\nper example (measured / bound at the largest size):")
    largest: dict[str, Run] = {}
    for run in example_runs():
        largest[run.id.split("@")[0]] = run
    for name, run in largest.items():
        bound = cost_bound(run.tool.program, run.tool.checked)
        measured = operations(run.tool, run.args, run.tables)
        print(f"  {name:<24} {measured:>7} / {bound.at(run.args, run.tables):>7}   {bound}")


if __name__ == "__main__":
    main()
