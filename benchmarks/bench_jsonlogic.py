"""The JsonLogic community suites through `toolkiln.import_jsonlogic`: passes per file, in
both number modes, and the time to import and run every case.

    python benchmarks/bench_jsonlogic.py

Reads ../shared/corpus/jsonlogic beside the repository (as the tests do; never copied).
Columns: the file, its cases, passes with exact decimals, passes with floats.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "jsonlogic"))

from jsonlogic_suites import SUITES, all_cases, outcome  # the tests' own reader


def main() -> None:
    if not SUITES.is_dir():
        sys.exit(f"the JsonLogic suites are not at {SUITES}")
    cases = all_cases()
    totals: Counter[str] = Counter(case.file for case in cases)
    passes: dict[str, Counter[str]] = {"exact": Counter(), "float": Counter()}
    seconds = {}
    for numbers, passed in passes.items():
        started = time.perf_counter()
        for case in cases:
            passed[case.file] += outcome(case, numbers)[0]
        seconds[numbers] = time.perf_counter() - started
    print(f"{'file':<45} {'cases':>6} {'exact':>6} {'float':>6}")
    for file, count in totals.items():
        print(f"{file:<45} {count:>6} {passes['exact'][file]:>6} {passes['float'][file]:>6}")
    exact, floats = sum(passes["exact"].values()), sum(passes["float"].values())
    print(f"{'all':<45} {len(cases):>6} {exact:>6} {floats:>6}")
    for numbers, taken in seconds.items():
        each = taken / len(cases) * 1e3
        print(f"{numbers}: imported and ran {len(cases):,} cases in {taken:.2f} s ({each:.2f} ms a case)")


if __name__ == "__main__":
    main()
