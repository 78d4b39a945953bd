"""Constructs models carry over from other languages, recognised where the parser stops,
with the toolkiln spelling as a hint and, where the rewrite is certain, a fix.

Each recogniser looks at the text around the offset the parser failed at; none of them
parses: they only name what a model most likely meant (JavaScript, Python).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from toolkiln.semantics.foreign_names import SAME_AS_BUILTIN, WRITE_INSTEAD
from toolkiln.syntax.foreign_base import NAME, STRING, Foreign, colon_block, line_end, line_start, string_end
from toolkiln.syntax.foreign_idioms import IDIOMS, STEP_IDIOMS

# What a method is called on: a name, a field chain or a string literal.
_RECEIVER = re.compile(rf"(?:(?:{NAME})(?:\.{NAME})*|{STRING})\.({NAME})\s*$")

# Methods of JavaScript and Python with a builtin taking the receiver first.
RECEIVER_FIRST = SAME_AS_BUILTIN
# `Math.round(x)` and Python's `math.floor(x)`: the builtin of the same name.
MATH_FUNCTIONS = ("round", "floor", "ceil", "abs", "max", "min", "sqrt")
# Methods with no builtin of their own, and what toolkiln writes instead.
OTHER_METHODS = WRITE_INSTEAD


# Type names of other languages (Python, JSON Schema's neighbours) and toolkiln's.
TYPE_ALIASES = {
    "float": "number",
    "double": "number",
    "decimal": "number",
    "int": "integer",
    "str": "string",
    "text": "string",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}


def foreign_construct(text: str, offset: int, *, steps: bool) -> Foreign | None:
    """The construct of another language that the parser stopped at `offset` in, if any.
    `steps`: the text is steps (a file of the text DSL), not one expression (JSON's)."""
    for recognise in (*IDIOMS, *(STEP_IDIOMS if steps else ()), *_RECOGNISERS, *(_STEP_RECOGNISERS if steps else ())):
        found = recognise(text, offset)
        if found is not None:
            return found
    ternary = _ternary(text, offset, steps=steps)
    return ternary if ternary is not None else _template_literal(text, offset, steps=steps)


def _method_call(text: str, offset: int) -> Foreign | None:
    """`name.upper()`, `"-".join(parts)`, `Math.round(x)`: the parser stops at `(`."""
    if not text.startswith("(", offset):
        return None
    match = _RECEIVER.search(text, line_start(text, offset), offset)
    if match is not None:
        method, start = match.group(1), match.start()
    else:  # called on a call or an index: `trim(email).lower()`, `items[0].upper()`
        tail = re.search(rf"[)\]]\.({NAME})\s*$", text[line_start(text, offset) : offset])
        start_of_group = None if tail is None else _opening_bracket(text, offset - len(tail.group(0)))
        if tail is None or start_of_group is None:
            return None
        method = tail.group(1)
        start, line = start_of_group, line_start(text, offset)
        while start > line and (text[start - 1].isalnum() or text[start - 1] in "_."):  # `trim` of `trim(...)`
            start -= 1
        match = re.compile(rf"\.({NAME})\s*$").search(text, start, offset)
        if match is None:
            return None
    receiver = text[start : match.start(1) - 1]
    after = text[offset + 1 :].lstrip()
    separator = "" if after.startswith(")") else ", "
    shown = f"`{text[start:offset]}(...)`"
    if receiver in ("Math", "math"):
        if method in MATH_FUNCTIONS:
            return Foreign(
                start,
                offset,
                f"{shown} is not a call here: toolkiln has no `{receiver}`",
                f"call `{method}(...)`",
                f"{method}(...)",
                (start, match.end(1), method),
            )
        hint = OTHER_METHODS.get(method, "see the built-in functions")
        return Foreign(start, offset, f"{shown} is not a call here: toolkiln has no `{receiver}`", f"use {hint}", hint)
    message = f"{shown} is a method call: toolkiln has no methods, only functions"
    if method == "join" and receiver[:1] in "\"'":  # Python: separator.join(items)
        close = _closing_paren(text, offset)
        if close is None:
            return None
        items = text[offset + 1 : close].strip()
        spelled = f"join({items}, {receiver})"
        return Foreign(start, close + 1, message, f"write `{spelled}`", spelled, (start, close + 1, spelled))
    function = "join" if method == "join" else RECEIVER_FIRST.get(method)
    if function is None:
        hint = OTHER_METHODS.get(method, "see the built-in functions")
        return Foreign(start, offset, message, f"use {hint}", hint)
    spelled = f"{function}({receiver}, ...)" if separator else f"{function}({receiver})"
    return Foreign(
        start,
        offset,
        message,
        f"call the function: `{spelled}`",
        spelled,
        (start, offset + 1, f"{function}({receiver}{separator}"),
    )


def _opening_bracket(text: str, closing: int) -> int | None:
    """The offset of the `(` or `[` that the `)` or `]` at `closing` closes, on its line,
    skipping strings (back to the quote that opens them)."""
    depth, i, line = 0, closing, line_start(text, closing)
    while i >= line:
        if text[i] in ")]":
            depth += 1
        elif text[i] in "([":
            depth -= 1
            if depth == 0:
                return i
        elif text[i] in "\"'":
            i = text.rfind(text[i], line, i)
            if i < 0:
                return None
        i -= 1
    return None


def _closing_paren(text: str, opening: int) -> int | None:
    """The offset of the `)` that closes the `(` at `opening`, skipping strings; on one line."""
    depth, i = 0, opening
    while i < len(text) and text[i] != "\n":
        ch = text[i]
        if ch in "\"'":
            end = string_end(text, i)
            if end < 0:  # a string not closed on its line
                return None
            i = end + 1
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _optional_chaining(text: str, offset: int) -> Foreign | None:
    """`user?.name` and `a ?? b`."""
    line = line_start(text, offset)
    if text.startswith("?.", offset):
        match = re.search(rf"({NAME})\s*$", text[line:offset])
        target = match.group(1) if match else "x"
        field = re.match(rf"\?\.\s*({NAME})", text[offset:])
        name = field.group(1) if field else "f"
        spelled = f"{target}.{name} if {target} != null else null"
        return Foreign(offset, offset + 2, "`?.` (optional chaining) is not in toolkiln", f"write `{spelled}`", spelled)
    if text.startswith("??", offset):
        operand = rf"{NAME}(?:\.{NAME})*|{STRING}|[0-9]+(?:\.[0-9]+)?"
        before = re.search(rf"({operand})\s*$", text[line:offset])
        after = re.match(rf"\?\?\s*({operand})", text[offset : line_end(text, offset)])
        if before is None or after is None:
            return Foreign(offset, offset + 2, "`??` is not an operator here", "use coalesce(a, b)", "coalesce(a, b)")
        spelled = f"coalesce({before.group(1)}, {after.group(1)})"
        start, end = line + before.start(1), offset + after.end()
        return Foreign(start, end, "`??` is not an operator here", f"write `{spelled}`", spelled, (start, end, spelled))
    return None


# Operators whose toolkiln spelling means the same, so the fix is certain.
_SAME_MEANING = {"===": "==", "!==": "!=", "&&": "and", "||": "or"}


def _operator(text: str, offset: int) -> Foreign | None:
    """`===`, `!==`, `&&`, `||`, `!x`: the parser stops at or just after them."""
    for written in sorted(_SAME_MEANING, key=len, reverse=True):
        start = text.find(written, max(0, offset - 2), offset + len(written))
        if start >= 0:
            spelled = _spaced(text, start, start + len(written), _SAME_MEANING[written])
            return Foreign(
                start,
                start + len(written),
                f"`{written}` is not an operator here",
                f"use `{_SAME_MEANING[written]}`",
                _SAME_MEANING[written],
                (start, start + len(written), spelled),
            )
    if text.startswith("!", offset) and not text.startswith("!=", offset):
        return Foreign(
            offset, offset + 1, "`!` is not an operator here", "use `not`", "not", (offset, offset + 1, "not ")
        )
    if text.startswith(";", offset):  # a statement end: a step ends at the end of its line
        rest = text[offset + 1 : line_end(text, offset)]
        line = line_start(text, offset)
        indent = re.match(r"[ \t]*", text[line:offset])
        fix = "" if not rest.strip() or rest.lstrip().startswith("#") else "\n" + (indent.group(0) if indent else "")
        end = offset + 1 + (len(rest) - len(rest.lstrip()) if fix else 0)
        return Foreign(
            offset, offset + 1, "`;` is not needed", "put each step on its own line", "a new line", (offset, end, fix)
        )
    return None


def _spaced(text: str, start: int, end: int, word: str) -> str:
    """`word` with a space on each side where the text has none (`a&&b` -> `a and b`)."""
    if not word[0].isalpha():
        return word
    before = "" if start == 0 or text[start - 1].isspace() else " "
    after = "" if end >= len(text) or text[end].isspace() else " "
    return before + word + after


def _loop(text: str, offset: int) -> Foreign | None:
    """`for x in xs { ... }` or `while ...` as a step: toolkiln has no loops."""
    word = re.match(r"(for|while)\b", text[offset:])
    if word is None or text[line_start(text, offset) : offset].strip():
        return None
    hint = (
        "there are no loops: compute over the list with a comprehension, e.g. "
        "`total = sum(x.price for x in items)` or `names = [upper(x) for x in names]`"
    )
    return Foreign(
        offset,
        offset + len(word.group(1)),
        f"`{word.group(1)}` loops are not in toolkiln",
        hint,
        "[expression for x in items]",
    )


def _declaration(text: str, offset: int) -> Foreign | None:
    """`let x = 1`, `const x = 1`, `var x = 1`: a step assigns without a keyword."""
    line = line_start(text, offset)
    match = re.fullmatch(r"(\s*)(let|const|var)\s+", text[line:offset])
    if match is None:
        return None
    start = line + match.start(2)
    keyword = match.group(2)
    return Foreign(
        start,
        offset,
        f"`{keyword}` is not needed: a step assigns with `name = value`",
        f"remove `{keyword}`",
        "name = value",
        (start, offset, ""),
    )


def _compound_assignment(text: str, offset: int) -> Foreign | None:
    """`total += x` and `i++`: a step assigns the whole new value."""
    line = line_start(text, offset)
    target = re.fullmatch(rf"\s*({NAME})\s*", text[line:offset])
    operator = re.match(r"([-+*/%])=|\+\+|--", text[offset:])
    if target is None or operator is None:
        return None
    name, end = target.group(1), line_end(text, offset)
    if operator.group(0) in ("++", "--"):
        spelled = f"{name} = {name} {operator.group(0)[0]} 1"
        if text[offset + 2 : end].strip():
            return None
        return Foreign(
            line + target.start(1),
            offset + 2,
            f"`{operator.group(0)}` is not an operator here",
            f"write `{spelled}`",
            spelled,
            (line + target.start(1), offset + 2, spelled),
        )
    rest = text[offset + 2 : end].strip().removesuffix(";").rstrip()  # a statement end goes with it
    if not rest or "#" in rest:
        return None
    value = rest if re.fullmatch(rf"{NAME}|[0-9.]+|{STRING}", rest) else f"({rest})"
    spelled = f"{name} = {name} {operator.group(1)} {value}"
    return Foreign(
        line + target.start(1),
        end,
        f"`{operator.group(0)}` is not an operator here",
        f"write `{spelled}`",
        spelled,
        (line + target.start(1), end, spelled),
    )


def _template_literal(text: str, offset: int, *, steps: bool) -> Foreign | None:
    """A JavaScript template literal `` `Hello ${name}` `` or a Python f-string `f"..."`."""
    if text.startswith("`", offset):
        close = text.find("`", offset + 1)
        body, end, kind = text[offset + 1 : close], close + 1, "a template literal"
        holes = re.sub(r"\$\{\s*([^{}]*?)\s*\}", r"{{\1}}", body)
        start = offset
    elif text[offset : offset + 1] in "\"'" and offset > 0 and text[offset - 1] in "fF":
        close = string_end(text, offset)
        body, end, kind = text[offset + 1 : close], close + 1, "an f-string"
        holes = re.sub(r"(?<!\{)\{\s*([^{}]*?)\s*\}(?!\})", r"{{\1}}", body)
        start = offset - 1
    else:
        return None
    if close < 0 or "\n" in body:
        return None
    spelled = 'format "' + holes.replace('"', '\\"') + '"'
    line = line_start(text, start)
    whole_value = re.fullmatch(rf"\s*{NAME}\s*=\s*", text[line:start]) and not text[end : line_end(text, end)].strip()
    hint = f"build text in a format step: `message = {spelled}`"
    fix = (start, end, spelled) if steps and whole_value else None  # `format` makes a step
    return Foreign(start, end, f"{kind} is not a string in toolkiln", hint, spelled, fix)


def _python_words(text: str, offset: int) -> Foreign | None:
    """`elif`, `x is None`, `x is not None`, and `if x:` (a block in braces instead)."""
    line = line_start(text, offset)
    elif_ = re.search(r"\belif\s+$", text[line:offset])
    if elif_ is not None or re.match(r"elif\b", text[offset:]):
        start = line + elif_.start() if elif_ is not None else offset
        return Foreign(
            start, start + 4, "`elif` is written `else if`", "write `else if`", "else if", (start, start + 4, "else if")
        )
    is_ = re.match(r"is(\s+not)?\b", text[offset:])
    if is_ is not None:
        spelled = "!=" if is_.group(1) else "=="
        return Foreign(
            offset,
            offset + is_.end(),
            f"`{is_.group(0)}` is not an operator here",
            f"use `{spelled}`",
            spelled,
            (offset, offset + is_.end(), spelled),
        )
    if text.startswith(":", offset) and re.match(r"\s*(if|else)\b", text[line:offset]):
        return colon_block(offset)
    return None


def _record_key(text: str, offset: int) -> Foreign | None:
    """`{net: price}` and `{net, vat}` (JavaScript): a record's keys are strings."""
    key = re.match(rf"({NAME})\s*([:,}}])", text[offset:])
    before = text[line_start(text, offset) : offset].rstrip()
    if key is None or not before.endswith(("{", ",")):
        return None
    name = key.group(1)
    if key.group(2) == ":":
        spelled = f'"{name}"'
        message = f"a record's keys are strings: `{name}` is written `{spelled}`"
    else:
        spelled = f'"{name}": {name}'
        message = f"a record lists each key with its value: `{name}` is written `{spelled}`"
    end = offset + len(name)
    return Foreign(offset, end, message, f"write `{spelled}`", spelled, (offset, end, spelled))


def _ternary(text: str, offset: int, *, steps: bool) -> Foreign | None:
    """`c ? a : b` as the whole value of a step (or expression): `a if c else b`."""
    if not text.startswith("?", offset) or text.startswith(("?.", "??"), offset):
        return None
    line, end = line_start(text, offset), line_end(text, offset)
    head = re.match(rf"\s*(?:return\s+|{NAME}\s*=\s*)" if steps else r"\s*", text[line:offset])
    # Only where the `?` splits the whole value of the step: brackets balance on both sides.
    rest = text[offset + 1 : end]
    colon = _top_level(rest, ":")
    whole = head is not None and _top_level(text[line + head.end() : offset], "") is None
    if (
        head is None
        or not whole
        or colon is None
        or "#" in rest
        or _top_level(rest, "?") is not None
        or _top_level(rest, "") is not None
    ):
        return Foreign(
            offset,
            offset + 1,
            "`? :` is not an operator here",
            "write `a if condition else b`",
            "a if condition else b",
        )
    start = line + head.end()
    test, then, otherwise = text[start:offset].strip(), rest[:colon].strip(), rest[colon + 1 :].strip()
    spelled = f"{then} if {test} else {otherwise}"
    return Foreign(
        offset, offset + 1, "`? :` is not an operator here", f"write `{spelled}`", spelled, (start, end, spelled)
    )


def _top_level(text: str, wanted: str) -> int | None:
    """The offset of the first `wanted` in `text` outside strings and brackets, if any; with
    `wanted` empty, of a bracket that closes one the text did not open, or of the end when
    one is left open (None: the brackets of `text` balance)."""
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i = string_end(text, i)
            if i < 0:
                return None
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0 and not wanted:
                return i
        elif ch == wanted and depth == 0:
            return i
        i += 1
    return len(text) if depth and not wanted else None


def _function_definition(text: str, offset: int) -> Foreign | None:
    """`def total(price, qty):` and `function total(price, qty) {`: a tool has a header."""
    line = line_start(text, offset)
    match = re.match(rf"\s*(def|function)\s+{NAME}", text[line : line_end(text, offset)])
    if match is None or offset > line + match.end():
        return None
    hint = 'a tool is written `tool name(price: number, qty: number) description "..." { ... }`, or as bare steps'
    return Foreign(
        line + match.start(1),
        line + match.end(),
        f"`{match.group(1)}` is not in toolkiln",
        hint,
        "tool name(...) { ... }",
    )


def _result_without_return(text: str, offset: int) -> Foreign | None:
    """The last line of the logic is an expression (`subtotal * 1.19`), as Ruby and Rust
    return it: toolkiln writes `return`."""
    line, end = line_start(text, offset), line_end(text, offset)
    written = text[line:end]
    first = len(written) - len(written.lstrip())
    if (
        not written.strip()
        or re.match(r"\s*(return|if|else|tool|for|while|def|function|let|const|var)\b|\s*[}{]", written)
        or re.search(r"(?<![=!<>])=(?!=)", written)
        or not _only_closing(text[end:])
    ):
        return None
    misspelt = _misspelt_return(written[first:])
    if misspelt is not None:
        word_end = line + first + len(misspelt)
        spelled = "return" + text[word_end:end]
        return Foreign(
            line + first,
            word_end,
            f"`{misspelt}` is not a keyword: a step is `name = value` or `return value`",
            "did you mean `return`?",
            spelled,
            (line + first, word_end, "return"),
        )
    spelled = "return " + written.strip()
    return Foreign(
        line + first,
        end,
        "a step is `name = value` or `return value`",
        f"write `{spelled}`",
        spelled,
        (line + first, line + first, "return "),
    )


def _misspelt_return(written: str) -> str | None:
    """The first word of `retrun a` or `retun total`, when it is `return` misspelt and a value
    follows it (`rturn` is one letter off; a name alone is a value to return)."""
    match = re.match(rf"({NAME})\s+\S", written)
    if match is None or match.group(1) == "return":
        return None
    word = match.group(1)
    import difflib  # (only here: a syntax error's explanation)

    return word if difflib.get_close_matches(word, ["return"], n=1, cutoff=0.7) else None


def _only_closing(rest: str) -> bool:
    """Whether `rest` holds nothing but blank lines, comments and closing braces."""
    return all(not line.split("#", 1)[0].replace("}", "").strip() for line in rest.splitlines())


# Those that read expressions, then those that read steps (a JSON expression has none).
_RECOGNISERS: tuple[Callable[[str, int], Foreign | None], ...] = (
    _method_call,
    _optional_chaining,
    _operator,
    _python_words,
    _record_key,
)
_STEP_RECOGNISERS: tuple[Callable[[str, int], Foreign | None], ...] = (
    _loop,
    _declaration,
    _compound_assignment,
    _function_definition,
    _result_without_return,
)
