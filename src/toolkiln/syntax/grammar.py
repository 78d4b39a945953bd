"""Loading the grammar and building the Lark parser, once per process."""

from __future__ import annotations

from functools import cache

from lark import Lark, Token, Transformer, Tree

from toolkiln.syntax.grammar_source import COMPUTE_OPTIONS, grammar_text
from toolkiln.syntax.limits import MAX_DEPTH, TooDeep
from toolkiln.syntax.newlines import StepNewlines
from toolkiln.syntax.parser_cache import cached_parser, keep_error_tables

__all__ = ["DepthGuard", "NewlinePostLexer", "TooDeep", "compute_parser", "grammar_text"]


class NewlinePostLexer(StepNewlines[Token]):
    """The post-lexer Lark runs (see `StepNewlines`): its newlines are Lark's tokens."""

    def newline_at(self, token: Token) -> Token:
        return Token.new_borrow_pos("_NL", "", token)


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
    """The compute grammar's parser; its tables are also kept for the error finder that runs
    without Lark (syntax/lr_driver.py), from this very parser."""
    grammar = grammar_text("compute.lark")
    objects = {"postlex": NewlinePostLexer(), "transformer": DepthGuard()}
    parser = cached_parser("compute", grammar, objects, **COMPUTE_OPTIONS)
    keep_error_tables("compute", grammar, COMPUTE_OPTIONS, parser)
    return parser
