"""Script and executable tool definitions (program_tools), `.skill` files (skill_files) and
the refusals of program_runs that come before anything runs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from toolkiln.diagnostics import codes
from toolkiln.errors import CompileError
from toolkiln.executables import ExecutableError
from toolkiln.executables.program_runs import program_of, run_program_tool
from toolkiln.executables.program_tools import NO_PARAMETERS, parse_program
from toolkiln.executables.skill_files import parse_skill, read_skill

SCRIPT = {"kind": "script", "name": "greet", "description": "Greets.", "runtime": "bash", "body": "echo hi\n"}


def spec_of(**fields: object):
    spec, problems = parse_program({**SCRIPT, **fields})
    assert problems == [] and spec is not None
    return spec


def problems_of(definition: dict[str, object], **options: bool) -> dict[str, str]:
    spec, problems = parse_program(definition, **options)
    assert spec is None
    return {d.span.path: d.code for d in problems if d.span}


def test_a_script_definition_is_stored_with_every_default_written_out():
    spec = spec_of()
    assert spec.definition() == {
        **SCRIPT,
        "parameters": NO_PARAMETERS,
        "policy": "allow",
        "network": False,
        "timeout_secs": 10,
        "sandbox": "bubblewrap",
        "riskLevel": "low",
    }
    assert parse_program(spec.definition()) == (spec, [])  # what is stored reads back the same


def test_every_bad_field_is_reported_at_its_path():
    found = problems_of(
        {
            "kind": "script",
            "name": "Bad-Name",
            "description": " ",
            "runtime": "ruby",
            "body": "",
            "policy": "sometimes",
            "network": "yes",
            "timeout_secs": 7200,
            "sandbox": "docker",
            "parameters": {"type": "object", "properties": {"x": {"type": "wrong"}}},
            "timeout": 5,
        }
    )
    assert found == {
        "name": codes.INVALID_NAME.code,
        "description": "R0608",
        "runtime": "R0608",
        "body": "R0608",
        "policy": "R0608",
        "network": "R0608",
        "timeout_secs": "R0608",
        "sandbox": "R0608",
        "parameters": "R0608",
        "timeout": codes.UNKNOWN_FIELD.code,
    }
    assert problems_of({"kind": "script"}).keys() >= {"name", "description", "runtime", "body"}


def test_elevated_and_network_make_a_tool_high_risk_and_elevated_lifts_the_limits():
    assert spec_of(policy="elevated").risk_level == "high"
    assert spec_of(network=True, riskLevel="low").risk_level == "high"
    allow, elevated = spec_of().sandbox_policy(), spec_of(policy="elevated").sandbox_policy()
    assert elevated.memory_bytes > allow.memory_bytes and elevated.processes > allow.processes
    assert elevated.network is False  # only `network` grants the network
    assert spec_of(timeout_secs=2.5).sandbox_policy().timeout_seconds == 2.5


def test_an_executable_is_pinned_to_its_file_and_refused_once_it_changes(tmp_path: Path):
    program = tmp_path / "tool"
    program.write_bytes(b"#!/bin/sh\necho 1\n")
    definition = {"kind": "executable", "name": "tool", "description": "One.", "path": str(program)}
    assert problems_of(definition) == {"sha256": codes.MISSING_FIELD.code}  # a stored one is never re-pinned
    spec, _ = parse_program(definition, pin=True)
    assert spec is not None and spec.sha256 == hashlib.sha256(b"#!/bin/sh\necho 1\n").hexdigest()
    assert program_of(spec) == (b"#!/bin/sh\necho 1\n", ["run"])
    program.write_bytes(b"#!/bin/sh\necho 2\n")
    with pytest.raises(ExecutableError) as changed:
        program_of(spec)
    assert changed.value.code == "R0609"
    program.unlink()
    with pytest.raises(ExecutableError) as gone:
        program_of(spec)
    assert gone.value.code == "R0609"
    assert problems_of({**definition, "path": "relative/tool"}) == {"path": "R0608"}


def test_a_script_is_its_interpreter_line_and_body_never_a_command_line():
    assert program_of(spec_of(runtime="python", body="print(1)\n")) == (b"#!/usr/bin/env python3\nprint(1)\n", [])


@pytest.mark.parametrize(
    ("fields", "created_by", "code"),
    [
        ({"policy": "deny"}, "user", "R0610"),
        ({"sandbox": "none"}, "llm", "R0612"),  # a hand-edited record: refused at run time too
        ({"parameters": {"type": "object", "required": ["who"]}}, "user", "R0603"),
    ],
)
def test_what_may_not_run_is_refused_before_anything_starts(fields, created_by, code, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing could start: a refusal must come first
    with pytest.raises(ExecutableError) as refused:
        run_program_tool(spec_of(**fields), {}, created_by=created_by)
    assert refused.value.code == code


def test_a_skill_file_is_front_matter_then_the_body_byte_for_byte(tmp_path: Path):
    skill = tmp_path / "greet.skill"
    skill.write_text("---\nname: greet\ndescription: Greets.\nruntime: bash\n---\necho hi\r\n\n", encoding="utf-8")
    assert read_skill(skill) == {**SCRIPT, "body": "echo hi\r\n\n"}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("name: x\n", 1),  # no front matter
        ("---\nname: x\n", 1),  # never closed
        ("---\nname: [x\n---\nbody\n", 3),  # bad YAML, at its line in the file
        ("---\n- a list\n---\nbody\n", 2),
        ("---\nbody: inline\n---\nbody\n", 2),
        ("---\nname: !!python/object:os.system x\n---\n", 2),  # the safe loader: no objects
    ],
)
def test_a_bad_skill_file_is_an_error_at_its_line(text: str, line: int):
    with pytest.raises(CompileError) as refused:
        parse_skill(text, "t.skill")
    (diagnostic,) = refused.value.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.span.line) == ("R0608", "t.skill", line)
