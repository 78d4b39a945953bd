"""Loading the grammar and building the Lark parser, once per process."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer, Tree

from toolkiln.syntax.limits import MAX_DEPTH
from toolkiln.syntax.parser_cache import cached_parser

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
        layout = _Layout()
        pending: Token | None = None  # a newline held back until the next token is seen
        last_token: Token | None = None
        for token in stream:
            kind = token.type
            if kind == "_NL":
                if layout.ends_a_step():
                    pending = token
                continue
            if pending is not None:
                if kind != "ELSE":
                    yield pending
                    layout.last = "_NL"
                pending = None
            if layout.ends_a_step_before(kind):
                yield Token.new_borrow_pos("_NL", "", token)
            layout.last, last_token = kind, token
            yield token
        if pending is not None:
            yield pending
        elif last_token is not None and layout.last != "_NL":
            yield Token.new_borrow_pos("_NL", "", last_token)


class _Layout:
    """Where the post-lexer is: inside brackets or a record (newlines are spaces there), in a
    tool header, and which braces are open."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_header = False
        self.last: str | None = None  # the kind of the last token passed on
        self.braces: list[bool] = []  # the open braces: True for a record's, False for a block's
        self.closed_record = False  # whether the last `}` closed a record
        self.else_of_block = False  # whether the last `else` follows a block (`} else {`)

    def ends_a_step(self) -> bool:
        """Whether a newline here ends a step."""
        return self.depth == 0 and not self.in_header and self.last not in (None, "_NL", "LBRACE")

    def ends_a_step_before(self, kind: str) -> bool:
        """Takes in a token other than a newline; whether a step ends before it (a block's
        `}` after a step's last token)."""
        if kind == "LBRACE":
            self.open_brace()
        elif kind == "RBRACE":
            return self.close_brace()
        elif kind == "ELSE":
            self.else_of_block = self.last == "RBRACE" and not self.closed_record
        elif kind in _OPENERS:
            self.depth += 1
        elif kind in _CLOSERS:
            self.depth = max(0, self.depth - 1)
        elif kind == "TOOL" and self.last is None:
            self.in_header = True
        return False

    def open_brace(self) -> None:
        block = self.last in _VALUE_ENDS or (self.last == "RBRACE" and self.closed_record)
        record = not (block or (self.last == "ELSE" and self.else_of_block))
        self.braces.append(record)
        if record:
            self.depth += 1  # a record's newlines are spaces, as a list's are
        else:
            self.in_header = False

    def close_brace(self) -> bool:
        self.closed_record = bool(self.braces) and self.braces.pop()
        if self.closed_record:
            self.depth = max(0, self.depth - 1)
            return False
        return self.last not in ("_NL", "LBRACE")


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
    return cached_parser(
        "compute",
        grammar_text("compute.lark"),
        {"postlex": NewlinePostLexer(), "transformer": DepthGuard()},
        parser="lalr",
        start=["start", "expr_start"],
        propagate_positions=True,
        maybe_placeholders=True,
    )
