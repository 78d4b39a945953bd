"""A reply written as a Python dict (single-quoted strings, True/False/None) is read as the
JSON it stands for, in place (offsets kept), when each rewrite has one meaning; a
single-quoted string holding a double quote or an escaped quote is still refused (E0603)."""

from __future__ import annotations

import json

from toolkiln.llm import extract

DEFINITION = {
    "name": "tax",
    "description": "VAT on a net amount",
    "parameters": {"net": {"type": "number"}, "reduced": {"type": "boolean", "default": False}},
    "logic": {"steps": [{"op": "return", "value": "net * 1.07 if reduced else net * 1.19"}]},
    "note": None,
}


def test_a_python_dict_reads_as_the_json_it_stands_for():
    text = repr(DEFINITION)  # Python's own spelling: 'name': 'tax', False, None
    assert "'" in text and "False" in text and "None" in text
    found = extract(text)
    assert found.ok and found.data == json.loads(json.dumps(DEFINITION))
    assert {r.kind for r in found.repairs} == {"single-quotes", "python-literal"}
    assert len(found.source) == len(text)  # rewritten in place: diagnostics point into the reply


def test_a_single_quoted_string_that_double_quotes_would_read_otherwise_is_refused():
    for text in ("{'name': 'say \"hi\"'}", "{'name': 'it\\'s'}"):
        found = extract(text)
        assert not found.ok and "E0603" in [d.code for d in found.diagnostics], text


def test_a_python_word_used_as_a_key_is_still_refused():
    found = extract('{"a": 1, None: 2}')
    assert not found.ok and [d.code for d in found.diagnostics] == ["E0603"]
