"""Where each value of a JSON document sits in its file, so that diagnostics of JSON sources
point at a real line and column (and CI annotations land on the right line)."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, cast

from toolkiln.ast.spans import json_path

if TYPE_CHECKING:
    from lark import Lark


@cache
def _parser() -> Lark:
    # Lark loads only when a diagnostic of a JSON source needs its position.
    from lark import Lark

    from toolkiln.syntax.grammar import grammar_text

    return Lark(grammar_text("json.lark"), parser="lalr", lexer="basic", propagate_positions=True)


def value_offsets(text: str) -> dict[str, tuple[int, str | None]]:
    """JSON path -> (offset of the value in `text`, raw string token if the value is a string)."""
    from lark import Token, Tree
    from lark.exceptions import LarkError

    try:
        tree = _parser().parse(text)
    except (LarkError, RecursionError):
        return {}
    # The casts follow json.lark: `start: value` and `pair: STRING ":" value`, and lexed tokens
    # have their positions (Lark types them Optional, for tokens made by hand).
    found: dict[str, tuple[int, str | None]] = {}
    stack: list[tuple[Tree[Token], tuple[str | int, ...]]] = [(cast("Tree[Token]", tree.children[0]), ())]
    while stack:
        node, path = stack.pop()
        inner = node.children[0]
        if isinstance(inner, Token):
            found[json_path(path)] = (cast(int, inner.start_pos), inner.value if inner.type == "STRING" else None)
            continue
        found[json_path(path)] = (inner.meta.start_pos, None)
        if inner.data == "object":
            for pair in inner.children:
                if isinstance(pair, Tree):
                    key_token, value = cast("tuple[Token, Tree[Token]]", pair.children)
                    stack.append((value, path + (json.loads(key_token.value),)))
        else:
            values = [child for child in inner.children if isinstance(child, Tree)]
            stack.extend((value, path + (index,)) for index, value in enumerate(values))
    return found
