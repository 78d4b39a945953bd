"""Script and executable tools through the registry, with the real bubblewrap: the lifecycle
gates what runs, a changed file is refused until a person approves it again, arguments reach
the program as data. (The runner's own attacks are in test_sandbox.py.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.errors import CompileError, RunError
from toolkiln.executables.skill_files import read_skill
from toolkiln.registry.errors import BrokenTool, PermissionDenied, ToolNotActive
from toolkiln.registry.registry import Registry

pytestmark = pytest.mark.usefixtures("bwrap_installed")

ECHO_PYTHON = """import json, os, sys
arguments = json.load(sys.stdin)
print(json.dumps({"stdin": arguments, "env": os.environ.get("TK_ARG_TEXT")}))
"""
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def script(name: str, body: str = ECHO_PYTHON, **fields: object) -> dict[str, object]:
    return {
        "kind": "script",
        "name": name,
        "description": "Echoes its arguments.",
        "runtime": "python",
        "body": body,
        "parameters": SCHEMA,
        **fields,
    }


@pytest.fixture
def reg(tmp_path: Path) -> Iterator[Registry]:
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        yield registry


def test_a_skill_file_becomes_a_script_tool_that_runs_in_bubblewrap(reg: Registry, tmp_path: Path):
    skill = tmp_path / "word_count.skill"
    skill.write_text(
        "---\nname: word_count\ndescription: Counts words.\nruntime: bash\n"
        "parameters:\n  type: object\n  properties: {text: {type: string}}\n  required: [text]\n"
        "timeout_secs: 5\n---\n"
        "read -r line\nprintf '%s' \"$TK_ARG_TEXT\" | python3 -c 'import json,sys; print(len(json.load(sys.stdin).split()))'\n",
        encoding="utf-8",
    )
    record = reg.create(read_skill(skill))
    assert (record.kind, record.status, record.definition["timeout_secs"]) == ("script", "active", 5)
    result = reg.run("word_count", {"text": "one two  three"})
    assert result["output"] == 3
    assert result["sandbox"] == "bubblewrap"
    assert reg.get("word_count").usage_count == 1


def test_a_models_script_waits_for_approval_and_never_runs_before(reg: Registry):
    record = reg.create(script("echo_llm"), created_by="llm")
    assert record.status == "pending_approval"
    with pytest.raises(ToolNotActive):
        reg.run("echo_llm", {"text": "hi"})
    with pytest.raises(PermissionDenied):
        reg.approve("echo_llm", by="llm")  # only a person approves
    assert reg.call_meta("toggle_custom_tool", {"name": "echo_llm", "enabled": True})["ok"] is False
    reg.approve("echo_llm")
    assert reg.run("echo_llm", {"text": "hi"})["output"]["stdin"] == {"text": "hi"}
    # A model's new body is a new version that waits again; the audit keeps every step.
    changed = reg.update("echo_llm", {"body": ECHO_PYTHON + "print('more')\n"}, by="llm")
    assert (changed.version, changed.status) == (2, "pending_approval")
    assert [e.action for e in reg.audit_log("echo_llm")] == ["create", "approve", "update"]
    assert reg.history("echo_llm")[0].definition["body"] == ECHO_PYTHON


def test_a_model_cannot_ask_for_no_sandbox_and_its_scripts_need_bubblewrap(
    reg: Registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    with pytest.raises(CompileError) as refused:
        reg.create(script("loose", sandbox="none"), created_by="llm")
    assert refused.value.diagnostics[0].code == "R0612"
    reg.create(script("boxed"), created_by="llm")
    reg.approve("boxed")
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    with pytest.raises(RunError) as missing:
        reg.run("boxed", {"text": "x"})
    assert missing.value.code == "R0601"


def test_arguments_reach_the_program_as_data(reg: Registry, writable_folder: Path):
    canary = writable_folder / "injected"
    body = 'cat; printf "\\n%s" "$TK_ARG_TEXT"\n'
    reg.create(script("echo_bash", body, runtime="bash", sandbox="none"))  # a person's: no namespaces
    for attack in (
        f"; touch {canary}",
        f"$(touch {canary})",
        f"`touch {canary}`",
        f"x\ntouch {canary}\n",
        f"' ; touch {canary} ; '",
    ):
        result = reg.run("echo_bash", {"text": attack})
        stdin, env = result["output"].split("\n", 1)
        assert json.loads(stdin) == {"text": attack}
        assert json.loads(env) == attack
        assert result["sandbox"] == "none"
    assert not canary.exists()


def test_arguments_are_checked_against_the_schema_before_anything_runs(reg: Registry, writable_folder: Path):
    marker = writable_folder / "ran"
    reg.create(script("marks", f"open({str(marker)!r}, 'w').close()\n", sandbox="none"))
    with pytest.raises(RunError) as refused:
        reg.run("marks", {"text": 12})
    assert refused.value.code == "R0603"
    assert not marker.exists()
    reg.run("marks", {"text": "ok"})
    assert marker.exists()


def test_a_changed_executable_is_refused_until_pinned_and_approved_again(reg: Registry, writable_folder: Path):
    marker = writable_folder / "ran"
    program = writable_folder / "touch_marker"
    program.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{\"ok\": true}}'\n", encoding="utf-8")
    program.chmod(0o755)
    record = reg.create(
        {"kind": "executable", "name": "touch_marker", "description": "Marks.", "path": str(program), "sandbox": "none"}
    )
    assert record.status == "active" and len(record.definition["sha256"]) == 64
    assert reg.run("touch_marker")["output"] == {"ok": True}
    marker.unlink()
    program.write_text(program.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    with pytest.raises(RunError) as changed:
        reg.run("touch_marker")
    assert changed.value.code == "R0609"
    assert not marker.exists()  # the changed file never ran
    repinned = reg.update("touch_marker", {"sha256": None})
    assert (repinned.version, repinned.status) == (2, "pending_approval")  # even a person's change
    with pytest.raises(ToolNotActive):
        reg.run("touch_marker")
    reg.approve("touch_marker")
    reg.run("touch_marker")
    assert marker.exists()


def test_a_failing_program_says_which_sandbox_ran_it_and_deny_never_runs(reg: Registry):
    reg.create(script("fails", "import sys\nsys.stderr.write('broken')\nsys.exit(3)\n"))
    with pytest.raises(RunError) as failed:
        reg.run("fails", {"text": "x"})
    assert failed.value.code == "R0611"
    assert "(bubblewrap)" in failed.value.message and "status 3" in failed.value.message
    assert failed.value.hint == "broken"
    reg.create(script("slow", "import time\ntime.sleep(30)\n", timeout_secs=1))
    with pytest.raises(RunError) as slow:
        reg.run("slow", {"text": "x"})
    assert "timed out" in slow.value.message
    reg.create(script("denied", policy="deny"))
    with pytest.raises(RunError) as denied:
        reg.run("denied", {"text": "x"})
    assert denied.value.code == "R0610"


def test_script_tools_are_stored_checked_and_exported(reg: Registry):
    reg.create(script("shown", network=True, policy="elevated"))
    again = Registry(reg.path)
    assert again.problems == []
    record = again.get("shown")
    assert (record.kind, record.risk_level, record.parameters) == ("script", "high", SCHEMA)
    mcp = {tool["name"]: tool for tool in again.definitions("mcp")}
    assert mcp["shown"]["inputSchema"] == SCHEMA
    assert mcp["shown"]["annotations"]["readOnlyHint"] is False
    with pytest.raises(CompileError) as bad:
        reg.create(script("bad", runtime="ruby", timeout_secs=0, parameters={"type": "array"}))
    assert {d.span.path for d in bad.value.diagnostics} == {"runtime", "timeout_secs", "parameters"}
    assert {d.code for d in bad.value.diagnostics} == {"R0608"}


def test_a_model_creates_a_script_through_the_meta_tool_and_it_runs_only_once_approved(reg: Registry):
    arguments = {
        "name": "shout",
        "description": "Upper-cases a text.",
        "runtime": "python",
        "body": "import json, sys\nprint(json.dumps(json.load(sys.stdin)['text'].upper()))\n",
        "parameters": json.dumps(SCHEMA),  # as JSON text, as Gemini's format sends it
    }
    reply = reg.call_meta("create_script_tool", arguments)
    assert reply["ok"] is True and reply["tool"]["status"] == "pending_approval"
    tested = reg.call_meta("test_custom_tool", {"definition": reg.get("shout").definition, "args": {"text": "a"}})
    assert "result" not in tested  # a program is not run before approval, even as a test
    with pytest.raises(ToolNotActive):
        reg.run("shout", {"text": "a"})
    reg.approve("shout")
    assert reg.run("shout", {"text": "abc"})["output"] == "ABC"
    refused = reg.call_meta("create_script_tool", {**arguments, "name": "bad", "runtime": "ruby", "timeout_secs": 0})
    assert {e["path"] for e in refused["errors"]} == {"runtime", "timeout_secs"}


def test_a_compute_tool_never_calls_a_program_tool(reg: Registry):
    helper = {
        "name": "helper",
        "description": "Doubles.",
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
    }
    caller = {
        "name": "caller",
        "description": "Calls helper.",
        "parameters": {"x": {"type": "number"}},
        "logic": {
            "steps": [
                {"op": "call", "tool": "helper", "args": {"x": "x"}, "output": "r"},
                {"op": "return", "value": "r"},
            ]
        },
    }
    reg.create(helper)
    reg.create(caller)
    assert reg.run("caller", {"x": 2}) == 4
    reg.delete("helper", force=True)
    reg.create(script("helper", parameters={"type": "object"}))  # a program now holds the name
    with pytest.raises(BrokenTool) as refused:  # checked again against today's tools: no callee
        reg.run("caller", {"x": 2})
    assert any("helper" in d.message for d in refused.value.diagnostics)
    with pytest.raises(CompileError):  # nor can a new compute tool be written to call it
        reg.create({**caller, "name": "caller_two"})
