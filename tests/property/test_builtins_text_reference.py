"""The text builtins against Python's own str, urllib, base64 and hashlib on generated text
(any Unicode, lone surrogates left out: those are E0515, tested in the unit tests)."""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import quote, unquote

from builtin_runs import relaxed, run
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
separators = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=3)
positions = st.integers(-50, 50)


@relaxed
@given(texts, separators)
def test_split_is_str_split(text, separator):
    assert run("split(t, s)", t=text, s=separator) == text.split(separator)


@relaxed
@given(texts, positions, positions)
def test_slice_is_a_python_slice(text, start, end):
    assert run("slice(t, a, b)", t=text, a=start, b=end) == text[start:end]
    assert run("slice(t, a)", t=text, a=start) == text[start:]


@relaxed
@given(st.lists(st.integers(), max_size=10), positions, positions)
def test_slice_of_a_list_is_a_python_slice(items, start, end):
    assert run("slice(xs, a, b)", xs=items, a=start, b=end) == items[start:end]


@relaxed
@given(texts)
def test_capitalize_and_title(text):
    assert run("capitalize(t)", t=text) == text.capitalize()
    words = run("title(t)", t=text)
    assert words == re.sub(r"\S+", lambda word: word[0].capitalize(), text)
    assert words.split() == [word.capitalize() for word in text.split()]


@relaxed
@given(texts, st.integers(-5, 60), st.characters(blacklist_categories=("Cs",)))
def test_pad_is_rjust_and_ljust(text, width, fill):
    assert run("pad_left(t, w, f)", t=text, w=width, f=fill) == text.rjust(width, fill)
    assert run("pad_right(t, w, f)", t=text, w=width, f=fill) == text.ljust(width, fill)
    assert run("pad_left(t, w)", t=text, w=width) == text.rjust(width)


@relaxed
@given(texts, st.integers(0, 50))
def test_repeat_is_str_times(text, times):
    assert run("repeat(t, n)", t=text, n=times) == text * times


@relaxed
@given(texts)
def test_encodings_and_digests_are_pythons(text):
    data = text.encode("utf-8")
    encoded = run("url_encode(t)", t=text)
    assert encoded == quote(data, safe="") and unquote(encoded) == text
    assert set(encoded) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")
    assert run("base64_encode(t)", t=text) == base64.b64encode(data).decode()
    assert run("base64_decode(base64_encode(t))", t=text) == text
    assert run("sha256(t)", t=text) == hashlib.sha256(data).hexdigest()
    assert run("md5(t)", t=text) == hashlib.md5(data).hexdigest()


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=80))
def test_validators_answer_any_text_with_a_boolean(text):
    assert type(run("is_email(t)", t=text)) is bool
    assert type(run("is_url(t)", t=text)) is bool


label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
domain = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(label, min_size=1, max_size=3),
    st.from_regex(r"[a-zA-Z]{2,6}", fullmatch=True),
)


@relaxed
@given(st.from_regex(r"[a-z0-9_+-]{1,10}(\.[a-z0-9_+-]{1,10}){0,2}", fullmatch=True), domain)
def test_well_formed_addresses_are_emails(local, host):
    assert run("is_email(t)", t=f"{local}@{host}") is True
    assert run("is_email(t)", t=f"{local}@@{host}") is False


@relaxed
@given(
    domain, st.integers(1, 65535), st.from_regex(r"(/[a-zA-Z0-9._~-]{0,8}){0,3}(\?[a-z]=[0-9]{1,3})?", fullmatch=True)
)
def test_well_formed_addresses_are_urls(host, port, path):
    assert run("is_url(t)", t=f"https://{host}:{port}{path}") is True
    assert run("is_url(t)", t=f"https://{host}:{port}{path} ") is False
