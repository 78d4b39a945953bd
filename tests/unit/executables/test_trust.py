"""Trusted folders: recorded by real path with each executable's SHA-256, in a 0600 file under
the toolkiln home; a new or changed file is untrusted again; the command `toolkiln trust`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from executable_tools import python_tool, write_tool

from toolkiln.cli import main
from toolkiln.executables import ExecutableError, TrustStore
from toolkiln.executables.files import read_program


def status(store: TrustStore, path: Path) -> str:
    return store.status(path.parent, path.name, read_program(path)[1])


def test_a_folder_is_untrusted_until_trusted_then_a_new_or_changed_file_is_untrusted_again(store, tmp_path):
    folder = tmp_path / "toolkiln-tools"
    hello = python_tool(folder, "hello")
    assert status(store, hello) == "untrusted-folder"

    change = store.trust(folder)
    assert (change.added, change.changed, change.removed) == (("hello.py",), (), ())
    assert status(store, hello) == "trusted"

    hello.write_text(hello.read_text() + "# one more line\n")
    later = python_tool(folder, "later")
    assert status(store, hello) == "changed"
    assert status(store, later) == "new"

    (folder / "later.py").unlink()
    change = store.trust(folder)
    assert (change.added, change.changed, change.removed) == ((), ("hello.py",), ())
    assert status(store, hello) == "trusted"


def test_the_record_is_a_0600_file_in_the_home_keyed_by_the_real_path(store, home, tmp_path):
    folder = tmp_path / "real"
    python_tool(folder, "hello")
    (tmp_path / "link").symlink_to(folder)
    store.trust(tmp_path / "link")
    record = home / "trusted-folders.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    data = json.loads(record.read_text())
    assert list(data["folders"]) == [str(folder.resolve())]
    assert data["folders"][str(folder.resolve())]["files"] == {"hello.py": read_program(folder / "hello.py")[1]}
    assert [f.path for f in store.folders()] == [str(folder.resolve())]
    assert not list(home.glob("*.tmp")), "the atomic write leaves no temporary file"


def test_only_executables_are_recorded(store, tmp_path):
    folder = tmp_path / "tools"
    python_tool(folder, "hello")
    (folder / "README.md").write_text("not a tool")
    write_tool(folder, ".hidden", "#!/bin/sh\n")
    assert store.trust(folder).folder.files.keys() == {"hello.py"}


def test_revoking_makes_the_folder_untrusted_and_an_unknown_folder_is_r0606(store, tmp_path):
    folder = tmp_path / "tools"
    hello = python_tool(folder, "hello")
    store.trust(folder)
    assert store.revoke(folder).path == str(folder.resolve())
    assert status(store, hello) == "untrusted-folder"
    with pytest.raises(ExecutableError) as caught:
        store.revoke(folder)
    assert caught.value.code == "R0606"


def test_trusting_what_is_not_a_folder_is_r0606(store, tmp_path):
    with pytest.raises(ExecutableError) as caught:
        store.trust(tmp_path / "missing")
    assert caught.value.code == "R0606" and "not a folder" in caught.value.message


@pytest.mark.parametrize(
    "text", ["{not json", '{"folders": []}', '{"folders": {"/x": {"trusted_at": "t", "files": {"a": "00"}}}}']
)
def test_a_damaged_record_is_r0606_with_a_way_out(store, home, tmp_path, text):
    home.mkdir()
    (home / "trusted-folders.json").write_text(text)
    with pytest.raises(ExecutableError) as caught:
        store.status(tmp_path, "hello.py", "0" * 64)
    assert caught.value.code == "R0606" and "remove the file" in (caught.value.hint or "")


def test_the_trust_command_trusts_lists_and_revokes(home, tmp_path, capsys):
    folder = tmp_path / "toolkiln-tools"
    python_tool(folder, "hello")
    assert main(["trust", str(folder)]) == 0
    assert f"trusted {folder.resolve()} (1 executable)" in capsys.readouterr().out

    python_tool(folder, "later")
    assert main(["trust", str(folder), "--list"]) == 0
    assert capsys.readouterr().out.split() == ["trusted", "hello.py", "new", "later.py"]
    assert main(["trust", "--list"]) == 0
    assert str(folder.resolve()) in capsys.readouterr().out

    assert main(["trust", str(folder), "--revoke"]) == 0
    assert main(["trust", str(folder), "--revoke"]) == 1
    assert "error[R0606]" in capsys.readouterr().err
    assert main(["trust"]) == 2
