"""Loading the grammar and building the Lark parser, once per process."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer, Tree

from toolkiln.syntax.limits import MAX_DEPTH

_OPENERS = {"LPAR", "LSQB"}
_CLOSERS = {"RPAR", "RSQB"}
# The tokens a value (or a tool header's clause) ends with: a `{` after one opens a block.
_VALUE_ENDS = {"NAME", "NUMBER", "STRING", "RPAR", "RSQB", "TRUE", "FALSE", "NULL", "NULLABLE", "_NL"}


def grammar_text(name: str) -> str:
    """The text of `grammar/<name>`, from the installed package (wheel or editable)."""
    packaged = resources.files("toolkiln") / "grammar" / name
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    # An editable install runs from the source tree, where the grammar is at the top level.
    return (Path(__file__).resolve().parents[3] / "grammar" / name).read_text(encoding="utf-8")


class NewlinePostLexer:
    """Keeps only the newlines that end a step (see the comment at the top of compute.lark)."""

    # A newline is held back until the next token shows whether an `else` follows, so that
    # token is lexed in the state before the newline: accept every token a step line can
    # start with everywhere (all of them are reserved words or punctuation anyway).
    always_accept = ("_NL", "NAME", "IF", "RETURN", "ELSE", "RBRACE")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        depth = 0
        in_header = False
        pending: Token | None = None
        last: str | None = None
        last_token: Token | None = None
        braces: list[bool] = []  # the open braces: True for a record's, False for a block's
        closed_record = False  # whether the last `}` closed a record
        else_of_block = False  # whether the last `else` follows a block (`} else {`)
        for token in stream:
            kind = token.type
            if kind == "_NL":
                if depth == 0 and not in_header and last not in (None, "_NL", "LBRACE"):
                    pending = token
                continue
            if pending is not None:
                if kind != "ELSE":
                    yield pending
                    last = "_NL"
                pending = None
            if kind == "LBRACE":
                block = last in _VALUE_ENDS or (last == "RBRACE" and closed_record)
                record = not (block or (last == "ELSE" and else_of_block))
                braces.append(record)
                if record:
                    depth += 1  # a record's newlines are spaces, as a list's are
                else:
                    in_header = False
            elif kind == "RBRACE":
                closed_record = bool(braces) and braces.pop()
                if closed_record:
                    depth = max(0, depth - 1)
                elif last not in ("_NL", "LBRACE"):
                    yield Token.new_borrow_pos("_NL", "", token)
            elif kind == "ELSE":
                else_of_block = last == "RBRACE" and not closed_record
            elif kind in _OPENERS:
                depth += 1
            elif kind in _CLOSERS:
                depth = max(0, depth - 1)
            elif kind == "TOOL" and last is None:
                in_header = True
            last, last_token = kind, token
            yield token
        if pending is not None:
            yield pending
        elif last_token is not None and last != "_NL":
            yield Token.new_borrow_pos("_NL", "", last_token)


class TooDeep(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__(f"nesting deeper than {MAX_DEPTH} levels")
        self.offset = offset


class DepthTree(Tree[Token]):
    __slots__ = ("depth",)
    depth: int


# Left-recursive rules of one precedence level: `a + b - c` is written flat, so the left operand
# of a chain rule that is itself of the same level adds no depth (a 10,000-term sum is depth 2).
_CHAIN_LEVEL = {"add": "sum", "sub": "sum", "mul": "term", "div": "term", "mod": "term", "or_": "or", "and_": "and"}


class DepthGuard(Transformer[Token, Tree[Token]]):
    """Builds the parse tree, giving up as soon as it nests deeper than MAX_DEPTH: a 1 MB
    `((((...` is refused after a few hundred tokens instead of after seconds of parsing.
    Depth is nesting as written: a flat chain `a + b + c` counts once, not once per term."""

    def __default__(self, data: str, children: list[Tree[Token] | Token], meta: object) -> Tree[Token]:
        if data.startswith("__"):
            # A repetition helper (`step*`): Lark splices its children into the parent rule,
            # whose own call measures them once; measuring here would be quadratic.
            return Tree(data, children)
        level = _CHAIN_LEVEL.get(data)
        chained = children[0] if level and _CHAIN_LEVEL.get(getattr(children[0], "data", "")) == level else None
        depth = 1
        for child in children:
            if type(child) is DepthTree:
                depth = max(depth, child.depth if child is chained else child.depth + 1)
        if depth > MAX_DEPTH:
            raise TooDeep(_first_offset(children))
        tree = DepthTree(data, children)
        tree.depth = depth
        return tree


def _first_offset(children: list[Tree[Token] | Token]) -> int:
    for child in children:
        if isinstance(child, Token) and child.start_pos is not None:
            return child.start_pos
        if isinstance(child, Tree) and not child.meta.empty:
            return child.meta.start_pos
    return 0


@cache
def compute_parser() -> Lark:
    return Lark(
        grammar_text("compute.lark"),
        parser="lalr",
        start=["start", "expr_start"],
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=NewlinePostLexer(),
        transformer=DepthGuard(),
    )
