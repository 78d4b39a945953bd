"""Real n8n exports through toolkiln: import, JSON round trip, DSL text round trip, lint.

    python benchmarks/n8n_corpus.py DIR_OR_TARBALL [...] [--limit N] [--failures FILE] [--n8n-version V ...]
    python benchmarks/n8n_corpus.py ../shared/corpus/n8n/public-4549.tar.xz    # issue 26's table

A `.tar.xz` (or any tarball) is extracted into a temporary folder first (data files only; the
folder is removed at the end). Walks the folders for *.json files shaped like an n8n workflow
(an object with `nodes` and `connections`, or a list of such objects) and prints one table of
outcomes:

- import:      `toolkiln.import_n8n` accepts the document (a CompileError counts as refused;
               any other exception is a crash, a bug in toolkiln);
- JSON trip:   `imported.to_n8n()` equals the document exactly;
- text trip:   `compile_workflow(imported.to_text()).to_n8n()` equals `imported.to_n8n()`;
- lint:        findings per code (`check_workflow` on the document), once per node catalog
               (`--n8n-version`, repeatable; default: 2.41.1, the n8n the tests run, and
               1.123.50), one column each.

Public workflow collections (for example Zie619/n8n-workflows and
enescingoz/awesome-n8n-templates) are the intended input; nothing here downloads them.
`--failures FILE` writes one JSON line per file that did not pass a stage, with the reason.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import toolkiln
from toolkiln.backends.n8n.catalog import DEFAULT_N8N_VERSION
from toolkiln.workflow import check_workflow, compile_workflow

CATALOGS = (DEFAULT_N8N_VERSION, "1.123.50")


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
    codes: dict[str, collections.Counter],
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
    for n8n_version, counts in codes.items():
        started = time.perf_counter()
        for diagnostic in check_workflow(document, n8n_version=n8n_version):
            counts[diagnostic.code] += 1
        timings[f"lint ({n8n_version})"] += time.perf_counter() - started


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


def json_files(inputs: list[Path], scratch: Path) -> list[Path]:
    """The *.json files of the folders, and of the tarballs once extracted under `scratch`."""
    files = []
    for index, path in enumerate(inputs):
        if path.is_file() and tarfile.is_tarfile(path):
            folder = scratch / str(index)
            with tarfile.open(path) as archive:
                archive.extractall(folder, filter="data")  # no links out, no devices
            path = folder
        files.extend(p for p in path.rglob("*.json") if p.is_file())
    return sorted(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, help="folders of exports, or tarballs of them")
    parser.add_argument("--limit", type=int, default=0, help="stop after N workflows (0: all)")
    parser.add_argument("--failures", type=Path, help="write the failures as JSON lines here")
    parser.add_argument("--n8n-version", action="append", help=f"a node catalog to lint with (default: {CATALOGS})")
    args = parser.parse_args()
    stats: collections.Counter = collections.Counter()
    codes = {version: collections.Counter() for version in args.n8n_version or CATALOGS}
    failures: list[dict[str, Any]] = []
    timings: dict[str, float] = collections.defaultdict(float)
    with tempfile.TemporaryDirectory(prefix="toolkiln-corpus-") as scratch:
        for path in json_files(args.inputs, Path(scratch)):
            stats["json files"] += 1
            stats["bytes"] += path.stat().st_size
            for name, document in workflows_in(path):
                run_one(name, document, stats, codes, failures, timings)
                if args.limit and stats["workflows"] >= args.limit:
                    break
            if args.limit and stats["workflows"] >= args.limit:
                break
    report(stats, codes, failures, timings)
    if args.failures:
        args.failures.write_text("".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8")
    sys.stdout.flush()


def report(
    stats: collections.Counter,
    codes: dict[str, collections.Counter],
    failures: list[dict[str, Any]],
    timings: dict[str, float],
) -> None:
    total = stats["workflows"] or 1
    imported = stats["imported"] or 1
    megabytes = stats["bytes"] / 1e6
    print(f"toolkiln {toolkiln.__version__} n8n corpus - {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    documents = stats["workflows"]
    print(f"{stats['json files']:,} JSON files ({megabytes:.1f} MB), {documents:,} workflow-shaped documents\n")
    print("| stage | passed | of | % |")
    print("|---|---:|---:|---:|")
    print(f"| import | {stats['imported']:,} | {total:,} | {100 * stats['imported'] / total:.1f} |")
    print(f"| JSON round trip | {stats['json trip']:,} | {imported:,} | {100 * stats['json trip'] / imported:.1f} |")
    print(f"| text round trip | {stats['text trip']:,} | {imported:,} | {100 * stats['text trip'] / imported:.1f} |")
    print(f"| crashes | {stats['crashes']:,} | {total:,} | |")
    versions = list(codes)
    print("\n| lint code | " + " | ".join(f"n8n {v} catalog" for v in versions) + " |")
    print("|---|" + "---:|" * len(versions))
    for code in sorted(set().union(*codes.values())):
        print(f"| {code} | " + " | ".join(f"{codes[v][code]:,}" for v in versions) + " |")
    print("\n| stage | seconds | seconds per MB |\n|---|---:|---:|")
    for stage, seconds in timings.items():
        print(f"| {stage} | {seconds:.1f} | {seconds / megabytes if megabytes else 0:.2f} |")
    reasons = collections.Counter((f["stage"], f["reason"].split(":")[0]) for f in failures)
    print("\n| failed stage | first reason | files |\n|---|---|---:|")
    for (stage, reason), count in reasons.most_common(15):
        print(f"| {stage} | {reason[:70]} | {count:,} |")


if __name__ == "__main__":
    main()
