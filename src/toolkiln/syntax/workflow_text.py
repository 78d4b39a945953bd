"""The workflow front end: `.wf` text -> `toolkiln.ast.workflow.Workflow`, or diagnostics.

The hand-written parser (workflow_parser.py) reads a valid workflow, and one whose only errors
are in its expressions (it reports those); at the first other thing that is not plainly valid
it declines, and Lark's parse (workflow_lark.py) decides and reports every diagnostic. So Lark
loads only for a workflow with another error (or a construct the hand parser leaves to it):
importing Lark and reading its parser back is most of a valid workflow's check (issue 34).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.ast import workflow as w
from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.expressions import ParseContext
from toolkiln.syntax.json_document import with_lark
from toolkiln.syntax.limits import MAX_SOURCE_CHARS
from toolkiln.syntax.strings import UNENCODABLE, UNENCODABLE_HINT, surrogate_offset
from toolkiln.syntax.workflow_parser import try_parse_workflow

if TYPE_CHECKING:
    from lark import Lark


def workflow_parser() -> Lark:
    """The Lark parser of grammar/workflow.lark (Lark loads on the first call)."""
    from toolkiln.syntax.workflow_lark import workflow_parser as lark_parser

    return lark_parser()


def parse_workflow(text: str, max_source_chars: int = MAX_SOURCE_CHARS) -> tuple[w.Workflow | None, list[Diagnostic]]:
    """Parse workflow DSL text. Returns the AST (None if anything is wrong) and diagnostics.
    Text over `max_source_chars` is refused before any work (the default protects a host
    from what a model sends; an imported export of thousands of nodes needs more)."""
    if len(text) > max_source_chars:
        return None, [
            Diagnostic.of(
                codes.SOURCE_TOO_LARGE,
                f"source has {len(text):,} characters; the limit is {max_source_chars:,}",
                LineIndex("").span(0, 0),
                hint="raise the limit for a source you trust: compile_workflow(text, "
                "max_source_chars=N), or toolkiln workflow compile --max-source-chars N",
            )
        ]
    index = LineIndex(text)
    surrogate = surrogate_offset(text)
    if surrogate is not None:
        return None, [
            Diagnostic.of(
                codes.UNREADABLE_FILE, UNENCODABLE, index.span(surrogate, surrogate + 1), hint=UNENCODABLE_HINT
            )
        ]
    fast = ParseContext(index, fallback=with_lark)
    workflow = try_parse_workflow(text, fast)
    if workflow is not None or fast.diagnostics:  # read whole (its expressions' errors, if any)
        return workflow, fast.diagnostics
    # Lark decides the rest and explains the errors; a syntax error is found without it when
    # the tables its parser left in the state home are there (syntax/workflow_errors.py).
    from toolkiln.syntax.workflow_errors import explain_workflow_error

    found = explain_workflow_error(text, index)
    if found is not None:
        return None, [found]
    from toolkiln.syntax.workflow_lark import parse_with_lark

    return parse_with_lark(text, ParseContext(index, fallback=with_lark))
