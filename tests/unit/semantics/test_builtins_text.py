"""The text builtins: results, failures with their codes, and hostile sizes refused quickly."""

import base64
import hashlib

import pytest
from builtin_calls import code, quickly, value

import toolkiln


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('split("a,b,,c", ",")', ["a", "b", "", "c"]),
        ('split("", ",")', [""]),
        ('split("a--b", "--")', ["a", "b"]),
        ('slice("invoice", 0, 3)', "inv"),
        ('slice("invoice", -4)', "oice"),
        ('slice("abc", 5, 9)', ""),
        ('slice("abc", -99, 2)', "ab"),
        ("slice([1, 2, 3], 1)", [2, 3]),
        ('capitalize("hELLO wORLD")', "Hello world"),
        ('capitalize("")', ""),
        ('title("ada LOVELACE-byron")', "Ada Lovelace-byron"),
        ('title("  they\'re  here ")', "  They're  Here "),
        ('pad_left("42", 5, "0")', "00042"),
        ('pad_left("12345", 3)', "12345"),
        ('pad_right("ab", 4, ".")', "ab.."),
        ('pad_left("x", -3)', "x"),
        ('repeat("ab", 3)', "ababab"),
        ('repeat("ab", 0)', ""),
        ('repeat("", 1e50)', ""),
        ('url_encode("a b&c/é~")', "a%20b%26c%2F%C3%A9~"),
        ('url_encode("!\'()*")', "%21%27%28%29%2A"),
        ('base64_encode("hi")', "aGk="),
        ('base64_decode("aGk=")', "hi"),
        ('base64_decode("")', ""),
        ('sha256("abc")', hashlib.sha256(b"abc").hexdigest()),
        ('md5("abc")', "900150983cd24fb0d6963f7d28e17f72"),
    ],
)
def test_text_builtins(expression, expected):
    assert value(expression) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ada@example.com", True),
        ("first.last+tag@mail.example.co.uk", True),
        ("o'brien@example.ie", True),
        ("ada@example", False),  # one label
        ("ada@@example.com", False),
        ("@example.com", False),
        (".ada@example.com", False),
        ("ada.@example.com", False),
        ("a..da@example.com", False),
        ("ada@-example.com", False),
        ("ada@example.c0m", False),
        ("ada@exa_mple.com", False),
        ("ada lovelace@example.com", False),
        ("adá@example.com", False),  # ASCII only
        ("a" * 65 + "@example.com", False),
        ("ada@" + "a" * 64 + ".com", False),
        ("", False),
    ],
)
def test_is_email(text, expected):
    assert value("is_email(t)", t=text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://example.com", True),
        ("HTTP://Example.COM/a/b?c=d&e#f", True),
        ("http://localhost:8080/health", True),
        ("https://shop.example.co.uk:443", True),
        ("ftp://example.com", False),
        ("https//example.com", False),
        ("https://", False),
        ("https://example", False),
        ("https://example.com:0", False),
        ("https://example.com:65536", False),
        ("https://example.com:80a", False),
        ("https://exa mple.com", False),
        ("https://example.com/a b", False),
        ("https://user@example.com", False),
        ("https://192.168.0.1/", False),
        ("https://example.com/" + "a" * 2100, False),
    ],
)
def test_is_url(text, expected):
    assert value("is_url(t)", t=text) is expected


@pytest.mark.parametrize(
    ("expression", "expected_code"),
    [
        ('split("abc", "")', "E0511"),
        ('slice("abc", 1.5)', "E0511"),
        ('pad_left("a", 3, "ab")', "E0511"),
        ('pad_right("a", 3, "")', "E0511"),
        ('pad_left("a", 2.5)', "E0511"),
        ('repeat("a", -1)', "E0511"),
        ('repeat("a", 1.5)', "E0511"),
        ('base64_decode("not base64!")', "E0515"),
        ('base64_decode("aGk")', "E0515"),  # padding missing
        ('base64_decode("//79")', "E0515"),  # bytes that are not UTF-8
        ('base64_decode("é")', "E0515"),
    ],
)
def test_text_failures_have_codes(expression, expected_code):
    assert code(expression) == expected_code


def test_an_argument_of_unknown_type_is_checked_when_called():
    assert code("split(o.t, o.s)", o={"t": "a", "s": 1}) == "E0509"


@pytest.mark.parametrize("function", ["sha256", "md5", "base64_encode", "url_encode"])
def test_a_lone_surrogate_is_e0515_not_a_crash(function):
    assert code(f"{function}(t)", t="a\ud800b") == "E0515"


def test_a_text_argument_of_the_wrong_type_is_refused_before_the_run():
    with pytest.raises(toolkiln.CompileError) as raised:
        toolkiln.compile('return repeat(3, "x")')
    assert "E0303" in str(raised.value)


# --- hostile sizes: refused before anything large is built ------------------------------------


def test_huge_repeat_counts_are_refused_before_building():
    assert quickly('repeat("ab", 60000)') == "E0504"
    # Charged the text it would build, before building it: over any budget.
    assert quickly('repeat("ab", 1e99)') == "E0503"
    assert quickly('repeat("ab", 1e20)', toolkiln.Limits(max_operations=10**12)) == "E0503"


def test_huge_pad_widths_are_refused_before_building():
    assert quickly('pad_left("a", 1e99)') == "E0503"
    assert quickly('pad_right("a", 100001)') == "E0504"


def test_repeating_in_a_loop_is_charged_by_what_it_builds():
    """100,000 texts of 99,999 characters would be 10 GB: the budget stops it first."""
    assert quickly('[repeat("a", 99999) for x in xs]', xs=list(range(100_000))) == "E0503"


def test_encodings_that_grow_are_sized_first():
    emoji = "😀" * 90_000  # 4 UTF-8 bytes each: 12 characters each encoded
    assert quickly("url_encode(t)", t=emoji) == "E0504"
    assert quickly("base64_encode(t)", t=emoji) == "E0504"
    assert quickly("title(t)", t="ŉ " * 49_000) == "E0504"  # ŉ capitalizes to two characters


def test_split_into_too_many_pieces_is_e0505():
    limits = toolkiln.Limits(max_list_length=1000)
    assert quickly('split(t, ",")', limits, t="," * 1000) == "E0505"
    assert len(value('split(t, ",")', t="," * 99_999)) == 100_000


def test_ten_megabytes_of_text_never_reach_a_builtin():
    assert quickly("sha256(t)", t="x" * 10_000_000) == "E0508"  # refused as an argument


def test_digests_and_base64_agree_with_python():
    text = "Grüße 😀"
    assert value("sha256(t)", t=text) == hashlib.sha256(text.encode()).hexdigest()
    assert value("base64_encode(t)", t=text) == base64.b64encode(text.encode()).decode()
    assert value("base64_decode(base64_encode(t))", t=text) == text
