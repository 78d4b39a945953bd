"""String literals: decoding the escapes the grammar allows, and quoting for the printers."""

from __future__ import annotations

import re
from typing import Any

from toolkiln.syntax.json_data import path_of, walk_json

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


_SURROGATE = re.compile("[\ud800-\udfff]")


LONE_SURROGATE = "a string holds half of a UTF-16 surrogate pair (a \\ud800 escape without its other half)"
LONE_SURROGATE_HINT = "escape a character outside the BMP as both halves, e.g. \\ud83d\\ude42, or write it as it is"


# A Python str can hold a surrogate code point (a `\ud800` escape in Python source, bytes
# decoded with surrogateescape); UTF-8 text cannot, so a tool or workflow made from such a
# source could never be written to a file. Sources are refused at the first one (E0100).
UNENCODABLE = "the source holds a surrogate code point (half of a UTF-16 pair): not a character, not UTF-8"
UNENCODABLE_HINT = "decode the text with errors='strict', or drop the character"


def surrogate_offset(text: str) -> int | None:
    if text.isascii():  # most sources: one C pass, no regex
        return None
    match = _SURROGATE.search(text)
    return None if match is None else match.start()


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def may_decode_to_surrogate(json_text: str) -> bool:
    """Whether JSON text free of surrogate code points (see `surrogate_offset`) could decode
    to one: only through an escape in \\uD800-\\uDFFF. When not, the decoded data need no
    walk with `lone_surrogate_at`."""
    return "\\u" in json_text and _ESCAPED_SURROGATE.search(json_text) is not None


def lone_surrogate_at(data: Any) -> tuple[str | int, ...] | None:
    """The path of a string or key in JSON data holding a lone surrogate (what a `\\ud800`
    escape without its pair decodes to): no character, and not writable as UTF-8."""
    for value, trail, _ in walk_json(data):
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path_of(trail)
        elif isinstance(value, dict):
            for key in value:
                if isinstance(key, str) and _SURROGATE.search(key):
                    return path_of((key, trail))
    return None


class EscapeError(ValueError):
    def __init__(self, offset: int, escape: str) -> None:
        super().__init__(f"invalid escape `{escape}`")
        self.offset = offset
        self.escape = escape


def unescape(body: str) -> str:
    """Decode the body of a string literal (without its quotes)."""

    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in _SIMPLE:
            return _SIMPLE[code]
        if code.startswith("u") and len(code) == 5:
            return chr(int(code[1:], 16))
        raise EscapeError(match.start(), match.group(0))

    if "\\" not in body:
        return body
    text = _ESCAPE.sub(replace, body)
    surrogate = _SURROGATE.search(text)
    if surrogate:
        # \ud83d\ude42 is one character (a pair of UTF-16 halves); a lone half is no character.
        try:
            text = text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise EscapeError(body.find("\\u"), "\\u" + f"{ord(surrogate.group()):04x}") from None
    return text


_NEEDS_ESCAPE = re.compile(r'[\\"\n\r\t\x00-\x1f\x7f]')


def quote(value: str) -> str:
    """The canonical double-quoted literal for `value`; `unescape` inverts it."""

    def replace(match: re.Match[str]) -> str:
        ch = match.group(0)
        for code, decoded in _SIMPLE.items():
            if decoded == ch and code != "'":
                return "\\" + code
        return f"\\u{ord(ch):04x}"

    return '"' + _NEEDS_ESCAPE.sub(replace, value) + '"'
