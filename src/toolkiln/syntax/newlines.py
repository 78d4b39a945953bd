"""The post-lexers of the grammars, over any tokens that have a `type` and a `start_pos`
(Lark's, or the error finder's: this module does not import Lark): which newlines end a step
of the text DSL (compute.lark), and how deep a workflow's brackets nest (workflow.lark)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from toolkiln.syntax.limits import MAX_DEPTH, TooDeep

T = TypeVar("T", bound=Any)

_OPENERS = {"LPAR", "LSQB"}
_CLOSERS = {"RPAR", "RSQB"}
# The tokens a value (or a tool header's clause) ends with: a `{` after one opens a block.
_VALUE_ENDS = {"NAME", "NUMBER", "STRING", "RPAR", "RSQB", "TRUE", "FALSE", "NULL", "NULLABLE", "_NL"}


class StepNewlines(Generic[T]):
    """Keeps only the newlines that end a step (see the comment at the top of compute.lark).
    Over any tokens with a `type` (Lark's, or the error finder's): a subclass makes the
    newline it inserts before a block's `}` and at the end."""

    # A newline is held back until the next token shows whether an `else` follows, so that
    # token is lexed in the state before the newline: accept every token a step line can
    # start with everywhere (all of them are reserved words or punctuation anyway).
    always_accept = ("_NL", "NAME", "IF", "RETURN", "ELSE", "RBRACE")

    def newline_at(self, token: T) -> T:
        """An empty newline token at `token`'s place."""
        raise NotImplementedError

    def process(self, stream: Iterator[T]) -> Iterator[T]:
        layout = _Layout()
        pending: T | None = None  # a newline held back until the next token is seen
        last_token: T | None = None
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
                yield self.newline_at(token)
            layout.last, last_token = kind, token
            yield token
        if pending is not None:
            yield pending
        elif last_token is not None and layout.last != "_NL":
            yield self.newline_at(last_token)


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


class BracketDepthLimit:
    """Refuses brackets nested deeper than MAX_DEPTH while lexing: Lark's reductions of 100,000
    nested parentheses take minutes (the compute grammar has its own guard)."""

    always_accept = ()
    _OPEN, _CLOSE = frozenset({"LPAR", "LSQB", "LBRACE"}), frozenset({"RPAR", "RSQB", "RBRACE"})

    def process(self, stream: Iterator[T]) -> Iterator[T]:
        depth = 0
        for token in stream:
            if token.type in self._OPEN:
                depth += 1
                if depth > MAX_DEPTH:
                    raise TooDeep(token.start_pos)  # a lexed token has its position
            elif token.type in self._CLOSE:
                depth = max(0, depth - 1)
            yield token
