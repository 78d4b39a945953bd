"""The data builtins (OwnPilot's data helpers): JSON, CSV, UUIDs and chunk; failures with
their codes; hostile sizes refused; to_json and is_json against JavaScript's own JSON."""

import json
import shutil
import subprocess
from decimal import Decimal

import pytest
from builtin_calls import code, value
from test_builtins_words import stopped

import toolkiln
from toolkiln.diagnostics import codes


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('is_json("{\\"a\\": [1, 2.5e3]}")', True),
        ('is_json(" null ")', True),
        ('is_json("NaN")', False),
        ('is_json("[1,]")', False),
        ('is_json("")', False),
        ('is_json(repeat("[", 100000))', False),
        ('parse_json("{\\"total\\": 31.50}").total', Decimal("31.50")),
        ('parse_json("[1, \\"a\\", true, null]")', [1, "a", True, None]),
        ('to_json({"a": [1, 2.50, null, true], "b": "x\\"y"})', '{"a":[1,2.5,null,true],"b":"x\\"y"}'),
        ('to_json([1, {"x": []}], 2)', '[\n  1,\n  {\n    "x": []\n  }\n]'),
        ('to_json(parse_date("31.01.2026", "DD.MM.YYYY"))', '"2026-01-31"'),
        ('is_uuid("550E8400-E29B-41D4-A716-446655440000")', True),
        ('is_uuid("550e8400-e29b-41d4-c716-446655440000")', False),  # not RFC 9562's variant
        ('is_uuid("550e8400e29b41d4a716446655440000")', False),
        ("chunk([1, 2, 3, 4, 5], 2)", [[1, 2], [3, 4], [5]]),
        ("chunk([], 3)", []),
        ("chunk([1, 2], 1e30)", [[1, 2]]),
        (
            'parse_csv("name,qty\\n\\n bolt , 4\\n\\"a,b\\"")',
            [{"name": "bolt", "qty": "4"}, {"name": "a,b", "qty": ""}],
        ),
        ('parse_csv("a;b\\r\\n1;2;3", ";")', [{"a": "1", "b": "2"}]),
        ('parse_csv("only a header")', []),
        ('parse_csv("q\\n\\"line\\nbreak \\"\\"quoted\\"\\"\\"")', [{"q": 'line\nbreak "quoted"'}]),
    ],
)
def test_results(expression, expected):
    assert value(expression) == expected


def test_parse_json_then_to_json_gives_the_text_back():
    text = '{"id":"x","items":[{"qty":3,"price":19.99}],"ok":false,"note":null}'
    assert value("to_json(parse_json(t))", t=text) == text


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('parse_json("[1")', codes.INVALID_TEXT),
        ('parse_json("NaN")', codes.INVALID_TEXT),
        ('parse_json(repeat("[", 100000))', codes.INVALID_TEXT),
        ('parse_json(repeat("[", 70) + repeat("]", 70))', codes.INVALID_TEXT),  # deeper than a value may be
        ('parse_json("1" + repeat("0", 500))', codes.INVALID_TEXT),  # more digits than the limits allow
        ("to_json(1, 11)", codes.INVALID_OPERATION),
        ("to_json(1, 1.5)", codes.INVALID_OPERATION),
        ("chunk([1], 0)", codes.INVALID_OPERATION),
        ('parse_csv("a,a\\n1,2")', codes.INVALID_TEXT),
        ('parse_csv("a\\n\\"open")', codes.INVALID_TEXT),
        ('parse_csv("a\\n1", ",,")', codes.INVALID_OPERATION),
        ('parse_csv("a\\n1", "\\"")', codes.INVALID_OPERATION),
    ],
)
def test_failures_have_their_codes(expression, expected):
    assert code(expression) == expected.code


def test_a_csv_of_more_values_than_a_list_may_hold_is_refused_before_it_is_built():
    limits = toolkiln.Limits(max_list_length=1_000)
    wide = ",".join(f"c{i}" for i in range(100)) + "\n" + "x\n" * 20
    assert stopped("parse_csv(t)", wide, limits) == codes.LIST_TOO_LONG.code


def test_to_json_past_the_longest_text_is_refused():
    limits = toolkiln.Limits(max_string_length=1_000)
    assert stopped('to_json(split(t, ","))', ",".join(["abcdefgh"] * 100), limits) == codes.STRING_TOO_LONG.code


@pytest.mark.parametrize("expression", ["parse_json(t)", "parse_csv(t)", "to_json(parse_json(t), 2)"])
def test_what_a_parse_builds_is_charged(expression):
    # 20,000 values: each charged as a number in a list (3.5 operations), over the 20,000.
    data = "[" + ",".join(["1"] * 20_000) + "]" if "json" in expression else "a,b\n" + "1,2\n" * 10_000
    tight = toolkiln.Limits(max_operations=20_000)
    assert stopped(expression, data, tight) == codes.OPERATION_BUDGET.code


NODE = shutil.which("node")
SAMPLES = [
    {"a": [1, "x\n\u2028\ud800\u00e9\u0007", None, True, {}], "b": []},
    ["", '"\\/', [[[]]], {"k": {"l": False}}],
    "plain",
]


@pytest.mark.skipif(NODE is None, reason="needs Node.js to compare with JavaScript's JSON")
@pytest.mark.parametrize("indent", [0, 2, 10])
def test_to_json_writes_what_javascripts_json_stringify_writes(indent, tmp_path):
    script = "const [v, i] = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.stdout.write(JSON.stringify(v, null, i));"
    for sample in SAMPLES:
        stdin = json.dumps([sample, indent])  # (ASCII: the lone surrogate as an escape)
        javascript = subprocess.run([NODE, "-e", script], input=stdin.encode(), capture_output=True, check=True)
        ours = value(f"to_json(v, {indent})", v=sample)
        assert ours.encode("utf-8", "surrogatepass") == javascript.stdout.replace(b"\\ud800", b"\\ud800")


@pytest.mark.skipif(NODE is None, reason="needs Node.js to compare with JavaScript's JSON")
def test_is_json_answers_as_javascripts_json_parse():
    texts = [
        "1",
        " [1] ",
        "NaN",
        "Infinity",
        "-0",
        "01",
        "1.",
        ".5",
        "[1,]",
        '{"a":1,}',
        "'a'",
        '"\\x41"',
        "\ufeff1",
        "\t{}\r\n",
        "tru",
        "",
    ]
    script = "const ts = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log(JSON.stringify(ts.map(t => { try { JSON.parse(t); return true } catch { return false } })));"
    javascript = json.loads(
        subprocess.run([NODE, "-e", script], input=json.dumps(texts).encode(), capture_output=True, check=True).stdout
    )
    assert [value("is_json(t)", t=text) for text in texts] == javascript
