"""Formatting a workflow keeps its comments: every one, in order, with the same step, and
formatting the result again changes nothing (the data-loss bug: `fmt` deleted every comment)."""

import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_workflow_roundtrip import workflows

from toolkiln.ast import workflow as w
from toolkiln.backends.workflow_printer import print_workflow
from toolkiln.syntax.comments import comments
from toolkiln.syntax.workflow_text import parse_workflow

COMMENT_TEXT = st.text(alphabet="abc XYZ#\"'{}019", max_size=12).map(lambda text: "# " + text.strip())


def fmt(text: str) -> str:
    """What `toolkiln workflow fmt` writes (after the workflow checks, which this skips)."""
    workflow, diagnostics = parse_workflow(text)
    assert workflow is not None, (text, diagnostics)
    return print_workflow(workflow, comments(text))


def every_step(steps: tuple[w.Step, ...]):
    for step in steps:
        yield step
        yield from every_step(tuple(w.walk_steps((step,)))[1:])


def attached(text: str) -> list[tuple[str, str]]:
    """Each comment with the step it belongs to: the first step, in reading order, that ends on
    or after the comment's line (or the trigger, or the end)."""
    workflow, _ = parse_workflow(text)
    assert workflow is not None
    steps = list(w.walk_steps(workflow.steps))
    owners = []
    for line, comment in comments(text):
        if line <= workflow.trigger.span.end_line:
            owner = "(header or trigger)"
        else:
            owner = next((step.name for step in steps if step.span.end_line >= line), "(end)")
        owners.append((comment, owner))
    return owners


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflow=workflows(), data=st.data())
def test_formatting_keeps_every_comment_in_order_with_its_step(workflow, data):
    lines = print_workflow(workflow).rstrip("\n").split("\n")  # not splitlines: U+0085 is no line end here
    commented = []
    for line in lines:
        if data.draw(st.booleans()):
            commented.append(data.draw(COMMENT_TEXT))  # a comment line of its own
        commented.append(line + ("  " + data.draw(COMMENT_TEXT) if line.strip() and data.draw(st.booleans()) else ""))
    text = "\n".join(commented) + "\n"
    formatted = fmt(text)
    assert [c for _, c in comments(formatted)] == [c for _, c in comments(text)], formatted
    assert attached(formatted) == attached(text), formatted
    assert fmt(formatted) == formatted
    before, _ = parse_workflow(text)
    after, _ = parse_workflow(formatted)
    assert S.strip_spans(after) == S.strip_spans(before)
