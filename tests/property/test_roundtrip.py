"""Round trips over generated valid programs: both front ends, both printers, fmt, and running.

Every program comes from `strategies.programs()`, which renders one model as the JSON DSL and
as the text DSL with the test's own printers (so toolkiln's printers are checked against an
independent rendering, not against themselves).
"""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from typing import Any

import pytest
import strategies as S
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.syntax.loader import parse_source

# Programs are large inputs by design; generation time is not what these tests measure.
LARGE_INPUTS = [HealthCheck.too_slow, HealthCheck.data_too_large]

ROUNDTRIP = settings(max_examples=examples(40), deadline=None, suppress_health_check=LARGE_INPUTS)
SLOW = settings(max_examples=examples(25), deadline=None, suppress_health_check=LARGE_INPUTS)


# --- helpers --------------------------------------------------------------------------------


def ast_of(source: Any) -> dict:
    parsed = parse_source(source)
    assert parsed.program is not None, [d.message for d in parsed.diagnostics]
    return S.strip_spans(parsed.program)


def errors(source: Any) -> list[str]:
    return [f"{d.code} {d.message} @ {d.span}" for d in toolkiln.check(source) if d.is_error]


def outcome(tool: toolkiln.Tool, args: dict) -> tuple:
    """What running gives: the value with its exact repr, or the RunError code."""
    try:
        value = tool.run(args)
    except toolkiln.RunError as error:
        return ("error", error.code)
    return ("value", type(value).__name__, repr(value))


def sources(model: S.ProgramModel) -> dict[str, Any]:
    """The same program as a dict, as JSON text (bare integers and all-strings) and as text."""
    return {"dict": model.json(), "json text": S.json_text(model.json(bare_ints=False), "  "), "text": model.text()}


# --- 2. generated programs are valid ---------------------------------------------------------


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs(comments=True))
def test_generated_programs_check_clean_in_every_form(model):
    for form, source in sources(model).items():
        assert errors(source) == [], (form, source)
        tool = toolkiln.compile(source)
        if model.header is not None:
            assert tool.name == model.header.name
            assert list(tool.parameters["properties"]) == [p.name for p in model.header.params]


# --- 3. fmt is idempotent ------------------------------------------------------------------


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs(comments=True))
def test_fmt_is_idempotent(model):
    for source in (model.text(), model.json()):
        once = toolkiln.to_text(source)
        assert toolkiln.to_text(once) == once


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs(comments=True).filter(lambda m: m.comments))
def test_fmt_keeps_every_comment_in_order(model):
    text = model.text()
    once = toolkiln.to_text(text)
    assert re.findall(r"# note \d+", once) == re.findall(r"# note \d+", text)
    assert toolkiln.to_text(once) == once


# --- 4. JSON -> text -> JSON and text -> JSON -> text ---------------------------------------


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs())
def test_json_text_json_is_identity_on_canonical_json(model):
    for source in (model.json(), model.text()):
        j = toolkiln.to_json(source)
        assert toolkiln.to_json(toolkiln.to_text(j)) == j
        assert toolkiln.to_json(j) == j
        assert toolkiln.to_json(S.json_text(j)) == j


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs())
def test_text_json_text_is_identity_on_canonical_text(model):
    for source in (model.json(), model.text()):
        t = toolkiln.to_text(source)
        assert toolkiln.to_text(toolkiln.to_json(t)) == t


# --- 5. both front ends build the same program ------------------------------------------------


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs(comments=True))
def test_json_and_text_front_ends_agree(model):
    as_json, as_text = model.json(), model.text()
    assert toolkiln.to_json(as_json) == toolkiln.to_json(as_text)
    without_comments = dataclasses.replace(model, comments=False).text()
    assert toolkiln.to_text(as_json) == toolkiln.to_text(without_comments)
    assert ast_of(as_json) == ast_of(as_text)
    assert ast_of(S.json_text(model.json(bare_ints=False))) == ast_of(as_text)


@pytest.mark.slow
@ROUNDTRIP
@given(S.programs(comments=True))
def test_printing_keeps_the_ast(model):
    for source in (model.json(), model.text()):
        original = ast_of(source)
        assert ast_of(toolkiln.to_text(source)) == original
        assert ast_of(toolkiln.to_json(source)) == original


# --- printing keeps behaviour -------------------------------------------------------------


@pytest.mark.slow
@SLOW
@given(S.programs(), st.data())
def test_every_form_runs_the_same(model, data):
    forms = sources(model)
    forms["to_text(json)"] = toolkiln.to_text(model.json())
    forms["to_json(text)"] = toolkiln.to_json(model.text())
    tools = {name: toolkiln.compile(source) for name, source in forms.items()}
    reference = tools["text"]
    for _ in range(3):
        args = data.draw(S.arguments_for(reference))
        expected = outcome(reference, args)
        for name, tool in tools.items():
            assert outcome(tool, args) == expected, name


@pytest.mark.slow
@SLOW
@given(S.programs(), st.data())
def test_running_raises_only_run_errors(model, data):
    tool = toolkiln.compile(model.json())
    weird = st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=5),
        st.floats(),
        st.integers(),
        st.lists(st.integers(), max_size=3),
        st.decimals(),
    )
    names = list(tool.parameters["properties"]) + ["unknown"]
    args = data.draw(st.dictionaries(st.sampled_from(names), weird, max_size=len(names)))
    try:
        tool.run(args)
    except toolkiln.RunError as error:
        assert re.fullmatch(r"E05\d\d", error.code)


# --- the front ends accept the same programs ------------------------------------------------

# Names the text DSL may accept in some places: keywords, soft keywords, builtins, odd case.
odd_names = st.sampled_from(sorted(S.RESERVED | S.SOFT_KEYWORDS) + ["Tool", "X", "_", "round", "a" * 70])


@settings(max_examples=examples(80), deadline=None)
@given(target=odd_names, tool_name=st.none() | odd_names | S.tool_names)
@example(target="lookup", tool_name=None)  # regression: text accepts, its JSON is rejected
@example(target="x", tool_name="Price")  # regression: upper-case tool name
@example(target="x", tool_name="and")  # regression: reserved word as tool name
def test_what_compiles_from_text_compiles_from_its_json(target, tool_name):
    body = f"{target} = 1\nreturn {target}\n"
    text = body if tool_name is None else f'tool {tool_name}()\ndescription ""\n{{\n{body}}}\n'
    if errors(text):
        return
    j = toolkiln.to_json(text)
    assert errors(j) == [], (text, j)


def exact_decimals(max_digits: int = 40, exponents: tuple[int, int] = (-40, 5)) -> st.SearchStrategy[Decimal]:
    """Finite decimals built from sign, digits and exponent (they shrink well)."""
    return st.builds(
        lambda sign, digits, exponent: Decimal(f"{sign}{digits}E{exponent}"),
        st.sampled_from(["", "-"]),
        st.integers(0, 10**max_digits - 1),
        st.integers(*exponents),
    )


json_numbers = st.one_of(st.integers(min_value=-(10**300), max_value=10**300), exact_decimals())


@settings(max_examples=examples(80), deadline=None)
@given(json_numbers)
@example(10**200)  # regression: accepted from JSON, E0403 from its text
@example(Decimal("1E+400"))
@example(Decimal("-12345678901234567890123456789"))  # regression: its text rounds to 28 digits
def test_what_compiles_from_json_compiles_from_its_text(number):
    doc = {"steps": [{"op": "math", "expression": number, "output": "n"}, {"op": "return", "value": "n"}]}
    if errors(doc):
        return
    text = toolkiln.to_text(doc)
    assert errors(text) == [], (doc, text)
    # equal as numbers (-0 and 0 print alike, so the sign of zero may differ)
    assert toolkiln.compile(text).run() == toolkiln.compile(doc).run(), text


@settings(max_examples=examples(80), deadline=None)
@given(exact_decimals())
@example(Decimal("-12345678901234567890123456789"))  # regression: `-` rounds, the literal did not
def test_number_literals_are_exact_in_the_text_dsl(number):
    """A literal means exactly what it says, whatever its sign (up to the 100-digit limit)."""
    source = f"return {number}"
    assert errors(source) == []
    assert toolkiln.compile(source).run() == number
    assert toolkiln.compile(f"return {-number}").run() == -number


# --- parameter defaults survive the JSON form ------------------------------------------------


@settings(max_examples=examples(80), deadline=None)
@given(exact_decimals(max_digits=30, exponents=(-30, 5)).map(abs))
@example(Decimal("0.12345678901234567891"))  # regression: to_json writes defaults as floats
@example(Decimal("12345678901234567.5"))
def test_parameter_defaults_survive_the_json_form(default):
    text = f'tool f(x: number = {default})\ndescription ""\n{{\n  return x\n}}\n'
    assert errors(text) == []
    assert toolkiln.compile(text).run() == default
    j = toolkiln.to_json(text)
    assert toolkiln.compile(j).run() == default, j
    assert toolkiln.compile(toolkiln.to_text(j)).run() == default


def test_regression_negative_default_same_ast_from_both_front_ends():
    """JSON `"default": -5` is NumberLit(-5); text `= -5` is Unary("-", NumberLit(5))."""
    text = 'tool f(x: number = -5)\ndescription ""\n{\n  return x\n}\n'
    doc = {
        "name": "f",
        "description": "",
        "parameters": {"x": {"type": "number", "default": -5}},
        "logic": {"steps": [{"op": "return", "value": "x"}]},
    }
    assert toolkiln.to_json(text) == toolkiln.to_json(doc)
    assert ast_of(text) == ast_of(doc)


# --- template text: a literal `{{` written with escapes ----------------------------------------


def escape_braces(text: str) -> str:
    """A text-DSL string body for `text`, with every `{` written as \\u007b."""
    return S.quote_double(text)[1:-1].replace("{", "\\u007b")


@settings(max_examples=examples(80), deadline=None)
@given(st.text(alphabet=st.sampled_from("{}ab :x"), max_size=12))
@example("{{x}}")  # regression: prints as a hole, so to_text changes the program
@example("{{")
def test_template_text_with_escaped_braces_round_trips(literal):
    text = f'message = format "{escape_braces(literal)}"\nreturn message\n'
    assert errors(text) == []
    assert toolkiln.compile(text).run() == literal
    printed = toolkiln.to_text(text)
    assert errors(printed) == [], printed
    assert toolkiln.compile(printed).run() == literal
    assert ast_of(printed) == ast_of(text)
