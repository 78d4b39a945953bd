"""Idioms of other languages with one toolkiln spelling of the same meaning, so each carries
a certain fix: `date.today()`, SQL's `x between a and b`, and JavaScript's `x.toFixed(2)` as
a step's whole value. They run before the general recognisers of syntax/foreign.py, which
would only hint at them (a method call, an unexpected word).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from toolkiln.syntax.foreign_base import NAME, STRING, Foreign, colon_block, line_end, line_start, string_end

# Python's clock calls and the builtin that reads the run's clock for the same thing.
_CLOCK = {"date.today": "today", "datetime.date.today": "today", "datetime.now": "now", "datetime.datetime.now": "now"}
_CLOCK_CALL = re.compile(r"(?<![\w.])((?:datetime\.)?(?:date|datetime)\.(?:today|now))\s*$")

_OPERAND = rf"{NAME}(?:\.{NAME})*|-?[0-9]+(?:\.[0-9]+)?|{STRING}"
# What may stand before `x` and after `b` of `x between a and b` so that the `between` takes
# exactly `x`, `a` and `b`: the start of an expression, or a word or bracket that binds looser.
_BEFORE_BETWEEN = re.compile(r"(?:^|[(\[,{]|(?<![=!<>])=|\b(?:if|return|and|or|not|else))\s*$")
_AFTER_BETWEEN = re.compile(r"\s*(?:$|#|[)\],}{]|(?:and|or|if|else)\b)")


def _clock_call(text: str, offset: int) -> Foreign | None:
    """`date.today()` and `datetime.now()`: the parser stops at `(`."""
    if not re.match(r"\(\s*\)", text[offset:]):
        return None
    match = _CLOCK_CALL.search(text, line_start(text, offset), offset)
    if match is None:
        return None
    builtin = _CLOCK[match.group(1)]
    end = text.index(")", offset) + 1
    return Foreign(
        match.start(1),
        end,
        f"`{match.group(1)}()` is not a call here: toolkiln has no modules",
        f"call `{builtin}()`, which reads the run's clock",
        f"{builtin}()",
        (match.start(1), end, f"{builtin}()"),
    )


def _between(text: str, offset: int) -> Foreign | None:
    """`age between 18 and 65` (SQL, inclusive at both ends): the parser stops at `between`."""
    if not re.match(r"between\b", text[offset:]):
        return None
    line = line_start(text, offset)
    left = re.search(rf"({_OPERAND})\s+(not\s+)?$", text[line:offset])
    right = re.match(rf"between\s+({_OPERAND})\s+and\s+({_OPERAND})", text[offset : line_end(text, offset)])
    hint = "write `low <= x and x <= high`"
    if left is None or right is None:
        return Foreign(offset, offset + 7, "`between` is not an operator here", hint, "low <= x and x <= high")
    start, end = line + left.start(1), offset + right.end()
    if not _BEFORE_BETWEEN.search(text[line:start]) or not _AFTER_BETWEEN.match(text[end : line_end(text, end)]):
        return Foreign(offset, offset + 7, "`between` is not an operator here", hint, "low <= x and x <= high")
    x, low, high = left.group(1), right.group(1), right.group(2)
    spelled = f"({low} <= {x} and {x} <= {high})"
    if left.group(2):
        spelled = "not " + spelled
    return Foreign(
        start, end, "`between` is not an operator here", f"write `{spelled}`", spelled, (start, end, spelled)
    )


# `total = price.toFixed(2)` or `total = (a * b).toFixed(2)`, alone on its line.
_TO_FIXED_STEP = re.compile(rf"(\s*{NAME}\s*=\s*)({NAME}(?:\.{NAME})*|\([^\"'\n]*\))\.toFixed\s*$")


def _to_fixed(text: str, offset: int) -> Foreign | None:
    """`x.toFixed(2)` as a step's whole value: the text of `x` with two decimals, which a
    format step writes `{{x:.2f}}` (as a value inside an expression it is left to the hint:
    toolkiln's `round` gives a number, not the text toFixed gives)."""
    line, end = line_start(text, offset), line_end(text, offset)
    step = _TO_FIXED_STEP.fullmatch(text, line, offset)
    digits = re.fullmatch(r"\(\s*([0-9]?)\s*\)\s*(?:#.*)?", text[offset:end])
    if step is None or digits is None or (step.group(2).startswith("(") and not _balanced(step.group(2))):
        return None
    spelled = f'format "{{{{{step.group(2)}:.{digits.group(1) or 0}f}}}}"'
    start, close = step.start(2), text.index(")", offset) + 1
    return Foreign(
        start,
        close,
        f"`{text[start:offset]}(...)` is a method call: toolkiln has no methods, only functions",
        f"write `{spelled}`",
        spelled,
        (start, close, spelled),
    )


def _balanced(group: str) -> bool:
    """Whether the `(` opening `group` is closed by its last character, not before."""
    depth = 0
    for i, ch in enumerate(group):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(group) - 1:
            return False
    return depth == 0


IDIOMS: tuple[Callable[[str, int], Foreign | None], ...] = (_clock_call, _between)


_HEADER = re.compile(r"([ \t]*)(if|elif|else)\b([^\n#:]*?)[ \t]*(:)[ \t]*(#[^\n]*)?")


def _colon_block(text: str, offset: int) -> Foreign | None:
    """Python's `if c:` / `elif c:` / `else:` with indented bodies, where the indentation says
    where each body ends: the same chain in braces. The parser stops at the first `:`."""
    line = line_start(text, offset)
    header = _HEADER.fullmatch(text, line, line_end(text, offset))
    if header is None or header.group(2) != "if" or header.start(4) != offset:
        return None
    chain = _chain(text, line, header.group(1))
    if chain is None:
        return None
    end, spelled = chain
    return colon_block(offset, (line, end, spelled))


def _chain(text: str, start: int, indent: str) -> tuple[int, str] | None:
    """Where the chain of headers at `indent` from `start` ends (its last body line) and its
    text in braces; None when a line leaves the reading open (indented otherwise, brackets
    left open, a header with no body)."""
    out: list[str] = []
    position, last_end = start, None
    while position < len(text):
        header = _HEADER.fullmatch(text, position, line_end(text, position))
        if header is None or header.group(1) != indent or (header.group(2) == "if") != (last_end is None):
            break
        opening = _opening(header, indent)
        body = _body(text, line_end(text, position) + 1, indent)
        if opening is None or body is None:
            return None
        last_end, lines = body
        out += [opening, *lines]
        if header.group(2) == "else":
            break
        position = _next_nonblank(text, last_end + 1)
    if last_end is None:
        return None
    return last_end, "\n".join([*out, indent + "}"])


def _next_nonblank(text: str, position: int) -> int:
    while position < len(text) and not text[position : line_end(text, position)].strip():
        position = line_end(text, position) + 1
    return position


def _opening(header: re.Match[str], indent: str) -> str | None:
    condition, comment = header.group(3).strip(), header.group(5)
    if (header.group(2) == "else") != (not condition):
        return None
    written = {"if": f"if {condition} {{", "elif": f"}} else if {condition} {{", "else": "} else {"}
    return indent + written[header.group(2)] + (f"  {comment}" if comment else "")


def _body(text: str, position: int, indent: str) -> tuple[int, list[str]] | None:
    """The lines indented deeper than `indent` from `position`: the offset where the last one
    ends, and the lines (blank ones inside kept)."""
    lines: list[str] = []
    end = position - 1
    while position < len(text):
        written = text[position : line_end(text, position)]
        lead = written[: len(written) - len(written.lstrip(" \t"))]
        if written.strip():
            if not lead.startswith(indent) or len(lead) == len(indent):
                if not indent.startswith(lead):
                    return None  # tabs against spaces: no one reading
                break
            end = position + len(written)
        lines.append(written)
        position += len(written) + 1
    body = lines[: len(lines) - next((i for i, w in enumerate(reversed(lines)) if w.strip()), len(lines))]
    return (end, body) if body and _balanced_lines(body) else None


def _balanced_lines(lines: list[str]) -> bool:
    """Whether the brackets of `lines` close within them (strings and comments skipped)."""
    depth = 0
    for written in lines:
        i = 0
        while i < len(written) and written[i] != "#":
            if written[i] in "\"'":
                i = string_end(written, i)
                if i < 0:
                    return False
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(written[i], 0)
            if depth < 0:
                return False
            i += 1
    return depth == 0


STEP_IDIOMS: tuple[Callable[[str, int], Foreign | None], ...] = (_to_fixed, _colon_block)
