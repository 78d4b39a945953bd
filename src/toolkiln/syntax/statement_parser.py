"""A hand-written parser for whole text-DSL programs (tool header and steps), used before Lark.

Lark's LALR driver, position propagation and parse tree cost about three times as much as
building the same tool from JSON. This parser follows the statement rules of compute.lark
and the newline rules of its postlexer (`grammar.NewlinePostLexer`) one for one, parses
expressions with `ExpressionParser`, and builds the same nodes with the same spans as
`AstBuilder` does from Lark's tree.

As the expression parser does, it only ever accepts: at the first thing that is not plainly
valid (a syntax error, a reserved word where a name goes, an unknown type or risk level, a
missing description, a bad escape, deep nesting, anything the builder would report) it
declines and the caller parses with Lark, which reports every diagnostic. A construct this
parser does not know (a grammar change it has not caught up with) is a decline, never a
different tree; a property test checks both parsers agree wherever this one accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

from toolkiln.ast import compute as n
from toolkiln.ast.types import ANY, DECLARABLE, Type, TypeName, or_null, record_of
from toolkiln.syntax.expression_parser import KEYWORDS, Declined, ExpressionParser, Token, lex
from toolkiln.syntax.expressions import ParseContext, parse_template
from toolkiln.syntax.strings import EscapeError, unescape
from toolkiln.syntax.words import RESERVED, RISK_LEVELS, TOOL_NAME

# Every field of a step is something just matched (a name token, a node built, a span), so the
# nodes are made without validating them again, as the expression parser makes its own: the
# first validation of a step would build the schemas of every node type (60-80 ms, issue 34).
_program, _param, _tabledecl = n.Program, n.Param, n.TableDecl
_return, _lookup, _format = n.Return, n.Lookup, n.Format
_assign, _calltool, _toolarg = n.Assign, n.CallTool, n.ToolArg
_if = n.If

# The terminals of compute.lark as its lexer sees a whole program: the expression tokens,
# the statement punctuation (`=`, `?`), and _NL (a newline with the blank and comment lines
# after it, or a comment) exactly as the grammar spells it; whitespace as its %ignore.
_TOKEN = re.compile(
    r"""
    [\t \f]*
    (?:
        (?P<nl>(?:\r?\n[\t \f]*|\#[^\n]*)+)
      | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<op>\*\*|==|!=|<=|>=|[<>+\-*/%().\[\],{}:=?])
    )""",
    re.VERBOSE,
)
# The postlexer's names for what ends a value: a `{` after one of these opens a block.
_VALUE_ENDS = frozenset({"name", "number", "string", ")", "]", "true", "false", "null", "?", "nl"})
# A block's braces get kinds of their own, so that the expression parser (whose `{` and `}`
# are a record's) can never mistake one for the other.
_BLOCK_OPEN, _BLOCK_CLOSE = "block{", "block}"
# Brackets, by how they change the depth at which newlines are spaces.
_BRACKETS = {"(": 1, "[": 1, ")": -1, "]": -1}
# Blocks nest at most this deep here (Lark's depth guard counts three tree levels for each);
# record types likewise. Deeper programs are Lark's.
MAX_BLOCK_NESTING = 8
MAX_TYPE_NESTING = 8
T = TypeVar("T")


def tokenize_program(text: str) -> list[Token]:
    """The tokens Lark's parser receives for `text`: lexed as its grammar does, then with
    the newlines that carry no meaning dropped and the implicit ones added, as
    `NewlinePostLexer.process` does (its comments explain each rule)."""
    tokens: list[Token] = []
    append = tokens.append
    depth = 0
    in_header = False
    pending: Token | None = None
    last: str | None = None
    last_token: Token | None = None
    braces: list[bool] = []
    else_of_block = False
    for group, value, start, end in lex(text, _TOKEN):
        if group == "nl":
            if depth == 0 and not in_header and last not in (None, "nl", _BLOCK_OPEN):
                pending = Token("nl", value, start, end)
            continue
        kind = value if group == "op" or (group == "name" and value in KEYWORDS) else group
        token = Token(kind, value, start, end)
        if pending is not None:
            if kind != "else":
                append(pending)
                last = "nl"
            pending = None
        if kind == "{":
            if _opens_a_record(token, last, else_of_block, braces):
                depth += 1
            else:
                in_header = False
        elif kind == "}":
            if _closes_a_record(token, last, braces, append):
                depth = max(0, depth - 1)
        elif kind == "else":
            else_of_block = last == _BLOCK_CLOSE
        elif kind in _BRACKETS:
            depth = max(0, depth + _BRACKETS[kind])
        elif kind == "tool" and last is None:
            in_header = True
        last, last_token = token.kind, token
        append(token)
    if pending is not None:
        append(pending)
    elif last_token is not None and last != "nl":  # the last step ends at the end
        append(Token("nl", "", last_token.start, last_token.end))
    return tokens


def _opens_a_record(token: Token, last: str | None, else_of_block: bool, braces: list[bool]) -> bool:
    """Whether a `{` opens a record; one that opens a block gets the block's kind."""
    block = last in _VALUE_ENDS or last == "}"  # (a `}` token kind is a record's)
    record = not (block or (last == "else" and else_of_block))
    braces.append(record)
    if not record:
        token.kind = _BLOCK_OPEN
    return record


def _closes_a_record(token: Token, last: str | None, braces: list[bool], append: Callable[[Token], None]) -> bool:
    """Whether a `}` closes a record; one that closes a block gets the block's kind, after
    the newline that ends the block's last step if it has none."""
    if braces and braces.pop():
        return True
    token.kind = _BLOCK_CLOSE
    if last not in ("nl", _BLOCK_OPEN, "{"):
        append(Token("nl", "", token.start, token.end))
    return False


class StatementParser(ExpressionParser):
    """Recursive descent over the tokens of a whole program, one method per statement rule
    of compute.lark; expressions are the inherited `test`."""

    def __init__(self, text: str, ctx: ParseContext) -> None:
        self.tokens = tokenize_program(text)
        self.count = len(self.tokens)
        self.index = 0
        self.nesting = 0
        self.span = ctx.span
        self.ctx = ctx
        self.blocks = 0
        # Where the tool's block begins (after its `{`), and where its last two steps begun
        # do: the steps before them are complete and Lark takes them as this parser did.
        self.body_start = self.previous_step_start = self.step_start = 0

    def program(self) -> n.Program:
        if self.peek() == "tool":
            return self.tool()
        if not self.tokens:
            raise Declined  # an empty program: rare, and Lark's span for it is its own
        steps = []
        while self.index < self.count:
            steps.append(self.step())
        # Lark's `start` spans its steps' containers: the last one ends with its newline.
        return _program(steps=tuple(steps), span=self.span(self.tokens[0].start, self.tokens[-1].end))

    # --- tool header ----------------------------------------------------------------------

    def tool(self) -> n.Program:
        start = self.take("tool").start
        name = self.take("name").value
        if not TOOL_NAME.fullmatch(name) or name in RESERVED:
            raise Declined
        self.take("(")
        params = self.separated(self.param, ")")
        self.take(")")
        fields: dict[str, Any] = {"parameters": tuple(params)}
        tables: list[n.TableDecl] = []
        while True:
            kind = self.peek()
            if kind == "description":
                self.index += 1
                fields["description"] = self.string(self.take("string"))
            elif kind == "risk":
                self.index += 1
                level = self.take("name").value
                if level not in RISK_LEVELS:
                    raise Declined
                fields["risk_level"] = level
            elif kind == "table":
                tables.append(self.table())
            else:
                break
        if "description" not in fields:
            raise Declined
        fields["steps"], _ = self.block()
        end = self.take("nl").end
        if self.index != self.count:
            raise Declined
        if tables:
            fields["tables"] = tuple(tables)
        return _program(name=name, span=self.span(start, end), **fields)

    def param(self) -> n.Param:
        name = self.take("name")
        if name.value in RESERVED:
            raise Declined
        self.take(":")
        type_, end = self.type_ref(0)
        default = None
        if self.peek() == "=":
            self.index += 1
            default, _, end, _ = self.test()
        description = None
        if self.peek() == "string":
            token = self.take("string")
            description, end = self.string(token), token.end
        return _param(
            name=name.value, type=type_, default=default, description=description, span=self.span(name.start, end)
        )

    def type_ref(self, nesting: int) -> tuple[Type, int]:
        """A type and where it ends: `NAME ["[" type_ref "]"] ["?"]` or a record type."""
        if nesting > MAX_TYPE_NESTING:
            raise Declined
        if self.peek() == "{":
            type_, end = self.record_type(nesting)
        else:
            token = self.take("name")
            if token.value not in DECLARABLE:
                raise Declined  # Lark's path names the type and suggests the right one
            end = token.end
            if self.peek() == "[":
                if token.value != "array":
                    raise Declined
                self.index += 1
                items, _ = self.type_ref(nesting + 1)
                end = self.take("]").end
                type_ = Type(name="array", items=items)
            elif token.value == "array":
                type_ = Type(name="array", items=ANY)
            else:
                type_ = Type(name=cast(TypeName, token.value))  # one of DECLARABLE
        if self.peek() == "?":
            end = self.take("?").end
            type_ = or_null(type_)
        return type_, end

    def record_type(self, nesting: int) -> tuple[Type, int]:
        self.take("{")
        fields = self.separated(lambda: self.type_field(nesting), "}")
        if len({key for key, _ in fields}) != len(fields):
            raise Declined  # a key given twice: Lark's path reports it
        return record_of(tuple(fields)), self.take("}").end

    def type_field(self, nesting: int) -> tuple[str, Type]:
        key = self.string(self.take("string"))
        self.take(":")
        return key, self.type_ref(nesting + 1)[0]

    def table(self) -> n.TableDecl:
        start = self.take("table").start
        name = self.take("name").value
        if name in RESERVED:
            raise Declined
        self.take(":")
        type_, end = self.type_ref(0)
        description = None
        if self.peek() == "string":
            token = self.take("string")
            description, end = self.string(token), token.end
        return _tabledecl(name=name, type=type_, span=self.span(start, end), description=description)

    # --- steps ----------------------------------------------------------------------------

    def block(self) -> tuple[tuple[n.Step, ...], int]:
        """`"{" step* "}"`: its steps and where its `}` ends."""
        self.blocks += 1
        if self.blocks > MAX_BLOCK_NESTING:
            raise Declined
        opened = self.take(_BLOCK_OPEN)
        if self.blocks == 1 and self.body_start == 0:
            self.body_start = opened.end
        steps = []
        while self.peek() != _BLOCK_CLOSE:
            steps.append(self.step())
        end = self.take(_BLOCK_CLOSE).end
        self.blocks -= 1
        return tuple(steps), end

    def step(self) -> n.Step:
        if self.blocks == 1 and self.index < self.count:
            self.previous_step_start, self.step_start = self.step_start, self.tokens[self.index].start
        kind = self.peek()
        if kind == "if":
            step: n.Step = self.if_step()[0]
        elif kind == "return":
            start = self.take("return").start
            value, _, end, _ = self.test()
            step = _return(value=value, span=self.span(start, end))
        else:
            step = self.assigning_step()
        self.take("nl")
        return step

    def assigning_step(self) -> n.Step:
        target = self.take("name")
        if target.value in RESERVED:
            raise Declined
        self.take("=")
        kind = self.peek()
        if kind == "lookup":
            self.index += 1
            table = self.take("name").value
            if table in RESERVED:
                raise Declined
            self.take("[")
            key = self.test()[0]
            end = self.take("]").end
            default = None
            if self.peek() == "default":
                self.index += 1
                default, _, end, _ = self.test()
            return _lookup(
                target=target.value, table=table, key=key, default=default, span=self.span(target.start, end)
            )
        if kind == "format":
            self.index += 1
            string = self.take("string")
            return _format(
                target=target.value, template=self.template(string), span=self.span(target.start, string.end)
            )
        if kind == "call":
            return self.call_tool(target)
        value, _, end, _ = self.test()
        return _assign(target=target.value, value=value, span=self.span(target.start, end))

    def call_tool(self, target: Token) -> n.CallTool:
        self.take("call")
        tool = self.take("name").value
        if not TOOL_NAME.fullmatch(tool) or tool in RESERVED:
            raise Declined
        self.take("(")
        args = self.separated(self.tool_arg, ")")
        end = self.take(")").end
        return _calltool(target=target.value, tool=tool, args=tuple(args), span=self.span(target.start, end))

    def tool_arg(self) -> n.ToolArg:
        name = self.take("name")
        if name.value in RESERVED:
            raise Declined
        self.take("=")
        value, _, end, _ = self.test()
        return _toolarg(name=name.value, value=value, span=self.span(name.start, end))

    def if_step(self) -> tuple[n.If, int]:
        """`"if" test block ["else" (block | if_step)]` and where it ends."""
        start = self.take("if").start
        condition = self.test()[0]
        then, end = self.block()
        otherwise: tuple[n.Step, ...] = ()
        if self.peek() == "else":
            self.index += 1
            if self.peek() == "if":
                nested, end = self.if_step()
                otherwise = (nested,)
            else:
                otherwise, end = self.block()
        return _if(condition=condition, then=then, otherwise=otherwise, span=self.span(start, end)), end

    # --- tokens ---------------------------------------------------------------------------

    def separated(self, item: Callable[[], T], closer: str) -> list[T]:
        """`item ("," item)* [","]`, or nothing, up to `closer` (which is left to take)."""
        items: list[T] = []
        while self.peek() != closer:
            items.append(item())
            if self.peek() != ",":
                break
            self.index += 1
        return items

    def string(self, token: Token) -> str:
        try:
            return unescape(token.value[1:-1])
        except EscapeError:
            raise Declined from None

    def template(self, string: Token) -> n.Template:
        ctx = self.ctx.at(self.ctx.base + string.start + 1, self.ctx.path)
        template = parse_template(string.value[1:-1], ctx, escaped=True)
        if template is None or ctx.diagnostics:
            raise Declined
        return template


def try_parse_program(text: str, ctx: ParseContext) -> n.Program | None:
    """The program in `text`, or None when Lark must decide (see the module docstring)."""
    return parse_or_decline(text, ctx)[0]


def parse_or_decline(text: str, ctx: ParseContext) -> tuple[n.Program | None, tuple[int, int] | None]:
    """The program in `text`; else None and, when this parser declined in a step of a tool's
    block after its first, where the block's steps begin and where the step before that one
    does (the steps between are complete: Lark's `parsed_until`)."""
    parser = None
    try:
        parser = StatementParser(text, ctx)
        return parser.program(), None
    except (Declined, RecursionError):
        if parser is None or not 0 < parser.body_start <= parser.previous_step_start:
            return None, None
        return None, (parser.body_start, parser.previous_step_start)
