"""The registry of diagnostic codes refuses a second code of a number or of a name, so that
`toolkiln explain` finds one code either way."""

from __future__ import annotations

import pytest

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.codes.base import register


def test_a_code_number_or_name_is_registered_once():
    known = codes.SYNTAX_ERROR
    count = len(codes.CODES)
    with pytest.raises(AssertionError):
        register(known.code, "a-new-name", "t", "e")
    with pytest.raises(AssertionError):
        register("E9998", known.name, "t", "e")
    assert len(codes.CODES) == count and codes.lookup_code(known.name) is known
