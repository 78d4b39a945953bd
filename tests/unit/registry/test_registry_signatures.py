"""Records the registry wrote itself verify; what a record that does not verify claims is not
believed (issue 24, item 9): its program does not run until a person trusts it."""

from __future__ import annotations

import json
import shutil

import pytest
from unit.registry.stores import (
    FOLDER_ONLY,
    past_bytes,
    stored_bytes,
    write_by_hand,
    write_version_by_hand,
)

from toolkiln import Registry
from toolkiln.registry import NotTrusted
from toolkiln.registry.index import STATE_DIR_ENV

SCRIPT = {
    "kind": "script",
    "name": "greet",
    "description": "Says hello",
    "runtime": "bash",
    "body": "echo '{\"hello\": 1}'",
    "sandbox": "none",
}


def edit(reg: Registry, name: str, **changes: object) -> None:
    """Change a tool's stored record by hand, as a person with an editor or SQL (or a hostile
    clone) would."""
    write_by_hand(reg, name, json.dumps({**json.loads(stored_bytes(reg, name)), **changes}, indent=2))
    reg.refresh()


def test_what_the_registry_writes_verifies_and_runs(reg, make_def):
    reg.create(SCRIPT)
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    assert reg.untrusted() == set() and reg.trusted_here("greet") and reg.trusted_here("double")
    assert reg.run("greet")["output"] == {"hello": 1}
    assert reg._store.past_verifies("double", 1)  # the past version too


@FOLDER_ONLY  # (a copied folder; rows copied into a database: test_postgres_store.py)
def test_a_copied_folder_believes_nothing_until_trusted(reg, make_def, tmp_path):
    reg.create(SCRIPT)
    reg.create(make_def())
    shutil.copytree(reg.path, tmp_path / "copy")  # .cache/signatures.json and all
    with Registry(tmp_path / "copy") as copy:
        assert copy.untrusted() == {"greet", "double"}
        with pytest.raises(NotTrusted) as refused:
            copy.run("greet")
        assert refused.value.code == "R0710" and f"toolkiln trust {copy.path} --tool greet" in refused.value.hint
        assert copy.run("double", {"x": 2}) == 4  # a compute tool cannot reach past its budgets
        assert copy.trust(["greet"]) == {"greet": [1]}
        assert copy.run("greet")["output"] == {"hello": 1}
        assert copy.untrusted() == {"double"}
        trusted = copy.audit_log("greet")[-2]  # (then the unsandboxed run's line)
        assert (trusted.action, trusted.by, trusted.note) == ("trust", "user", "signed here: version(s) 1")
    assert reg.untrusted() == set()  # the original is untouched


def test_a_hand_edited_status_is_not_believed(reg):
    reg.create({**SCRIPT, "sandbox": "bubblewrap"}, created_by="llm")  # waits for approval
    edit(reg, "greet", status="active", created_by="user", definition={**SCRIPT, "sandbox": "none"})
    assert reg.get("greet").status == "active" and not reg.trusted_here("greet")  # listed as it says
    for attempt in (lambda: reg.run("greet"), lambda: reg.approve("greet"), lambda: reg.enable("greet")):
        with pytest.raises(NotTrusted):
            attempt()
    with pytest.raises(NotTrusted):
        reg.update("greet", {"description": "Launders the edit"})
    reg.disable("greet")  # taking power away needs no trust, and trusts nothing
    assert reg.get("greet").status == "disabled" and not reg.trusted_here("greet")


def test_a_change_made_from_an_unverified_record_is_not_signed(reg, make_def):
    reg.create(make_def())
    edit(reg, "double", created_by="llm")
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    assert not reg.trusted_here("double") and not reg._store.past_verifies("double", 1)
    reg.trust()
    assert reg.trusted_here("double") and reg._store.past_verifies("double", 1)


def test_rolling_back_to_a_planted_past_version_is_not_signed(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    write_version_by_hand(reg, "double", 1, past_bytes(reg, "double", 1).replace("x * 2", "x * 5"))
    assert reg.rollback("double", 1).version == 3
    assert not reg.trusted_here("double") and reg.run("double", {"x": 1}) == 5


@FOLDER_ONLY  # (the folder's signature file and .deleted/)
def test_a_deleted_tool_loses_its_signatures(reg):
    reg.create(SCRIPT)
    reg.delete("greet")
    assert reg._store.mirror.vouching.signatures.slots_of("greet") == []
    backup = next((reg.path / ".deleted").iterdir())
    shutil.copy(backup / "greet.json", reg.path / "tools" / "greet.json")  # copied back by hand
    reg.refresh()
    assert not reg.trusted_here("greet")


@FOLDER_ONLY  # (the folder's signature file)
def test_a_registry_from_before_signatures_is_unverified_until_trusted(reg):
    reg.create(SCRIPT)
    (reg.path / ".cache" / "signatures.json").unlink()
    with Registry(reg.location) as reopened:
        assert reopened.untrusted() == {"greet"}
        with pytest.raises(NotTrusted):
            reopened.run("greet")
        reopened.trust()
        assert reopened.run("greet")["output"] == {"hello": 1}


@FOLDER_ONLY  # (a folder's signatures are keyed per user; a database's rows vouch for themselves, decisions.md)
def test_signatures_written_by_another_user_do_not_verify(reg, tmp_path, monkeypatch):
    reg.create(SCRIPT)
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "someone else"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    with Registry(reg.location) as theirs:
        assert not theirs.trusted_here("greet")


@FOLDER_ONLY  # (the folder's signature file)
def test_a_forged_signatures_file_is_refused(reg):
    reg.create(SCRIPT)
    path = reg.path / ".cache" / "signatures.json"
    macs = json.loads(path.read_text())["records"]
    edit(reg, "greet", status="active", description="Now says something else")
    path.write_text(json.dumps({"format": 1, "records": {**macs, "greet": "0" * 64}}))
    assert not reg.trusted_here("greet")
    path.write_text("not json")
    assert reg.untrusted() == {"greet"}


@FOLDER_ONLY  # (a copied folder)
def test_the_command_line_marks_untrusted_records_and_trusts_them_after_showing_them(reg, tmp_path, capsys):
    from toolkiln.cli import main

    reg.create(SCRIPT)
    shutil.copytree(reg.path, tmp_path / "copy")
    copy = str(tmp_path / "copy")
    assert main(["tools", "list", "--registry", copy]) == 0
    listed = capsys.readouterr().out
    assert "active*" in listed and f"toolkiln trust {copy} --list" in listed
    assert main(["tools", "list", "--json", "--registry", copy]) == 0
    assert json.loads(capsys.readouterr().out)[0]["trusted_here"] is False
    assert main(["tools", "check", "--registry", copy]) == 0  # checking needs no trust (CI)
    capsys.readouterr()
    assert main(["trust", copy, "--list"]) == 0
    assert " ".join(capsys.readouterr().out.split()) == (
        "NOT TRUSTED greet script, v1, active, by user, sandbox none, no network"
    )
    assert main(["trust", copy]) == 0
    shown = capsys.readouterr().out
    assert shown.index("sandbox none") < shown.index("trusted 1 tool(s), 1 version(s)")
    assert main(["tools", "run", "greet", "--registry", copy]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == {"hello": 1}
    assert main(["trust", copy, "--tool", "nothing"]) == 1
    assert "error[R0102]: no tool named `nothing`" in capsys.readouterr().err


@FOLDER_ONLY  # (a copied folder)
def test_another_process_sees_a_trust_at_once(reg, make_def, tmp_path):
    reg.create(SCRIPT)
    reg.create(make_def())
    shutil.copytree(reg.path, tmp_path / "copy")
    with Registry(tmp_path / "copy") as first, Registry(tmp_path / "copy") as second:
        assert second.untrusted() == {"greet", "double"}
        first.trust(["greet"])
        assert second.untrusted() == {"double"} and second.run("greet")["output"] == {"hello": 1}
        first.delete("greet")
        first.create(SCRIPT)  # signed anew by `first`
        assert second.trusted_here("greet") and second.untrusted() == {"double"}
