"""The n8n translation of the text and list builtins, run by Node.js (the engine n8n's
expressions run on) and compared with toolkiln's own results on the same data; and the
builtins without a translation refused with E0706."""

import json
import shutil
import subprocess

import pytest

import toolkiln
from toolkiln.ast import compute as n
from toolkiln.backends.n8n.expressions import Untranslatable, to_js
from toolkiln.semantics.values import to_plain
from toolkiln.workflow import check_workflow

ROWS = [
    {"s": "Ada Lovelace", "t": "a,b,,c", "items": [3, -1.5, 3, 0.25], "nested": [[1, 2], [], [3]], "n": 4},
    {"s": "", "t": "", "items": [7], "nested": [], "n": 0},
    {"s": "héllo wörld 😀!'()*", "t": "x😀y😀", "items": [0, 0, 0.5], "nested": [[0.5]], "n": 2},
]
TRANSLATED = [
    'split(body.t, ",")',
    'split(body.s, "😀")',
    "slice(body.s, 1, 4)",
    "slice(body.s, -3)",
    "slice(body.items, 1)",
    "slice(body.items, -2, -1)",
    "slice(body.s, 2, 100)",
    'pad_left(body.s, 16, "*")',
    "pad_right(body.t, 8)",
    "pad_left(body.t, 2)",
    "repeat(body.t, body.n)",
    "url_encode(body.s)",
    "url_encode(body.t)",
    "first(body.items)",
    "last(body.items)",
    "flatten(body.nested)",
    "range(body.n)",
    "range(-2, body.n)",
    "range(3, 1)",
    "zip(body.items, body.nested)",
    "zip(range(body.n), body.items)",
    "count(body.items, 3)",
    "count(body.items)",
    '{"n": body.n, "first": first(body.items), "s": body.s}',
    '{"a": {"b": [body.n, {"c": body.t}]}, "__proto__": body.s, "": 1}',
    '{"k": body.n, "j": 2}.k + {"k": 1}["k"]',
    "{}",
    "count_if(x > 0 for x in body.items)",
    "count_if([])",
    "slugify(body.s)",
    "slugify(body.t)",
    'slugify("  Crème Brûlée: 2 Ways!\u00a0-- ")',
    "remove_diacritics(body.s)",
    'remove_diacritics("Ångström, 한국어")',
    "count_words(body.s)",
    'count_words(" a\u3000b\\n\\tc ")',
    "is_json(body.t)",
    'is_json(" [1, {\\"a\\": null}] ")',
    'is_json("NaN")',
    "is_uuid(body.s)",
    'is_uuid("550E8400-E29B-41D4-A716-446655440000")',
    'is_uuid("0192f9a4-5f3c-7d2e-9b1a-3c4d5e6f7a8b")',
]


def _probe(source: str) -> toolkiln.Tool:
    return toolkiln.compile(f'tool probe(body: object)\ndescription "probe"\n{{ return {source} }}')


def _expression(source: str) -> n.Expr:
    step = _probe(source).program.steps[-1]
    assert isinstance(step, n.Return)
    return step.value


def _same(ours: object, theirs: object) -> bool:
    if isinstance(ours, list):
        return isinstance(theirs, list) and len(ours) == len(theirs) and all(map(_same, ours, theirs))
    if isinstance(ours, int | float) and not isinstance(ours, bool):
        return not isinstance(theirs, bool) and ours == theirs
    return ours == theirs and type(ours) is type(theirs)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_translated_builtins_give_what_toolkiln_gives(tmp_path):
    lines = []
    for row in ROWS:
        data = json.dumps(row, ensure_ascii=False)
        lines.append("[" + ", ".join(to_js(_expression(e), lambda _name, d=data: f"({d})") for e in TRANSLATED) + "]")
    script = tmp_path / "probe.js"
    script.write_text("console.log(JSON.stringify([\n" + ",\n".join(lines) + "\n]));\n", encoding="utf-8")
    results = json.loads(subprocess.run(["node", str(script)], capture_output=True, check=True, text=True).stdout)
    mismatches = []
    for row, theirs in zip(ROWS, results, strict=True):
        for expression, js_value in zip(TRANSLATED, theirs, strict=True):
            ours = to_plain(_probe(expression).run({"body": row}))
            if not _same(ours, js_value):
                mismatches.append(f"{expression} on {row['s']!r}: toolkiln {ours!r}, JavaScript {js_value!r}")
    assert mismatches == []


@pytest.mark.parametrize(
    "expression",
    [
        "title(body.s)",
        "capitalize(body.s)",
        "sort(body.items)",
        "unique(body.items)",
        "group_by(body.items, [x > 0 for x in body.items])",
        "base64_encode(body.s)",
        "base64_decode(body.s)",
        "sha256(body.s)",
        "md5(body.s)",
        "is_email(body.s)",
        "is_url(body.s)",
        "camel_case(body.s)",
        "truncate(body.s, 4)",
        "to_json(body.items)",
        "parse_json(body.t)",
        "parse_csv(body.t)",
        "chunk(body.items, 2)",
        "uuid()",  # n8n's expressions draw from no source a run could seed
        "random()",
        "random_int(1, 6)",
    ],
)
def test_builtins_javascript_computes_otherwise_are_not_translated(expression):
    with pytest.raises(Untranslatable) as raised:
        to_js(_expression(expression), lambda _name: "body")
    assert raised.value.message == f"`{expression.split('(')[0]}(...)` has no n8n translation"


def test_a_workflow_using_one_is_e0706_naming_it():
    source = 'workflow w\ndescription "w"\non webhook POST "/w" respond with node\nset a { x = sha256(body.s) }\nrespond r a\n'
    diagnostics = check_workflow(source)
    assert [(d.code, d.message) for d in diagnostics if d.is_error] == [
        ("E0706", "`sha256(...)` has no n8n translation")
    ]
