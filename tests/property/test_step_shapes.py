"""The closure shapes for steps (interpret/steps.py) and the binder's one-pass path give what
the language says: generated scoring programs (constant stores, in-place updates, if/else-if
chains tested on numbers, text, booleans and literal lists, early returns, clamp with
constant bounds) are run by toolkiln and by a small evaluator written here in Decimal, on
generated arguments, and must agree exactly."""

from __future__ import annotations

import operator
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln

COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
UPDATE = {"+": operator.add, "-": operator.sub, "*": operator.mul}
WORDS = ("DE", "AT", "FR", "saas")
SIGNATURE = 'tool t(x: number, n: integer, c: string, b: boolean)\ndescription "generated"\n'

small = st.integers(-20, 20)
tests = st.one_of(
    st.tuples(st.just("cmp"), st.sampled_from(["x", "n"]), st.sampled_from(sorted(COMPARE)), small),
    st.tuples(st.just("text"), st.sampled_from(["==", "!="]), st.sampled_from(WORDS)),
    st.tuples(st.just("bool"), st.booleans()),
    st.tuples(st.just("in"), st.booleans(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True)),
)
updates = st.one_of(
    st.tuples(st.just("update"), st.sampled_from(sorted(UPDATE)), st.integers(0, 9)),
    st.tuples(st.just("set"), small),
    st.tuples(st.just("return"), small),
)
chains = st.tuples(st.lists(st.tuples(tests, updates), min_size=1, max_size=4), st.one_of(st.none(), updates))
steps = st.lists(st.one_of(updates.filter(lambda u: u[0] != "return"), chains), min_size=1, max_size=6)
endings = st.one_of(st.just(None), st.tuples(small, small).map(sorted))


def condition_text(test: tuple) -> str:
    match test:
        case ("cmp", name, op, constant):
            return f"{name} {op} {constant}"
        case ("text", op, word):
            return f'c {op} "{word}"'
        case ("bool", wanted):
            return "b" if wanted else "not b"
        case ("in", wanted, words):
            listed = ", ".join(f'"{w}"' for w in words)
            return f"c {'in' if wanted else 'not in'} [{listed}]"
    raise AssertionError(test)


def update_text(update: tuple) -> str:
    match update:
        case ("update", op, constant):
            return f"s = s {op} {constant}"
        case ("set", constant):
            return f"s = {constant}"
        case ("return", constant):
            return f"return {constant}"
    raise AssertionError(update)


def program_text(program: list, ending: list | None) -> str:
    lines = ["s = 0"]
    for step in program:
        if step[0] in ("update", "set"):
            lines.append(update_text(step))
            continue
        arms, otherwise = step
        for position, (test, update) in enumerate(arms):
            keyword = "if" if position == 0 else "} else if"
            lines += [f"{keyword} {condition_text(test)} {{", update_text(update)]
        if otherwise is not None:
            lines += ["} else {", update_text(otherwise)]
        lines.append("}")
    lines.append("return s" if ending is None else f"return clamp(s, {ending[0]}, {ending[1]})")
    return SIGNATURE + "{\n" + "\n".join(lines) + "\n}\n"


def holds(test: tuple, args: dict) -> bool:
    match test:
        case ("cmp", name, op, constant):
            return COMPARE[op](Decimal(str(args[name])), constant)
        case ("text", op, word):
            return COMPARE[op](args["c"], word)
        case ("bool", wanted):
            return args["b"] is wanted
        case ("in", wanted, words):
            return (args["c"] in words) is wanted
    raise AssertionError(test)


def evaluate(program: list, ending: list | None, args: dict) -> Decimal:
    """The language's meaning of a generated program, step by step."""
    s = Decimal(0)
    for step in program:
        chosen = step if step[0] in ("update", "set") else None
        if chosen is None:
            arms, otherwise = step
            chosen = next((update for test, update in arms if holds(test, args)), otherwise)
        match chosen:
            case ("update", op, constant):
                s = UPDATE[op](s, constant)
            case ("set", constant):
                s = Decimal(constant)
            case ("return", constant):
                return Decimal(constant)
    return s if ending is None else min(max(s, Decimal(ending[0])), Decimal(ending[1]))


arguments = st.fixed_dictionaries(
    {
        "x": st.one_of(small, st.floats(-25, 25, allow_nan=False).map(lambda v: round(v, 2))),
        "n": small,
        "c": st.sampled_from(WORDS + ("US",)),
        "b": st.booleans(),
    }
)


@settings(max_examples=examples(300), deadline=None)
@given(steps, endings, st.lists(arguments, min_size=1, max_size=4))
def test_generated_scoring_programs_agree_with_the_reference(program, ending, rows):
    tool = toolkiln.compile(program_text(program, ending))
    for args in rows:
        assert tool.run(args) == evaluate(program, ending, args), (program_text(program, ending), args)
