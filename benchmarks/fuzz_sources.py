"""A long fuzz run of the public entry points, for outside CI: N generated hostile sources (deep
nesting, long literals, odd Python types, random bytes and text, JSON-ish documents, mutated
examples) through check, to_text, to_json, compile (and run of what compiles),
check_workflow and compile_workflow; with --n8n, N mutated n8n exports (the test fixtures'
editor exports, their values replaced, deleted, nested or duplicated, as dicts or as JSON text
with characters changed) through import_n8n, the imported workflow's text and JSON,
compile_workflow of that text, and check_workflow. Anything that escapes other than a
toolkiln.Error, or a CompileError without diagnostics, is a failure; the report gives the
inputs tried and each distinct failure (exception type, where it was raised, a shortened
reproducer).

    python benchmarks/fuzz_sources.py [--count N] [--seed S] [--show K] [--n8n]

The default is 200,000 sources (hours on a 2-core machine); tests/property/
test_no_foreign_exceptions.py runs a few hundred of each kind in CI.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
import traceback
from decimal import Decimal
from pathlib import Path
from typing import Any

import toolkiln
from toolkiln.syntax.json_data import walk_json

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXPORTS = Path(__file__).resolve().parents[1] / "tests" / "unit" / "workflow" / "fixtures"
OPS = ["math", "condition", "return", "lookup", "format", "call", "if", "", "set"]
KEYS = ["name", "description", "parameters", "logic", "steps", "op", "expression", "output", "value", "if"]
KEYS += ["then", "else", "type", "items", "default", "tables", "risk", "table", "key", "tool", "args"]
ALPHABET = "tool()[]{}=+-*/%<>!\"'#\\\n\t ,.:;0123456789abcdefgiflnrstuxyz_\u00e9\ud800\x00"


class Fuzzer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.texts = [p.read_text() for p in sorted(EXAMPLES.glob("*.tk")) + sorted(EXAMPLES.glob("*.json"))]
        self.exports = [json.loads(p.read_text()) for p in sorted(EXPORTS.glob("*.json"))]

    def scalar(self) -> Any:
        r = self.rng
        return r.choice(
            [
                None,
                True,
                r.randint(-(10**40), 10**40),
                r.random() * 10 ** r.randint(-300, 300),
                float("nan"),
                Decimal("1e999999"),
                "".join(r.choice(ALPHABET) for _ in range(r.randint(0, 20))),
                r.choice(OPS),
                r.choice(["a", "weight_kg * 2", "1 +", "[[[", "x if y else z", "#"]),
            ]
        )

    def odd(self) -> Any:
        return self.rng.choice([b"x", (1, 2), frozenset({1}), object(), 1 + 2j, 1e400, print, Ellipsis])

    def value(self, depth: int = 0, python: bool = False) -> Any:
        r = self.rng
        roll = r.random()
        if depth > 4 or roll < 0.45:
            return self.odd() if python and roll < 0.05 else self.scalar()
        if roll < 0.7:
            return [self.value(depth + 1, python) for _ in range(r.randint(0, 4))]
        keys: list[Any] = [r.choice(KEYS) for _ in range(r.randint(0, 5))]
        if python and r.random() < 0.2:
            keys.append(r.choice([1, None, (1,), 2.5]))
        return {k: self.value(depth + 1, python) for k in keys}

    def nested(self) -> Any:
        depth = self.rng.choice([150, 199, 200, 201, 250, 330, 490, 985, 5_000])
        value: Any = "1"
        kind = self.rng.choice(["list", "condition", "items"])
        for _ in range(depth):
            if kind == "list":
                value = [value]
            elif kind == "condition":
                value = {"op": "condition", "if": "true", "then": [value]}
            else:
                value = {"type": "array", "items": value if isinstance(value, dict) else {"type": "number"}}
        return value

    def tool_doc(self, python: bool = False) -> dict[str, Any]:
        r = self.rng
        inner = self.nested() if r.random() < 0.1 else self.value(python=python)
        step: dict[Any, Any] = {"op": r.choice(OPS) if r.random() < 0.8 else inner}
        for _ in range(r.randint(0, 3)):
            step[r.choice(KEYS)] = self.value(python=python) if r.random() < 0.8 else inner
        param = r.choice([{"type": "number"}, {"type": "array", "default": inner}, inner])
        return {
            "name": r.choice(["t", inner]),
            "description": "d",
            "parameters": {"a": param},
            "logic": {"steps": [step, {"op": "return", "value": r.choice(["1", "a", inner])}]},
        }

    def n8n_export(self) -> Any:
        """A fixture export with 1-6 of its values replaced, deleted, nested or duplicated."""
        r = self.rng
        export = copy.deepcopy(r.choice(self.exports))
        for _ in range(r.randint(1, 6)):
            containers = [v for v, _, _ in walk_json(export) if isinstance(v, (dict, list)) and v]
            target = r.choice(containers)
            key = r.choice(list(target)) if isinstance(target, dict) else r.randrange(len(target))
            action = r.random()
            if action < 0.5:
                target[key] = self.nested() if r.random() < 0.05 else self.value(python=r.random() < 0.2)
            elif action < 0.7:
                del target[key]
            elif action < 0.85:
                target[key] = [target[key]] if r.random() < 0.5 else {"a": target[key]}
            elif isinstance(target, list):
                target.append(copy.copy(target[key]))  # a second node of the same name, say
        if r.random() < 0.5:
            return export
        try:
            return self.mutated_text(json.dumps(export, default=str))
        except (RecursionError, ValueError, TypeError):  # too deep, or a key JSON cannot write
            return "{}"

    def mutated_text(self, text: str | None = None) -> str:
        r = self.rng
        chars = list(text if text is not None else r.choice(self.texts))
        for _ in range(r.randint(1, 8)):
            at = r.randrange(len(chars) + 1)
            action = r.random()
            if action < 0.4 and chars:
                del chars[min(at, len(chars) - 1)]
            elif action < 0.8:
                chars.insert(at, r.choice(ALPHABET))
            else:
                chars.insert(at, r.choice(["(", "[", "-", "not ", "{"]) * r.randint(1, 2_000))
        return "".join(chars)

    def source(self) -> Any:
        r = self.rng
        kind = r.randrange(9)
        if kind == 0:
            return "".join(r.choice(ALPHABET) for _ in range(r.randint(0, 300)))
        if kind == 1:
            return bytes(r.randrange(256) for _ in range(r.randint(0, 200)))
        if kind == 2:
            return self.mutated_text()
        if kind == 3:
            return self.tool_doc()
        if kind == 4:
            return self.tool_doc(python=True)
        if kind == 5:
            try:
                return json.dumps(self.tool_doc(), default=str)
            except (RecursionError, ValueError):
                return "{}"
        if kind == 6:
            return self.value(python=True)
        if kind == 7 and r.random() < 0.05:  # dear (seconds each): rare
            size = r.choice([1_000, 10_001, 50_000])
            return 'tool t()\ndescription "d"\n{\n  return [' + ", ".join("1" for _ in range(size)) + "]\n}\n"
        return self.odd() if kind == 8 else self.mutated_text()


def _caller(failures: list[tuple[str, BaseException]]) -> Any:
    """`call(name, fn, *args)`: fn's value, or None with what it raised recorded in `failures`
    unless that is a toolkiln.Error (a CompileError with diagnostics)."""

    def call(name: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except toolkiln.CompileError as error:
            if not error.diagnostics:
                failures.append((name, error))
        except toolkiln.Error:
            pass
        except Exception as error:  # noqa: BLE001 - what this script looks for
            failures.append((name, error))
        return None

    return call


def attempt(source: Any) -> list[tuple[str, BaseException]]:
    """Every entry point on `source`: the (entry point, exception) pairs that should not be."""
    failures: list[tuple[str, BaseException]] = []
    call = _caller(failures)
    call("check", toolkiln.check, source)
    call("to_text", toolkiln.to_text, source)
    call("to_json", toolkiln.to_json, source)
    tool = call("compile", toolkiln.compile, source)
    if tool is not None:
        for args in ({}, {"a": 1}, {"a": [1, "x"]}, {"a": None}):
            call("run", tool.run, args)
    call("check_workflow", toolkiln.check_workflow, source)
    call("compile_workflow", toolkiln.compile_workflow, source)
    return failures


def attempt_n8n(source: Any) -> list[tuple[str, BaseException]]:
    """The n8n entry points on `source`: the (entry point, exception) pairs that should not be."""
    failures: list[tuple[str, BaseException]] = []
    call = _caller(failures)
    imported = call("import_n8n", toolkiln.import_n8n, source)
    if imported is not None:
        text = call("to_text", imported.to_text)
        call("to_n8n", imported.to_n8n)
        if text is not None:
            call("compile_workflow", toolkiln.compile_workflow, text)
    call("check_workflow", toolkiln.check_workflow, source)
    return failures


def shorten(source: Any, limit: int = 160) -> str:
    try:
        text = repr(source)
    except (RecursionError, ValueError):
        text = f"<{type(source).__name__} too deep to repr>"
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text):,} chars)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200_000, help="sources to try (default 200,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=20, help="distinct failures to print (default 20)")
    parser.add_argument("--n8n", action="store_true", help="mutated n8n exports through the n8n entry points")
    args = parser.parse_args()
    fuzzer = Fuzzer(args.seed)
    found: dict[tuple[str, str, str], tuple[int, str]] = {}
    failures = 0
    start = time.monotonic()
    for tried in range(1, args.count + 1):
        source = fuzzer.n8n_export() if args.n8n else fuzzer.source()
        for entry, error in (attempt_n8n if args.n8n else attempt)(source):
            failures += 1
            frame = traceback.extract_tb(error.__traceback__)[-1:] or [None]
            where = f"{Path(frame[0].filename).name}:{frame[0].lineno}" if frame[0] else "?"
            key = (entry, type(error).__name__, where)
            count, reproducer = found.get(key, (0, shorten(source)))
            if not count:  # a long run shows each new failure as it finds it
                print(f"new failure at {tried:,}: {entry}: {key[1]} at {where}; e.g. {reproducer}", file=sys.stderr)
            found[key] = (count + 1, reproducer)
        if tried % 10_000 == 0:
            print(f"{tried:,} tried, {failures:,} failures, {time.monotonic() - start:,.0f} s", file=sys.stderr)
    what = "n8n exports" if args.n8n else "inputs"
    print(f"{what} tried: {args.count:,} in {time.monotonic() - start:,.0f} s (seed {args.seed})")
    print(f"failures: {failures:,} ({len(found)} distinct: entry point, exception, where raised)")
    for (entry, kind, where), (count, reproducer) in sorted(found.items(), key=lambda x: -x[1][0])[: args.show]:
        print(f"- {entry}: {kind} at {where}, {count:,} times; e.g. {reproducer}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
