"""The recognisers of foreign syntax never fail, whatever the text and the offset, and every
fix they offer lies inside the text (they look at text the parser refused: anything)."""

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import toolkiln
from toolkiln.syntax.foreign import foreign_construct

# The characters the recognisers look for, and a few others.
ALPHABET = st.sampled_from(
    list("ab_x1 .()[]{}\"'`$?:;!=&|+-*/#\n")
    + [
        "let ",
        "for ",
        "elif ",
        "def ",
        "Math",
        "return ",
        " between ",
        " and ",
        ".toFixed",
        "date.today",
        "t = ",
        "if ",
        "else",
        "    ",
    ]
)
TEXTS = st.lists(ALPHABET, max_size=40).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(TEXTS, st.data(), st.booleans())
def test_recognisers_never_fail_and_fixes_stay_inside(text, data, steps):
    offset = data.draw(st.integers(0, len(text)))
    found = foreign_construct(text, offset, steps=steps)
    if found is not None:
        assert 0 <= found.start <= found.end <= len(text)
        if found.fix is not None:
            start, end, _ = found.fix
            assert 0 <= start <= end <= len(text)


@settings(max_examples=examples(150), deadline=None)
@given(TEXTS)
def test_applying_fixes_to_any_source_never_fails(text):
    toolkiln.apply_fixes(toolkiln.apply_fixes(text))
