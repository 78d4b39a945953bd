"""Any input, however broken, gives diagnostics (or a tool), never another exception or a hang.

`check` must return a list of Diagnostic for text, JSON text, dicts and other values;
`compile` must raise only CompileError; the printers only CompileError; a compiled tool only
RunError. And hostile inputs (deep nesting, a megabyte of expression, huge powers) must be
refused quickly with a stable code.
"""

from __future__ import annotations

import json
import multiprocessing
import time
import traceback
from decimal import Decimal
from typing import Any

import pytest
import strategies as S
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.diagnostics.codes import CODES
from toolkiln.diagnostics.render import render_json, render_text
from toolkiln.syntax.loader import parse_source

# Programs are large inputs by design; generation time is not what these tests measure.
LARGE_INPUTS = [HealthCheck.too_slow, HealthCheck.data_too_large]
FUZZ = settings(max_examples=examples(150), deadline=None, suppress_health_check=LARGE_INPUTS)
HANG_GUARD = 5.0  # seconds; a hang guard, not a benchmark


def assert_handled(source: Any) -> list[toolkiln.Diagnostic]:
    """The whole public surface on one input: nothing but diagnostics, CompileError and RunError."""
    diagnostics = toolkiln.check(source)
    assert isinstance(diagnostics, list)
    for d in diagnostics:
        assert isinstance(d, toolkiln.Diagnostic)
        assert d.code in CODES, d.code
        assert d.message
        assert isinstance(render_text(d), str)
    json.loads(render_json(diagnostics))
    has_errors = any(d.is_error for d in diagnostics)
    try:
        tool = toolkiln.compile(source)
    except toolkiln.CompileError as error:
        assert has_errors, diagnostics
        assert any(d.is_error for d in error.diagnostics)
    else:
        assert not has_errors, diagnostics
        try:
            tool.run({})
        except toolkiln.RunError as error:
            assert error.code in CODES
    try:
        text = toolkiln.to_text(source)
    except toolkiln.CompileError:
        text = None
    try:
        doc = toolkiln.to_json(source)
    except toolkiln.CompileError:
        doc = None
    assert (text is None) == (doc is None)
    if text is not None:
        # whatever parses, prints as text that parses back to the same program
        assert toolkiln.to_text(text) == text
        assert S.strip_spans(parse_source(text).program) == S.strip_spans(parse_source(source).program)
        assert toolkiln.to_json(text) == doc
    return diagnostics


def codes_of(source: Any) -> list[str]:
    return [d.code for d in toolkiln.check(source) if d.is_error]


_FORK = multiprocessing.get_context("fork")


def _call_in_child(conn, fn, args) -> None:
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as error:  # noqa: BLE001 - reported to the parent as text
        conn.send(("raised", "".join(traceback.format_exception(error))))
    finally:
        conn.close()


def timed(fn, *args, limit: float = HANG_GUARD):
    """fn(*args) in a forked process, killed after `limit` seconds: a hang fails the test
    instead of stalling the suite. An exception in fn fails the test with its traceback."""
    receiver, sender = _FORK.Pipe(duplex=False)
    process = _FORK.Process(target=_call_in_child, args=(sender, fn, args), daemon=True)
    start = time.perf_counter()
    process.start()
    sender.close()
    finished = receiver.poll(limit)
    if not finished:
        process.kill()
        process.join()
        raise AssertionError(f"{getattr(fn, '__name__', fn)}{args!r:.200} did not finish within {limit} s")
    status, payload = receiver.recv()
    process.join()
    assert time.perf_counter() - start < limit + 1
    if status == "raised":
        raise AssertionError(payload)
    return payload


def run_code(source: Any) -> str | None:
    """Compile and run with no arguments: None on success, else the RunError's code."""
    try:
        toolkiln.compile(source).run()
    except toolkiln.RunError as error:
        return error.code
    return None


# --- 1. any text ---------------------------------------------------------------------------


@FUZZ
@given(st.text())
@example("\x00")
@example("return \x00")
@example('x = format "{{"\nreturn x')
@example("{")
@example("[")
@example("")
@example("\ufeffreturn 1")
def test_any_text_gives_diagnostics(text):
    assert_handled(text)


@FUZZ
@given(S.token_soup())
def test_token_soup_gives_diagnostics(text):
    assert_handled(text)


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(S.deep_nesting())
@example("return " + "**".join(["2"] * 40) + "\n")  # regression: compile time doubles per `**`
@example("return " + "-" * 150 + "1\n")
@example("return " + "x" + "[0]" * 150 + "\n")
def test_deep_nesting_gives_diagnostics(text):
    timed(assert_handled, text)


@st.composite
def mutated_programs(draw) -> str:
    """A valid program's text with a few characters deleted, inserted or swapped."""
    text = draw(S.programs(comments=True)).text()
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        match draw(st.integers(0, 2)):
            case 0:
                text = text[:at] + text[at + 1 :]
            case 1:
                text = text[:at] + draw(st.sampled_from(S.TOKENS)) + text[at:]
            case _:
                text = text[:at] + draw(st.characters()) + text[at + 1 :]
    return text


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(mutated_programs())
def test_mutated_programs_give_diagnostics(text):
    assert_handled(text)


# --- 1. any JSON-like value ------------------------------------------------------------------


@FUZZ
@given(S.json_values)
@example({"steps": [{"op": "return", "value": float("nan")}]})  # regression: pydantic error escapes
@example({"steps": [{"op": "return", "value": float("inf")}]})
@example(
    {
        "name": "t",
        "description": "",
        "parameters": {"x": {"type": "number", "default": float("nan")}},
        "logic": {"steps": [{"op": "return", "value": "x"}]},
    }
)
def test_any_json_value_gives_diagnostics(value):
    assert_handled(value)


@pytest.mark.slow
@FUZZ
@given(S.program_like())
def test_program_like_dicts_give_diagnostics(doc):
    assert_handled(doc)


@FUZZ
@given(st.one_of(S.json_values, S.program_like()).map(json.dumps))
@example('{"steps": [{"op": "return", "value": NaN}]}')  # regression: pydantic error escapes
@example('{"steps": [{"op": "return", "value": -Infinity}]}')
@example('{"steps": [{"op": "return", "value": ' + "1" * 5000 + "}]}")  # regression: ValueError escapes
def test_any_json_text_gives_diagnostics(text):
    assert_handled(text)


@st.composite
def broken_json_texts(draw) -> str:
    """The JSON text of a valid program, cut short or with a character changed."""
    text = S.json_text(draw(S.programs()).json(), draw(st.sampled_from([None, "  "])))
    at = draw(st.integers(0, len(text) - 1))
    if draw(st.booleans()):
        return text[:at]
    return text[:at] + draw(st.sampled_from(list('{}[]",:\\') + ["\x00", "NaN", "1e999999"])) + text[at + 1 :]


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(broken_json_texts())
def test_broken_json_text_gives_diagnostics(text):
    assert_handled(text)


@settings(max_examples=examples(50), deadline=None)
@given(
    st.one_of(
        st.integers(),
        st.floats(),
        st.lists(st.integers(), max_size=3),
        st.binary(max_size=20),
        st.tuples(st.integers()),
        st.sets(st.integers(), max_size=2),
        st.none(),
        st.booleans(),
    )
)
def test_other_python_values_give_diagnostics(value):
    assert_handled(value)


# --- 9. bad input is fast and clean ------------------------------------------------------------


def test_ten_thousand_nested_parentheses():
    # parentheses add no AST depth: either refused as too deep or simply the number 1
    source = "return " + "(" * 10_000 + "1" + ")" * 10_000
    codes = timed(codes_of, source)
    if codes:
        assert codes == ["E0402"]
    else:
        assert timed(value_of, source) == 1
    assert timed(codes_of, "(" * 10_000 + "1" + ")" * 10_000) == ["E0101"]
    assert timed(codes_of, "return " + "(" * 10_000 + "1") != []
    assert timed(codes_of, "return " + "-(" * 10_000 + "1" + ")" * 10_000) == ["E0402"]
    assert timed(codes_of, "return " + "[" * 10_000 + "]" * 10_000) == ["E0402"]


def test_regression_megabyte_expression_is_refused_quickly():
    """Found by this suite: ~17 s to parse before the depth check refuses it."""
    assert timed(codes_of, "1+" * 500_000 + "1") in (["E0101"], ["E0404"])  # E0404: too many tokens
    codes = timed(codes_of, "return " + "1+" * 500_000 + "1")
    assert codes and set(codes) <= {"E0401", "E0402", "E0404"}


def test_source_over_the_size_limit_is_refused():
    assert timed(codes_of, "return " + "1+" * 600_000 + "1") == ["E0401"]


@pytest.mark.parametrize(
    "source", ["return 9**9**9", "return 10**100000", "return 2**1000", "return 10**99 * 10", "return (10**50) ** 3"]
)
def test_huge_powers_fail_with_a_code(source):
    assert timed(codes_of, source) == []
    assert timed(run_code, source) in {"E0506", "E0511"}


@pytest.mark.parametrize("op", ["/", "%", "**", "-", "*"])
def test_regression_operator_chains_compile_quickly(op):
    """Found by this suite: `x / x / ... / x` (and `%`, `**`) compiled each operand twice per
    level, so compile time doubled with every operator: 22 operands took 8 s, 40 hang."""
    source = "return " + f" {op} ".join(["x"] * 40)
    assert timed(codes_of, source) == []
    assert timed(lambda: toolkiln.compile(source).parameters["required"]) == ["x"]


def value_of(source: Any) -> Any:
    return toolkiln.compile(source).run()


def test_nul_bytes_and_unicode():
    value = "a\x00b\u20ac\U0001f642\u2028"
    assert timed(value_of, 'return "a\x00b\u20ac\U0001f642\u2028"') == value
    assert timed(value_of, 'return "a\\u0000b"') == "a\x00b"
    codes = timed(codes_of, "return 1\x00")
    assert codes == ["E0101"]
    assert "U+0000" in toolkiln.check("return 1\x00")[0].message
    assert timed(codes_of, b"return \xff") == ["E0100"]
    doc = {"steps": [{"op": "return", "value": json.dumps(value, ensure_ascii=False)}]}
    assert toolkiln.compile(doc).run() == value


def test_regression_surrogate_pair_escape_is_one_character():
    """Found by this suite: `"\\ud83d\\ude42"` (how JSON and models escape an emoji) decodes to
    two lone surrogates, a string that cannot even be encoded as UTF-8."""
    value = "a\U0001f642"
    assert toolkiln.compile("return " + json.dumps(value)).run() == value
    doc = {"steps": [{"op": "return", "value": json.dumps(value)}]}
    assert toolkiln.compile(doc).run() == value


@pytest.mark.parametrize(
    "source, code",
    [
        ("{not json", "E0105"),
        ("{", "E0105"),
        ('{"steps": [', "E0105"),
        ('{"steps": []} trailing', "E0105"),
        ("[1, 2]", "E0106"),
        ("[]", "E0106"),
        ('"just a string"', "E0101"),
        ("5", "E0101"),
        ("null", "E0101"),
    ],
)
def test_non_json_and_wrong_json_texts(source, code):
    assert code in timed(codes_of, source)


@pytest.mark.parametrize("value", [5, 1.5, [1, 2], [], None, True, ("steps",), object()])
def test_non_document_values(value):
    assert timed(codes_of, value) == ["E0106"]


def test_deep_json_is_refused():
    assert timed(codes_of, "[" * 100_000) == ["E0402"]
    nested: dict = {"op": "return", "value": "1"}
    for _ in range(1000):
        nested = {"op": "condition", "if": "true", "then": [nested]}
    assert "E0402" in timed(codes_of, {"steps": [nested, {"op": "return", "value": "0"}]})


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1" * 5000, "1e999999"])
def test_regression_odd_json_numbers_give_diagnostics(number):
    """Found by this suite: NaN/Infinity raised pydantic's ValidationError, and a 5000-digit
    integer raised ValueError (Python's int-string limit), out of check()."""
    source = '{"steps": [{"op": "return", "value": ' + number + "}]}"
    codes = timed(codes_of, source)
    assert codes, f"{number} accepted"


def test_regression_non_finite_numbers_in_dicts_give_diagnostics():
    for value in (float("nan"), float("inf"), Decimal("NaN"), Decimal("-Infinity")):
        assert codes_of({"steps": [{"op": "return", "value": value}]}), value
