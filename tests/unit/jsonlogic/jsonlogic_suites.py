"""The JsonLogic community suites, read where they live (../shared/corpus/jsonlogic beside the
repository; never copied into it), and one case run against an imported tool.

Used by test_jsonlogic_suites.py and benchmarks/bench_jsonlogic.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import toolkiln
from toolkiln.errors import CompileError, RunError

SUITES = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "jsonlogic"
# The error types of the suites, and the codes a tool may fail with for each: a rule that
# throws "NaN" itself is the suite's own equivalent of NaN ("or measured equivalent"); an
# object of several keys is no operator that exists. Any other type is a `throw`'s own: E1004
# with that type in the message.
ERROR_CODES = {
    "NaN": ("E1003", "E1004"),
    "Invalid Arguments": ("E1002",),
    "Unknown Operator": ("E1001", "E1005"),
}


@dataclass(frozen=True)
class Case:
    file: str  # relative to SUITES
    index: int  # position in the file, headings included
    description: str
    rule: Any
    data: Any
    result: Any = None
    error: Any = None

    @property
    def id(self) -> str:
        return f"{self.file}#{self.index}"


def suite_files() -> list[str]:
    files = sorted(str(p.relative_to(SUITES)) for p in (SUITES / "engine-suites").rglob("*.json"))
    return [*files, "tests.json"]


def load_cases(file: str) -> Iterator[Case]:
    entries = json.loads((SUITES / file).read_text(encoding="utf-8"), parse_float=Decimal)
    for index, entry in enumerate(entries):
        if isinstance(entry, list):
            rule, data, expected = entry
            yield Case(file, index, json.dumps(rule, default=str)[:60], rule, data, result=expected)
        elif isinstance(entry, dict):
            yield Case(
                file,
                index,
                entry.get("description", ""),
                entry["rule"],
                entry.get("data"),
                result=entry.get("result"),
                error=entry.get("error"),
            )


def all_cases() -> list[Case]:
    return [case for file in suite_files() for case in load_cases(file)]


def outcome(case: Case, numbers: str) -> tuple[bool, str]:
    """Whether the imported tool answers as the suite expects, and what it answered."""
    try:
        tool = toolkiln.import_jsonlogic(case.rule, numbers=numbers)  # type: ignore[arg-type]
        answer = tool.run({"data": case.data})
    except CompileError as error:
        return _failed_as_expected(case, error.diagnostics[0].code, str(error)), f"import: {error}"
    except RunError as error:
        return _failed_as_expected(case, error.code, error.message), f"run: [{error.code}] {error.message}"
    if case.error is not None:
        return False, f"answered {answer!r}, expected error {case.error}"
    return same(answer, case.result, numbers), f"answered {answer!r}, expected {case.result!r}"


def _failed_as_expected(case: Case, code: str, message: str) -> bool:
    if case.error is None:
        return False
    kind = case.error.get("type") if isinstance(case.error, dict) else case.error
    wanted = ERROR_CODES.get(kind)
    if wanted is not None:
        return code in wanted and (code != "E1004" or f"threw {kind}" in message)
    return code == "E1004" and f"threw {kind}" in message


def same(answer: Any, expected: Any, numbers: str) -> bool:
    """JSON equality; numbers by value (as floats in the float-compatible mode)."""
    if isinstance(expected, bool) or isinstance(answer, bool):
        return type(answer) is type(expected) and answer == expected
    if isinstance(expected, int | Decimal) and isinstance(answer, Decimal):
        return float(answer) == float(expected) if numbers == "float" else answer == Decimal(expected)
    if isinstance(expected, list) and isinstance(answer, list):
        return len(answer) == len(expected) and all(same(a, e, numbers) for a, e in zip(answer, expected, strict=True))
    if isinstance(expected, dict) and isinstance(answer, dict):
        return answer.keys() == expected.keys() and all(same(answer[k], expected[k], numbers) for k in expected)
    return type(answer) is type(expected) and answer == expected
