"""How well diagnostics serve a model or a pipeline on realistic broken model output.

For every program in tests/corpus/broken_model_output (what models write: JavaScript and
Python habits, typos, templates of other languages), it checks the program and then applies
the certain fixes the way `toolkiln check --fix` does (a round, then a new check, at most 20
rounds), and reports:

- hint:  the first check gives a diagnostic with a hint that names the toolkiln spelling;
- fixed: the fixes alone, with no model, turn it into a program with no error and no
         warning of the hints group (W0120-W0139) left.

Then the same for the repair corpus (tests/corpus/repairs/cases.json: whole definitions in
both syntaxes, issue 33), by mistake; and, for its JSON definitions, the model calls the
factory makes when a scripted model repeats its mistake on every attempt, without the
certain fixes (before) and with them (after), side by side.

    PYTHONPATH=src python benchmarks/bench_diagnostics.py [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import toolkiln

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "broken_model_output"
REPAIRS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "repairs" / "cases.json"
ROUNDS = 20
ATTEMPTS = 3  # the factory's default
# Arguments of the examples a scripted model writes: each case's tool has a, b (numbers), s.
EXAMPLE_ARGS = ((120, 3, "x"), (5, 2, ""), (50, 60, "north"))


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


def repair_corpus() -> list[dict[str, object]]:
    cases = json.loads(REPAIRS.read_text(encoding="utf-8"))["cases"]
    return [{"name": case["name"], "syntax": case["syntax"], **outcome(case["broken"])} for case in cases]


def with_examples(definition_text: str, fixed_text: str | None) -> str:
    """The definition as a model's reply with three examples, their results those of the
    program the fixes give (0 where none does: the model repeats itself and never passes)."""
    definition = json.loads(definition_text)
    names = list(definition["parameters"])
    examples = []
    for values in EXAMPLE_ARGS:
        args = dict(zip(names, values, strict=True))
        expect = toolkiln.compile(fixed_text).run(args) if fixed_text is not None else 0
        examples.append({"args": args, "expect": expect})
    definition["examples"] = examples
    return "```json\n" + json.dumps(definition, indent=2, default=_number) + "\n```"


def _number(value: object) -> int | float:
    """A result's exact number as JSON writes it."""
    number = float(str(value))
    return int(number) if number.is_integer() else number


def factory_calls(fixes: bool) -> tuple[int, int, int]:
    """(tools, saved, model calls) of the factory on the corpus's JSON definitions, each
    reply repeated on every attempt; `fixes` False: as the factory was before issue 33."""
    import tempfile
    from unittest import mock

    from toolkiln.llm import ScriptedClient, factory

    cases = [c for c in json.loads(REPAIRS.read_text(encoding="utf-8"))["cases"] if c["syntax"] == "json"]
    saved = calls = 0
    unfixed = mock.patch.object(factory, "_with_certain_fixes", lambda found: (found, ""))
    with tempfile.TemporaryDirectory() as folder, unfixed if not fixes else nullcontext():
        registry = toolkiln.Registry(Path(folder) / "reg", durable=False)
        for case in cases:
            reply = with_examples(case["broken"], case["fixed"])
            client = ScriptedClient([reply] * ATTEMPTS)
            result = factory.Factory(client, registry, max_attempts=ATTEMPTS).create_compute("a tool")
            saved += bool(result.ok)
            calls += len(client.requests)
            if result.ok:
                registry.delete(json.loads(case["broken"])["name"])
    return len(cases), saved, calls


def print_repairs(rows: list[dict[str, object]]) -> None:
    by_mistake: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_mistake.setdefault(str(row["name"]).split("/")[0], []).append(row)
    print("| mistake | syntax | cases | flagged | hinted | clean after the certain fixes |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mistake, group in by_mistake.items():
        counts = [sum(bool(r[key]) for r in group) for key in ("codes", "hint", "fixed")]
        print(f"| {mistake} | {group[0]['syntax']} | {len(group)} | " + " | ".join(map(str, counts)) + " |")
    total = len(rows)
    flagged, hinted, fixed = (sum(bool(r[key]) for r in rows) for key in ("codes", "hint", "fixed"))
    print()
    share = f"{fixed / total:.0%}"
    print(f"{total} cases: {flagged} flagged, {hinted} hinted, {fixed} clean after the certain fixes alone ({share})")


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
    print()
    rows = repair_corpus()
    print_repairs(rows)
    both, cases = fixed + sum(bool(r["fixed"]) for r in rows), total + len(rows)
    print(f"both corpora: {both} of {cases} clean after the certain fixes alone ({both / cases:.0%})")
    print()
    print(f"The factory on the corpus's JSON definitions, a model repeating its mistake ({ATTEMPTS} attempts):")
    print()
    print("| | tools | saved | model calls | calls per tool |")
    print("| --- | --- | --- | --- | --- |")
    for label, fixes in (("before: no certain fixes", False), ("after: certain fixes first", True)):
        tools, saved, calls = factory_calls(fixes)
        print(f"| {label} | {tools} | {saved} | {calls} | {calls / tools:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
