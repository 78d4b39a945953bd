"""`extract(reply_text)`: the tool definition in a model's reply, and what was done to get it.

    result = extract(reply.text)
    result.ok, result.format, result.kind   # True, "json", "compute"
    result.source, result.data              # the definition's text; for JSON, its data
    result.repairs                          # fences, prose, comments, trailing commas removed
    result.diagnostics                      # what the model must fix (E0601-E0605, E0105)

A definition is a JSON object, a text-DSL `tool` or a `workflow`, in a code fence or in prose.
Only what cannot change its meaning is repaired; anything else is a diagnostic, located in the
reply, for the model to fix (see json_reply.py). Nothing is guessed: not which of two
definitions was meant, not how a cut-off one ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Any

from toolkiln.ast.spans import LineIndex
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.errors import UsageError
from toolkiln.llm.json_reply import Problem, Repair, read_json

# A registered tool has at most 256 KB; a reply twice that holds no tool worth searching for.
# Refusing it first keeps a 10 MB reply from costing anything, and bounds the scan of a
# hostile one (a token a character) to about a second.
MAX_REPLY_CHARS = 512 * 1024
REPLY_NAME = "reply"
# Code fences read at most; a reply with more is not searched for blocks.
MAX_FENCES = 100

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)  # group 2: the info string
_JSON_TOOL = re.compile(r"""["']?\b(logic|steps|workflow)\b["']?\s*:""")
_TEXT_TOOL = re.compile(r"^[ \t]*tool[ \t]+[A-Za-z_]\w*[ \t]*\(", re.MULTILINE)
_TEXT_WORKFLOW = re.compile(r"""^[ \t]*workflow[ \t]+(?:[a-z][a-z0-9_]*|"[^"\n]*")[ \t]*$""", re.MULTILINE)
# An object's opening brace, then a key (quoted or not) or its end, maybe after one comment.
# Every part matches one way only (a comment is bounded and cannot contain what ends it), so
# a search through a reply of braces and comments stays linear.
_JSON_START = re.compile(r"""\{\s*(?:(?://[^\n]{0,200}\n|/\*[^*]{0,200}\*/)\s*)?(?:["'}]|[A-Za-z_$][\w$]*\s*:)""")


@dataclass(frozen=True)
class Extraction:
    """What `extract` found. `source` is the definition's text as it will be compiled (None
    when none could be taken); `format` is "json" or "text"; `kind` "compute" or "workflow";
    `data` the parsed object of a JSON definition (numbers as Decimal)."""

    source: str | None = None
    format: str | None = None
    kind: str | None = None
    data: Any = None
    repairs: tuple[Repair, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return self.source is not None and not any(d.is_error for d in self.diagnostics)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "format": self.format,
            "kind": self.kind,
            "source": self.source,
            "repairs": [r.to_dict() for r in self.repairs],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(frozen=True)
class _Block:
    start: int  # the block's text in the reply: reply[start:end]
    end: int
    fence: tuple[int, int] | None = None  # the lines of its fences, for fenced blocks
    closed: bool = True


class _Reply:
    """The reply with its line index: locates diagnostics and repairs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = LineIndex(text)
        self.source = Source(name=REPLY_NAME, text=text)

    def line(self, offset: int) -> int:
        return self.index.position(min(offset, len(self.text)))[0]

    def diagnostic(self, code: codes.Code, message: str, start: int, end: int, hint: str | None) -> Diagnostic:
        span = self.index.span(start, max(end, start))
        return Diagnostic.of(code, message, span, hint).located(self.source)

    def refused(self, code: codes.Code, message: str, hint: str) -> Extraction:
        return Extraction(diagnostics=(self.diagnostic(code, message, 0, 0, hint),))


def extract(reply_text: str) -> Extraction:
    """The tool definition in `reply_text`; see the module's doc."""
    if not isinstance(reply_text, str):
        raise UsageError(f"reply_text must be a str, not {type(reply_text).__name__}")
    if len(reply_text) > MAX_REPLY_CHARS:
        return Extraction(
            diagnostics=(
                Diagnostic.of(
                    codes.REPLY_TOO_LARGE,
                    f"the reply has {len(reply_text):,} characters; a reply holding a tool has at most "
                    f"{MAX_REPLY_CHARS:,}",
                    None,
                    "answer with the definition only, in one fenced block; keep large data out of it",
                ),
            )
        )
    reply = _Reply(reply_text)
    fenced = _fenced_blocks(reply_text)
    if fenced:
        return _from_fences(reply, fenced)
    block = _unfenced_block(reply_text)
    if block is None:
        return reply.refused(
            codes.NO_TOOL_IN_REPLY,
            "the reply holds no tool definition",
            "answer with the whole definition in one fenced block (```json ... ```)",
        )
    return _taken(reply, block)


# --- finding the block ------------------------------------------------------------------------


def _fenced_blocks(text: str) -> list[_Block]:
    """Every fenced code block; one left open runs to the end of the reply."""
    blocks = []
    fences = list(islice(_FENCE.finditer(text), MAX_FENCES + 1))
    if len(fences) > MAX_FENCES:
        return []  # no reply holding one tool has that many: taken as prose, where none is found
    i = 0
    while i < len(fences):
        opening = fences[i]
        marker = opening.group(1)
        start = min(opening.end() + 1, len(text))
        closing = next(
            (
                j
                for j in range(i + 1, len(fences))
                if fences[j].group(1)[0] == marker[0]
                and len(fences[j].group(1)) >= len(marker)
                and not fences[j].group(2).strip()
            ),
            None,
        )
        if closing is None:
            blocks.append(_Block(start, len(text), (opening.start(), len(text)), closed=False))
            break
        end = fences[closing].start()
        blocks.append(_Block(start, max(start, end), (opening.start(), fences[closing].end())))
        i = closing + 1
    return blocks


def _from_fences(reply: _Reply, blocks: list[_Block]) -> Extraction:
    text = reply.text
    tools = [b for b in blocks if _looks_like_tool(text[b.start : b.end])]
    if not tools:
        # A lone JSON object is a definition attempt, if a poor one: the compiler says what it lacks.
        tools = [b for b in blocks if text[b.start : b.end].lstrip().startswith("{")]
        if len(tools) != 1:
            return reply.refused(
                codes.NO_TOOL_IN_REPLY,
                f"none of the reply's {len(blocks)} code block(s) holds a tool definition",
                'a definition is one JSON object: {"name": ..., "description": ..., "logic": {"steps": [...]}, ...}',
            )
    distinct = {text[b.start : b.end].strip(): b for b in tools}
    if len(distinct) > 1:
        lines = ", ".join(str(reply.line(b.start)) for b in distinct.values())
        first = next(iter(distinct.values()))
        return Extraction(
            diagnostics=(
                reply.diagnostic(
                    codes.SEVERAL_TOOLS_IN_REPLY,
                    f"the reply holds {len(distinct)} different definitions (code blocks at lines {lines})",
                    first.start,
                    first.start,
                    "answer with exactly one definition: the one you mean",
                ),
            )
        )
    return _taken(reply, tools[0])


def _looks_like_tool(block: str) -> bool:
    if _TEXT_TOOL.search(block) is not None or _TEXT_WORKFLOW.search(block) is not None:
        return True
    return _JSON_START.search(block) is not None and _JSON_TOOL.search(block) is not None


def _unfenced_block(text: str) -> _Block | None:
    """The first definition in prose: a JSON object, a `tool` or a `workflow`."""
    starts = [
        (match.start(), kind)
        for kind, pattern in (("json", _JSON_START), ("tool", _TEXT_TOOL), ("workflow", _TEXT_WORKFLOW))
        if (match := pattern.search(text)) is not None
    ]
    if not starts:
        return None
    start, kind = min(starts)
    if kind == "tool":
        return _Block(start, _tool_end(text, start))
    return _Block(start, len(text))  # JSON: the parse finds its end; a workflow has no closing mark


def _tool_end(text: str, start: int) -> int:
    """The end of a text-DSL tool: its body's closing brace (strings and comments skipped)."""
    depth, i, quote = 0, start, None
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote or char == "\n":
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


# --- taking it --------------------------------------------------------------------------------


def _taken(reply: _Reply, block: _Block) -> Extraction:
    repairs = _outside_repairs(reply, block)
    content = reply.text[block.start : block.end]
    if not (_TEXT_TOOL.search(content) or _TEXT_WORKFLOW.search(content)):
        # A block that starts with `{` is taken from there, whatever follows the brace: searching
        # on could take an inner object for the whole.
        stripped = len(content) - len(content.lstrip())
        json_start = stripped if content[stripped : stripped + 1] == "{" else _json_start(content)
        if json_start is not None:
            if content[:json_start].strip():  # `const tool = {`, a comment before it
                repairs.append(Repair("prose", "ignored the text before the JSON object", reply.line(block.start)))
            block = _Block(block.start + json_start, block.end, block.fence, block.closed)
            return _json(reply, block, reply.text[block.start : block.end], repairs)
    source = content.strip()
    kind = "workflow" if _TEXT_WORKFLOW.search(source) and not _TEXT_TOOL.search(source) else "compute"
    return Extraction(source=source, format="text", kind=kind, repairs=tuple(repairs))


def _json_start(text: str) -> int | None:
    match = _JSON_START.search(text)
    return None if match is None else match.start()


def _outside_repairs(reply: _Reply, block: _Block) -> list[Repair]:
    text = reply.text
    repairs = []
    if block.fence is not None:
        shown = "" if block.closed else " (it is never closed)"
        repairs.append(Repair("fence", f"removed the code fence{shown}", reply.line(block.fence[0])))
    around = block.fence or (block.start, block.end)
    if text[: around[0]].strip() or text[around[1] :].strip():
        repairs.append(Repair("prose", "ignored the text around the definition", reply.line(block.start)))
    return repairs


def _json(reply: _Reply, block: _Block, content: str, repairs: list[Repair]) -> Extraction:
    offset = block.start + (len(content) - len(content.lstrip()))
    text = content.strip()
    data, repaired, made, problems, parser_diagnostics = read_json(text)
    said = {repair.kind for repair in repairs}  # prose before and after the object is one repair
    repairs = repairs + [
        Repair(kind, message, reply.line(offset + at)) for kind, message, at in made if kind not in said
    ]
    diagnostics = [_located(reply, problem, offset) for problem in problems]
    diagnostics += [
        reply.diagnostic(
            codes.CODES[d.code],
            d.message,
            offset + (d.span.start if d.span else 0),
            offset + (d.span.end if d.span else 0),
            d.hint,
        )
        if d.span is not None
        else d
        for d in parser_diagnostics
    ]
    kind = "workflow" if isinstance(data, dict) and data.get("kind") == "workflow" else "compute"
    source = repaired.strip() if not diagnostics else text
    return Extraction(
        source=source, format="json", kind=kind, data=data, repairs=tuple(repairs), diagnostics=tuple(diagnostics)
    )


def _located(reply: _Reply, problem: Problem, offset: int) -> Diagnostic:
    code, message, start, end, hint = problem
    return reply.diagnostic(code, message, offset + start, offset + end, hint)
