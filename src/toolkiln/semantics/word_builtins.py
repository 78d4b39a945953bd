"""Builtins that reshape words: slugs, camel/snake/kebab case, truncating, counting words and
removing accents, the text helpers of OwnPilot's `utils` (docs/migrating.md says where they
answer as OwnPilot's and where not, and why).

Whitespace here is JavaScript's `\\s` (and `trim()`'s), so that `slugify` and `count_words`
answer as OwnPilot's and as their n8n translations do."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from toolkiln.ast.types import NUMBER, STRING
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import (
    Arg,
    builtin,
    checked_text,
    fault,
    first_size,
    result_text_work,
)
from toolkiln.semantics.limits import Limits

S = Arg("text", (STRING,))
# JavaScript's WhiteSpace and LineTerminator (ECMA-262), as its `\s` and `trim()` read them.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_SPACE = re.escape(JS_WHITESPACE)  # (for a character class)
_SPACES = re.compile(f"[{JS_SPACE}]+")
_WORD = re.compile(f"[^{JS_SPACE}]+")  # one class, repeated: linear, nothing to backtrack
_NOT_SLUG = re.compile(f"[^a-z0-9{JS_SPACE}-]+")
_HYPHENS = re.compile("-{2,}")
_COMBINING = re.compile("[\u0300-\u036f]+")  # the combining diacritical marks block
_LETTERS_AND_DIGITS = re.compile(r"[^\W_]+")  # \w without `_`: Unicode letters and digits


def _normalizing(text: str) -> int:
    return len(text) // 4  # decomposing and composing again: a dictionary look-up a character


def _without_marks(text: str) -> str:
    return _COMBINING.sub("", unicodedata.normalize("NFD", text))


@builtin(
    "slugify",
    (S,),
    STRING,
    "Text as a URL slug, as OwnPilot's utils.slugify makes it: lower-cased, accents removed, "
    "every character but a-z, 0-9, whitespace and `-` dropped, whitespace as `-`, no `-` twice "
    'or at either end: slugify("Crème Brûlée: 2 Ways!") = "creme-brulee-2-ways".',
    pure=True,
    work=_normalizing,
    built=result_text_work,
)
def _slugify(limits: Limits, text: str) -> str:
    kept = _NOT_SLUG.sub("", _without_marks(text.lower()))
    return checked_text(limits, _HYPHENS.sub("-", _SPACES.sub("-", kept)).strip("-"))


def words_of(text: str) -> list[str]:
    """The words of `text`: runs of letters and digits, and a run split where a lower-case
    letter or digit is followed by an upper-case one (`invoiceTotal2` is `invoice`, `Total2`)."""
    words: list[str] = []
    for run in _LETTERS_AND_DIGITS.findall(text):
        start = 0
        for at in range(1, len(run)) if not (run.islower() or run.isupper()) else ():
            if run[at].isupper() and (run[at - 1].islower() or run[at - 1].isdigit()):
                words.append(run[start:at])
                start = at
        words.append(run[start:])
    return words


def _per_character(text: str) -> int:
    return len(text) // 2  # a run's characters are looked at one by one when its case is mixed


_CASES = {
    "camel_case": 'Text as camelCase: camel_case("invoice total-due") = "invoiceTotalDue".',
    "snake_case": 'Text as snake_case: snake_case("invoiceTotal due") = "invoice_total_due".',
    "kebab_case": 'Text as kebab-case: kebab_case("Invoice Total_due") = "invoice-total-due".',
}
_CASE_RULE = (
    " A word is a run of letters and digits, also split before an upper-case letter that follows "
    "a lower-case one or a digit; everything else separates words and is dropped."
)


@builtin(
    "camel_case",
    (S,),
    STRING,
    _CASES["camel_case"] + _CASE_RULE,
    pure=True,
    work=_per_character,
    built=result_text_work,
)
def _camel_case(limits: Limits, text: str) -> str:
    first, *rest = words_of(text) or [""]
    return checked_text(limits, first.lower() + "".join(word[0].upper() + word[1:].lower() for word in rest))


@builtin(
    "snake_case",
    (S,),
    STRING,
    _CASES["snake_case"] + _CASE_RULE,
    pure=True,
    work=_per_character,
    built=result_text_work,
)
def _snake_case(limits: Limits, text: str) -> str:
    return checked_text(limits, "_".join(words_of(text)).lower())


@builtin(
    "kebab_case",
    (S,),
    STRING,
    _CASES["kebab_case"] + _CASE_RULE,
    pure=True,
    work=_per_character,
    built=result_text_work,
)
def _kebab_case(limits: Limits, text: str) -> str:
    return checked_text(limits, "-".join(words_of(text)).lower())


@builtin(
    "truncate",
    (S, Arg("max_length", (NUMBER,), optional=True), Arg("suffix", (STRING,), optional=True)),
    STRING,
    "Text cut to at most max_length characters (100 if not given), ending in suffix (`...` if "
    'not given) when it was cut: truncate("Hello world", 8) = "Hello...". A max_length shorter '
    "than the suffix is E0511.",
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _truncate(limits: Limits, text: str, max_length: Decimal = Decimal(100), suffix: str = "...") -> str:
    if max_length != max_length.to_integral_value() or max_length < len(suffix):
        raise fault(
            codes.INVALID_OPERATION,
            f"truncate's max_length must be a whole number, at least the suffix's {len(suffix)} characters, "
            f"not {max_length}",
        )
    if len(text) <= max_length:
        return text
    return text[: int(max_length) - len(suffix)] + suffix


@builtin(
    "count_words",
    (S,),
    NUMBER,
    'The number of words, a word being what lies between whitespace: count_words(" a b\\nc ") = 3.',
    pure=True,
    work=lambda text: len(text) // 8,  # a new text a word, counted and dropped
)
def _count_words(limits: Limits, text: str) -> Decimal:
    return Decimal(len(_WORD.findall(text)))


@builtin(
    "remove_diacritics",
    (S,),
    STRING,
    'Text without accents (the combining marks U+0300 to U+036F): remove_diacritics("Crème brûlée") '
    '= "Creme brulee". Other characters are kept, composed again (NFC).',
    pure=True,
    work=_normalizing,
    built=result_text_work,
)
def _remove_diacritics(limits: Limits, text: str) -> str:
    return checked_text(limits, unicodedata.normalize("NFC", _without_marks(text)))
