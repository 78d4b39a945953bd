"""The optimizer never changes what a program does: on generated programs and inputs, the
optimized tool returns the same value, or fails with the same error code, as the tool run
exactly as written (`compile(..., optimize=False)`)."""

from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.optimize import optimize
from toolkiln.semantics.limits import Limits
from toolkiln.syntax.loader import parse_source

PARAMS = ("a", "b", "c")
LITERALS = ("0", "1", "2", "0.5", "2.50", "10", "0.1", "3")


@st.composite
def number_exprs(draw, names, depth=0):
    kind = draw(st.integers(0, 9 if depth < 3 else 1))
    if kind == 0:
        return draw(st.sampled_from(LITERALS))
    if kind == 1:
        return draw(st.sampled_from(sorted(names)))
    if kind in (2, 3, 4):
        op = draw(st.sampled_from(["+", "-", "*", "/", "%"]))
        return f"({draw(number_exprs(names, depth + 1))} {op} {draw(number_exprs(names, depth + 1))})"
    if kind == 5:
        return f"({draw(number_exprs(names, depth + 1))} ** {draw(st.integers(0, 3))})"
    if kind == 6:
        return f"-{draw(number_exprs(names, depth + 1))}"
    if kind == 7:
        then, otherwise = draw(number_exprs(names, depth + 1)), draw(number_exprs(names, depth + 1))
        return f"({then} if {draw(conditions(names, depth + 1))} else {otherwise})"
    if kind == 8:
        function = draw(st.sampled_from(["abs", "round", "min", "max", "floor"]))
        args = [draw(number_exprs(names, depth + 1))]
        if function in ("min", "max"):
            args.append(draw(number_exprs(names, depth + 1)))
        if function == "round":
            args.append(draw(st.sampled_from(["0", "1", "2"])))
        return f"{function}({', '.join(args)})"
    return draw(st.sampled_from(LITERALS + tuple(sorted(names))))


@st.composite
def conditions(draw, names, depth=0):
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.sampled_from(["true", "false", "1 > 2", "2 >= 2"]))
    if kind == 1 and depth < 3:
        return f"not ({draw(conditions(names, depth + 1))})"
    if kind == 2 and depth < 3:
        op = draw(st.sampled_from(["and", "or"]))
        return f"({draw(conditions(names, depth + 1))} {op} {draw(conditions(names, depth + 1))})"
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    return f"{draw(number_exprs(names, depth + 1))} {op} {draw(number_exprs(names, depth + 1))}"


@st.composite
def blocks(draw, names, depth, indent):
    """Steps that only reassign existing variables, so definite assignment holds."""
    lines = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 4 if depth < 2 else 2))
        if kind <= 2:
            target = draw(st.sampled_from(sorted(names - set(PARAMS)) or ["a"]))
            lines.append(f"{indent}{target} = {draw(number_exprs(names))}")
        elif kind == 3:
            lines.append(f"{indent}return {draw(number_exprs(names))}")
            break
        else:
            lines.append(f"{indent}if {draw(conditions(names))} {{")
            lines += draw(blocks(names, depth + 1, indent + "  "))
            if draw(st.booleans()):
                lines.append(f"{indent}}} else {{")
                lines += draw(blocks(names, depth + 1, indent + "  "))
            lines.append(f"{indent}}}")
    return lines


@st.composite
def programs(draw):
    names = set(PARAMS)
    lines = []
    for index in range(draw(st.integers(1, 5))):
        target = f"v{index}"
        lines.append(f"{target} = {draw(number_exprs(names))}")
        names.add(target)
        lines += draw(blocks(names, 0, ""))
    lines.append(f"return {draw(number_exprs(names))}")
    # every parameter is read, so both forms infer the same parameters
    lines.insert(0, "p = a + b + c")
    return "\n".join(lines) + "\n"


arguments = st.fixed_dictionaries(
    {
        name: st.sampled_from(
            [Decimal(0), Decimal(1), Decimal("-2"), Decimal("0.5"), Decimal("12.75"), Decimal("1E+20")]
        )
        for name in PARAMS
    }
)


def outcome(tool, args, limits=None):
    try:
        return ("value", tool.run(args, limits=limits))
    except toolkiln.RunError as error:
        return ("error", error.code)


# Limits from tiny (where folds and budgets fail) to the defaults: the optimizer must keep
# behaviour under any Limits a caller passes, at compile time or per call.
def small_or_default(small, default):
    return st.one_of(small, st.just(default))


limits = st.one_of(
    st.none(),
    st.builds(
        Limits,
        max_operations=small_or_default(st.integers(1, 400), 1_000_000),
        max_string_length=small_or_default(st.integers(1, 50), 100_000),
        max_list_length=small_or_default(st.integers(1, 10), 100_000),
        max_number_digits=small_or_default(st.integers(1, 8), 100),
    ),
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs(), args=st.lists(arguments, min_size=1, max_size=3), limits=limits, at_compile=st.booleans())
def test_optimized_programs_behave_as_written(source, args, limits, at_compile):
    compiled_with, run_with = (limits, None) if at_compile else (None, limits)
    try:
        plain = toolkiln.compile(source, optimize=False, limits=compiled_with)
    except toolkiln.CompileError:
        return  # a generated program that does not check (rare): nothing to compare
    optimized = toolkiln.compile(source, limits=compiled_with)
    for row in args:
        expected, actual = outcome(plain, row, run_with), outcome(optimized, row, run_with)
        if expected[0] == "value" and actual[0] == "value":
            assert expected[1] == actual[1] and type(expected[1]) is type(actual[1]), source
        else:
            assert expected == actual, source


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs())
def test_optimizing_twice_changes_nothing(source):
    program = parse_source(source).program
    once = optimize(program)
    assert optimize(once) is once


TEXTS = ('"abc"', '"hello world"', '" padded "')


@st.composite
def constant_exprs(draw, depth=0):
    """Numeric expressions of literals only: everything in them folds, so each fold meets
    the limits (digits, text length, list length) where the written program may not."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(LITERALS + ("99", "12345")))
    kind = draw(st.integers(0, 3))
    if kind <= 1:
        op = draw(st.sampled_from(["+", "-", "*", "/", "**"]))
        return f"({draw(constant_exprs(depth + 1))} {op} {draw(constant_exprs(depth + 1))})"
    if kind == 2:
        return f"{draw(st.sampled_from(['abs', 'floor', 'ceil']))}({draw(constant_exprs(depth + 1))})"
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(0, 2))):
        text = f"{draw(st.sampled_from(['upper', 'trim', 'lower']))}({text})"
    return f"len({text} + {draw(st.sampled_from(TEXTS))})" if draw(st.booleans()) else f"len({text})"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=constant_exprs(), limits=limits, at_compile=st.booleans())
def test_folded_constants_fail_where_the_written_program_fails(expr, limits, at_compile):
    source = f"return {expr}\n"
    compiled_with, run_with = (limits, None) if at_compile else (None, limits)
    try:
        plain = toolkiln.compile(source, optimize=False, limits=compiled_with)
    except toolkiln.CompileError:
        return  # a type error (text times a number): nothing to compare
    optimized = toolkiln.compile(source, limits=compiled_with)
    assert outcome(plain, {}, run_with) == outcome(optimized, {}, run_with), source
