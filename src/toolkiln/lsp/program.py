"""What hover, completion and go to definition read of a tool's document: its program, the
types the checker gave its expressions, and the names it declares and assigns, each where it
is in the text. Parsing and checking only: nothing of the program runs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkiln.ast import compute as n
from toolkiln.ast.types import STRING, Type
from toolkiln.ast.visitor import walk
from toolkiln.check import check_program
from toolkiln.diagnostics.source import Source
from toolkiln.syntax.loader import parse_string

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Variable:
    """A parameter or a variable: its name, type, kind and (a parameter's) description; `start`
    is where it is first declared or assigned (an offset in the text, None when not in it)."""

    name: str
    type: Type | None
    kind: str  # "parameter" or "variable"
    description: str | None = None
    start: int | None = None


@dataclass
class Understood:
    """A tool's document as parsed and checked (None of it when it does not parse)."""

    text: str
    program: n.Program
    source: Source
    reads: list[tuple[int, int, str, Type | None]] = field(default_factory=list)  # names read: start, end, name, type
    variables: dict[str, Variable] = field(default_factory=dict)  # by name, in order of declaration
    called_tools: set[str] = field(default_factory=set)

    def type_read_at(self, offset: int) -> Variable | None:
        """The name read at `offset` (a comprehension's variable too) with the type found there."""
        for start, end, name, type_ in self.reads:
            if start <= offset <= end:
                known = self.variables.get(name)
                kind = known.kind if known is not None else "variable"
                return Variable(name, type_, kind, known.description if known else None)
        return None

    def in_scope(self, offset: int) -> list[Variable]:
        """The parameters, and the variables assigned before `offset` (all of them in JSON)."""
        return [v for v in self.variables.values() if v.kind == "parameter" or v.start is None or v.start < offset]


def understand(text: str, name: str) -> Understood | None:
    """The program of a tool's text (DSL or JSON), checked, or None when it does not parse."""
    parsed = parse_string(text, name)
    if parsed.program is None:
        return None
    checked = check_program(parsed.program)
    found = Understood(text, parsed.program, parsed.source)
    for info in checked.parameters:
        found.variables[info.name] = Variable(info.name, info.type, "parameter", info.description)
    for param in parsed.program.parameters or ():
        found.variables[param.name] = Variable(
            param.name, found.variables[param.name].type, "parameter", param.description, _start(found, param)
        )
    for node in walk(parsed.program):
        _note(found, node, checked.types)
    return found


def _note(found: Understood, node: n.Node, types: dict[int, Type]) -> None:
    if isinstance(node, n.Name):
        where = _offsets(found.source, node)
        if where is not None:
            found.reads.append((*where, node.name, types.get(id(node))))
    elif isinstance(node, n.ASSIGNING_STEPS) and node.target not in found.variables:
        type_: Type | None = None
        if isinstance(node, n.Assign):
            type_ = types.get(id(node.value))
        elif isinstance(node, n.Format):
            type_ = STRING
        found.variables[node.target] = Variable(node.target, type_, "variable", None, _start(found, node))
    if isinstance(node, n.CallTool):
        found.called_tools.add(node.tool)


def _offsets(source: Source, node: n.Node) -> tuple[int, int] | None:
    span = node.span
    if span.path is not None:
        span, _ = source.resolve(span)
        if not span.in_file:
            return None
    return (span.start, span.end) if span.line else None


def _start(found: Understood, node: n.Node) -> int | None:
    where = _offsets(found.source, node)
    return None if where is None else where[0]


def word_at(text: str, offset: int) -> tuple[str, int, int] | None:
    """The name (letters, digits, _) that `offset` is in or just after, with its start and end."""
    start = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_") and text[start - 1].isascii():
        start -= 1
    match = _WORD.match(text, start)
    if match is None or match.end() < offset:
        return None
    return match.group(), match.start(), match.end()
