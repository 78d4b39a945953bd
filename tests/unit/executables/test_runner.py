"""The runner without namespaces (`sandbox="none"`): stdin larger than a pipe, a program that
never reads it, one that cannot start, bytes that are not UTF-8, stderr kept as an excerpt,
and the environment whitelist. The attacks, and the kill and cap in both sandboxes, are in
tests/integration/test_sandbox.py."""

from __future__ import annotations

import pytest

from toolkiln.executables import ExecutableError, SandboxPolicy, run_program

UNSANDBOXED = SandboxPolicy(sandbox="none", timeout_seconds=20)


def run(text: str, *, stdin: bytes = b"", policy: SandboxPolicy = UNSANDBOXED):
    return run_program("tool", text.encode(), ["run"], stdin=stdin, policy=policy)


def test_stdin_larger_than_a_pipe_arrives_whole():
    result = run("#!/bin/sh\nwc -c\n", stdin=b"x" * (1 << 20))
    assert (result.output, result.error) == (1 << 20, None)


def test_a_program_that_never_reads_its_stdin_still_ends_well():
    result = run("#!/bin/sh\necho ok\n", stdin=b"x" * (1 << 20))
    assert (result.stdout, result.exit_code, result.timed_out) == ("ok\n", 0, False)


def test_a_program_that_cannot_start_is_status_127_with_the_reason():
    result = run("#!/no/such/interpreter\n")
    assert result.exit_code == 127 and "cannot start tool" in result.stderr
    assert result.error == {"error": "exited with status 127", "details": result.stderr}


def test_output_that_is_not_utf8_is_kept_as_text_with_replacement_characters():
    result = run("#!/bin/sh\nprintf 'caf\\351\\n'\n")
    assert result.output == "caf\ufffd\n"


def test_stderr_is_kept_as_an_excerpt_and_a_failure_carries_it():
    result = run("#!/bin/sh\nhead -c 20000 /dev/zero | tr '\\0' e >&2\nexit 2\n")
    assert (len(result.stderr), result.capped) == (8192, False)
    assert result.error == {"error": "exited with status 2", "details": "e" * 8192}


def test_only_the_whitelisted_variables_are_passed(monkeypatch):
    monkeypatch.setenv("TOOLKILN_TEST_VISIBLE", "yes")
    monkeypatch.setenv("TOOLKILN_TEST_HIDDEN", "no")
    policy = SandboxPolicy(sandbox="none", env_whitelist=("PATH", "TOOLKILN_TEST_VISIBLE"))
    names = {line.split("=", 1)[0] for line in run("#!/bin/sh\nenv\n", policy=policy).stdout.splitlines()}
    assert "TOOLKILN_TEST_VISIBLE" in names and "TOOLKILN_TEST_HIDDEN" not in names
    assert names <= {"PATH", "TOOLKILN_TEST_VISIBLE", "HOME", "TMPDIR", "PWD"}


@pytest.mark.parametrize(("printed", "output"), [('{"a": [1, 2]}', {"a": [1, 2]}), ("plain words", "plain words\n")])
def test_stdout_is_json_when_it_parses_and_text_otherwise(printed, output):
    assert run(f"#!/bin/sh\necho '{printed}'\n").output == output


@pytest.mark.parametrize("name", ["../escape", "a/b", "", ".hidden"])
def test_a_program_name_that_is_not_a_plain_file_name_is_r0607(name):
    with pytest.raises(ExecutableError) as caught:
        run_program(name, b"#!/bin/sh\n", ["run"], policy=UNSANDBOXED)
    assert caught.value.code == "R0607"
