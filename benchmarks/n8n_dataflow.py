"""The data-flow check (W0733, E0734, E0735) on real n8n exports: findings per code, and a
fixed sample of them to judge by hand (docs/workflow-import.md#data-flow has the judgement).

    python benchmarks/n8n_dataflow.py ../shared/corpus/n8n/public-4549.tar.xz [--sample 10] [--seed 26] \
        [--text] [--all-codes]

Walks the folders (a tarball is extracted into a temporary folder first) for n8n workflow
exports, lints each with the default node catalog and prints the data-flow findings per code,
the files they are in, the lint time per MB, and `--sample` findings per code (chosen with
`--seed`), each with its file, JSON path, message and the expression it is about. `--text`
also imports each export, checks its DSL text (`toolkiln check x.wf`: the check runs on the
JSON the text compiles to) and prints its findings per code beside the JSON's, with the
check's time per MB of text; `--all-codes` (with `--text`) also prints every code that check
reports, errors and warnings, to compare two versions of toolkiln (a new check must add no
error on exports that declare nothing).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from n8n_corpus import json_files, workflows_in

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.workflow import check_workflow

CODES = ("W0733", "E0734", "E0735")


def value_at(document: dict[str, Any], path: str) -> Any:
    """The JSON value at a path such as `nodes[3].parameters.url` (None when it is not there)."""
    value: Any = document
    for key, index in ((part.split("[", 1)[0], part[part.find("[") :]) for part in path.split(".")):
        value = value.get(key) if key and isinstance(value, dict) else value
        for number in filter(None, index.strip("[]").split("][")) if "[" in index else ():
            value = value[int(number)] if isinstance(value, list) and int(number) < len(value) else None
    return value


class TextCheck:
    """The data-flow findings of the DSL text of each export, and what checking it took."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.every_code: collections.Counter[str] = collections.Counter()
        self.seconds = 0.0
        self.characters = 0
        self.without_text = 0

    def add(self, document: dict[str, Any]) -> None:
        try:
            text = toolkiln.import_n8n(document).to_text()
        except CompileError:
            self.without_text += 1  # refused, or no text form (two nodes of one name)
            return
        started = time.perf_counter()
        diagnostics = check_workflow(text, max_source_chars=1 << 26)
        self.seconds += time.perf_counter() - started
        self.characters += len(text)
        self.counts.update(d.code for d in diagnostics if d.code in CODES)
        self.every_code.update(d.code for d in diagnostics)

    def report(self, json_counts: collections.Counter[str]) -> None:
        per_mb = self.seconds / (self.characters / 1e6) if self.characters else 0.0
        print(f"\nDSL text ({self.characters / 1e6:.1f} M characters, {self.without_text} without text): ", end="")
        print(f"check {per_mb:.2f} s per MB\n\n| code | JSON lint | .wf text check |\n|---|---:|---:|")
        for code in CODES:
            print(f"| {code} | {json_counts[code]:,} | {self.counts[code]:,} |")

    def report_every_code(self) -> None:
        print("\nEvery code the .wf text check reports:\n\n| code | findings |\n|---|---:|")
        for code, count in sorted(self.every_code.items()):
            print(f"| {code} | {count:,} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--sample", type=int, default=10, help="findings per code to print for judging")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--text", action="store_true", help="check each export's DSL text too")
    parser.add_argument("--all-codes", action="store_true", help="with --text: print every code its check reports")
    args = parser.parse_args()
    texts = TextCheck() if args.text else None
    findings: list[tuple[str, str, str, str, Any]] = []
    workflows = 0
    size = 0
    seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="toolkiln-dataflow-") as scratch:
        for path in json_files(args.inputs, Path(scratch)):
            size += path.stat().st_size
            for name, document in workflows_in(path):
                workflows += 1
                started = time.perf_counter()
                diagnostics = check_workflow(document)
                seconds += time.perf_counter() - started
                for d in diagnostics:
                    if d.code in CODES and d.span is not None and d.span.path:
                        value = value_at(document, d.span.path)
                        findings.append((d.code, Path(name).name, d.span.path, d.message, value))
                if texts is not None:
                    texts.add(document)
    counts = collections.Counter(code for code, *_ in findings)
    files = {code: len({file for c, file, *_ in findings if c == code}) for code in CODES}
    per_mb = seconds / (size / 1e6)
    print(f"{workflows:,} workflows ({size / 1e6:.1f} MB); lint with the data-flow check: {per_mb:.2f} s per MB\n")
    print("| code | findings | files |\n|---|---:|---:|")
    for code in CODES:
        print(f"| {code} | {counts[code]:,} | {files[code]:,} |")
    if texts is not None:
        texts.report(counts)
        if args.all_codes:
            texts.report_every_code()
    chooser = random.Random(args.seed)
    for code in CODES:
        chosen = [f for f in findings if f[0] == code]
        print(f"\n## {code}: {min(args.sample, len(chosen))} of {len(chosen)}\n")
        sample = chooser.sample(chosen, min(args.sample, len(chosen)))
        for number, (_, file, path, message, value) in enumerate(sample, 1):
            print(f"{code}-{number}. {file} {path}\n    {message}\n    value: {json.dumps(value)[:240]}")


if __name__ == "__main__":
    main()
