"""A hand-written parser for the expressions of compute.lark, used before Lark.

Most expressions are short and valid, and Lark spends about 80 us on each one (its LALR
driver, position propagation and the parse tree), more than CPython needs to compile a
whole function. This parser follows the expression rules of the grammar one for one and
builds the same nodes with the same spans as `AstBuilder` does from Lark's tree.

It only ever accepts: at the first thing that is not plainly valid (a syntax error, a
reserved word, a bad escape, a literal too large, deep nesting, a comment) it declines and
the caller parses with Lark, which reports the diagnostic. The grammar stays the one source
of truth; a property test checks that both parsers agree wherever this one accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, TypeVar

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.syntax.limits import literal_too_large
from toolkiln.syntax.strings import EscapeError, unescape

# The words compute.lark spells as keywords (a test compares this with the grammar). One of
# them where a name is expected is left to Lark, whose contextual lexer decides what it is.
KEYWORDS = frozenset(
    {
        "and",
        "or",
        "not",
        "in",
        "if",
        "else",
        "for",
        "true",
        "false",
        "null",
        "tool",
        "description",
        "risk",
        "table",
        "lookup",
        "default",
        "format",
        "call",
        "return",
        "try",
        "catch",
    }
)
# Taller trees are left to Lark's depth guard (its MAX_DEPTH of 200 counts parse-tree levels,
# at most two per node, a flat chain `a + b + c` once), and deeper nesting (brackets, unary chains) to Lark's iterative
# parser: this one recurses about seven frames per level.
MAX_HEIGHT = 60
MAX_NESTING = 40

# The terminals of compute.lark (NUMBER, STRING, NAME, COMPARE and the punctuation), longest
# operator first as Lark orders them; whitespace as its %ignore. Anything else declines.
_TOKEN = re.compile(
    r"""
    [\t \f]*
    (?:
        (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<op>\*\*|==|!=|<=|>=|[<>+\-*/%().\[\],{}:])
    )""",
    re.VERBOSE,
)
# Binding strength of the binary operators, loosest first, as the rules of compute.lark nest:
# or_test, and_test, not_test (prefix `not`), comparison (no chaining), sum, term.
_OR, _AND, _NOT, _COMPARISON, _SUM, _TERM = range(1, 7)
_LEVEL = {
    "or": _OR,
    "and": _AND,
    "in": _COMPARISON,
    "not": _COMPARISON,
    "+": _SUM,
    "-": _SUM,
    "*": _TERM,
    "/": _TERM,
    "%": _TERM,
    **dict.fromkeys(("==", "!=", "<", "<=", ">", ">="), _COMPARISON),
}
_TRAILING_SPACE = re.compile(r"[\t \f]*\Z")


class Declined(Exception):
    """The text is not plainly valid: Lark decides (and explains)."""


class Token:
    __slots__ = ("kind", "value", "start", "end")

    def __init__(self, kind: str, value: str, start: int, end: int) -> None:
        self.kind = kind  # "number", "name", "string", or the operator or keyword itself
        self.value = value
        self.start = start
        self.end = end


_END = Token("end", "", -1, -1)
Parsed = tuple[n.Expr, int, int, int]  # node, start and end with parentheses, tree height
E = TypeVar("E", bound=n.Expr)


def lex(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[str, str, int, int]]:
    """The (group, text, start, end) of each token `pattern` matches in `text`, whose groups
    name the token kinds; trailing whitespace ends it, anything unmatched declines."""
    position, length = 0, len(text)
    match_token = pattern.match
    while position < length:
        match = match_token(text, position)
        if match is None:
            if _TRAILING_SPACE.match(text, position):
                return
            raise Declined
        group = match.lastgroup
        assert group is not None  # every alternative of a token pattern is a named group
        position = match.end()
        yield group, match.group(group), match.start(group), position


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for group, value, start, end in lex(text, _TOKEN):
        kind = value if group == "op" or (group == "name" and value in KEYWORDS) else group
        tokens.append(Token(kind, value, start, end))
    return tokens


class ExpressionParser:
    """Recursive descent over the tokens of one expression. Each rule returns a `Parsed`:
    the node, the text it covers with its parentheses (what the span of an enclosing node is
    measured from, as in Lark's position propagation) and the height of its tree."""

    def __init__(self, text: str, span: Callable[[int, int], Span]) -> None:
        self.tokens = tokenize(text)
        self.count = len(self.tokens)
        self.index = 0
        self.nesting = 0
        self.span = span  # (start, end) -> Span, as ParseContext.span

    def parse(self) -> n.Expr:
        if not self.tokens:
            raise Declined
        node = self.test()[0]
        if self.index != self.count:
            raise Declined
        return node

    # --- tokens ---------------------------------------------------------------------------

    def peek(self) -> str:
        return self.tokens[self.index].kind if self.index < self.count else "end"

    def take(self, kind: str) -> Token:
        """The next token, which must be of `kind` (a name here is never a keyword: a keyword
        where a name is expected is Lark's to judge)."""
        token = self.tokens[self.index] if self.index < self.count else _END
        if token.kind != kind:
            raise Declined
        self.index += 1
        return token

    def node(self, node_type: type[E], start: int, end: int, height: int, **fields: Any) -> Parsed:
        if height > MAX_HEIGHT:
            raise Declined
        # Made from tokens matched here and nodes made here: there is nothing to validate.
        return node_type(span=self.span(start, end), **fields), start, end, height

    def enter(self) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise Declined

    # --- rules, loosest binding first -----------------------------------------------------

    def test(self) -> Parsed:
        self.enter()
        result = then, start, _, then_height = self.or_test()
        if self.peek() == "if":
            self.index += 1
            condition, _, _, condition_height = self.or_test()
            self.take("else")
            otherwise, _, end, otherwise_height = self.test()
            result = self.node(
                n.Conditional,
                start,
                end,
                1 + max(then_height, condition_height, otherwise_height),
                test=condition,
                then=then,
                otherwise=otherwise,
            )
        self.nesting -= 1
        return result

    def or_test(self) -> Parsed:
        return self.binary(_OR)

    def binary(self, level: int) -> Parsed:
        """The rules from or_test down to term, by precedence climbing: an operand, then
        every operator that binds at least as tightly as `level`, left-associative."""
        if self.peek() == "not" and level <= _NOT:
            self.enter()
            start = self.take("not").start
            operand, _, end, height = self.binary(_NOT)
            self.nesting -= 1
            result = self.node(n.Unary, start, end, height + 1, op="not", operand=operand)
        else:
            result = self.factor()
        chain_level = None  # the level of the flat chain `result` is, once this loop built it
        while True:
            kind = self.peek()
            op_level = _LEVEL.get(kind)
            if op_level is None or op_level < level:
                return result
            left, start, _, height = result
            self.index += 1
            op = kind
            if kind == "not":  # after an operand, `not` can only begin `not in`
                self.take("in")
                op = "not in"
            right, _, end, right_height = self.binary(op_level + 1)
            # As Lark's depth guard measures: a flat chain `a + b + c` is one level, not two.
            left_height = height if chain_level == op_level else height + 1
            result = self.node(n.Binary, start, end, max(left_height, right_height + 1), op=op, left=left, right=right)
            chain_level = op_level
            if op_level == _COMPARISON and _LEVEL.get(self.peek()) == _COMPARISON:
                raise Declined  # comparisons do not chain

    def factor(self) -> Parsed:
        kind = self.peek()
        if kind not in ("-", "+"):
            return self.power()
        self.enter()
        start = self.take(kind).start
        operand, _, end, height = self.factor()
        self.nesting -= 1
        if kind == "-" and isinstance(operand, n.NumberLit) and not operand.value.is_signed():
            # `-3` is the literal -3, as in AstBuilder.neg.
            return self.node(n.NumberLit, start, end, height, value=operand.value.copy_negate())
        return self.node(n.Unary, start, end, height + 1, op=kind, operand=operand)

    def power(self) -> Parsed:
        result = base, start, _, base_height = self.postfix()
        if self.peek() != "**":
            return result
        self.index += 1
        exponent, _, end, exponent_height = self.factor()
        return self.node(
            n.Binary, start, end, 1 + max(base_height, exponent_height), op="**", left=base, right=exponent
        )

    def postfix(self) -> Parsed:
        result = self.atom()
        while True:
            node, start, _, height = result
            kind = self.peek()
            if kind == ".":
                self.index += 1
                field = self.take("name")
                result = self.node(n.Field_, start, field.end, height + 1, target=node, name=field.value)
            elif kind == "[":
                self.index += 1
                index, _, _, index_height = self.test()
                end = self.take("]").end
                result = self.node(n.Index, start, end, 1 + max(height, index_height), target=node, index=index)
            else:
                return result

    def atom(self) -> Parsed:
        token = self.tokens[self.index] if self.index < self.count else _END
        self.index += 1
        kind, start, end = token.kind, token.start, token.end
        if kind == "number":
            value = Decimal(token.value)
            if literal_too_large(value):
                raise Declined
            return self.node(n.NumberLit, start, end, 1, value=value)
        if kind == "string":
            try:
                text = unescape(token.value[1:-1])
            except EscapeError:
                raise Declined from None
            return self.node(n.StringLit, start, end, 1, value=text)
        if kind == "name":
            if self.peek() == "(":
                return self.call(token)
            return self.node(n.Name, start, end, 1, name=token.value)
        if kind == "true" or kind == "false":
            return self.node(n.BoolLit, start, end, 1, value=kind == "true")
        if kind == "null":
            return self.node(n.NullLit, start, end, 1)
        if kind == "(":
            inner, _, _, height = self.test()
            return inner, start, self.take(")").end, height  # parentheses widen the extent only
        if kind == "[":
            return self.list_or_comprehension(start)
        if kind == "{":
            return self.record(start)
        raise Declined

    def call(self, function: Token) -> Parsed:
        self.index += 1  # "("
        args: tuple[n.Expr, ...] = ()
        height = 0
        if self.peek() != ")":
            first = self.test()
            if self.peek() == "for":
                generator = self.comprehension(first, first[1], None)
                args, height = (generator[0],), generator[3]
            else:
                args, height = self.items(first, ")")
        end = self.take(")").end
        return self.node(n.Call, function.start, end, height + 1, function=function.value, args=args)

    def list_or_comprehension(self, start: int) -> Parsed:
        if self.peek() == "]":
            return self.node(n.ListExpr, start, self.take("]").end, 1, items=())
        first = self.test()
        if self.peek() == "for":
            return self.comprehension(first, start, "]")
        items, height = self.items(first, "]")
        return self.node(n.ListExpr, start, self.take("]").end, height + 1, items=items)

    def record(self, start: int) -> Parsed:
        """`{"key": test, ...}` after its `{` (a key given twice is Lark's to report)."""
        entries: list[n.RecordEntry] = []
        height = 0
        while self.peek() != "}":
            key = self.atom()
            if not isinstance(key[0], n.StringLit) or any(e.key == key[0].value for e in entries):
                raise Declined
            self.take(":")
            value, _, end, value_height = self.test()
            entries.append(n.RecordEntry(span=self.span(key[1], end), key=key[0].value, value=value))
            height = max(height, value_height)
            if self.peek() != ",":
                break
            self.index += 1
        return self.node(n.RecordExpr, start, self.take("}").end, height + 1, entries=tuple(entries))

    def items(self, first: Parsed, closer: str) -> tuple[tuple[n.Expr, ...], int]:
        """`test ("," test)* [","]`, the first test already parsed: the items and their height."""
        items, height = [first[0]], first[3]
        while self.peek() == ",":
            self.index += 1
            if self.peek() == closer:
                break
            item, _, _, item_height = self.test()
            items.append(item)
            height = max(height, item_height)
        return tuple(items), height

    def comprehension(self, element: Parsed, start: int, closer: str | None) -> Parsed:
        """`element "for" NAME "in" or_test ["if" or_test]`, then `closer` if any (a generator
        argument has none: its span ends with its last expression, as Lark's does)."""
        self.take("for")
        var = self.take("name").value
        self.take("in")
        iterable, _, end, height = self.or_test()
        condition = None
        if self.peek() == "if":
            self.index += 1
            condition, _, end, condition_height = self.or_test()
            height = max(height, condition_height)
        if closer is not None:
            end = self.take(closer).end
        return self.node(
            n.Comprehension,
            start,
            end,
            1 + max(element[3], height),
            element=element[0],
            var=var,
            iterable=iterable,
            condition=condition,
        )


def try_parse_expression(text: str, span: Callable[[int, int], Span]) -> n.Expr | None:
    """The expression in `text`, or None when Lark must decide (see the module docstring)."""
    try:
        return ExpressionParser(text, span).parse()
    except (Declined, RecursionError):
        return None
