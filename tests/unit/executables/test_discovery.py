"""Discovery reads tool folders without running anything: names from file names, a project tool
over a global one, files that cannot be tools reported, and `custom_tool_` names for models."""

from __future__ import annotations

import pytest
from executable_tools import python_tool, write_tool

from toolkiln.executables import ExecutableError, ToolFolders, discover, find_tool, model_name


def folders(tmp_path) -> ToolFolders:
    return ToolFolders(tmp_path / "home" / "tools", tmp_path / "project" / "toolkiln-tools")


def test_a_project_tool_overrides_a_global_one_and_global_tools_are_trusted(store, tmp_path):
    where = folders(tmp_path)
    global_hello = python_tool(where.global_folder, "hello")
    python_tool(where.global_folder, "only_global")
    project_hello = python_tool(where.project_folder, "hello")
    found = {f.name: f for f in discover(where, store).found}
    assert sorted(found) == ["hello", "only_global"]
    assert (found["hello"].path, found["hello"].scope, found["hello"].overrides) == (
        project_hello,
        "project",
        global_hello,
    )
    assert found["hello"].trust == "untrusted-folder"
    assert (found["only_global"].scope, found["only_global"].trust) == ("global", "trusted")


def test_the_default_folders_are_the_home_tools_and_the_project_toolkiln_tools(home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ToolFolders.default() == ToolFolders(home / "tools", tmp_path / "toolkiln-tools")


def test_files_that_cannot_be_tools_are_reported_or_left_alone(store, tmp_path):
    where = folders(tmp_path)
    python_tool(where.global_folder, "good")
    write_tool(where.global_folder, "git-info.sh", "#!/bin/sh\n")  # a hyphen: not a tool name
    write_tool(where.global_folder, "twice.sh", "#!/bin/sh\n")
    write_tool(where.global_folder, "twice.py", "#!/bin/sh\n")
    (where.global_folder / "notes.txt").write_text("not executable: not a tool")
    write_tool(where.global_folder, ".hidden", "#!/bin/sh\n")
    discovery = discover(where, store)
    assert [f.name for f in discovery.found] == ["good"]
    reasons = {path.name: why for path, why in discovery.skipped}
    assert sorted(reasons) == ["git-info.sh", "twice.py", "twice.sh"]
    assert "not a tool name" in reasons["git-info.sh"] and "2 files" in reasons["twice.py"]


def test_missing_folders_hold_no_tools(store, tmp_path):
    assert discover(folders(tmp_path), store).found == ()


def test_a_model_sees_custom_tool_names_and_either_name_finds_the_tool(store, tmp_path):
    where = folders(tmp_path)
    python_tool(where.global_folder, "hello")
    discovery = discover(where, store)
    assert model_name("hello") == "custom_tool_hello"
    assert find_tool(discovery, "custom_tool_hello") is find_tool(discovery, "hello")
    with pytest.raises(ExecutableError) as caught:
        find_tool(discovery, "nope")
    assert caught.value.code == "R0605" and "hello" in caught.value.message


def test_a_link_in_a_tool_folder_is_read_as_its_target_and_a_fifo_is_skipped(store, tmp_path):
    where = folders(tmp_path)
    target = python_tool(tmp_path / "elsewhere", "linked")
    where.global_folder.mkdir(parents=True)
    (where.global_folder / "linked").symlink_to(target)
    (where.global_folder / "pipe").symlink_to("/dev/null")  # not a regular file: never listed
    discovery = discover(where, store)
    assert [(found.name, found.content) for found in discovery.found] == [("linked", target.read_bytes())]
