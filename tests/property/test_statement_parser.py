"""The hand-written statement parser agrees with the Lark grammar wherever it accepts.

On generated programs (valid tools and bare steps with comments and blank lines, the same
programs mutated into near misses, token soup) and on every .tk file in the repository, the
fast parser either declines, or builds exactly the program, values and spans that Lark's
parse through AstBuilder builds, and Lark reports no diagnostic for that text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import strategies as S
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.builder import AstBuilder, parse_expression_with_lark
from toolkiln.syntax.expression_parser import KEYWORDS
from toolkiln.syntax.expressions import ParseContext
from toolkiln.syntax.lark_front import parse_tree
from toolkiln.syntax.statement_parser import parse_or_decline, try_parse_program
from toolkiln.syntax.text import parse_text

ROOT = Path(__file__).resolve().parents[2]
TK_FILES = sorted(p for folder in ("examples", "tests") for p in (ROOT / folder).rglob("*.tk"))
FIELD_KEYWORD = re.compile(r"\.(" + "|".join(KEYWORDS) + r")\b")
NAME_KEYWORD = re.compile(r"\b(description|risk|table|default)\b")
LARGE_INPUTS = [HealthCheck.too_slow, HealthCheck.data_too_large]

TOOL = """tool late_fee(
  amount: number "the invoice amount",
  days: integer = 0,
  tags: array[string]?,
  line: {"net": number, "note": string?}?,
)
description "A late fee"
risk low
table rates: {"rate": number} "fee rates"
{
  # the base fee
  fee = amount * 0.02   # two percent

  if days > 30 {
    fee = fee * 2
  } else if days > 10 { fee = fee + 1 }
  else {
    fee = 0
  }
  rate = lookup rates["eu"] default {"rate": 1}
  note = format "fee {{fee:.2f}} on {{amount}}"
  other = call other_tool(x = fee, y = [1,
     2],)
  return round(fee * rate.rate, 2)
}
"""

# A record closes the condition: the `{` after its `}` opens the block.
RECORD_CONDITION = 'if x == {"a": 1} {\n  return 1\n} else {\n  return {"b": 2}\n}\nreturn 3\n'


def assert_agrees(text: str) -> bool:
    """Whether the fast parser accepted `text` (and, if it did, that Lark agrees)."""
    index = LineIndex(text)
    fast = try_parse_program(text, ParseContext(index, fallback=parse_expression_with_lark))
    if fast is None:
        return False
    tree = parse_tree(text, "start", index)
    assert not isinstance(tree, Diagnostic), (text, tree)
    ctx = ParseContext(index, fallback=parse_expression_with_lark)
    slow = AstBuilder(ctx).transform(tree)
    assert ctx.diagnostics == [], (text, ctx.diagnostics)
    # repr, not ==: Decimal('2.50') == Decimal('2.5'), but the literal's digits must agree too
    assert repr(fast) == repr(slow), text
    return True


@pytest.mark.parametrize("path", TK_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_tk_file_agrees_or_declines(path: Path) -> None:
    assert_agrees(path.read_text(encoding="utf-8"))


def test_it_accepts_the_examples_and_the_common_shapes() -> None:
    """The fast path is taken for ordinary programs (else it would only be slower)."""
    examples = sorted((ROOT / "examples").glob("*.tk"))
    assert examples
    for text in [
        *(p.read_text(encoding="utf-8") for p in examples),
        TOOL,
        "x = 1\nreturn x",
        "return 1  # end",
        RECORD_CONDITION,
    ]:
        assert assert_agrees(text), text


def test_a_program_with_errors_gets_larks_diagnostics() -> None:
    """A decline hands the program to Lark, which reports exactly what it reported before."""
    for text, code in [
        ("x = 1 +\nreturn x\n", codes.SYNTAX_ERROR.code),
        ("tool t() {\n  return 1\n}\n", None),  # no description: the builder's report
        ("x = lookup in[1]\nreturn x\n", None),
    ]:
        program, diagnostics = parse_text(text)
        assert program is None and diagnostics, text
        tree = parse_tree(text, "start", LineIndex(text))
        if isinstance(tree, Diagnostic):
            assert diagnostics == [tree]
        if code is not None:
            assert diagnostics[0].code == code


# Edits that turn a valid program into a near miss (or into another valid program).
MUTATIONS = ["", "\n", " ", "#c\n", "{", "}", "(", ")", "[", "]", ",", "=", "?", ":", "else", "if", "\r\n", "\\"]


@st.composite
def mutated(draw, text: str | None = None) -> str:
    source = text if text is not None else S.to_text_dsl(draw(S.programs(comments=True)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(source)))
        cut = draw(st.integers(0, 2))
        source = source[:at] + draw(st.sampled_from(MUTATIONS)) + source[at + cut :]
    return source


@settings(max_examples=examples(120), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(S.programs(comments=True), st.sampled_from(["", "\n", "\n\n", "  ", "# end", "\n# end\n"]))
@example(None, "")
def test_generated_programs_agree(model: S.ProgramModel | None, ending: str) -> None:
    text = (TOOL if model is None else S.to_text_dsl(model)).rstrip("\n") + ending
    accepted = assert_agrees(text)
    # A keyword as a field name (`r.in`) or as a name where the contextual lexer lets it pass
    # (a parameter named `table`) is declined by design; else the fast path must be taken.
    names = re.sub(r"(?m)^(description|risk) .*$", "", text)
    assert accepted or FIELD_KEYWORD.search(text) or NAME_KEYWORD.search(names), text


@settings(max_examples=examples(300), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(mutated() | mutated(TOOL))
@example("x = 1\r\nreturn x\r\n")
@example("if a {\n} else {\n}\nreturn 1\n")
@example("if a {}\nelse if b { return 2 }\nreturn 1")
@example("x = {\n'a': 1}\nreturn x")
@example("default = 1\nreturn default\n")
@example("")
@example("# only a comment\n")
def test_near_misses_agree_or_decline(text: str) -> None:
    assert_agrees(text)


@settings(max_examples=examples(200), deadline=None)
@given(S.token_soup())
def test_token_soup_agrees_or_declines(text: str) -> None:
    assert_agrees(text)


def test_deep_blocks_decline_to_lark() -> None:
    """Nesting past the fast parser's bound is Lark's to parse (and to refuse when too deep)."""
    deep = "if a {\n" * 30 + "x = 1\n" + "}\n" * 30 + "return 1\n"
    assert try_parse_program(deep, ParseContext(LineIndex(deep), fallback=parse_expression_with_lark)) is None
    assert parse_text(deep)[0] is not None


# A tool whose steps an editor is typing into: many complete steps, then the one being typed.
STEPS = (
    'tool typed(a: number, items: array[number])\ndescription "T"\n{\n'
    + "".join(
        f"  v{i} = round(a * {i}, 2) + len(items)\n  w{i} = [x * v{i} for x in items if x > 0]\n" for i in range(12)
    )
    + "  return v11\n}\n"
)
# The step after the blanked ones starts with `for`, a keyword only where a step has just ended.
FOR_AFTER_STEPS = 'tool t(a: number)\ndescription "T"\n{\n  x = 1\n  y = 2\n  for item in a {\n  }\n  return x\n}\n'


@settings(max_examples=examples(300), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(mutated(STEPS) | mutated(TOOL))
@example(FOR_AFTER_STEPS)
@example(STEPS.replace("  v7 = round(a * 7, 2)", "  v7 = round("))
@example(STEPS.replace("  w5 = [x", "  w5 = [x if"))
def test_a_syntax_error_found_past_the_complete_steps_is_the_whole_texts(text: str) -> None:
    """Where the fast parser declines in a tool's block, Lark's error is looked for with the
    complete steps before the last two blanked out; it is the error of the whole text."""
    index = LineIndex(text)
    program, parsed_until = parse_or_decline(text, ParseContext(index, fallback=parse_expression_with_lark))
    if program is not None or parsed_until is None:
        return
    assert repr(parse_tree(text, "start", index, parsed_until=parsed_until)) == repr(
        parse_tree(text, "start", index)
    ), text
