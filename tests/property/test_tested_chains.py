"""`a if x <= k else b` whose branches are operation chains on the variable tested (the
shipping expression's shape, specialize.tested_chain): one closure, which a program with one
number parameter calls with the argument's value and no frame. Generated conditionals (tests
of either variable, branches that are chains of up to four operations, the variable itself,
a constant or a chain on another variable; as an expression and as an if/else that returns)
are run by toolkiln and by a reference written here over Python's decimal module, and must
agree in value, digits and exponent, and on an overflow in error code and the operation it
is located at."""

from __future__ import annotations

import operator
from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln

# The run's context for the default limits (100 integer digits).
REFERENCE = Context(
    prec=28, rounding=ROUND_HALF_EVEN, Emax=99, Emin=-999_999, traps=[InvalidOperation, DivisionByZero, Overflow]
)
SYMBOLS = ("<", "<=", ">", ">=", "==", "!=")
COMPARE = dict(
    zip(SYMBOLS, (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne), strict=True)
)
ARITHMETIC = {"+": REFERENCE.add, "-": REFERENCE.subtract, "*": REFERENCE.multiply, "/": REFERENCE.divide}

constants = st.sampled_from(["2.5", "0.9", "5", "3", "0.001", "7", "1e60", "1e99", "1e-30", "12.50"])
chains = st.tuples(
    st.just("chain"),
    st.sampled_from(["x", "y"]),
    st.lists(st.tuples(st.sampled_from(sorted(ARITHMETIC)), constants), max_size=4),
)
branches = st.one_of(chains, st.tuples(st.just("const"), constants))
tests = st.tuples(st.sampled_from(["x", "y"]), st.sampled_from(sorted(COMPARE)), st.integers(-12, 12))
values = st.one_of(
    st.integers(-20, 20),
    st.decimals(min_value=-20, max_value=20, places=2, allow_nan=False),
    st.decimals(min_value=-20, max_value=20, places=2, allow_nan=False).map(float),
    st.decimals(min_value=-(10**45), max_value=10**45, allow_nan=False, places=0),  # * 1e60 overflows
)


def exact(value: float | int | Decimal) -> Decimal:
    """An argument as a run takes it: a float by its shortest repr, a whole one as its integer."""
    if isinstance(value, float):
        return Decimal(int(value)) if value.is_integer() else Decimal(repr(value))
    return Decimal(value)


def chain_texts(branch: tuple) -> list[str]:
    """The text of a branch and, for a chain, of each operation in it: operation i's text is the
    span an error in it is located at (`(x * 2.5) + 5`, its left operand in parentheses)."""
    if branch[0] == "const":
        return [branch[1]]
    _, name, steps = branch
    texts = [name]
    for op, constant in steps:
        left = texts[-1] if len(texts) == 1 else f"({texts[-1]})"
        texts.append(f"{left} {op} {constant}")
    return texts


def reference(branch: tuple, args: dict) -> tuple:
    """("value", v) or ("error", code, the failing operation's index in chain_texts)."""
    if branch[0] == "const":
        return ("value", Decimal(branch[1]))
    _, name, steps = branch
    value = exact(args[name])
    for index, (op, constant) in enumerate(steps, start=1):
        try:
            value = ARITHMETIC[op](value, Decimal(constant))
        except Overflow:
            return ("error", "E0506", index)
    return ("value", value)


def source(test: tuple, then: tuple, otherwise: tuple, two: bool, statement: bool) -> tuple[str, int, int]:
    """The tool's text and where each branch starts in it."""
    signature = "x: number, y: number" if two else "x: number"
    head = f'tool t({signature})\ndescription "generated"\n{{\n'
    condition = f"{test[0]} {test[1]} {test[2]}"
    a, b = chain_texts(then)[-1], chain_texts(otherwise)[-1]
    if statement:
        first = f"  if {condition} {{\n    return "
        middle = "\n  } else {\n    return "
        text = head + first + a + middle + b + "\n  }\n}\n"
        return text, len(head + first), len(head + first + a + middle)
    first = "  return "
    text = head + first + a + f" if {condition} else " + b + "\n}\n"
    return text, len(head + first), len(head + first + a + f" if {condition} else ")


def single(branch: tuple) -> tuple:
    """The branch with every variable x (for a tool whose only parameter is x)."""
    return ("chain", "x", branch[2]) if branch[0] == "chain" else branch


@settings(max_examples=examples(400), deadline=None)
@given(
    tests, branches, branches, st.booleans(), st.booleans(), st.lists(st.tuples(values, values), min_size=1, max_size=3)
)
def test_generated_conditionals_of_chains_agree_with_the_reference(test, then, otherwise, two, statement, rows):
    if not two:
        test, then, otherwise = ("x", *test[1:]), single(then), single(otherwise)
    text, then_at, otherwise_at = source(test, then, otherwise, two, statement)
    tools = [toolkiln.compile(text, optimize=optimize) for optimize in (True, False)]
    bound = test[2]  # the tested variable at the constant it is compared with, and either side
    edges = [bound, float(bound), Decimal(bound) + Decimal("0.01"), bound - 0.01]
    for x, y in rows + [(edge, edge) for edge in edges]:
        args = {"x": x, "y": y} if two else {"x": x}
        holds = COMPARE[test[1]](exact(args[test[0]]), test[2])
        chosen, at = (then, then_at) if holds else (otherwise, otherwise_at)
        expected = reference(chosen, args)
        for tool in tools:
            try:
                got: tuple = ("value", tool.run(args))
            except toolkiln.RunError as error:
                assert expected[0] == "error", (text, args, error)
                index, last = expected[2], len(chosen[2])
                failing = chain_texts(chosen)[index]  # inside the branch's last - index parentheses
                assert error.code == expected[1] and error.span is not None, (text, args)
                start = at + last - index
                assert (error.span.start, text[error.span.start : error.span.end]) == (start, failing), (text, args)
                continue
            assert got[0] == expected[0] and got[1] == expected[1], (text, args)
            assert got[1].as_tuple() == expected[1].as_tuple(), (text, args)
            assert tool.run_many([args]) == [expected[1]]
