"""Kodelet's custom tools as Kodelet ran them (issue 27, item 1), in the real bubblewrap sandbox.

Each test reproduces one of Kodelet's own protocol tests (pkg/tools/custom_test.go at
e3a657a7, the outcomes listed in ../shared/corpus/peers/kodelet/README.txt) with a small
program of our own. Where toolkiln differs on purpose (the parent's environment is never
passed; nothing runs before `toolkiln trust`) the test asserts the difference, and
docs/executables.md says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolkiln.executables import ExecutableError, TrustStore, call
from toolkiln.executables.kodelet import (
    DEFAULT_TIMEOUT_SECONDS,
    MAX_OUTPUT_BYTES,
    describe_kodelet,
    discover_kodelet,
    go_duration_seconds,
    load_kodelet,
)

pytestmark = pytest.mark.usefixtures("bwrap_installed")


def description(name: str, text: str = "A test tool", schema: str = '{"type": "object"}') -> str:
    return f'{{"name": "{name}", "description": "{text}", "input_schema": {schema}}}'


def tool_script(description_json: str, *, run: str = "echo done", config: str | None = None, pre: str = "") -> str:
    """A Kodelet tool in bash: `description`, the optional `config`, and `run`."""
    config_branch = f'elif [ "$1" = "config" ]; then\n{config}\n' if config is not None else ""
    return (
        f"#!/bin/bash\n{pre}"
        f'if [ "$1" = "description" ]; then\necho \'{description_json}\'\n'
        f"{config_branch}"
        f'elif [ "$1" = "run" ]; then\n{run}\n'
        "else\nexit 1\nfi\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project" / ".kodelet" / "tools").mkdir(parents=True)
    return tmp_path / "project"


@pytest.fixture
def store(tmp_path: Path) -> TrustStore:
    return TrustStore(tmp_path / "toolkiln-home")


def put(folder: Path, file_name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name
    path.write_text(text)
    path.chmod(0o755)
    return path


def found_one(project: Path, store: TrustStore, file_name: str, text: str):
    """The file, written into the project's .kodelet/tools and trusted, as discovery finds it."""
    folder = project / ".kodelet" / "tools"
    put(folder, file_name, text)
    store.trust(folder)
    (found,) = [
        f for f in discover_kodelet(store, home=project / "nohome", project=project).found if f.name == file_name
    ]
    return found


# ValidateTool_Success; the name comes from the description (hyphens allowed), not the file.
def test_the_name_is_the_descriptions_and_may_hold_hyphens(project, store):
    tool = describe_kodelet(found_one(project, store, "anything.sh", tool_script(description("test-tool"))))
    assert (tool.name, tool.description, tool.model_name) == ("test-tool", "A test tool", "custom_tool_test-tool")
    assert tool.run_policy is not None and tool.run_policy.timeout_seconds == DEFAULT_TIMEOUT_SECONDS


# Execute_Success: {"message": "Hello World"} on stdin -> "Echo: Hello World".
def test_a_run_reads_its_arguments_on_stdin(project, store):
    run = "python3 -c \"import json, sys; print('Echo:', json.load(sys.stdin).get('message'))\""
    schema = '{"type": "object", "properties": {"message": {"type": "string"}}}'
    tool = describe_kodelet(
        found_one(project, store, "echo_tool", tool_script(description("echo_tool", schema=schema), run=run))
    )
    result = call(tool, {"message": "Hello World"})
    assert result.error is None and "Echo: Hello World" in result.stdout
    assert result.sandbox == "bubblewrap"


# ValidateTool_UsesToolConfigTimeout: `config` answers {"timeout": "30m"}.
def test_the_config_command_sets_the_run_timeout(project, store):
    text = tool_script(description("config_tool"), config='echo \'{"timeout": "30m"}\'')
    tool = describe_kodelet(found_one(project, store, "config_tool", text))
    assert tool.run_policy is not None and tool.run_policy.timeout_seconds == 1800


# A deliberate difference: a config past toolkiln's ceiling runs for at most an hour.
def test_a_config_timeout_is_at_most_an_hour(project, store):
    text = tool_script(description("long_tool"), config='echo \'{"timeout": "36h"}\'')
    tool = describe_kodelet(found_one(project, store, "long_tool", text))
    assert tool.run_policy is not None and tool.run_policy.timeout_seconds == 3600


@pytest.mark.parametrize(
    ("config", "outcome"),
    [
        ("exit 3", DEFAULT_TIMEOUT_SECONDS),  # a failing config command is no config
        ("echo 'usage: tool description|run'", DEFAULT_TIMEOUT_SECONDS),  # no JSON object: no config
        ("echo '{}'", DEFAULT_TIMEOUT_SECONDS),
        ('echo \'{"timeout": "soon"}\'', "failed to parse tool config timeout"),
        ("echo '{\"timeout\": '", "failed to parse tool config"),
    ],
)
def test_what_a_config_answer_means(project, store, config, outcome):
    found = found_one(project, store, "cfg", tool_script(description("cfg"), config=config))
    if isinstance(outcome, float):
        tool = describe_kodelet(found)
        assert tool.run_policy is not None and tool.run_policy.timeout_seconds == outcome
    else:
        with pytest.raises(ExecutableError) as refused:
            describe_kodelet(found)
        assert refused.value.code == "R0604" and outcome in refused.value.message


# SlowOptionalConfigDoesNotDelayDiscoveryByExecutionTimeout: Kodelet asserts < 8 s.
def test_a_slow_config_is_no_config_and_does_not_hold_discovery(project, store):
    text = tool_script(description("slow_config_tool"), config='sleep 10\necho \'{"timeout": "30m"}\'')
    found = found_one(project, store, "slow_config_tool", text)
    started = time.monotonic()
    tool = describe_kodelet(found)
    assert time.monotonic() - started < 8  # the probe's bound is the feature
    assert tool.run_policy is not None and tool.run_policy.timeout_seconds == DEFAULT_TIMEOUT_SECONDS


# ValidateTool_InvalidJSON, ValidateTool_MissingName, ValidateTool_Timeout.
@pytest.mark.parametrize(
    ("description_branch", "message"),
    [
        ("echo 'invalid json'", "failed to parse tool description"),
        (
            'echo \'{"description": "A tool without name", "input_schema": {"type": "object"}}\'',
            "tool name is required",
        ),
        ('sleep 10\necho \'{"name": "slow_tool", "description": "A slow tool"}\'', "failed to run description command"),
        ('echo \'{"name": "a b", "description": "x"}\'', "is not 1 to 52 letters, digits"),
    ],
)
def test_a_bad_description_fails_discovery(project, store, description_branch, message):
    text = f'#!/bin/bash\nif [ "$1" = "description" ]; then\n{description_branch}\nfi\n'
    with pytest.raises(ExecutableError) as refused:
        describe_kodelet(found_one(project, store, "bad_tool", text))
    assert refused.value.code == "R0604" and message in refused.value.message


# Execute_CommandError: a non-zero exit is an error carrying what the tool said.
def test_a_failing_run_is_an_error_with_its_stderr(project, store):
    text = tool_script(description("failing_tool"), run='echo "This tool failed" >&2\nexit 1')
    result = call(describe_kodelet(found_one(project, store, "failing_tool", text)), {})
    assert result.error == {"error": "exited with status 1", "details": "This tool failed\n"}


# Execute_Timeout: past the tool's timeout the run is killed and is an error.
def test_a_run_past_its_timeout_is_killed(project, store):
    text = tool_script(description("slow_tool"), config='echo \'{"timeout": "500ms"}\'', run="sleep 5\necho Done")
    result = call(describe_kodelet(found_one(project, store, "slow_tool", text)), {})
    assert result.timed_out and "timed out" in result.error["error"]


# Execute_OutputTruncation: output past the cap is cut with a marker, not an error.
def test_output_past_the_cap_is_truncated_with_a_marker(project, store):
    text = tool_script(description("big_output_tool"), run="head -c 300000 /dev/zero | tr '\\0' x\necho")
    result = call(describe_kodelet(found_one(project, store, "big_output_tool", text)), {})
    assert result.error is None and result.truncated and not result.capped
    kept, marker = result.stdout.split("\n\n", 1)
    assert kept == "x" * MAX_OUTPUT_BYTES
    assert marker == f"[TRUNCATED - output exceeded {MAX_OUTPUT_BYTES:,} bytes]"


# Execute_JSONError: {"error": ...} on stdout with exit 0 is an error with that message.
def test_an_error_object_with_exit_0_is_an_error(project, store):
    text = tool_script(description("json_error_tool"), run='echo \'{"error": "Something went wrong in the tool"}\'')
    result = call(describe_kodelet(found_one(project, store, "json_error_tool", text)), {})
    assert result.exit_code == 0
    assert result.error == {"error": "Something went wrong in the tool", "details": None}


# Execute_Injects*Env*: Kodelet passed its whole environment (and KODELET_* variables);
# toolkiln passes none of it, on purpose: a tool reads its arguments, not the user's secrets.
def test_the_parents_environment_is_not_passed(project, store, monkeypatch):
    monkeypatch.setenv("KODELET_TEST_SECRET", "hunter2")
    text = tool_script(description("env_tool"), run="env")
    result = call(describe_kodelet(found_one(project, store, "env_tool", text)), {"who": "Ada"})
    assert "hunter2" not in result.stdout and "KODELET_" not in result.stdout
    assert 'TK_ARG_WHO="Ada"' in result.stdout


# DiscoverTools_WithWhitelist: Kodelet never probed a tool it would not offer. toolkiln
# never runs a file `toolkiln trust` has not recorded: neither description nor config.
def test_an_untrusted_kodelet_folder_runs_nothing(project, store, tmp_path):
    marker = tmp_path / "ran"
    os.chmod(tmp_path, 0o777)
    put(project / ".kodelet" / "tools", "sneaky", f"#!/bin/sh\ntouch {marker}\necho '{description('sneaky')}'\n")
    discovery = discover_kodelet(store, home=project / "nohome", project=project)
    assert [(f.name, f.trust) for f in discovery.found] == [("sneaky", "untrusted-folder")]
    loaded = load_kodelet(discovery)
    assert loaded.tools == {} and [f.name for f in loaded.untrusted] == ["sneaky"]
    with pytest.raises(ExecutableError) as refused:
        describe_kodelet(discovery.found[0])
    assert refused.value.code == "R0602" and not marker.exists()


# DiscoverTools_FromPluginDirectories, PluginPrecedence, GlobalStandaloneOverridesGlobalPlugin,
# and the project folder's move from ./kodelet-tools to ./.kodelet/tools.
def test_kodelets_folders_and_which_tool_hides_which(project, store, tmp_path):
    home = tmp_path / "home"
    folders = {
        "global plugin": home / ".kodelet" / "plugins" / "acme" / "tools",
        "global": home / ".kodelet" / "tools",
        "legacy project": project / "kodelet-tools",
        "project plugin": project / ".kodelet" / "plugins" / "acme" / "tools",
        "project": project / ".kodelet" / "tools",
    }
    for where, folder in folders.items():
        put(folder, "t", tool_script(description("shared", text=where)))
        put(folder, f"only_{where.replace(' ', '_')}", tool_script(description(f"only-{where.replace(' ', '-')}")))
        store.trust(folder)
    loaded = load_kodelet(discover_kodelet(store, home=home, project=project))
    assert loaded.failed == () and loaded.tools["shared"].description == "project"
    assert sorted(loaded.tools) == [
        "only-global",
        "only-global-plugin",
        "only-legacy-project",
        "only-project",
        "only-project-plugin",
        "shared",
    ]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30m", 1800), ("1h30m", 5400), ("1.5s", 1.5), ("300ms", 0.3), ("2h45m30.5s", 9930.5), ("0", 0), ("-2s", -2)],
)
def test_go_durations(text, seconds):
    assert go_duration_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "30", "m", "30 m", "1d", "1.2.3s", "soon"])
def test_not_go_durations(text):
    assert go_duration_seconds(text) is None


def test_the_command_lists_and_registers_kodelets_tools_behind_trust(project, tmp_path):
    text = tool_script(description("code-search", text="Searches code"), config='echo \'{"timeout": "2m"}\'')
    folder = project / ".kodelet" / "tools"
    put(folder, "code_search", text)
    env = {**os.environ, "TOOLKILN_HOME": str(tmp_path / "toolkiln-home"), "HOME": str(tmp_path / "nohome")}

    def toolkiln(*arguments: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "toolkiln", *arguments]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)

    discover = ["tools", "--registry", str(tmp_path / "reg"), "discover", "--kodelet", "--project", str(project)]
    listed = toolkiln(*discover, "--json")
    (row,) = json.loads(listed.stdout)["executables"]
    assert (row["name"], row["trust"]) == ("code_search", "untrusted-folder")
    assert toolkiln(*discover, "--register").returncode == 0  # registers nothing untrusted
    assert toolkiln("trust", str(folder)).returncode == 0
    registered = toolkiln(*discover, "--register")
    assert registered.returncode == 0, registered.stderr
    assert "registered: version 1" in registered.stdout
    shown = json.loads(toolkiln("tools", "--registry", str(tmp_path / "reg"), "show", "code_search", "--json").stdout)
    assert (shown["kind"], shown["definition"]["timeout_secs"]) == ("executable", 120)
