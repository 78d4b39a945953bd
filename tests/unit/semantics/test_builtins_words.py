"""The word builtins (OwnPilot's text helpers): results, where they answer as OwnPilot's
utils and where not (docs/migrating.md), failures with their codes, hostile sizes."""

import dataclasses

import pytest
from builtin_calls import code, value

import toolkiln
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('slugify("Crème Brûlée: 2 Ways!")', "creme-brulee-2-ways"),
        ('slugify("  --Hello   World--  ")', "hello-world"),
        ('slugify("snake_case and 日本")', "snakecase-and"),
        ('slugify("")', ""),
        ('camel_case("invoice total-due")', "invoiceTotalDue"),
        ('camel_case("Hello World")', "helloWorld"),
        ('camel_case("")', ""),
        ('snake_case("invoiceTotal due")', "invoice_total_due"),
        ('snake_case("item2Price")', "item2_price"),
        ('snake_case("HTTP server")', "http_server"),
        ('kebab_case("Invoice Total_due")', "invoice-total-due"),
        ('kebab_case("café au lait")', "café-au-lait"),
        ('truncate("Hello world", 8)', "Hello..."),
        ('truncate("Hello", 5)', "Hello"),
        ('truncate("Hello world", 6, "…")', "Hello…"),
        ('truncate("Hello world", 3)', "..."),
        ('truncate("👍👍👍👍", 3, "")', "👍👍👍"),
        ('count_words(" a b\\nc ")', 3),
        ('count_words("")', 0),
        ('count_words("a\\u00a0b\\u3000c")', 3),
        ('remove_diacritics("Crème brûlée, Ångström")', "Creme brulee, Angstrom"),
        ('remove_diacritics("한국어")', "한국어"),
    ],
)
def test_results(expression, expected):
    assert value(expression) == expected


def test_a_text_longer_than_the_default_is_cut_at_100_characters():
    assert value(f'truncate("{"x" * 150}")') == "x" * 97 + "..."


# What OwnPilot's utils answer for the same call (its dynamic-tool-sandbox.ts read at
# 16901d1e), where toolkiln answers otherwise on purpose: docs/migrating.md says why.
DIFFERENCES = [
    ('camel_case("invoiceTotal")', "invoicetotal", "invoiceTotal"),  # OwnPilot lower-cases first
    ('camel_case("total!")', "total!", "total"),  # a separator at the end stayed
    ('snake_case("Hello, World!")', "hello,_world!", "hello_world"),  # punctuation stayed
    ('kebab_case("a__b")', "a__b", "a-b"),
    ('is_uuid("0192f9a4-5f3c-7d2e-9b1a-3c4d5e6f7a8b")', False, True),  # a version 7 UUID
]


@pytest.mark.parametrize(("expression", "ownpilot", "toolkiln"), DIFFERENCES)
def test_where_toolkiln_answers_otherwise_than_ownpilot(expression, ownpilot, toolkiln):
    assert value(expression) == toolkiln != ownpilot


def test_remove_diacritics_gives_composed_text_where_ownpilot_leaves_it_decomposed():
    # OwnPilot's answer for "한" is its three jamo (NFD); toolkiln composes what it kept again.
    assert len(value('remove_diacritics("한")')) == 1


def test_a_max_length_shorter_than_the_suffix_is_refused():
    # OwnPilot's truncate("abcdef", 2) slices from the end and answers "abcde...", longer than asked.
    assert code('truncate("abcdef", 2)') == codes.INVALID_OPERATION.code
    assert code('truncate("abcdef", 4.5)') == codes.INVALID_OPERATION.code


def stopped(expression: str, text: str, limits: toolkiln.Limits) -> str:
    """The code a run of `expression` over the argument `t` stops with, under a clock that
    cannot stop it: a budget must."""
    tool = toolkiln.compile(f'tool probe(t: string)\ndescription "A probe."\n{{\n  return {expression}\n}}')
    with pytest.raises(RunError) as raised:
        tool.run({"t": text}, limits=dataclasses.replace(limits, max_seconds=60))
    return raised.value.code


@pytest.mark.parametrize(
    "name", ["slugify", "camel_case", "snake_case", "kebab_case", "remove_diacritics", "count_words"]
)
def test_a_loop_of_calls_over_long_text_is_stopped_by_the_budget(name):
    # 1,000 calls over 20,000 characters: about 312 operations each, charged by the text's
    # size; a call charged as one operation would finish within the 100,000.
    limits = toolkiln.Limits(max_operations=100_000)
    assert stopped(f"[{name}(t) for i in range(1000)]", "aB cD " * 3_400, limits) == codes.OPERATION_BUDGET.code
