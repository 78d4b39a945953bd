"""A tool's examples: arguments and the result expected for them, run before the tool is saved.

    "examples": [{"args": {"weight_kg": 2}, "expect": 10}, ...]

An example of a tool that reads the clock (`today()`, `now()`) says when it runs, so that it
gives the same result every day: `{"args": {...}, "now": "2026-01-31T09:00:00Z", "expect": ...}`.
An example of a tool that draws random values (`uuid()`, `random()`, `random_int()`) says the
seed of its run's random source, so that it draws the same values every time:
`{"args": {...}, "seed": 7, "expect": ...}`; without one it is refused (E0610).

The compiler checks types; examples check behaviour. A definition keeps its examples (they are
stored with it), and the registry runs them on every create, update and rollback: a version
whose examples fail is never saved, whoever wrote it. Loading a registry does not run them
(the versions on disk passed them when they were saved).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import RunError
from toolkiln.registry.budget import too_slow
from toolkiln.registry.equality import same_data
from toolkiln.semantics.dates import clock_at, parse_iso_datetime
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits
from toolkiln.semantics.values import to_json

if TYPE_CHECKING:
    from toolkiln.tool import Tool  # (the interpreter: loaded by the compiler when a tool compiles)

FIELD = "examples"
EXAMPLE_KEYS = ("args", "expect")
OPTIONAL_KEYS = ("now", "seed")  # what today() and now() read (ISO 8601); the random source's seed
# Each example is a run under the registry's limits (a second by default): a cap keeps a save
# from taking minutes.
MAX_EXAMPLES = 20
# How much of a value a diagnostic quotes.
SHOWN_CHARS = 200
_SHAPE = 'examples are [{"args": {...}, "expect": value}, ...]'


def _at(code: codes.Code, message: str, path: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic.of(code, message, Span(line=0, column=0, end_line=0, end_column=0, path=path), hint)


def examples_problems(examples: Any) -> list[Diagnostic]:
    """What is wrong with the shape of a definition's `examples` (empty when nothing)."""
    if not isinstance(examples, list):
        return [_at(codes.INVALID_EXAMPLE, "`examples` must be a list", FIELD, _SHAPE)]
    if len(examples) > MAX_EXAMPLES:
        return [
            _at(
                codes.INVALID_EXAMPLE,
                f"{len(examples)} examples; a tool may have at most {MAX_EXAMPLES}",
                FIELD,
                "keep the examples that show different cases",
            )
        ]
    problems = [_example_problem(index, example) for index, example in enumerate(examples)]
    return [problem for problem in problems if problem is not None]


def _example_problem(index: int, example: Any) -> Diagnostic | None:
    """What is wrong with the shape of one example (None: nothing)."""
    path = f"{FIELD}[{index}]"
    if not isinstance(example, dict):
        return _at(codes.INVALID_EXAMPLE, "an example must be an object", path, _SHAPE)
    missing = [key for key in EXAMPLE_KEYS if key not in example]
    unknown = sorted(str(key)[:40] for key in example if key not in EXAMPLE_KEYS + OPTIONAL_KEYS)
    if missing or unknown:
        wrong = [f"missing `{key}`" for key in missing] + [f"unknown field `{key}`" for key in unknown]
        return _at(codes.INVALID_EXAMPLE, f"example {index + 1}: {', '.join(wrong)}", path, _SHAPE)
    if "now" in example and not (isinstance(example["now"], str) and parse_iso_datetime(example["now"])):
        return _at(
            codes.INVALID_EXAMPLE,
            f"example {index + 1}: `now` must be an ISO 8601 datetime with its offset",
            f"{path}.now",
            'as "2026-01-31T09:00:00Z": what today() and now() read in this example',
        )
    if "seed" in example and type(example["seed"]) is not int:
        return _at(
            codes.INVALID_EXAMPLE,
            f"example {index + 1}: `seed` must be a whole number",
            f"{path}.seed",
            "as 7: the seed of the random source uuid(), random() and random_int() draw from",
        )
    if not isinstance(example["args"], dict):
        return _at(
            codes.INVALID_EXAMPLE,
            f"example {index + 1}: `args` must be an object of arguments by name",
            f"{path}.args",
            _SHAPE,
        )
    return None


def run_examples(
    tool: Tool,
    examples: list[dict[str, Any]],
    *,
    tables: Mapping[str, Any],
    limits: Limits | None,
    budget: tuple[float, float] | None = None,
) -> list[Diagnostic]:
    """One diagnostic per example whose run fails or returns another value than `expect`.
    `budget`: (seconds, deadline) for all the examples together, each run getting at most what
    is left; CheckTooSlow once it is spent."""
    problems = []
    for index, example in enumerate(examples):
        args, expected = example["args"], example["expect"]
        path = f"{FIELD}[{index}]"
        clock = clock_at(example["now"]) if "now" in example else None
        if "seed" not in example and tool.draws_random:
            problems.append(_unseeded(index, path))
            continue
        try:
            actual = tool.run(
                args, tables=tables, limits=within_budget(limits, budget), clock=clock, random=example.get("seed")
            )
        except RunError as error:
            if budget is not None and time.monotonic() >= budget[1]:
                raise too_slow(budget[0]) from None  # stopped by the budget, not by its own limits
            problems.append(
                _at(
                    codes.EXAMPLE_RAISED,
                    f"example {index + 1}: with args {_shown(args)} the tool fails: [{error.code}] {error.message}",
                    f"{path}.args",
                    error.hint or f"expected {_shown(expected)}; make the logic handle these arguments",
                )
            )
            continue
        if not same_data(actual, expected):
            problems.append(
                _at(
                    codes.EXAMPLE_FAILED,
                    f"example {index + 1}: with args {_shown(args)} expected {_shown(expected)}, got {_shown(actual)}",
                    f"{path}.expect",
                    "fix the logic, or the example if its expected value is wrong",
                )
            )
    return problems


def _unseeded(index: int, path: str) -> Diagnostic:
    return _at(
        codes.INVALID_EXAMPLE,
        f"example {index + 1}: the tool draws random values (uuid(), random(), random_int()): "
        "without a seed its result differs from run to run",
        path,
        'add "seed": 7 (any whole number): the example then draws the same values every time',
    )


def within_budget(limits: Limits | None, budget: tuple[float, float] | None) -> Limits | None:
    """The limits of the next example's run: at most what is left of the budget."""
    if budget is None:
        return limits
    left = budget[1] - time.monotonic()
    if left <= 0:
        raise too_slow(budget[0])
    base = limits or DEFAULT_LIMITS
    return base if base.max_seconds <= left else replace(base, max_seconds=left)


def _shown(value: Any) -> str:
    try:
        text = to_json(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."
