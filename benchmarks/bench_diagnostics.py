"""How well diagnostics serve a model or a pipeline on realistic broken model output.

For every program in tests/corpus/broken_model_output (what models write: JavaScript and
Python habits, typos, templates of other languages), it checks the program and then applies
the certain fixes the way `toolkiln check --fix` does (a round, then a new check, at most 20
rounds), and reports:

- hint:  the first check gives a diagnostic with a hint that names the toolkiln spelling;
- fixed: the fixes alone, with no model, turn it into a program with no error and no
         warning of the hints group (W0120-W0139) left.

    PYTHONPATH=src python benchmarks/bench_diagnostics.py [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import toolkiln

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "broken_model_output"
ROUNDS = 20


def is_hint_warning(diagnostic: toolkiln.Diagnostic) -> bool:
    return diagnostic.code.startswith("W01") and "W0120" <= diagnostic.code <= "W0139"


def outcome(text: str) -> dict[str, object]:
    """What checking and fixing `text` gives: its first diagnostics, whether they hint,
    how many fixes were applied, and whether the result checks."""
    first = toolkiln.check(text)
    problems = [d for d in first if d.is_error or is_hint_warning(d)]
    applied = 0
    diagnostics = first
    for _ in range(ROUNDS):
        fixed = toolkiln.apply_fixes(text, diagnostics)
        if fixed == text:
            break
        applied += 1
        text, diagnostics = fixed, toolkiln.check(fixed)
    left = [d for d in diagnostics if d.is_error or is_hint_warning(d)]
    return {
        "codes": sorted({d.code for d in problems}),
        "hint": any(d.hint for d in problems),
        "fix": any(d.fix is not None for d in problems),
        "rounds": applied,
        "fixed": bool(problems) and not left,
        "left": sorted({d.code for d in left}),
    }


def measure() -> dict[str, dict[str, object]]:
    return {path.name: outcome(path.read_text(encoding="utf-8")) for path in sorted(CORPUS.iterdir())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print each program's outcome as JSON")
    args = parser.parse_args()
    start = time.perf_counter()
    results = measure()
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    total = len(results)
    broken = sum(bool(r["codes"]) for r in results.values())
    hinted = sum(bool(r["hint"]) for r in results.values())
    fixed = sum(bool(r["fixed"]) for r in results.values())
    print(f"# {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, {platform.machine()}, {seconds:.1f} s")
    print()
    print("| program | first codes | hint | certain fix | checks after the fixes | rounds |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, r in results.items():
        codes = ", ".join(r["codes"]) or "-"  # type: ignore[arg-type]
        yes = {True: "yes", False: "no"}
        print(f"| {name} | {codes} | {yes[r['hint']]} | {yes[r['fix']]} | {yes[r['fixed']]} | {r['rounds']} |")  # type: ignore[index]
    print()
    print(
        f"{total} programs, {broken} reported: {hinted} with a hint ({hinted / total:.0%}), "
        f"{fixed} fixed without a model ({fixed / total:.0%})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
