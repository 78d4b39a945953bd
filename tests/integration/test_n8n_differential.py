"""Differential test: the same compute expressions evaluated by toolkiln's interpreter and,
translated, inside a real n8n (webhook -> set -> respond), on the same inputs.

The expressions come from a seeded generator over everything the n8n backend translates
(arithmetic with %, comparisons, and/or/not, in, conditionals, indexing, lists,
comprehensions, and the translated built-ins: abs, floor, ceil, round, clamp, min, max, sum,
avg, count, any, all, contains, get, upper, lower, trim, starts_with, ends_with, replace, len,
split, slice, pad_left, pad_right, repeat, url_encode, first, last, flatten, range, zip; and the
date builtins today, add_days, add_months, days_between, weekday, start_of_month, parse_date,
format_date, with dates as ISO text). Numbers agree exactly where binary doubles are exact (the inputs and literals
are dyadic: 2.5, -0.75, ...); a division makes a value inexact, so a quotient is compared
within 1e-9 and never feeds a comparison, floor or ceil, where doubles and exact decimals may
round differently (documented in docs/workflows.md and tested in test_workflow_deploy.py).
"""

from __future__ import annotations

import math
import random
from datetime import date
from decimal import Decimal

import pytest

import toolkiln

SEED = 20261122
EXPRESSIONS = 200
ROWS = [
    {"a": 3, "b": -2.5, "c": 0.75, "s": "Ada ", "t": "lovelace", "items": [3, -1.5, 0.25], "o": {"k": 2}},
    {"a": -7, "b": 12.25, "c": 0, "s": "  x", "t": "", "items": [-7], "o": {}},
    {"a": 0, "b": 0.5, "c": -1.125, "s": "MiXeD", "t": "Case", "items": [0, 0.5, 2.5, -2.5], "o": {"k": -1, "m": 3}},
    {"a": 1024, "b": -0.0625, "c": 9, "s": "", "t": "z z", "items": [1024, 9, 9], "o": {"m": 0}},
]
# Aggregates over the list and the object of each row; the exact ones may feed comparisons.
EXACT_AGGREGATES = [
    "sum(body.items)",
    "sum(x * 2 for x in body.items if x > 0)",
    "count(x for x in body.items if x >= body.c)",
    "min(body.items)",
    "max(body.a, body.b, body.c)",
    "clamp(body.a, -1, 5)",
    "body.items[0]",
    "body.items[-1]",
    "len(body.items)",
    "len(body.o)",
    'get(body.o, "k", 0)',
    "round(body.b)",
    "round(body.c * 2 + 0.5)",
]
INEXACT_AGGREGATES = ["avg(body.items)", "sum([x / 3 for x in body.items])"]


class Generator:
    """Random well-typed expressions; `exact` forbids division (see the module docstring).
    Request fields have no static type, so a join starts with a known string."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def number(self, depth: int, exact: bool) -> str:
        leaves = ["body.a", "body.b", "body.c", str(self.rng.choice([2, 3, 10, 0.5, 2.5, -1.25]))]
        if depth == 0:
            return self.rng.choice(leaves)
        kind = self.rng.choice(
            ["leaf", "arith", "arith", "abs", "floor", "ceil", "cond", "square", "len", "mod", "round", "aggregate"]
            + ([] if exact else ["div", "div", "inexact"])
        )
        match kind:
            case "leaf":
                return self.rng.choice(leaves)
            case "arith":
                op = self.rng.choice(["+", "-", "*"])
                return f"({self.number(depth - 1, exact)} {op} {self.number(depth - 1, exact)})"
            case "div":
                return f"({self.number(depth - 1, False)} / (abs({self.number(depth - 1, True)}) + 1))"
            case "abs":
                return f"abs({self.number(depth - 1, exact)})"
            case "floor" | "ceil":
                return f"{kind}({self.number(depth - 1, True)})"
            case "cond":
                return f"({self.number(depth - 1, exact)} if {self.boolean(depth - 1)} else {self.number(depth - 1, exact)})"
            case "square":
                return f"({self.number(depth - 1, exact)} ** 2)"
            case "mod":
                return f"({self.number(depth - 1, True)} % (abs({self.number(depth - 1, True)}) + 1))"
            case "round":
                return f"round({self.number(depth - 1, True)})"
            case "aggregate":
                return self.rng.choice(EXACT_AGGREGATES)
            case "inexact":
                return self.rng.choice(INEXACT_AGGREGATES)
            case _:
                return f"len({self.string(depth - 1)})"

    def boolean(self, depth: int) -> str:
        if depth == 0:
            return f"(body.a {self.rng.choice(['<', '>=', '!='])} {self.rng.choice([0, 3, -7])})"
        kind = self.rng.choice(["compare", "compare", "and", "or", "not", "strings", "member", "quantifier", "text"])
        match kind:
            case "compare":
                op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
                return f"({self.number(depth - 1, True)} {op} {self.number(depth - 1, True)})"
            case "and" | "or":
                return f"({self.boolean(depth - 1)} {kind} {self.boolean(depth - 1)})"
            case "not":
                return f"(not {self.boolean(depth - 1)})"
            case "member":
                return self.rng.choice(
                    [
                        f"({self.number(depth - 1, True)} in body.items)",
                        'contains(body.o, "k")',
                        f"({self.number(depth - 1, True)} not in body.items)",
                        f"contains(body.items, {self.number(depth - 1, True)})",
                        f"(trim({self.string(depth - 1)}) in body.t)",
                    ]
                )
            case "quantifier":
                return self.rng.choice(["any(x > 1 for x in body.items)", "all([x != 0 for x in body.items])"])
            case "text":
                return self.rng.choice(
                    [f'starts_with({self.string(depth - 1)}, "lo")', f'ends_with({self.string(depth - 1)}, "e")']
                )
            case _:
                return f"({self.string(depth - 1)} == {self.string(depth - 1)})"

    def string(self, depth: int) -> str:
        leaves = ["body.s", "body.t", '"ok"', '"A b"']
        if depth == 0:
            return self.rng.choice(leaves)
        kind = self.rng.choice(["leaf", "upper", "lower", "trim", "join", "replace"])
        if kind == "leaf":
            return self.rng.choice(leaves)
        if kind == "replace":
            return f'replace({self.string(depth - 1)}, "a", "-")'
        if kind == "join":  # trim(...) makes the left side a known string: `+` then joins
            return f"(trim({self.string(depth - 1)}) + {self.string(depth - 1)})"
        return f"{kind}({self.string(depth - 1)})"

    def pick(self) -> str:
        depth = self.rng.randint(1, 4)
        choice = self.rng.random()
        if choice < 0.5:
            return self.number(depth, False)
        return self.boolean(depth) if choice < 0.8 else self.string(depth)


# Each translated form at least once, whatever the generator draws.
EVERY_FORM = [
    *EXACT_AGGREGATES,
    *INEXACT_AGGREGATES,
    "abs(body.b)",
    "floor(body.b)",
    "ceil(body.b)",
    "sqrt(body.c * body.c)",
    "any(x > 1 for x in body.items)",
    "all([x != 0 for x in body.items])",
    'contains(body.o, "k")',
    '"k" in body.o',
    "3 not in body.items",
    "upper(body.s)",
    "lower(body.t)",
    "trim(body.s)",
    'starts_with(body.t, "lo")',
    'ends_with(body.t, "e")',
    'replace(body.t, "a", "-")',
    "len(body.s)",
    "body.a % 4",
    "[body.a, body.b][1]",
    "coalesce(null, body.a)",
    'coalesce(get(body.o, "m"), body.s)',
    # The text and list builtins of issue 15 (a list result is compared through a scalar).
    'first(split(body.t, " "))',
    'len(split(body.s, "a"))',
    "slice(body.s, 1, 3)",
    "sum(slice(body.items, -2))",
    'pad_left(body.s, 6, "*")',
    "pad_right(body.t, 3)",
    "repeat(body.t, 2)",
    "url_encode(body.s)",
    "first(body.items)",
    "last(body.items)",
    "sum(flatten([body.items, [1, 2]]))",
    "sum(range(4)) + len(range(1, 4))",
    "last(last(zip(body.items, body.items)))",
    "count(body.items, 9)",
    "count_if([x > 0 for x in body.items])",
    # The date builtins (Luxon's DateTime in n8n; a date is its ISO text there).
    'add_days(parse_date("2026-01-31"), body.a)',
    'format_date(add_months(parse_date("2024-01-31"), body.a), "DD.MM.YYYY")',
    'days_between(parse_date("2026-01-01"), add_days(parse_date("2026-03-01"), body.a))',
    'weekday(add_days(parse_date("2026-01-05"), body.a))',
    'start_of_month(add_days(parse_date("2024-02-17"), body.a))',
    'parse_date("31.01.2026", "DD.MM.YYYY") < add_days(parse_date("2026-01-31"), body.a)',
    'today("Europe/Berlin") > parse_date("2026-01-01")',
    "days_between(today(), add_days(today(), body.a))",
    # OwnPilot's helpers that JavaScript agrees on (issue 27).
    "slugify(body.t)",
    'remove_diacritics(body.s + " Crème Brûlée")',
    "count_words(body.t)",
    "is_json(body.s)",
    'is_uuid(body.s) or is_uuid("0192f9a4-5f3c-4d2e-9b1a-3c4d5e6f7a8b")',
]


def expressions() -> list[str]:
    generator = Generator(SEED)
    return EVERY_FORM + [generator.pick() for _ in range(EXPRESSIONS)]


def toolkiln_value(expression: str, body: dict) -> object:
    tool = toolkiln.compile(f'tool probe(body: object)\ndescription "probe"\n{{ return {expression} }}')
    return tool.run({"body": body})


def same(ours: object, theirs: object) -> bool:
    if isinstance(ours, bool) or isinstance(theirs, bool) or isinstance(ours, str):
        return ours == theirs
    if isinstance(ours, date):
        return ours.isoformat() == theirs
    if isinstance(ours, Decimal) and isinstance(theirs, int | float):
        return math.isclose(float(ours), theirs, rel_tol=1e-9, abs_tol=1e-9)
    return False


@pytest.mark.slow
def test_generated_expressions_agree_with_n8n(n8n):
    exprs = expressions()
    fields = ",\n  ".join(f"e{i} = {expression}" for i, expression in enumerate(exprs))
    source = (
        f'workflow differential\ndescription "Evaluates {len(exprs)} generated expressions"\n'
        f'on webhook POST "/differential" respond with node\nset probe {{\n  {fields}\n}}\nrespond reply probe\n'
    )
    _, path = n8n.deploy_source(source)
    mismatches = []
    for row in ROWS:
        reply = n8n.client.trigger_webhook(path, row)
        assert reply.status == 200, reply
        for i, expression in enumerate(exprs):
            ours, theirs = toolkiln_value(expression, row), reply.data[f"e{i}"]
            if not same(ours, theirs):
                mismatches.append(f"{expression} with {row}: toolkiln {ours!r}, n8n {theirs!r}")
    assert mismatches == []


def test_every_translated_function_is_exercised():
    from toolkiln.backends.n8n.expressions import TRANSLATED_FUNCTIONS

    assert [f for f in TRANSLATED_FUNCTIONS if not any(f"{f}(" in e for e in expressions())] == []


@pytest.mark.parametrize("expression", expressions()[:5])
def test_generated_expressions_are_well_typed_for_toolkiln(expression):
    """The generator's output compiles (a broken generator would make the test above vacuous)."""
    assert toolkiln_value(expression, ROWS[0]) is not None
