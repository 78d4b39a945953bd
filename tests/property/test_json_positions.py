"""The JSON position locator finds every value of a document at its offset, and every key
(under its value's path and KEY_SUFFIX, for a fix that renames it): on generated documents,
in every layout `json.dumps` writes, each path's offset decodes to the value or key there."""

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.ast.spans import json_path
from toolkiln.syntax.json_positions import KEY_SUFFIX, value_offsets

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
)


def every_value(value: Any, path: tuple[str | int, ...] = ()):
    yield json_path(path), value
    if isinstance(value, dict):
        for key, child in value.items():
            yield json_path((*path, key)) + KEY_SUFFIX, key  # where the key itself is written
            yield from every_value(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from every_value(child, (*path, index))


@settings(max_examples=examples(300), deadline=None)
@given(document=documents, indent=st.sampled_from([None, 0, 2]), ascii_only=st.booleans())
def test_every_value_is_found_where_it_is(document, indent, ascii_only):
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    found = value_offsets(text)
    pairs = list(every_value(document))
    expected = dict(pairs)
    assume(len(expected) == len(pairs))  # a key written "k (key)" beside a key "k": one path for both
    assert set(found) == set(expected)
    decoder = json.JSONDecoder()
    for path, (offset, raw) in found.items():
        value, end = decoder.raw_decode(text, offset)
        assert value == expected[path] or value != value  # NaN is excluded; -0.0 == 0.0
        assert (raw is not None) == isinstance(value, str)
        if raw is not None:
            assert text[offset:end] == raw


def test_what_is_not_json_has_no_positions():
    assert value_offsets('{"a": 1]') == {}
    assert value_offsets("{1: 2}") == {}
