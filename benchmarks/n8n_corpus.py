"""Real n8n exports through toolkiln: import, JSON round trip, DSL text round trip, lint.

    python benchmarks/n8n_corpus.py DIR [DIR ...] [--limit N] [--failures FILE]

Walks the folders for *.json files shaped like an n8n workflow (an object with `nodes` and
`connections`, or a list of such objects) and prints one table of outcomes:

- import:      `toolkiln.import_n8n` accepts the document (a CompileError counts as refused;
               any other exception is a crash, a bug in toolkiln);
- JSON trip:   `imported.to_n8n()` equals the document exactly;
- text trip:   `compile_workflow(imported.to_text()).to_n8n()` equals `imported.to_n8n()`;
- lint:        findings per code (`check_workflow` on the document).

Public workflow collections (for example Zie619/n8n-workflows and
enescingoz/awesome-n8n-templates) are the intended input; nothing here downloads them.
`--failures FILE` writes one JSON line per file that did not pass a stage, with the reason.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

import toolkiln
from toolkiln.workflow import check_workflow, compile_workflow


def workflows_in(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The workflow-shaped documents in one file (none if it is not JSON or not a workflow)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return []
    items = data if isinstance(data, list) else [data]
    found = []
    for index, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("nodes"), list) and "connections" in item:
            found.append((f"{path}" + (f"[{index}]" if isinstance(data, list) else ""), item))
    return found


def run_one(
    name: str,
    document: dict[str, Any],
    stats: collections.Counter,
    codes: collections.Counter,
    failures: list[dict[str, Any]],
    timings: dict[str, float],
) -> None:
    def fail(stage: str, reason: str) -> None:
        stats[f"{stage} failed"] += 1
        failures.append({"file": name, "stage": stage, "reason": reason[:300]})

    stats["workflows"] += 1
    started = time.perf_counter()
    try:
        imported = toolkiln.import_n8n(document)
    except toolkiln.CompileError as error:
        first = error.diagnostics[0] if error.diagnostics else None
        fail("import", f"{first.code}: {first.message}" if first else "CompileError")
        return
    except Exception as error:  # noqa: BLE001 - a crash is what this script counts
        stats["crashes"] += 1
        failures.append({"file": name, "stage": "crash", "reason": f"{type(error).__name__}: {error}"[:300]})
        return
    finally:
        timings["import"] += time.perf_counter() - started
    stats["imported"] += 1
    emitted = imported.to_n8n()
    if emitted == document:
        stats["json trip"] += 1
    else:
        fail("json trip", first_difference(document, emitted))
    started = time.perf_counter()
    try:
        again = compile_workflow(imported.to_text(), max_source_chars=1 << 26).to_n8n()
    except toolkiln.CompileError as error:
        first = error.diagnostics[0] if error.diagnostics else None
        fail("text trip", f"{first.code}: {first.message}" if first else "CompileError")
    except Exception as error:  # noqa: BLE001 - a crash is what this script counts
        stats["crashes"] += 1
        failures.append({"file": name, "stage": "crash", "reason": f"{type(error).__name__}: {error}"[:300]})
    else:
        if again == emitted:
            stats["text trip"] += 1
        else:
            fail("text trip", "compiled text differs: " + first_difference(emitted, again))
    finally:
        timings["text trip"] += time.perf_counter() - started
    started = time.perf_counter()
    for diagnostic in check_workflow(document):
        codes[diagnostic.code] += 1
    timings["lint"] += time.perf_counter() - started


def first_difference(expected: Any, actual: Any, path: str = "") -> str:
    """Where two JSON values first differ, as a path."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual:
                return f"{path}.{key} missing"
            if key not in expected:
                return f"{path}.{key} added"
            if expected[key] != actual[key]:
                return first_difference(expected[key], actual[key], f"{path}.{key}")
        return f"{path} key order"
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path} has {len(actual)} items, not {len(expected)}"
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            if a != b:
                return first_difference(a, b, f"{path}[{index}]")
    return f"{path}: {json.dumps(expected)[:80]} -> {json.dumps(actual)[:80]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="stop after N workflows (0: all)")
    parser.add_argument("--failures", type=Path, help="write the failures as JSON lines here")
    args = parser.parse_args()
    stats: collections.Counter = collections.Counter()
    codes: collections.Counter = collections.Counter()
    failures: list[dict[str, Any]] = []
    timings: dict[str, float] = collections.defaultdict(float)
    files = sorted(p for folder in args.folders for p in folder.rglob("*.json") if p.is_file())
    for path in files:
        stats["json files"] += 1
        for name, document in workflows_in(path):
            run_one(name, document, stats, codes, failures, timings)
            if args.limit and stats["workflows"] >= args.limit:
                break
        if args.limit and stats["workflows"] >= args.limit:
            break
    total = stats["workflows"] or 1
    imported = stats["imported"] or 1
    print(f"toolkiln {toolkiln.__version__} n8n corpus - {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{stats['json files']:,} JSON files, {stats['workflows']:,} workflow-shaped documents\n")
    print("| stage | passed | of | % |")
    print("|---|---:|---:|---:|")
    print(f"| import | {stats['imported']:,} | {total:,} | {100 * stats['imported'] / total:.1f} |")
    print(f"| JSON round trip | {stats['json trip']:,} | {imported:,} | {100 * stats['json trip'] / imported:.1f} |")
    print(f"| text round trip | {stats['text trip']:,} | {imported:,} | {100 * stats['text trip'] / imported:.1f} |")
    print(f"| crashes | {stats['crashes']:,} | {total:,} | |")
    print("\n| lint code | findings |\n|---|---:|")
    for code, count in sorted(codes.items()):
        print(f"| {code} | {count:,} |")
    print("\n| stage | seconds |\n|---|---:|")
    for stage, seconds in timings.items():
        print(f"| {stage} | {seconds:.1f} |")
    reasons = collections.Counter((f["stage"], f["reason"].split(":")[0]) for f in failures)
    print("\n| failed stage | first reason | files |\n|---|---|---:|")
    for (stage, reason), count in reasons.most_common(15):
        print(f"| {stage} | {reason[:70]} | {count:,} |")
    if args.failures:
        args.failures.write_text("".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
