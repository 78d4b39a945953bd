"""The text every adapter hands its framework (`Calls.answer`) is the Outcome's reply written by
`to_json` with the computed digits, whatever the result holds, on the first call and on the
calls that go through the registry's remembered door."""

from __future__ import annotations

import json

import pytest

from toolkiln import Registry
from toolkiln.integrations.calls import Calls, offered
from toolkiln.registry.principals import LOCAL_MODEL
from toolkiln.semantics.values import to_json

ECHO = {
    "name": "echo",
    "description": "What it was given, with a computed number beside it",
    "parameters": {"value": {"type": "any", "description": "Anything"}, "x": {"type": "number", "description": "n"}},
    "logic": {"steps": [{"op": "return", "value": '{"given": value, "taxed": x * 1.10, "note": "ünï \\"q\\""}'}]},
}


@pytest.mark.parametrize(
    "value",
    [None, True, 0, 'täxt \n\t"quoted" \u2028', [1, "2", [3.50]], {"k": {"é": [None, False]}}, 12345.678],
    ids=["null", "bool", "zero", "text", "list", "object", "float"],
)
def test_the_text_of_a_call_is_the_replys_json_with_its_digits(tmp_path, value):
    with Registry(tmp_path / "reg", durable=False) as reg:
        reg.create(ECHO)
        (tool,) = offered(reg)
        calls = Calls(reg)
        arguments = {"value": value, "x": 2}
        texts = [calls.answer(tool, arguments) for _ in range(3)]  # (the later ones through the door)
        expected = to_json(reg.invoke("echo", arguments, principal=LOCAL_MODEL).reply(), exact=True)
    assert texts == [(True, expected)] * 3
    assert json.loads(expected)["result"]["taxed"] == 2.2 and '"taxed": 2.20' in expected
