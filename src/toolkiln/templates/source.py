"""Reading a template file: its header of typed parameters, and its body cut at placeholders.

    template "Lead follow-up"
    description "What it does"
    param send_at: time = "09:00" "Time of the daily run"
    ---
    workflow lead_followup
    on schedule daily at "${send_at}"
    ...

The body is workflow DSL in which `${name}` stands for a parameter (`$$` is a literal `$`).
Each placeholder remembers whether it sits in code or inside a string literal (and which
quote), because a value is written differently in each (see render.py). Comments are copied
as written.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.errors import CompileError
from toolkiln.syntax.strings import EscapeError, unescape
from toolkiln.templates.params import TYPES, Parameter

_STRING = r'"(?:[^"\\\n]|\\.)*"'
_TITLE = re.compile(rf"template\s+(?P<text>{_STRING})\s*")
_DESCRIPTION = re.compile(rf"description\s+(?P<text>{_STRING})\s*")
_PARAM = re.compile(
    rf"param\s+(?P<name>[a-z][a-z0-9_]*)\s*:\s*(?P<type>[a-z]+)"
    rf"(?:\s*=\s*(?P<default>{_STRING}|-?\d+))?\s+(?P<doc>{_STRING})\s*"
)
_PLACEHOLDER = re.compile(r"\$\{([a-z][a-z0-9_]*)\}")
SEPARATOR = "---"


@dataclass(frozen=True)
class Placeholder:
    name: str
    quote: str | None  # the quote of the string literal it is in; None in code
    start: int  # offsets in the template file
    end: int


@dataclass(frozen=True)
class Template:
    """A parsed template: its summary (slug, title, description, parameters) and its body."""

    slug: str
    title: str
    description: str
    parameters: tuple[Parameter, ...]
    source: str  # the whole file, as shipped
    dsl: str  # the part after the header, as written
    body: tuple[str | Placeholder, ...]

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.index = LineIndex(text)
        self.diagnostics: list[Diagnostic] = []
        self.declared: dict[str, tuple[int, int]] = {}  # parameter -> its line, for errors

    def error(self, message: str, start: int, end: int, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.of(codes.INVALID_TEMPLATE_FILE, message, self.index.span(start, end), hint))

    def string(self, match: re.Match[str], group: str, base: int) -> str:
        try:
            return unescape(match.group(group)[1:-1])
        except EscapeError as error:
            self.error(str(error), base + match.start(group), base + match.end(group))
            return ""


def parse_template(slug: str, text: str) -> Template:
    """Parse a template file; raises CompileError (E0805, located in the file) if it is malformed."""
    reader = _Reader(text)
    header = _header(reader)
    if header is not None:
        title, description, parameters, body_start = header
        body = _scan(reader, body_start)
        _check_names(reader, body)
    if reader.diagnostics:
        source = Source(name=f"{slug}.wf", text=text)
        raise CompileError([d.located(source) for d in reader.diagnostics])
    return Template(slug, title, description, tuple(parameters), text, text[body_start:], tuple(body))


def _header(reader: _Reader) -> tuple[str, str, list[Parameter], int] | None:
    title = description = None
    parameters: list[Parameter] = []
    offset = 0
    for line in reader.text.splitlines(keepends=True):
        start, stripped = offset, line.strip()
        offset += len(line)
        end = start + len(line.rstrip("\r\n"))
        if stripped == SEPARATOR:
            if title is None or description is None:
                reader.error('the header needs a `template "Title"` and a `description "..."` line', start, end)
                return None
            return title, description, parameters, offset
        if not stripped or stripped.startswith("#"):
            continue
        base = start + len(line) - len(line.lstrip())
        if match := _TITLE.fullmatch(stripped):
            title = reader.string(match, "text", base)
        elif match := _DESCRIPTION.fullmatch(stripped):
            description = reader.string(match, "text", base)
        elif match := _PARAM.fullmatch(stripped):
            if match.group("name") in reader.declared:
                reader.error(f"parameter `{match.group('name')}` is declared twice", start, end)
            reader.declared.setdefault(match.group("name"), (start, end))
            parameters.append(_parameter(reader, match, base))
        else:
            reader.error(
                "not a header line",
                start,
                end,
                hint='write `template "Title"`, `description "..."` or `param NAME: TYPE [= DEFAULT] "..."`',
            )
    reader.error(f"no `{SEPARATOR}` line ends the header", 0, 0)
    return None


def _parameter(reader: _Reader, match: re.Match[str], base: int) -> Parameter:
    name, type_name = match.group("name"), match.group("type")
    param_type = TYPES.get(type_name)
    if param_type is None:
        reader.error(
            f"unknown parameter type `{type_name}`",
            base + match.start("type"),
            base + match.end("type"),
            hint=f"use one of {', '.join(TYPES)}",
        )
        param_type = TYPES["string"]
    default = match.group("default")
    value: str | int | None = None
    if default is not None:
        raw = reader.string(match, "default", base) if default.startswith('"') else default
        try:
            value = param_type.check(raw)
        except ValueError as error:
            reader.error(
                f"the default of `{name}` is not {param_type.shape}: {error}",
                base + match.start("default"),
                base + match.end("default"),
            )
    return Parameter(name, param_type, reader.string(match, "doc", base), value)


def _scan(reader: _Reader, start: int) -> list[str | Placeholder]:
    """The body as literal text and placeholders, tracking string literals and comments the
    way the DSL's lexer does."""
    text = reader.text
    pieces: list[str | Placeholder] = []
    literal: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote is None and ch == "#":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            literal.append(text[i:end])
            i = end
            continue
        if quote is None and ch in "\"'":
            quote = ch
        elif quote is not None and ch == "\\":
            literal.append(text[i : i + 2])  # an escape: `\$` is no placeholder, `\"` no end
            i += 2
            continue
        elif quote is not None and ch in (quote, "\n"):
            quote = None
        if text.startswith("$$", i):
            literal.append("$")
            i += 2
            continue
        if match := _PLACEHOLDER.match(text, i):
            pieces.append("".join(literal))
            literal.clear()
            pieces.append(Placeholder(match.group(1), quote, i, match.end()))
            i = match.end()
            continue
        if text.startswith("${", i):
            reader.error(
                "malformed placeholder",
                i,
                i + 2,
                hint="write `${name}` with a lower-case parameter name, or `$${` for a literal `${`",
            )
        literal.append(ch)
        i += 1
    pieces.append("".join(literal))
    return [piece for piece in pieces if piece != ""]


def _check_names(reader: _Reader, body: list[str | Placeholder]) -> None:
    used = {piece.name for piece in body if isinstance(piece, Placeholder)}
    for piece in body:
        if isinstance(piece, Placeholder) and piece.name not in reader.declared:
            close = difflib.get_close_matches(piece.name, list(reader.declared), n=1)
            reader.error(
                f"`{piece.name}` is no parameter of this template",
                piece.start,
                piece.end,
                hint=f"did you mean `{close[0]}`?" if close else "declare it with a `param` line",
            )
    for name, (start, end) in reader.declared.items():
        if name not in used:
            reader.error(f"parameter `{name}` is never used", start, end, hint=f"use it as `${{{name}}}` or remove it")
