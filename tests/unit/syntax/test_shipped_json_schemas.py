"""The JSON Schema of the JSON DSL (issue 30, item 2): shipped in the package as the generator
writes it, printed by `toolkiln schema tool`, and true to the front end: every example and
every matching corpus file validates, and what the schema refuses the front end refuses."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import toolkiln
from toolkiln.cli import main
from toolkiln.cli.schema import SCHEMAS, schema_file_text
from toolkiln.executables.program_schema import program_schema
from toolkiln.syntax.json_schema import schema_text, tool_schema

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "corpus" / "peers" / "kitz" / "compute"
VALIDATOR = jsonschema.Draft202012Validator(tool_schema())
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
SHIPPING = json.loads((ROOT / "examples" / "shipping_cost.json").read_text(encoding="utf-8"))


GENERATORS = {"tool": tool_schema, "program": program_schema}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_each_shipped_schema_is_the_generated_one_and_a_valid_schema(name):
    assert set(SCHEMAS) == set(GENERATORS)
    shipped = schema_file_text(name)
    assert shipped == schema_text(GENERATORS[name]()), f"rewrite src/toolkiln/schemas/{SCHEMAS[name]}"
    jsonschema.Draft202012Validator.check_schema(json.loads(shipped))


def test_the_command_prints_the_shipped_schema(capsys):
    assert main(["schema", "tool"]) == 0
    assert json.loads(capsys.readouterr().out) == tool_schema()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_json_example_validates(path):
    document = json.loads(path.read_text(encoding="utf-8"))
    assert not any(d.is_error for d in toolkiln.check(path))
    VALIDATOR.validate(document)


def test_every_json_logic_file_of_the_corpus_validates():
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is not at {CORPUS} (a checkout without ../shared)")
    files = sorted(CORPUS.glob("*.logic.json"))
    assert files
    for path in files:
        VALIDATOR.validate(json.loads(path.read_text(encoding="utf-8")))


def _changed(**fields) -> dict:
    definition = json.loads(json.dumps(SHIPPING))
    for key, value in fields.items():
        definition[key] = value
    return definition


REFUSED = {
    "an unknown op": _changed(logic={"steps": [{"op": "compute", "expression": "1", "output": "x"}]}),
    "a step without its output": _changed(logic={"steps": [{"op": "math", "expression": "1"}]}),
    "an unknown field of a step": _changed(logic={"steps": [{"op": "return", "value": "1", "output": "x"}]}),
    "an unknown risk level": _changed(riskLevel="extreme"),
    "an unknown parameter type": _changed(parameters={"w": {"type": "float"}}),
    "an unknown field of the definition": _changed(version=2),
    "a tool name in capitals": _changed(name="Shipping"),
}


@pytest.mark.parametrize("what", sorted(REFUSED))
def test_what_the_schema_refuses_the_front_end_refuses(what):
    document = REFUSED[what]
    assert list(VALIDATOR.iter_errors(document)), what
    assert any(d.is_error for d in toolkiln.check(json.dumps(document))), what
