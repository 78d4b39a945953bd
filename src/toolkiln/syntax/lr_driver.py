"""The syntax error of a source found from a Lark parser's kept tables, without importing Lark
(issue 34: a syntax error's `check` paid some 230 M instructions to import Lark, read its
parser back and compile its lexers' regular expressions): a text-DSL file (`start`), an
expression (`expr_start`: a JSON tool's), or a workflow (syntax/workflow_errors.py).

It runs the LALR automaton Lark built (syntax/error_tables.py) the way Lark's parser runs it:
the same contextual lexer (per parser state, the terminals that state can take, tried in Lark's
order, a keyword taken from a name as Lark's "unless" callback does it, the whole lexer asked
when a state's lexer fails), the same post-lexer (syntax/newlines.py), the same shifts and
reductions, and the same failure: the token, the offset, the terminals expected. It builds no
tree. A source it finds no error in, or whose parse might nest deeper than a depth guard
allows, is left to Lark; so every diagnostic is the one Lark's path gives
(tests/property/test_error_finder_agrees.py and test_workflow_error_finder.py compare them).

The compute grammar's depth guard counts the levels of the tree Lark builds; here each value on
the stack has a bound no smaller than its depth (a token 0; a reduction one more than its
deepest child, its deepest child's for a `?rule` of one symbol that Lark replaces by that
child, and for Lark's own helpers that their parent splices in), so a parse whose bounds stay
within the limit is one where the guard never fires."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.error_tables import DEEPER, REDUCE, SHIFT, SINGLE, SPLICED, ErrorTables, Terminal, compute_tables
from toolkiln.syntax.limits import MAX_DEPTH, TooDeep
from toolkiln.syntax.newlines import BracketDepthLimit, StepNewlines
from toolkiln.syntax.syntax_errors import SeenToken, SyntaxFailure, Where, blanked_before, syntax_diagnostic


def explain_syntax_error(
    text: str,
    index: LineIndex,
    parsed_until: tuple[int, int] | None = None,
    *,
    start: str = "start",
    base: int = 0,
    path: str | None = None,
) -> Diagnostic | None:
    """The diagnostic `lark_front.parse_tree(text, start, index, base, path, parsed_until=...)`
    gives for a text that does not parse, found without Lark; None when the text parses, its
    parse might nest too deep, or there are no kept tables: then Lark decides."""
    tables = compute_tables()
    if tables is None:
        return None
    try:
        failure = None
        if parsed_until is not None:
            failure = first_failure(blanked_before(text, *parsed_until), start, tables)
            past = failure is not None and isinstance(failure.offset, int) and failure.offset > parsed_until[1]
            failure = failure if past else None
        if failure is None:
            failure = first_failure(text, start, tables)
    except MaybeTooDeep:
        return None
    if failure is None:
        return None
    return syntax_diagnostic(failure, Where(text, index, base, path), start, tables.literals)


class MaybeTooDeep(Exception):
    """A reduction whose tree might nest deeper than Lark's depth guard allows, or brackets
    nested deeper than the workflow post-lexer's limit: Lark decides."""


class _Failed(Exception):
    def __init__(self, failure: SyntaxFailure) -> None:
        super().__init__(failure.what)
        self.failure = failure


class _Token:
    __slots__ = ("type", "value", "start_pos")  # (as Lark's tokens name them)

    def __init__(self, kind: str, value: str, start_pos: int) -> None:
        self.type, self.value, self.start_pos = kind, value, start_pos


class _Newlines(StepNewlines[_Token]):
    def newline_at(self, token: _Token) -> _Token:
        return _Token("_NL", "", token.start_pos)


def first_failure(text: str, start: str, tables: ErrorTables, *, workflow: bool = False) -> SyntaxFailure | None:
    """Where and why Lark's parse of `text` with the start rule stops, or None when it parses;
    MaybeTooDeep when a depth guard might stop it first. `workflow`: the tables are the
    workflow grammar's (its post-lexer limits brackets; it has no tree depth guard)."""
    try:
        _Parse(text, start, tables, workflow=workflow).run()
    except _Failed as failed:
        return failed.failure
    except TooDeep as error:
        raise MaybeTooDeep from error
    return None


class _Parse:
    def __init__(self, text: str, start: str, tables: ErrorTables, *, workflow: bool) -> None:
        self.tables = tables
        self.stack = [tables.start_states[start]]
        self.bounds: list[int] = []  # no smaller than the depth of each value on the stack
        self.held: list[str | None] = []  # each value's kind: a token's, or None for a tree
        self.end_state = tables.end_states[start]
        self.lexer = _Lexer(text, tables)
        self.post_lexer: StepNewlines[_Token] | BracketDepthLimit = BracketDepthLimit() if workflow else _Newlines()
        self.depth_guard = not workflow

    def run(self) -> None:
        last = None
        for token in self.post_lexer.process(self.lexer.tokens(self)):
            last = token
            self.feed(token, at_end=False)
        self.feed(_Token("$END", "", last.start_pos if last else 0), at_end=True)

    def feed(self, token: _Token, *, at_end: bool) -> None:
        """Lark's `ParserState.feed_token`, with depth bounds for its tree."""
        states, stack, bounds, held = self.tables.states, self.stack, self.bounds, self.held
        while True:
            actions = states[stack[-1]]
            action = actions.get(token.type)
            if action is None:
                expected = frozenset(symbol for symbol in actions if symbol.isupper())
                raise _Failed(self.unexpected(token, expected))
            kind, arg = action
            if kind == SHIFT:
                stack.append(arg)
                bounds.append(0)
                held.append(token.type)
                return
            assert kind == REDUCE
            name, size, grows = self.tables.rules[arg]
            deepest, value = 0, None
            if size:
                deepest = max(bounds[-size:])
                value = held[-1] if grows == SINGLE and size == 1 else None  # (Lark keeps a lone child)
                del stack[-size:]
                del bounds[-size:]
                del held[-size:]
            bound = _bound(grows, deepest)
            if bound > MAX_DEPTH and self.depth_guard:
                raise MaybeTooDeep
            stack.append(states[stack[-1]][name][1])
            bounds.append(bound)
            held.append(value)
            if at_end and stack[-1] == self.end_state:
                return

    def unexpected(self, token: _Token, expected: frozenset[str]) -> SyntaxFailure:
        """The failure at a token the parser cannot take; `expected`: Lark's own list."""
        seen = SeenToken(token.type, token.value, token.start_pos)
        failure = SyntaxFailure("token", token.start_pos, seen, expects=self.expects(expected), expected=expected)
        failure.held = tuple(self.held)
        return failure

    def expects(self, otherwise: frozenset[str]) -> frozenset[str]:
        """The terminals the parser could take in its state (lark_front._parser_expects)."""
        choices = frozenset(symbol for symbol in self.tables.states[self.stack[-1]] if symbol in self.lexer.names)
        return choices or otherwise


def _bound(grows: int, deepest: int) -> int:
    """The depth bound of a reduction's value, from its deepest child's."""
    if grows == SPLICED:
        return deepest
    if grows == DEEPER:
        return deepest + 1
    return deepest or 1  # SINGLE: the child itself, or a tree of no children


class _Scanner:
    """One state's lexer: its terminals in the order tried, the keywords each may turn into,
    and the terminals an error says it allowed."""

    __slots__ = ("terminals", "keywords", "allowed", "by_first")

    def __init__(
        self, terminals: tuple[Terminal, ...], keywords: dict[str, tuple[Terminal, ...]], allowed: frozenset[str]
    ) -> None:
        self.terminals, self.keywords, self.allowed = terminals, keywords, allowed
        self.by_first: dict[str, tuple[Terminal, ...]] = {}  # see `tried_at`

    def tried_at(self, first: str) -> tuple[Terminal, ...]:
        """The terminals that can match text starting with `first`, in the order tried: a
        plain string only if it starts with it (the same first match, with fewer tries)."""
        tried = self.by_first.get(first)
        if tried is None:
            tried = tuple(t for t in self.terminals if t.literal is None or t.literal.startswith(first))
            self.by_first[first] = tried
        return tried


class _Lexer:
    """Lark's contextual lexer over `text`: a lexer per parser state, built when first met."""

    def __init__(self, text: str, tables: ErrorTables) -> None:
        self.text = text
        self.tables = tables
        self.by_name = {terminal.name: terminal for terminal in tables.terminals}
        self.names = frozenset(self.by_name)
        self.scanners: dict[frozenset[str], _Scanner] = {}  # by the terminals it tries (Lark shares them so)
        self.by_state: dict[int, _Scanner] = {}

    def tokens(self, parse: _Parse) -> Iterator[_Token]:
        """The tokens, each lexed in the state the parser is in when it asks for it."""
        position = 0
        while True:
            state = parse.stack[-1]
            scanner = self.by_state.get(state)
            if scanner is None:
                accepts = frozenset(self.tables.states[state]) | self.tables.ignore | self.tables.always_accept
                scanner = self.by_state[state] = self._scanner(accepts)
            token = self._next(scanner, position, parse)
            if token is None:
                return
            position = token.start_pos + len(token.value)
            yield token

    def _next(self, scanner: _Scanner, position: int, parse: _Parse) -> _Token | None:
        """The next token that is not ignored, or None at the end of the text."""
        text = self.text
        while position < len(text):
            found = self._match(scanner, position)
            if found is None:
                raise _Failed(self._unexpected(scanner, position, parse))
            value, terminal = found
            if terminal.name not in self.tables.ignore:  # (as it matched, before a keyword)
                return _Token(_keyword(scanner, terminal, value), value, position)
            position += len(value)
        return None

    def _unexpected(self, scanner: _Scanner, position: int, parse: _Parse) -> SyntaxFailure:
        """Lark's contextual lexer, when a state's lexer fails: a token of the whole lexer
        there is an unexpected token, else the characters are unexpected."""
        whole = self._scanner(self.names)
        found = self._match(whole, position)
        if found is None:
            return SyntaxFailure("characters", position, allowed=scanner.allowed)
        value, terminal = found
        return parse.unexpected(_Token(_keyword(whole, terminal, value), value, position), scanner.allowed)

    def _match(self, scanner: _Scanner, position: int) -> tuple[str, Terminal] | None:
        """The first of the scanner's terminals that matches at `position` (as the alternation
        Lark compiles would), and what it matched."""
        text = self.text
        for terminal in scanner.tried_at(text[position]):
            if terminal.literal is not None:
                if text.startswith(terminal.literal, position):
                    return terminal.literal, terminal
                continue
            match = _compiled(terminal.regexp).match(text, position)
            if match is not None:
                return match.group(0), terminal
        return None

    def _scanner(self, accepts: frozenset[str]) -> _Scanner:
        scanner = self.scanners.get(accepts)
        if scanner is None:
            scanner = self.scanners[accepts] = self._build(accepts)
        return scanner

    def _build(self, accepts: frozenset[str]) -> _Scanner:
        """Lark's `BasicLexer` of these terminals: in Lark's order, the keywords a regexp
        terminal matches whole taken from it (and those it covers left out)."""
        present = [terminal for terminal in self.tables.terminals if terminal.name in accepts]
        keywords: dict[str, tuple[Terminal, ...]] = {}
        left_out: set[str] = set()
        for terminal in present:
            matched = [
                (name, covered) for name, covered in self.tables.unless.get(terminal.name, ()) if name in accepts
            ]
            if matched:
                keywords[terminal.name] = tuple(self.by_name[name] for name, _ in matched)
                left_out.update(name for name, covered in matched if covered)
        tried = tuple(terminal for terminal in present if terminal.name not in left_out)
        allowed = frozenset(terminal.name for terminal in tried) - self.tables.ignore
        return _Scanner(tried, keywords, allowed or frozenset({"<END-OF-FILE>"}))


_patterns: dict[str, re.Pattern[str]] = {}


def _compiled(regexp: str) -> re.Pattern[str]:
    pattern = _patterns.get(regexp)
    if pattern is None:
        pattern = _patterns[regexp] = re.compile(regexp)
    return pattern


def _keyword(scanner: _Scanner, terminal: Terminal, value: str) -> str:
    """The token's kind: the first keyword its terminal matched whole, else the terminal."""
    keyword = next((k for k in scanner.keywords.get(terminal.name, ()) if _whole(k, value)), None)
    return terminal.name if keyword is None else keyword.name


def _whole(keyword: Terminal, value: str) -> bool:
    if keyword.literal is not None:
        return value == keyword.literal
    return _compiled(keyword.regexp).fullmatch(value) is not None
