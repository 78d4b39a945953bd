"""The JSON Schema of script and executable tool definitions (issue 30, item 2): shipped as
generated, printed by `toolkiln schema program`, and true to `parse_program`: the definitions
it accepts validate, and the shapes the schema refuses it refuses."""

from __future__ import annotations

import json

import jsonschema
import pytest

from toolkiln.cli import main
from toolkiln.executables.program_schema import program_schema
from toolkiln.executables.program_tools import parse_program

VALIDATOR = jsonschema.Draft202012Validator(program_schema())
SCRIPT = {
    "kind": "script",
    "name": "greet",
    "description": "Greets someone.",
    "runtime": "python",
    "body": "import json, sys\nprint(json.dumps({'ok': True}))\n",
    "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
    "policy": "allow",
    "network": False,
    "timeout_secs": 10,
    "sandbox": "bubblewrap",
    "riskLevel": "low",
    "secrets": ["WEATHER_API_KEY"],
}
EXECUTABLE = {
    "kind": "executable",
    "name": "git_info",
    "description": "Facts of a git checkout.",
    "path": "/usr/local/bin/git_info",
    "sha256": "0" * 64,
}


def test_the_command_prints_the_shipped_schema(capsys):
    assert main(["schema", "program"]) == 0
    assert json.loads(capsys.readouterr().out) == program_schema()


@pytest.mark.parametrize("definition", [SCRIPT, EXECUTABLE], ids=["script", "executable"])
def test_a_definition_parse_program_accepts_validates(definition):
    spec, problems = parse_program(definition)
    assert spec is not None and problems == []
    VALIDATOR.validate(definition)
    VALIDATOR.validate(spec.definition())  # and the canonical form the registry stores


REFUSED = {
    "an unknown runtime": {**SCRIPT, "runtime": "ruby"},
    "a script without its body": {key: value for key, value in SCRIPT.items() if key != "body"},
    "an unknown field": {**SCRIPT, "command": "ls"},
    "a timeout over the limit": {**SCRIPT, "timeout_secs": 100_000},
    "a secret name in lower case": {**SCRIPT, "secrets": ["api_key"]},
    "a secret named like an argument": {**SCRIPT, "secrets": ["TK_ARG_WHO"]},
    "a relative path": {**EXECUTABLE, "path": "bin/git_info"},
    "a short sha256": {**EXECUTABLE, "sha256": "abc"},
    "an unknown policy": {**EXECUTABLE, "policy": "root"},
    "parameters that are not an object schema": {**EXECUTABLE, "parameters": {"type": "string"}},
}


@pytest.mark.parametrize("what", sorted(REFUSED))
def test_what_the_schema_refuses_parse_program_refuses(what):
    definition = REFUSED[what]
    assert list(VALIDATOR.iter_errors(definition)), what
    spec, problems = parse_program(definition)
    assert spec is None and problems, what
