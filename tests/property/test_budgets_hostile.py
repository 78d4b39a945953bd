"""The budgets' hostile suite (issue 18, docs/budgets.md): generated programs built from the
costliest constructs there are (nested comprehensions, O(n) builtins, equality of lists,
fractional powers, text of whole lists) over the largest inputs the default limits let in.

Each run must end with a value or a RunError of a budget's code -- never another exception,
never E0514 -- within 2 x max_seconds, and its memory must stay under MEMORY_BOUND (tracemalloc's
peak of the run alone, inputs excluded). The numbers docs/budgets.md gives come from
`python tests/property/test_budgets_hostile.py`, which prints the worst cases measured.
"""

from __future__ import annotations

import sys
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from run_timing import seconds_of

import toolkiln
from toolkiln.errors import RunError

SECONDS = 0.25  # max_seconds of the generated runs: small, so that the suite is cheap
LIMITS = toolkiln.Limits(max_seconds=SECONDS)
MEMORY_BOUND = 64 * 2**20  # bytes: tracemalloc's peak during one run, inputs excluded
BUDGET_CODES = {"E0503", "E0504", "E0505", "E0506", "E0507", "E0511", "E0510", "E0509", "E0501"}
PARAMS = "xs: array[number], ys: array[number], s: string, o: object"

SIZES = {n: list(range(n)) for n in (10, 3_000, 100_000)}
TEXTS = {n: "ab" * (n // 2) for n in (10, 10_000, 100_000)}

# Expressions of an item `v` (a number) and of the inputs; some are lists, some text, some
# numbers: every one type-checks wherever it is put below (text() takes anything).
ELEMENTS = [
    "len(upper(s))",
    "text(xs)",
    'join(xs, ",")',
    "sum(xs)",
    "xs == ys",
    "contains(xs, v)",
    "v in ys",
    "v ** 0.12345",
    "sqrt(v) + v ** 0.5",
    'len(replace(s, "a", "bb"))',
    "text(o)",
    "[w * 2 for w in xs]",
    "[w for w in ys if w > v]",
    "len(s + s)",
    "text(v * 1.5)",
    "max(xs)",
    "avg(ys)",
    "number(text(v))",
    "count([w for w in xs if w == v])",
    "text([s, s])",
    # the text and list builtins (sized before they build, charged for their work)
    "len(repeat(s, v))",
    'len(pad_left(s, v * 1000, "xy"))',
    "len(sort(xs))",
    "len(unique(ys))",
    "len(flatten([xs, ys, xs]))",
    "len(range(v * 1000))",
    "len(zip(xs, ys))",
    'len(split(s, "a"))',
    "len(title(s))",
    "len(url_encode(s + s))",
    "len(base64_encode(s))",
    "sha256(s)",
    "len(slice(xs, v, v * 1000))",
    "count(xs, v)",
    # records and the list builtins that group and count by computed keys
    "len(group_by(xs, ys))",
    "len(sort(ys, [w % 7 for w in ys]))",
    "count_if([w > v for w in xs])",
    'text({"a": xs, "b": {"c": [v, v]}})',
]
# The date builtins (a zone conversion is charged 11 operations, a pattern its length): every
# shape with each, below.
DATE_ELEMENTS = [
    "weekday(add_days(today(), v))",
    "len(format_date(add_months(now('Europe/Berlin'), v % 1200), 'dddd D MMMM YYYY HH:mm Z'))",
    "days_between(parse_date(format_date(today(), 'DD.MM.YYYY'), 'DD.MM.YYYY'), add_days(today(), v))",
]
SHAPES = [
    "  return [{e} for v in xs]",
    "  return [[{e} for w in ys] for v in xs]",
    "  return text([{e} for v in xs])",
    "  return join([text({e}) for v in xs], s)",
    "  return len([v for v in xs if text({e}) != s])",
    '  t = format "{{{{text(xs)}}}}{{{{s}}}}{{{{text([{e} for v in ys])}}}}"\n  return t',
    "  a = [{e} for v in xs]\n  b = [{e} for v in ys]\n  return a == b",
]


def program(shape: str, element: str) -> str:
    body = shape.format(e=element)
    return f'tool hostile({PARAMS})\ndescription "generated"\n{{\n{body}\n}}\n'


def arguments(n_xs: int, n_ys: int, n_s: int) -> dict[str, Any]:
    xs, ys, s = SIZES[n_xs], SIZES[n_ys], TEXTS[n_s]
    return {"xs": xs, "ys": ys, "s": s, "o": {"a": xs[:1000], "b": s, "c": {"d": ys[:1000]}}}


def run_once(tool: toolkiln.Tool, args: dict[str, Any], limits: toolkiln.Limits) -> tuple[str, float]:
    """The outcome ("value" or a RunError's code) and the seconds it took."""

    def attempt() -> str:
        try:
            tool.run(args, limits=limits)
        except RunError as error:
            return error.code
        return "value"

    return seconds_of(attempt)


def compiled(shape: str, element: str) -> toolkiln.Tool | None:
    try:
        return toolkiln.compile(program(shape, element))
    except toolkiln.CompileError:
        return None


hostile = st.tuples(
    st.sampled_from(SHAPES),
    st.sampled_from(ELEMENTS),
    st.sampled_from(sorted(SIZES)),
    st.sampled_from(sorted(SIZES)),
    st.sampled_from(sorted(TEXTS)),
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(hostile)
def test_hostile_runs_end_within_twice_max_seconds_with_a_budget_code(case):
    shape, element, n_xs, n_ys, n_s = case
    tool = compiled(shape, element)
    assume(tool is not None)
    assert tool is not None
    outcome, seconds = run_once(tool, arguments(n_xs, n_ys, n_s), LIMITS)
    assert outcome == "value" or outcome in BUDGET_CODES, (outcome, program(shape, element))
    assert seconds < 2 * SECONDS, (seconds, program(shape, element))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("element", DATE_ELEMENTS)
def test_date_builtins_in_every_shape_end_within_twice_max_seconds(shape, element):
    tool = compiled(shape, element)
    assert tool is not None
    # 3,000 items each: converting the arguments costs little, the nested shapes go over budget.
    outcome, seconds = run_once(tool, arguments(3_000, 3_000, 10), LIMITS)
    assert outcome == "value" or outcome in BUDGET_CODES, (outcome, program(shape, element))
    assert seconds < 2 * SECONDS, (seconds, program(shape, element))


WORST = [  # the sweep's reproducers and the heaviest shapes, at the largest sizes
    (SHAPES[1], "text(xs)"),
    (SHAPES[2], "[w * 2 for w in xs]"),
    (SHAPES[3], "text(o)"),
    (SHAPES[0], "xs == ys"),
    (SHAPES[0], "len(upper(s))"),
    (SHAPES[0], "v ** 0.12345"),
    (SHAPES[5], "[w for w in ys if w > v]"),
    (SHAPES[6], "[w * 2 for w in xs]"),
]


def peak_of(tool: toolkiln.Tool, args: dict[str, Any], limits: toolkiln.Limits) -> tuple[str, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        outcome, _ = run_once(tool, args, limits)
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape, element", WORST)
def test_the_heaviest_runs_stay_under_the_memory_bound(shape, element):
    tool = compiled(shape, element)
    assert tool is not None
    args = arguments(100_000, 100_000, 100_000)
    outcome, peak = peak_of(tool, args, LIMITS)
    assert outcome == "value" or outcome in BUDGET_CODES
    assert peak < MEMORY_BOUND, (peak, program(shape, element))


@pytest.mark.slow
@pytest.mark.parametrize("shape, element", WORST)
def test_the_heaviest_runs_end_within_twice_the_default_second(shape, element):
    tool = compiled(shape, element)
    assert tool is not None
    outcome, seconds = run_once(tool, arguments(100_000, 100_000, 100_000), toolkiln.Limits())
    assert outcome == "value" or outcome in BUDGET_CODES
    assert seconds < 2 * toolkiln.Limits().max_seconds


def measure() -> None:
    """Every shape x element at the largest sizes, default limits: the worst time and memory,
    for docs/budgets.md."""
    args = arguments(100_000, 100_000, 100_000)
    worst_time: tuple[float, str, str] = (0.0, "", "")
    worst_memory: tuple[int, str, str] = (0, "", "")
    codes: dict[str, int] = {}
    for shape in SHAPES:
        for element in ELEMENTS:
            tool = compiled(shape, element)
            if tool is None:
                continue
            outcome, seconds = run_once(tool, args, toolkiln.Limits())
            codes[outcome] = codes.get(outcome, 0) + 1
            _, peak = peak_of(tool, args, toolkiln.Limits())
            label = program(shape, element).split("{\n", 1)[1].rstrip("}\n")
            print(f"{seconds:6.3f} s {peak / 2**20:7.1f} MiB {outcome}  {label!r}", flush=True)
            worst_time = max(worst_time, (seconds, label, outcome))
            worst_memory = max(worst_memory, (peak, label, outcome))
    print(f"outcomes: {dict(sorted(codes.items()))}")
    print(f"worst time: {worst_time[0]:.3f} s ({worst_time[2]}) for\n{worst_time[1]}")
    print(f"worst memory: {worst_memory[0] / 2**20:.1f} MiB ({worst_memory[2]}) for\n{worst_memory[1]}")


if __name__ == "__main__":
    sys.exit(measure())
