"""The hand-written workflow parser agrees with the Lark grammar wherever it accepts.

Over every workflow in the repository (the golden files, the rendered starter templates, the
workflows of the docs), the text the printer writes for generated workflows, the public n8n
exports of ../shared/corpus imported to DSL text, and all of these mutated (tokens dropped,
doubled or swapped, the grammar's words put where names go, comments and newlines put between
tokens), the fast parser either declines, or builds exactly the workflow, values and spans
that Lark's parse through `_Builder` builds, and Lark reports no diagnostic for that text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_workflow_roundtrip import workflows

from toolkiln.ast.spans import LineIndex
from toolkiln.backends.workflow_printer import print_workflow
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expression_parser import Declined
from toolkiln.syntax.expressions import ParseContext, parse_expression
from toolkiln.syntax.workflow_lark import parse_with_lark, workflow_parser
from toolkiln.syntax.workflow_parser import WorkflowParser, try_parse_workflow
from toolkiln.syntax.workflow_scanner import KEYWORDS, STEP_WORDS, Scanner
from toolkiln.templates.library import shipped
from toolkiln.templates.render import render_dsl

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "n8n" / "public-300"
GOLDEN = sorted((ROOT / "tests" / "golden" / "workflows").glob("*.wf"))
LARGE_INPUTS = [HealthCheck.too_slow, HealthCheck.data_too_large]
# What a fenced block of the docs holds when it is a workflow.
DOCS_BLOCK = re.compile(r"^```[a-z]*\n(workflow .*?)^```", re.MULTILINE | re.DOTALL)
# A token of the DSL as the mutations see it: a string, a comment, a word, a number, a mark.
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9.]+|->|\S')
WORKFLOW = """# every step kind, wiring and raw properties
workflow order_flow
description "Every step kind" with {"settings": {"timezone": "UTC"}}
on webhook POST "/orders/:id" body {qty: number, items: [{sku: string}], "the note": any} respond with node
with {"position": [0, 0]}
set priced { total = body.qty * 2, note = "a" if body.qty > 1 else "b", }
if big priced.total > (100) {
  wait pause 5 minutes
  respond yes ({"ok": true})["ok"]
} else {
  http fetch GET "https://api.example.com/x/{{priced.total}}?q={{body.qty + 1}}"
    query { page = 1, "per page" = 20 } headers { accept = "application/json" }
    body { total = priced.total } credentials httpHeaderAuth "Example API" returns {id: number}
}
switch size {
  case priced.total > 10 { set many { n = [x * 2 for x in [1, 2] if x > 1] } }
  case priced.total > 5 { merge inner by position }
  else { node "Other" type "n8n-nodes-base.noOp" version 1 {} returns {a: [string]} }
}
after big[1] -> 0, "size"[2], fetch
merge joined with {"notes": "joined"}
after nothing
node "Note" type "n8n-nodes-base.stickyNote" version 1.5 {"content": "x"} credentials api "k"
respond reply joined
"""
TRIGGERS = [
    "on manual",
    'on schedule daily at "09:30" timezone "Europe/Berlin"',
    "on schedule every 15 minutes",
    'on schedule cron "0 9 * * 1-5"',
    'on node "Form" type "n8n-nodes-base.formTrigger" version 2 {"path": "f"} credentials api "k" returns {a: any}',
]
# Words of the grammar (and of the compute language) put where a name or an expression goes.
WORDS = sorted(
    {"nothing", "if", "else", "and", "true", "null", "tool", "by", "position"}
    | {t.pattern.value for t in workflow_parser().terminals if t.pattern.value.isalpha()}
)


def test_the_keywords_are_the_words_of_the_grammar() -> None:
    """The scanner's (and the printer's) list of keywords is the grammar's."""
    terminals = workflow_parser().terminals
    assert {
        t.pattern.value for t in terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()
    } == KEYWORDS


def test_the_words_that_end_a_respond_body_are_the_grammars() -> None:
    """What the LALR table takes, besides more expression, after an atom of a respond body
    (its states with NAME and OP but no ELSE, which the states after a bracket group have)."""
    parser = workflow_parser()
    words = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    found = {
        words[key]
        for actions in parser.parser.parser.parser.parse_table.states.values()
        if {"NAME", "OP"} <= set(actions) and "ELSE" not in actions
        for key in actions
        if key in words and words[key].isalpha()
    }
    assert found == STEP_WORDS | {"with"}


def assert_agrees(text: str) -> bool:
    """Whether the fast parser accepted `text` (and, if it did, that Lark agrees). Where it
    read the text whole but an expression was wrong, Lark's path gives the same diagnostics."""
    index = LineIndex(text)
    ctx = ParseContext(index, fallback=parse_expression_with_lark)
    fast = try_parse_workflow(text, ctx)
    if fast is None and not ctx.diagnostics:
        return False
    slow, diagnostics = parse_with_lark(text, ParseContext(index, fallback=parse_expression_with_lark))
    assert diagnostics == ctx.diagnostics, (text, diagnostics, ctx.diagnostics)
    # repr, not ==: Decimal('2.50') == Decimal('2.5'), but a literal's digits must agree too
    assert repr(fast) == repr(slow), text
    return fast is not None


def lark_accepts(text: str) -> bool:
    ctx = ParseContext(LineIndex(text), fallback=parse_expression_with_lark)
    return parse_with_lark(text, ctx)[0] is not None


def repository_workflows() -> list[tuple[str, str]]:
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in GOLDEN]
    for slug, template in sorted(shipped().items()):
        values = {p.name: "+34600000000" if p.default is None else p.default for p in template.parameters}
        found.append((f"template {slug}", render_dsl(template, values)))
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks = DOCS_BLOCK.findall(page.read_text(encoding="utf-8"))
        found.extend((f"{page.name} block {i}", block) for i, block in enumerate(blocks))
    found.append(("every step kind", WORKFLOW))
    webhook = WORKFLOW.splitlines()[3]
    found.extend((trigger, WORKFLOW.replace(webhook, trigger)) for trigger in TRIGGERS)
    return found


REPOSITORY = repository_workflows()


@pytest.mark.parametrize(("where", "text"), REPOSITORY, ids=[where for where, _ in REPOSITORY])
def test_every_workflow_of_the_repository_agrees_and_is_accepted_where_lark_accepts_it(where: str, text: str) -> None:
    assert assert_agrees(text) == lark_accepts(text)


@pytest.mark.parametrize(("old", "new"), [("\n", "\r\n"), ("  ", "\t"), ("\n", "\n\f"), (" ", "\u00a0")])
def test_other_white_space_is_read_as_lark_reads_it(old: str, new: str) -> None:
    """Carriage returns, tabs and form feeds are white space to both; a no-break space to neither."""
    for _, text in REPOSITORY:
        variant = text.replace(old, new)
        assert assert_agrees(variant) == lark_accepts(variant), variant


def test_it_accepts_the_golden_files_the_templates_and_every_construct() -> None:
    """The fast path is taken for ordinary workflows (else it would only be slower)."""
    ordinary = [(where, text) for where, text in REPOSITORY if where.startswith(("tests", "template", "every", "on "))]
    accepted = [where for where, text in ordinary if assert_agrees(text)]
    assert len(accepted) == len(GOLDEN) + len(shipped()) + 1 + len(TRIGGERS), accepted


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the public n8n corpus is not at {CORPUS}")
def test_the_public_n8n_exports_as_dsl_text_agree_and_nearly_all_are_accepted() -> None:
    from toolkiln.workflow import import_n8n

    files = sorted(CORPUS.glob("*.json"))
    assert files
    accepted = sum(assert_agrees(import_n8n(json.loads(p.read_text()), p.stem).to_text()) for p in files)
    assert accepted >= 0.95 * len(files), f"{accepted} of {len(files)} accepted"


@settings(max_examples=examples(150), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(workflows())
def test_the_printed_text_of_a_generated_workflow_agrees(workflow) -> None:
    assert_agrees(print_workflow(workflow))


@st.composite
def mutated(draw) -> str:
    """A workflow of the repository or a printed one, with one to three token edits."""
    text = draw(st.sampled_from(REPOSITORY))[1] if draw(st.booleans()) else print_workflow(draw(workflows()))
    for _ in range(draw(st.integers(1, 3))):
        tokens = list(TOKEN.finditer(text))
        if not tokens:
            break
        token = draw(st.sampled_from(tokens))
        start, end = token.span()
        edit = draw(st.sampled_from(["drop", "double", "swap", "join", "word", "comment", "newline"]))
        if edit == "drop":
            text = text[:start] + text[end:]
        elif edit == "join":  # the white space after it dropped: `set s` -> `sets`
            text = text[:end] + text[end:].lstrip(" \t\n")
        elif edit == "double":
            text = text[:end] + " " + token.group() + text[end:]
        elif edit == "swap":
            after = next(TOKEN.finditer(text, end), None)
            if after is not None:
                text = text[:start] + after.group() + text[end : after.start()] + token.group() + text[after.end() :]
        elif edit == "word":
            text = text[:start] + draw(st.sampled_from(WORDS)) + text[end:]
        else:
            text = text[:end] + ("  # note\n" if edit == "comment" else "\n") + text[end:]
    return text


@settings(max_examples=examples(400), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(mutated())
def test_a_mutated_workflow_agrees_or_declines(text: str) -> None:
    assert_agrees(text)


NAME_SLOTS = re.compile(r"\b(priced|big|joined|pause|yes|fetch|many|total|note|qty|page|accept|httpHeaderAuth)\b")


@pytest.mark.parametrize("word", WORDS)
def test_each_word_of_the_grammar_where_a_name_goes_is_read_as_lark_reads_it(word: str) -> None:
    """Each of the grammar's words as a step name, a field, a wire's source, a name read in an
    expression (first, after an operator, after a bracket) and a credential type: the fast
    parser accepts exactly where Lark's contextual lexer takes the word for a name."""
    texts = [WORKFLOW[: slot.start()] + word + WORKFLOW[slot.end() :] for slot in NAME_SLOTS.finditer(WORKFLOW)]
    for context in ("{word}", "x + {word}", "(x) {word}", "[x] {word}", "f({word})", "x {word} y", "{word}.x"):
        expression = context.format(word=word)
        texts.append(WORKFLOW.replace("respond reply joined", f"respond reply {expression}"))
        texts.append(WORKFLOW.replace("total = body.qty * 2", f"total = {expression}"))
        texts.append(WORKFLOW.replace("big priced.total > (100) {", f"big {expression} {{"))
    for text in texts:
        assert assert_agrees(text) == lark_accepts(text), text


HEAD = 'workflow w\ndescription "d"\non manual\n'
DEEP = {
    "blocks": HEAD + "if a x {\n" * 300 + "}\n" * 300,
    "switch cases": HEAD + "switch s { case x {\n" * 150 + "}}\n" * 150,
    "brackets": HEAD + "set s { a = " + "(" * 300 + "1" + ")" * 300 + " }\n",
    "records": HEAD + "respond r (" + '{"a": ' * 300 + "1" + "}" * 300 + ")\n",
    "shapes": HEAD.replace("on manual", 'on webhook POST "/w" body ' + "{a: " * 300 + "any" + "}" * 300),
    "lists in a shape": HEAD.replace(
        "on manual", 'on webhook POST "/w" body {a: ' + "[" * 300 + "any" + "]" * 300 + "}"
    ),
    "JSON": HEAD + 'node "N" type "t" version 1 ' + '{"a": ' * 300 + "1" + "}" * 300 + "\n",
}


@pytest.mark.parametrize("kind", DEEP)
def test_deep_nesting_is_left_to_larks_bounds(kind: str) -> None:
    """Nesting past the hand parser's bounds (16 blocks and shapes, 40 brackets) is declined
    without recursing into it, and Lark's bound (200 brackets and braces) reports it."""
    text = DEEP[kind]
    assert try_parse_workflow(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark)) is None
    workflow, diagnostics = parse_with_lark(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark))
    assert workflow is None and [d.code for d in diagnostics] == ["E0402"], kind


def test_nesting_between_both_bounds_is_larks_to_build() -> None:
    """Deeper than the hand parser goes and within Lark's bound: declined, and Lark builds it."""
    for text in (HEAD + "if a x {\n" * 20 + "}\n" * 20, HEAD + "set s { a = " + "(" * 45 + "1" + ")" * 45 + " }\n"):
        assert not assert_agrees(text) and lark_accepts(text)


# --- expressions with errors: the hand parser reads on, and Lark's path says the same -------

# The expressions of the compute language's error fixtures (the right side of an assignment,
# a return or a condition) that the compute parser reports.
ERROR_FIXTURES = ["tests/golden/diagnostics/*.tk", "examples/*.tk", "tests/corpus/broken_model_output/*.tk"]
FIXTURE_LINE = re.compile(r"^\s*(?:[A-Za-z_]\w*\s*=|return\b|if\b|elif\b)\s*(.+?)\s*\{?\s*$", re.MULTILINE)
EDIT_PIECES = [*"(){}[]+-*/%<>=!,.:\"'", "if ", "else", " and ", "not ", "**", "x", "1.5", '"s"', "@", "=>", "set"]


class _ExpressionSlots(WorkflowParser):
    """The hand parser, noting where each expression of a valid workflow stands."""

    def __init__(self, text: str) -> None:
        super().__init__(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark))
        self.slots: list[tuple[int, int]] = []

    def expression(self, respond_body: bool) -> Any:
        start = self.scan.pos
        expr = super().expression(respond_body)
        self.slots.append((start, self.scan.last_end))
        return expr


def expression_slots(text: str) -> list[tuple[int, int]]:
    parser = _ExpressionSlots(text)
    parser.workflow()
    return parser.slots


def _reported(expression: str) -> bool:
    ctx = ParseContext(LineIndex(expression), fallback=parse_expression_with_lark)
    parse_expression(expression, ctx)
    return bool(ctx.diagnostics)


BROKEN = sorted(
    {
        match[1]
        for pattern in ERROR_FIXTURES
        for path in sorted(ROOT.glob(pattern))
        for match in FIXTURE_LINE.finditer(path.read_text(encoding="utf-8"))
        if _reported(match[1])
    }
)
SLOTTED = [
    (where, text, slots) for where, text in REPOSITORY if lark_accepts(text) if (slots := expression_slots(text))
]


def _with_broken(text: str, slots: list[tuple[int, int]], broken: dict[int, str]) -> str:
    """`text` with the expression in slot i replaced by `broken[i]` (from the last one back)."""
    for i in sorted(broken, reverse=True):
        start, end = slots[i]
        text = text[:start] + broken[i] + text[end:]
    return text


def test_every_expression_slot_with_each_broken_expression_gets_larks_diagnostics() -> None:
    """Each error fixture's expression in every expression slot of the repository's workflows
    (one slot at a time, and every slot at once): the same diagnostics, all of them, in order,
    as Lark's path; and the hand parser answers each one made of the workflow grammar's tokens
    without Lark (the others, `;` or `&&` say, are syntax errors of the workflow's grammar)."""
    assert len(BROKEN) >= 20 and sum(len(slots) for _, _, slots in SLOTTED) >= 100
    unanswered = []
    for where, text, slots in SLOTTED:
        for i in range(len(slots)):
            for expression in BROKEN:
                if not _answered_like_lark(_with_broken(text, slots, {i: expression})) and _in_grammar(expression):
                    unanswered.append((where, i, expression))
        every = {i: BROKEN[i % len(BROKEN)] for i in range(len(slots))}
        _answered_like_lark(_with_broken(text, slots, every))
    assert sum(map(_in_grammar, BROKEN)) >= 15 and not unanswered, unanswered


def _in_grammar(expression: str) -> bool:
    """Whether `expression` is one whole extent of the workflow grammar's expression tokens."""
    scan = Scanner(expression)
    try:
        return scan.extent(respond_body=False) == (0, len(expression))
    except Declined:
        return False


def _answered_like_lark(text: str) -> bool:
    """Whether the hand parser gave `text`'s diagnostics itself (asserting Lark's are those)."""
    index = LineIndex(text)
    ctx = ParseContext(index, fallback=parse_expression_with_lark)
    fast = try_parse_workflow(text, ctx)
    assert fast is None, text
    slow, diagnostics = parse_with_lark(text, ParseContext(index, fallback=parse_expression_with_lark))
    assert slow is None and diagnostics, text
    if not ctx.diagnostics:
        return False
    assert ctx.diagnostics == diagnostics, (text, ctx.diagnostics, diagnostics)
    return True


_SLOT_EDIT = st.tuples(st.floats(0, 1), st.sampled_from(["delete", "insert"]), st.sampled_from(EDIT_PIECES))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=LARGE_INPUTS)
@given(st.sampled_from(SLOTTED), st.data())
def test_a_workflow_whose_expressions_are_edited_agrees_or_declines(slotted, data) -> None:
    """One to three of a workflow's own expressions edited (a piece of the compute fuzz put
    in or a character taken out): the hand parser declines or answers as Lark's path does."""
    _, text, slots = slotted
    chosen = data.draw(st.lists(st.integers(0, len(slots) - 1), min_size=1, max_size=3, unique=True))
    broken = {}
    for i in chosen:
        start, end = slots[i]
        where, how, piece = data.draw(_SLOT_EDIT)
        at = start + int(where * (end - start))
        broken[i] = text[start:at] + (piece if how == "insert" else "") + text[at + (how == "delete") : end]
    assert_agrees(_with_broken(text, slots, broken))


# Broken expressions whose extent Lark's grammar reads otherwise: a step's word (or `with`)
# after a closing bracket is a keyword to Lark's lexer; a bracket left open runs to the end.
OTHERWISE_READ = ["(x +) set", "[x] with", "f(1 +) after y", "(x) respond r", "(1 +", "[1, (2", "(x) if * y"]


@pytest.mark.parametrize("expression", OTHERWISE_READ)
def test_a_broken_expression_the_grammar_reads_otherwise_is_left_to_lark(expression: str) -> None:
    for _, text, slots in SLOTTED:
        for i in range(len(slots)):
            assert_agrees(_with_broken(text, slots, {i: expression}))


HOLE = re.compile(r"\{\{([^{}\"\n]+)\}\}")


def test_a_broken_expression_in_a_url_templates_hole_gets_larks_diagnostics() -> None:
    """Each error fixture's expression in each hole of an HTTP step's URL (escaped for the
    string), and a hole left open: the same workflow or diagnostics as Lark's path, never a
    decline (a template's extent is its STRING token, whatever its holes hold)."""
    holes = [(text, hole) for _, text in REPOSITORY if lark_accepts(text) for hole in HOLE.finditer(text)]
    assert holes
    answered = 0
    for text, hole in holes:
        for expression in [*BROKEN, "x }} {{ y", "{{x"]:
            inside = expression.replace("\\", "\\\\").replace('"', '\\"')
            variant = text[: hole.start(1)] + inside + text[hole.end(1) :]
            index = LineIndex(variant)
            ctx = ParseContext(index, fallback=parse_expression_with_lark)
            fast = try_parse_workflow(variant, ctx)
            slow, diagnostics = parse_with_lark(variant, ParseContext(index, fallback=parse_expression_with_lark))
            assert (repr(fast), ctx.diagnostics) == (repr(slow), diagnostics), variant
            answered += bool(diagnostics)
    assert answered >= len(holes) * len(BROKEN) // 2
