"""The text front end: `.tk` source -> Program."""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.expressions import ParseContext
from toolkiln.syntax.json_document import with_lark
from toolkiln.syntax.limits import MAX_SOURCE_CHARS
from toolkiln.syntax.statement_parser import parse_or_decline


def parse_text(text: str) -> tuple[n.Program | None, list[Diagnostic]]:
    if len(text) > MAX_SOURCE_CHARS:
        return None, [
            Diagnostic.of(
                codes.SOURCE_TOO_LARGE,
                f"source has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
                LineIndex("").span(0, 0),
            )
        ]
    index = LineIndex(text)
    ctx = ParseContext(index, fallback=with_lark)  # Lark loads only if the hand-written parsers decline
    program, parsed_until = parse_or_decline(text, ctx)
    if program is not None:
        return program, []
    # Lark decides the rest and explains the errors; an error is found without it when the
    # tables its parser left in the state home are there (syntax/lr_driver.py).
    from toolkiln.syntax.lr_driver import explain_syntax_error

    found = explain_syntax_error(text, index, parsed_until)
    if found is not None:
        return None, [found]
    from toolkiln.syntax.builder import AstBuilder
    from toolkiln.syntax.lark_front import parse_tree

    tree = parse_tree(text, "start", index, parsed_until=parsed_until)
    if isinstance(tree, Diagnostic):
        return None, [tree]
    program = AstBuilder(ctx).transform(tree)  # what the start rule builds
    return (None if ctx.diagnostics else program), ctx.diagnostics
