"""Capabilities are the registry's, granted by its operator; a definition only asks. A tool that
needs one is refused when saved or approved without it, and again when it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkiln import Registry
from toolkiln.errors import CompileError, RunError
from toolkiln.registry import CapabilityNotGranted, NeedsAdminPerson, PermissionDenied, Principal
from toolkiln.registry.capabilities import LOCAL, NONE, Capabilities

ADMIN = Principal("person", "root", "admin", via="token root")
WRITER = Principal("person", "dev", "write", via="token dev")
MODEL = Principal("model", "agent", "admin", via="token agent")


def script(name: str = "echo", **extra: object) -> dict:
    return {
        "kind": "script",
        "name": name,
        "description": "Echoes its input.",
        "runtime": "bash",
        "body": "cat",
        **extra,
    }


def open_with(path: Path, capabilities: Capabilities) -> Registry:
    return Registry(path, capabilities=capabilities, durable=False)


@pytest.mark.parametrize(
    ("extra", "granted"),
    [
        ({"sandbox": "none"}, Capabilities(unsandboxed=True)),
        ({"network": True}, Capabilities(network=True)),
    ],
)
def test_a_program_needing_an_ungranted_capability_is_refused_when_saved(tmp_path, extra, granted):
    with open_with(tmp_path / "r", NONE) as reg:
        with pytest.raises(CapabilityNotGranted) as refused:
            reg.create(script(**extra), created_by=ADMIN)
        assert refused.value.code == "R0700" and "--allow" in refused.value.hint
        assert reg.list() == []
    with open_with(tmp_path / "r", granted) as reg:
        assert reg.create(script(**extra), created_by=ADMIN).status == "active"


def test_only_an_admin_person_saves_a_tool_that_uses_a_capability(tmp_path):
    with open_with(tmp_path / "r", Capabilities(unsandboxed=True, network=True)) as reg:
        with pytest.raises(NeedsAdminPerson) as refused:
            reg.create(script(sandbox="none"), created_by=WRITER)
        assert refused.value.code == "R0701"
        with pytest.raises(CompileError) as unsandboxed:  # a model never asks for no sandbox
            reg.create(script(sandbox="none"), created_by=MODEL)
        assert unsandboxed.value.diagnostics[0].code == "R0612"
        proposed = reg.create(script(network=True), created_by=MODEL)  # a model may propose one
        assert proposed.status == "pending_approval"
        with pytest.raises(PermissionDenied):
            reg.approve("echo", by=MODEL)
        with pytest.raises(NeedsAdminPerson):
            reg.approve("echo", by=WRITER)
        assert reg.approve("echo", by=ADMIN).status == "active"


def test_a_plain_sandboxed_script_needs_no_capability(tmp_path):
    with open_with(tmp_path / "r", NONE) as reg:
        assert reg.create(script(), created_by=WRITER).status == "active"


def test_an_executable_outside_the_granted_folders_is_refused(tmp_path):
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    for folder in (allowed, elsewhere):
        folder.mkdir()
        (folder / "tool").write_text("#!/bin/sh\necho '{}'\n")
        (folder / "tool").chmod(0o755)
    granted = Capabilities.parse([f"executables={allowed}"])
    definition = {"kind": "executable", "name": "tool", "description": "A tool."}
    with open_with(tmp_path / "r", NONE) as reg, pytest.raises(CapabilityNotGranted):
        reg.create({**definition, "path": str(allowed / "tool")}, created_by=ADMIN)  # no folder granted
    with open_with(tmp_path / "r", granted) as reg:
        for path in (elsewhere / "tool", elsewhere / "missing"):  # outside and missing: one answer
            with pytest.raises(CompileError) as outside:
                reg.create({**definition, "path": str(path)}, created_by=ADMIN)
            assert outside.value.diagnostics[0].code == "R0605"
        link = allowed / "link"
        link.symlink_to(elsewhere / "tool")  # a link inside that leads outside: a link is never read (R0613)
        with pytest.raises(CompileError) as linked:
            reg.create({**definition, "path": str(link)}, created_by=ADMIN)
        assert linked.value.diagnostics[0].code == "R0613"
        assert reg.create({**definition, "path": str(allowed / "tool")}, created_by=ADMIN).status == "active"


def test_a_tool_saved_with_a_capability_does_not_run_where_it_is_not_granted(tmp_path):
    with open_with(tmp_path / "r", LOCAL) as reg:
        reg.create(script(sandbox="none"))
        assert reg.run("echo", {})["sandbox"] == "none"
        assert [(e.action, e.note) for e in reg.audit_log("echo")][-1][0] == "run"
    with open_with(tmp_path / "r", NONE) as served:
        with pytest.raises(RunError) as refused:
            served.run("echo", {})
        assert refused.value.code == "R0700"
        assert [e.action for e in served.audit_log("echo")] == ["create", "run"]  # no run recorded


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], NONE),
        (["network", "unsandboxed"], Capabilities(unsandboxed=True, network=True)),
        (["executables=/opt/tools"], Capabilities(executable_folders=(Path("/opt/tools"),))),
    ],
)
def test_allow_words_parse_and_print_back(words, expected):
    parsed = Capabilities.parse(words)
    assert parsed == expected and Capabilities.parse(parsed.words()) == parsed


@pytest.mark.parametrize("word", ["everything", "executables=relative/dir", "executables=", "Network"])
def test_an_unknown_allow_word_is_refused(word):
    with pytest.raises(ValueError, match="unknown capability"):
        Capabilities.parse([word])
