"""`in` with a container whose type is known only at run time."""

import pytest

import toolkiln


@pytest.mark.parametrize(
    ("expression", "body", "expected"),
    [
        ('"k" in body.o', {"o": {"k": 1}}, True),
        ('"b" in body.o', {"o": "abc"}, True),
        ('"z" not in body.o', {"o": ["z"]}, False),
        ("3 in body.o", {"o": [1, 3]}, True),
    ],
)
def test_a_string_or_number_in_an_untyped_container_compiles_and_runs(expression, body, expected):
    tool = toolkiln.compile(f'tool p(body: object)\ndescription "d"\n{{ return {expression} }}')
    assert tool.run({"body": body}) is expected
