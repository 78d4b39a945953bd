"""The `# comments` of a text source (tools and workflows), for the printers that keep them."""

from __future__ import annotations

import re

from toolkiln.ast.spans import LineIndex

# Strings first, so that a `#` inside a string literal is not taken for a comment.
_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*')


def comments(text: str) -> list[tuple[int, str]]:
    """Every `# comment` with its 1-based line, for printers that keep them."""
    index = LineIndex(text)
    return [
        (index.position(m.start())[0], m.group(0).rstrip())
        for m in _COMMENT_OR_STRING.finditer(text)
        if m.group(0).startswith("#")
    ]
