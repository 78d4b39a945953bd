"""Text builtins: splitting, slicing, case, padding, repeating, encodings, digests and simple
validators. Every text they build is sized before it is built (docs/budgets.md)."""

from __future__ import annotations

import base64
import binascii
import re
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from toolkiln.ast.types import ANY, ARRAY, BOOLEAN, NUMBER, STRING, Type, array_of
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import (
    CHARS_PER_OPERATION,
    SLOT_BYTES,
    Arg,
    all_sizes,
    builtin,
    checked_text,
    fault,
    first_size,
    list_built,
    result_text_work,
    text_built,
)
from toolkiln.semantics.limits import Limits

S = Arg("text", (STRING,))
_WORD = re.compile(r"\S+")  # one character class, repeated: linear, nothing to backtrack
PIECE_BYTES = SLOT_BYTES + 56
"""What one piece of a split takes besides its characters: its slot and a text's header."""


def _utf8(text: str, what: str) -> bytes:
    """`text` as UTF-8; a lone surrogate (JSON allows "\\ud800") is E0515, not a crash."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise fault(codes.INVALID_TEXT, f"{what} of text holding a lone surrogate, which is not Unicode text") from None


def _built_within(limits: Limits, length: int) -> None:
    """E0504 before a text of `length` characters is built, if it would be over the limit."""
    if length > limits.max_string_length:
        raise fault(
            codes.STRING_TOO_LONG,
            f"the text would be {length:,} characters, over the limit of {limits.max_string_length:,}",
        )


def _capped(count: Decimal, cap: int) -> int:
    """A number of characters or items as an int no larger than `cap` + 1: enough to know it
    is over the limit, without making an int of a number of a million digits."""
    return int(max(Decimal(0), min(count, Decimal(cap + 1))))


def _split_work(text: str, separator: str) -> int:
    # The pieces it makes, each a new string (counting them is C speed, making them is not).
    return all_sizes(text, separator) + (text.count(separator) if separator else 0)


@builtin(
    "split",
    (S, Arg("separator", (STRING,))),
    array_of(STRING),
    'The pieces of text between separators: split("a,b,,c", ",") = ["a", "b", "", "c"].',
    pure=True,
    work=_split_work,
    builds=lambda limits, text, separator: _split_builds(limits, text, separator),
)
def _split(limits: Limits, text: str, separator: str) -> list[str]:
    if not separator:
        raise fault(codes.INVALID_OPERATION, "split needs a non-empty separator")
    pieces = text.count(separator) + 1
    if pieces > limits.max_list_length:
        raise fault(codes.LIST_TOO_LONG, f"split would make {pieces:,} pieces, over {limits.max_list_length:,}")
    return text.split(separator)


def _split_builds(limits: Limits, text: str, separator: str) -> int:
    pieces = text.count(separator) + 1 if separator else 0  # (over the limit: refused, not built)
    return list_built(limits, pieces, PIECE_BYTES) + text_built(limits, len(text), text) if pieces else 0


def _same_as_first(types: list[Type]) -> Type:
    return types[0] if types and types[0].name in ("string", "array") else ANY


@builtin(
    "slice",
    (Arg("value", (STRING, ARRAY)), Arg("start", (NUMBER,)), Arg("end", (NUMBER,), optional=True)),
    _same_as_first,
    "The characters of a text, or the items of a list, from start up to (not including) end, "
    "as Python slices: a negative position counts from the end, positions past either end "
    'are clamped. slice("invoice", 0, 3) = "inv", slice(xs, -2) = the last two items.',
    pure=True,
    work=first_size,
    builds=lambda limits, value, start, end=None: _slice_builds(limits, value, start, end),
)
def _slice(limits: Limits, value: Any, start: Decimal, end: Decimal | None = None) -> Any:
    # Past the longest text or list there is nothing to slice: positions are clamped there.
    bound = max(limits.max_string_length, limits.max_list_length) + 1
    first = _position(start, "slice's start", bound)
    return value[first:] if end is None else value[first : _position(end, "slice's end", bound)]


def _slice_builds(limits: Limits, value: Any, start: Decimal, end: Decimal | None) -> int:
    """What the slice will hold: its length from the positions as `_slice` clamps them (a
    position that is not whole is refused before anything is built)."""
    if start != start.to_integral_value() or (end is not None and end != end.to_integral_value()):
        return 0
    bound = len(value) + 1
    first = int(max(Decimal(-bound), min(start, Decimal(bound))))
    last = None if end is None else int(max(Decimal(-bound), min(end, Decimal(bound))))
    length = len(range(*slice(first, last).indices(len(value))))
    return text_built(limits, length, value) if type(value) is str else list_built(limits, length)


def _position(value: Decimal, what: str, bound: int) -> int:
    if value != value.to_integral_value():
        raise fault(codes.INVALID_OPERATION, f"{what} must be a whole number, not {value}")
    return int(max(Decimal(-bound), min(value, Decimal(bound))))


@builtin(
    "capitalize",
    (S,),
    STRING,
    'The first character upper-cased, the rest lower-cased: capitalize("hELLO wORLD") = "Hello world".',
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _capitalize(limits: Limits, text: str) -> str:
    return checked_text(limits, text.capitalize())


@builtin(
    "title",
    (S,),
    STRING,
    "Each word capitalized, a word being what lies between whitespace: "
    'title("ada LOVELACE-byron") = "Ada Lovelace-byron" (whitespace is kept as it is).',
    pure=True,
    work=lambda text: len(text) // 2,  # up to a word per two characters, each a Python call
    built=result_text_work,
)
def _title(limits: Limits, text: str) -> str:
    # Not str.title(), which starts a word after every non-letter ("They'Re").
    return checked_text(limits, _WORD.sub(lambda word: word[0].capitalize(), text))


def _padding_work(text: str, width: Decimal, fill: str = " ") -> int:
    return max(len(text), _capped(width, 1 << 62)) // CHARS_PER_OPERATION


def _padding(limits: Limits, text: str, width: Decimal, fill: str, what: str) -> str:
    """What to add to `text` to make it `width` characters long, checked."""
    if width != width.to_integral_value():
        raise fault(codes.INVALID_OPERATION, f"{what}'s width must be a whole number, not {width}")
    if len(fill) != 1:
        raise fault(codes.INVALID_OPERATION, f"{what}'s fill must be one character, not {len(fill)}")
    wanted = _capped(width, limits.max_string_length)
    _built_within(limits, wanted)
    return fill * max(0, wanted - len(text))


_PAD_ARGS = (S, Arg("width", (NUMBER,)), Arg("fill", (STRING,), optional=True))


def _padding_builds(limits: Limits, text: str, width: Decimal, fill: str = " ") -> int:
    return text_built(limits, max(len(text), _capped(width, limits.max_string_length)), text, fill)


@builtin(
    "pad_left",
    _PAD_ARGS,
    STRING,
    "Text made at least width characters long by adding fill (one character, a space if not "
    'given) on the left: pad_left("42", 5, "0") = "00042".',
    pure=True,
    work=_padding_work,
    builds=_padding_builds,
)
def _pad_left(limits: Limits, text: str, width: Decimal, fill: str = " ") -> str:
    return _padding(limits, text, width, fill, "pad_left") + text


@builtin(
    "pad_right",
    _PAD_ARGS,
    STRING,
    'Text made at least width characters long by adding fill on the right: pad_right("ab", 4, ".") = "ab..".',
    pure=True,
    work=_padding_work,
    builds=_padding_builds,
)
def _pad_right(limits: Limits, text: str, width: Decimal, fill: str = " ") -> str:
    return text + _padding(limits, text, width, fill, "pad_right")


def _repeat_work(text: str, times: Decimal) -> int:
    # The text it would build (over the limit, it is refused before building anything).
    return len(text) * _capped(times, 1 << 62) // CHARS_PER_OPERATION


@builtin(
    "repeat",
    (S, Arg("times", (NUMBER,))),
    STRING,
    'Text repeated a whole number of times: repeat("ab", 3) = "ababab".',
    pure=True,
    work=_repeat_work,
    builds=lambda limits, text, times: text_built(limits, len(text) * _capped(times, limits.max_string_length), text),
)
def _repeat(limits: Limits, text: str, times: Decimal) -> str:
    if times != times.to_integral_value() or times < 0:
        raise fault(codes.INVALID_OPERATION, f"repeat's times must be a whole number, 0 or more, not {times}")
    count = _capped(times, limits.max_string_length)
    _built_within(limits, len(text) * count if text else 0)
    return text * count


_UNRESERVED = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"


@builtin(
    "url_encode",
    (S,),
    STRING,
    "Text percent-encoded as UTF-8 for a URL's path segment or query value: every character "
    'but letters, digits and `-._~` (RFC 3986): url_encode("a b&c") = "a%20b%26c".',
    pure=True,
    work=lambda text: len(text) // 2,  # quote() works byte by byte in Python
    # At most three characters a byte, four bytes a character when not ASCII.
    builds=lambda limits, text: text_built(limits, 3 * len(text) * (1 if text.isascii() else 4)),
)
def _url_encode(limits: Limits, text: str) -> str:
    data = _utf8(text, "url_encode")
    _built_within(limits, len(data) + 2 * len(data.translate(None, _UNRESERVED)))
    return quote(data, safe="")


@builtin(
    "base64_encode",
    (S,),
    STRING,
    'The UTF-8 bytes of text in standard base64 (with padding): base64_encode("hi") = "aGk=".',
    pure=True,
    work=first_size,
    builds=lambda limits, text: text_built(limits, (len(text) * (1 if text.isascii() else 4) + 2) // 3 * 4),
)
def _base64_encode(limits: Limits, text: str) -> str:
    data = _utf8(text, "base64_encode")
    _built_within(limits, (len(data) + 2) // 3 * 4)
    return base64.b64encode(data).decode("ascii")


@builtin(
    "base64_decode",
    (S,),
    STRING,
    "Text from standard base64 (with padding) of UTF-8 bytes; anything else is E0515.",
    pure=True,
    work=lambda text: len(text) // 16,  # validating and decoding: 4 times slower than reading
    built=result_text_work,
)
def _base64_decode(limits: Limits, text: str) -> str:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):  # ValueError: a character outside ASCII
        raise fault(codes.INVALID_TEXT, "base64_decode of text that is not base64") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise fault(codes.INVALID_TEXT, "base64_decode of bytes that are not UTF-8 text") from None


@builtin(
    "sha256",
    (S,),
    STRING,
    "The SHA-256 digest of the UTF-8 bytes of text, in lower-case hexadecimal.",
    pure=True,
    work=first_size,
)
def _sha256(limits: Limits, text: str) -> str:
    import hashlib  # OpenSSL's module, 4-7 ms to load: only for the digests

    return hashlib.sha256(_utf8(text, "sha256")).hexdigest()


@builtin(
    "md5",
    (S,),
    STRING,
    "The MD5 digest of the UTF-8 bytes of text, in lower-case hexadecimal: a checksum to "
    "match other systems' keys, not a protection (MD5 is broken).",
    pure=True,
    work=first_size,
)
def _md5(limits: Limits, text: str) -> str:
    import hashlib

    return hashlib.md5(_utf8(text, "md5"), usedforsecurity=False).hexdigest()


_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-.")
_LABEL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_URL_REST = frozenset(chr(c) for c in range(0x21, 0x7F))  # printable ASCII, no space


def _is_domain(host: str) -> bool:
    """Dot-separated labels of letters, digits and `-` (1 to 63, not starting or ending with
    `-`), at least two, the last of letters only, at most 253 characters."""
    labels = host.split(".")
    return (
        len(host) <= 253
        and len(labels) >= 2
        and all(0 < len(label) <= 63 and set(label) <= _LABEL and label[0] != "-" != label[-1] for label in labels)
        and labels[-1].isascii()
        and labels[-1].isalpha()
        and len(labels[-1]) >= 2
    )


@builtin(
    "is_email",
    (S,),
    BOOLEAN,
    "Whether text looks like an e-mail address: one `@`; before it, 1 to 64 of the letters, "
    "digits and ``!#$%&'*+/=?^_`{|}~-.`` (no dot first, last or twice in a row); after it, a "
    "domain (labels of letters, digits and `-`, a last label of 2 or more letters). ASCII "
    "only, at most 254 characters. It does not ask whether the mailbox exists.",
    pure=True,
    work=first_size,
)
def _is_email(limits: Limits, text: str) -> bool:
    local, at, domain = text.rpartition("@")
    return (
        bool(at)
        and len(text) <= 254
        and 0 < len(local) <= 64
        and set(local) <= _LOCAL
        and not local.startswith(".")
        and not local.endswith(".")
        and ".." not in local
        and _is_domain(domain)
    )


@builtin(
    "is_url",
    (S,),
    BOOLEAN,
    "Whether text looks like a web address: `http://` or `https://` (either case), a domain "
    "(as for is_email) or `localhost`, an optional port (1 to 65535), then optionally a "
    "path, query or fragment (starting with `/`, `?` or `#`) of printable ASCII without "
    "spaces. At most 2,048 characters. No user names, no IP addresses.",
    pure=True,
    work=first_size,
)
def _is_url(limits: Limits, text: str) -> bool:
    scheme, separator, rest = text.partition("://")
    if not separator or scheme.lower() not in ("http", "https") or len(text) > 2048:
        return False
    cut = min((rest.find(c) for c in "/?#" if c in rest), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    host, colon, port = authority.partition(":")
    port_ok = not colon or (port.isascii() and port.isdigit() and 0 < int(port) <= 65535)
    return port_ok and (host.lower() == "localhost" or _is_domain(host)) and set(tail) <= _URL_REST
