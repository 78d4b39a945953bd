"""The protocol with real programs (run here without namespaces; the sandbox has its own tests
in tests/integration/test_sandbox_*.py): Python and bash tools, descriptions, arguments checked
before anything runs and delivered as data, never as program text, and trust before execution."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from executable_tools import UNSANDBOXED, python_tool, write_tool

from toolkiln.executables import ExecutableError, SandboxPolicy, ToolFolders, call, describe, discover, load_tools

HELLO_SCHEMA = '{"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}'
HELLO_PY = 'args = json.load(sys.stdin); print(json.dumps({"greeting": "Hello, " + args["who"]}))'
HELLO_SH = """#!/bin/bash
# A bash tool: its argument arrives as TK_ARG_WHO, the JSON of the value (with its quotes).
if [ "$1" = description ]; then
  echo '{"name": "hello_sh", "description": "Greets in bash.", "input_schema": {"type": "object",
         "properties": {"who": {"type": "string"}}, "required": ["who"]}}'
else
  echo "Hello, $TK_ARG_WHO"
fi
"""
GIT_INFO_SH = """#!/bin/bash
# The branch and last commit subject of the repository it runs in.
set -e
if [ "$1" = description ]; then
  echo '{"name": "git_info", "description": "Branch and last commit.", "input_schema": {"type": "object"}}'
  exit 0
fi
git() { command git -c safe.directory='*' "$@"; }
printf '{"branch": "%s", "subject": "%s"}\\n' "$(git rev-parse --abbrev-ref HEAD)" "$(git log -1 --format=%s)"
"""


def load(tmp_path: Path, store, **tools: str):
    """The tools written into the global folder (trusted), described."""
    folder = tmp_path / "home" / "tools"
    for file_name, text in tools.items():
        write_tool(folder, file_name.replace("__", "."), text)
    return load_tools(discover(ToolFolders(folder, None), store), UNSANDBOXED)


def test_python_and_bash_hello_tools_describe_themselves_and_answer(store, tmp_path):
    python_tool(tmp_path / "home" / "tools", "hello", schema=HELLO_SCHEMA, run=HELLO_PY)
    loaded = load(tmp_path, store, hello_sh__sh=HELLO_SH)
    assert loaded.failed == ()
    hello, hello_sh = loaded.tools["hello"], loaded.tools["hello_sh"]
    assert (hello.model_name, hello.description) == ("custom_tool_hello", "Echoes its arguments.")
    assert hello.input_schema["required"] == ["who"]
    result = call(hello, {"who": "Ada"}, UNSANDBOXED)
    assert (result.output, result.error, result.sandbox) == ({"greeting": "Hello, Ada"}, None, "none")
    assert call(hello_sh, {"who": "Ada"}, UNSANDBOXED).output == 'Hello, "Ada"\n'


def test_a_git_info_tool_reads_the_repository_it_is_given(store, tmp_path, open_folder):
    repo = open_folder / "repo"
    repo.mkdir()
    for command in (
        ["init", "-q", "-b", "trunk"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first commit"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(repo)], check=True)
    git_info = load(tmp_path, store, git_info__sh=GIT_INFO_SH).tools["git_info"]
    policy = SandboxPolicy(sandbox="none", read_only_paths=(repo,), cwd=repo)
    assert call(git_info, {}, policy).output == {"branch": "trunk", "subject": "first commit"}


@pytest.mark.parametrize(
    "hostile",
    ["x; rm -rf {marker}", "$(touch {marker})", "`touch {marker}`", "a\ntouch {marker}\n", "' \" ; touch {marker} #"],
)
def test_injection_attempts_reach_the_program_as_data(store, tmp_path, open_folder, hostile):
    """Each tool hands its argument to a shell or prints it: were it ever interpolated into
    program text, the marker file would exist."""
    marker = open_folder / "injected"
    value = hostile.format(marker=marker)
    python_tool(tmp_path / "home" / "tools", "hello", schema=HELLO_SCHEMA, run=HELLO_PY)
    loaded = load(tmp_path, store, hello_sh__sh=HELLO_SH)
    assert call(loaded.tools["hello"], {"who": value}, UNSANDBOXED).output == {"greeting": "Hello, " + value}
    assert call(loaded.tools["hello_sh"], {"who": value}, UNSANDBOXED).output == f"Hello, {json.dumps(value)}\n"
    assert not marker.exists()


def test_every_argument_is_on_stdin_and_the_env_safe_ones_in_tk_arg_variables(store, tmp_path):
    run = 'import os; print(json.dumps({"stdin": json.load(sys.stdin), "env": {k: v for k, v in os.environ.items() if k.startswith("TK_ARG_")}}))'
    python_tool(tmp_path / "home" / "tools", "echo", run=run)
    tool = load(tmp_path, store).tools["echo"]
    arguments = {"city": "Lyon", "n": [1, {"a": None}], "odd-name": 1, "Same": 1, "same": 2}
    output = call(tool, arguments, UNSANDBOXED).output
    assert output["stdin"] == arguments
    assert output["env"] == {"TK_ARG_CITY": '"Lyon"', "TK_ARG_N": '[1, {"a": null}]'}


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"who": 3}, "who: 3 is not of type 'string'"),
        ({}, "'who' is a required property"),
        (["Ada"], "must be a JSON object"),
        ({"who": float("nan")}, "not JSON"),
        ({"who": "x" * 70000}, "at most 65536"),
    ],
)
def test_arguments_are_checked_before_anything_runs(store, tmp_path, open_folder, arguments, says):
    marker = open_folder / "ran"
    python_tool(tmp_path / "home" / "tools", "hello", schema=HELLO_SCHEMA, run=f"open({str(marker)!r}, 'w')")
    tool = load(tmp_path, store).tools["hello"]
    with pytest.raises(ExecutableError) as caught:
        call(tool, arguments, UNSANDBOXED)
    assert caught.value.code == "R0603" and says in caught.value.message
    assert not marker.exists()


@pytest.mark.parametrize(
    ("printed", "says"),
    [
        ("print('hello')", "did not print a JSON object"),
        ("print(json.dumps({'name': 'other', 'description': 'd', 'input_schema': {'type': 'object'}}))", "'hello'"),
        ("print(json.dumps({'name': 'hello', 'description': '', 'input_schema': {'type': 'object'}}))", "non-empty"),
        ("print(json.dumps({'name': 'hello', 'description': 'd', 'input_schema': {'type': 'array'}}))", "object"),
        (
            "print(json.dumps({'name': 'hello', 'description': 'd', 'input_schema': {'type': 'object', 'required': 3}}))",
            "not a valid JSON Schema",
        ),
        ("sys.exit(3)", "exited with status 3"),
    ],
)
def test_a_bad_description_is_r0604(store, tmp_path, printed, says):
    text = f"#!/usr/bin/env python3\nimport json, sys\n{printed}\n"
    loaded = load(tmp_path, store, hello__py=text)
    assert loaded.tools == {}
    [error] = loaded.failed
    assert error.code == "R0604" and says in error.message


def test_the_program_reports_its_own_errors_as_an_error_object(store, tmp_path):
    run = 'print(json.dumps({"error": "no such city", "details": {"city": "Atlantis"}})); sys.exit(1)'
    python_tool(tmp_path / "home" / "tools", "weather", run=run)
    result = call(load(tmp_path, store).tools["weather"], {}, UNSANDBOXED)
    assert result.error == {"error": "no such city", "details": {"city": "Atlantis"}}


def test_an_untrusted_project_executable_never_runs_not_even_to_describe_itself(store, tmp_path, open_folder):
    """The side effect that must not happen: the tool writes a marker file when it starts."""
    marker = open_folder / "ran"
    project = tmp_path / "project" / "toolkiln-tools"
    side_effect = f'#!/bin/sh\necho ran >> {marker}\necho \'{{"name": "evil"}}\'\n'
    write_tool(project, "evil.sh", side_effect)
    where = ToolFolders(tmp_path / "home" / "tools", project)

    loaded = load_tools(discover(where, store), UNSANDBOXED)
    assert (loaded.tools, [found.name for found in loaded.untrusted]) == ({}, ["evil"])
    with pytest.raises(ExecutableError) as caught:
        describe(discover(where, store).found[0], UNSANDBOXED)
    assert caught.value.code == "R0602" and "toolkiln trust" in (caught.value.hint or "")
    assert not marker.exists()

    store.trust(project)  # the positive control: once trusted, it runs (and fails to describe itself)
    assert load_tools(discover(where, store), UNSANDBOXED).failed[0].code == "R0604"
    assert marker.read_text() == "ran\n"

    write_tool(project, "evil.sh", side_effect + "echo changed\n")
    [found] = discover(where, store).found
    assert found.trust == "changed"
    with pytest.raises(ExecutableError) as caught:
        describe(found, UNSANDBOXED)
    assert "changed since its folder was trusted" in caught.value.message
    assert marker.read_text() == "ran\n"
