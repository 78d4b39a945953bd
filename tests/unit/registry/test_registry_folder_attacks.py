"""Regressions from a security sweep of the registry folder (issue 18, item 4): whatever is in
the folder may have been put there by someone else. The registry reads only regular files
inside it, never follows a symbolic link, never blocks on a FIFO or a device, never echoes a
foreign file, never writes outside the folder; run counting never fails a run; broken past
versions are reported at load.

Anything that could block runs in a subprocess with a timeout, so a regression fails instead
of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkiln import Registry
from toolkiln.cli import main
from toolkiln.registry.errors import BrokenTool, StoreError, UnsafeFile
from toolkiln.registry.folder import Folder

DEFINITION = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number", "description": "The number"}},
    "logic": {
        "steps": [{"op": "math", "expression": "x * 2", "output": "result"}, {"op": "return", "value": "result"}]
    },
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A registry with one active tool, `double`, at version 2 (version 1 is a past version)."""
    path = tmp_path / "reg"
    with Registry(path, durable=False) as reg:
        reg.create(DEFINITION)
        reg.update("double", {"logic": {"steps": [{"op": "return", "value": "x + x"}]}})
    return path


def open_in_subprocess(root: Path, timeout: float = 30) -> dict:
    """Open the registry in another process: its problems (code, file, message) and tools."""
    code = (
        "import json, sys; from toolkiln import Registry\n"
        f"reg = Registry({str(root)!r}, durable=False)\n"
        "print(json.dumps({'tools': sorted(r.name for r in reg.list()), 'problems': "
        "[[d.code, p.file, d.message] for p in reg.problems for d in p.diagnostics]}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def problem_codes(reg: Registry) -> dict[str, list[str]]:
    return {p.file: [d.code for d in p.diagnostics] for p in reg.problems}


# --- what is not a regular file, in tools/ ------------------------------------------------------


def test_a_fifo_tool_file_does_not_block_the_registry(root):
    os.mkfifo(root / "tools" / "x.json")
    seen = open_in_subprocess(root)
    assert seen["tools"] == ["double"]
    assert seen["problems"][0][:2] == ["R0303", "tools/x.json"]
    assert "FIFO" in seen["problems"][0][2]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_not_read(root):
    os.symlink("/dev/zero", root / "tools" / "z.json")
    os.symlink("/dev/zero", root / "tables" / "z.json")
    seen = open_in_subprocess(root)
    assert seen["tools"] == ["double"]
    assert {(code, file) for code, file, _ in seen["problems"]} == {
        ("R0303", "tools/z.json"),
        ("R0303", "tables/z.json"),
    }


def test_a_folder_named_like_a_tool_file_is_a_problem_not_an_error(root):
    (root / "tools" / "d.json").mkdir()
    with Registry(root, durable=False) as reg:
        assert [r.name for r in reg.list()] == ["double"]
        assert problem_codes(reg) == {"tools/d.json": ["R0303"]}
        assert reg.run("double", {"x": 2}) == 4


def test_a_fifo_in_tables_and_past_versions_does_not_block(root):
    os.mkfifo(root / "tables" / "t.csv")
    os.mkfifo(root / "versions" / "double" / "0.json")
    seen = open_in_subprocess(root)
    assert {(code, file) for code, file, _ in seen["problems"]} == {
        ("R0303", "tables/t.csv"),
        ("R0303", "versions/double/0.json"),
    }


def test_a_fifo_audit_log_does_not_block(root):
    (root / "audit.jsonl").unlink()
    os.mkfifo(root / "audit.jsonl")
    seen = open_in_subprocess(root)
    assert seen["tools"] == ["double"]


def test_a_huge_tool_file_is_refused_unread(root):
    with open(root / "tools" / "huge.json", "wb") as handle:
        handle.truncate(1 << 33)  # 8 GiB, sparse
    seen = open_in_subprocess(root)
    assert [code for code, file, _ in seen["problems"] if file == "tools/huge.json"] == ["R0304"]


# --- symbolic links are never followed ------------------------------------------------------------


def test_a_link_to_the_password_file_is_not_read_or_echoed(root, capsys):
    os.symlink("/etc/passwd", root / "tools" / "evil.json")
    with Registry(root, durable=False) as reg:
        problems = reg.problems
    assert problem_codes_of(problems) == {"tools/evil.json": ["R0303"]}
    shown = json.dumps([p.to_dict() for p in problems])
    assert "root:" not in shown and "/bin/" not in shown

    code = main(["tools", "--registry", str(root), "check"])
    output = "".join(capsys.readouterr())
    assert code == 1
    assert "R0303" in output and "symbolic link" in output
    assert "root:" not in output


def problem_codes_of(problems) -> dict[str, list[str]]:
    return {p.file: [d.code for d in p.diagnostics] for p in problems}


def test_a_link_to_a_record_outside_the_registry_is_not_loaded(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    record = json.loads((root / "tools" / "double.json").read_text())
    record["name"] = "sneaky"
    record["definition"]["name"] = "sneaky"
    (outside / "sneaky.json").write_text(json.dumps(record))
    os.symlink(outside / "sneaky.json", root / "tools" / "sneaky.json")
    with Registry(root, durable=False) as reg:
        assert "sneaky" not in reg
        assert problem_codes(reg) == {"tools/sneaky.json": ["R0303"]}
        with pytest.raises(BrokenTool, match="symbolic link"):
            reg.run("sneaky", {"x": 1})


def test_a_linked_tools_folder_is_not_listed(tmp_path):
    outside = tmp_path / "outside"
    with Registry(outside, durable=False) as elsewhere:
        elsewhere.create(DEFINITION)
    root = tmp_path / "reg"
    root.mkdir()
    os.symlink(outside / "tools", root / "tools")
    (root / "audit.jsonl").write_text("")
    with Registry(root, durable=False) as reg:
        assert len(reg) == 0
        assert problem_codes(reg)["tools"] == ["R0303"]


def test_a_linked_versions_folder_of_a_tool_gets_no_writes(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    versions = root / "versions" / "double"
    for file in versions.iterdir():
        file.unlink()
    versions.rmdir()
    os.symlink(outside, versions)
    with Registry(root, durable=False) as reg:
        assert problem_codes(reg) == {"versions/double": ["R0303"]}
        with pytest.raises(UnsafeFile, match="versions/double is a symbolic link"):
            reg.update("double", {"logic": {"steps": [{"op": "return", "value": "x * 3"}]}})
        assert reg.get("double").version == 2
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "mine"


def test_a_linked_versions_folder_is_never_deleted_through(tmp_path):
    """Creating a tool removes what a deleted tool of that name left in versions/: never
    through a link (that would delete someone else's files)."""
    outside = tmp_path / "outside"
    (outside / "double").mkdir(parents=True)
    (outside / "double" / "precious.txt").write_text("mine")
    root = tmp_path / "reg"
    Registry(root, durable=False).close()
    os.rmdir(root / "versions")
    os.symlink(outside, root / "versions")
    with Registry(root, durable=False) as reg:
        assert problem_codes(reg) == {"versions": ["R0303"]}
        with pytest.raises(UnsafeFile):
            reg.create(DEFINITION)
        assert "double" not in reg
    assert (outside / "double" / "precious.txt").read_text() == "mine"


def test_a_linked_audit_log_is_not_appended_to(root, tmp_path):
    outside = tmp_path / "outside.log"
    outside.write_text("someone else's log\n")
    (root / "audit.jsonl").unlink()
    os.symlink(outside, root / "audit.jsonl")
    with Registry(root, durable=False) as reg, pytest.raises(UnsafeFile):
        reg.disable("double")
    assert outside.read_text() == "someone else's log\n"


def test_store_refuses_paths_outside_the_folder(tmp_path):
    store = Folder(tmp_path / "reg", durable=False)
    with pytest.raises(UnsafeFile):
        store.read_bytes(tmp_path / "elsewhere.json")


# --- counting runs never fails a run -------------------------------------------------------------


def test_a_full_disk_does_not_fail_a_run(root, monkeypatch):
    real_write = Folder.write_bytes

    def full_disk(self, path, data):
        if path.name == "usage.json":
            raise StoreError("cannot write usage.json: No space left on device")
        return real_write(self, path, data)

    monkeypatch.setattr(Folder, "write_bytes", full_disk)
    with Registry(root, durable=False, usage_flush_seconds=0) as reg:
        assert reg.run("double", {"x": 21}) == 42
        assert reg.run("double", {"x": 1}) == 2
        problems = problem_codes(reg)
        assert problems == {"usage.json": ["R0302"]}
        message = reg.problems[0].diagnostics[0].message
        assert "No space left on device" in message and "kept in memory" in message
        assert reg.get("double").usage_count == 2  # counted, in memory
        monkeypatch.setattr(Folder, "write_bytes", real_write)  # space is freed
        reg.flush()
        assert problem_codes(reg) == {}
    with Registry(root, durable=False) as again:
        assert again.get("double").usage_count == 2


def test_a_full_disk_does_not_fail_tools_run(root, monkeypatch, capsys):
    def full_disk(self, path, data):
        raise StoreError("cannot write usage.json: No space left on device")

    monkeypatch.setattr(Folder, "write_bytes", full_disk)
    code = main(["tools", "--registry", str(root), "run", "double", "--args", '{"x": 4}'])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.strip() == "8"
    assert captured.err.startswith("warning: run counts not written: cannot write usage.json: No space left on device")


# --- past versions are checked at load -------------------------------------------------------------


def test_a_broken_past_version_is_reported_at_load(root, capsys):
    (root / "versions" / "double" / "1.json").write_text('{"name": "double", "version": ')
    with Registry(root, durable=False) as reg:
        assert problem_codes(reg) == {"versions/double/1.json": ["E0105"]}
        assert [v.version for v in reg.history("double")] == [2]
    code = main(["tools", "--registry", str(root), "check"])
    output = "".join(capsys.readouterr())
    assert code == 1 and "versions/double/1.json" in output
    assert main(["tools", "--registry", str(root), "history", "double"]) == 0
    assert "1 past version file(s) of double cannot be loaded" in capsys.readouterr().err


def test_a_past_version_holding_another_version_is_reported_at_load(root):
    path = root / "versions" / "double" / "1.json"
    record = json.loads(path.read_text())
    record["version"] = 7
    path.write_text(json.dumps(record))
    with Registry(root, durable=False) as reg:
        assert list(problem_codes(reg)) == ["versions/double/1.json"]


def test_a_linked_table_is_not_loaded_and_a_huge_one_not_read(root, tmp_path):
    outside = tmp_path / "prices.json"
    outside.write_text('{"prices": {"a": 1}}')
    os.symlink(outside, root / "tables" / "prices.json")
    with open(root / "tables" / "huge.json", "wb") as handle:
        handle.truncate(1 << 33)  # 8 GiB, sparse
    with Registry(root, durable=False) as reg:
        assert reg.tables == {}
        assert problem_codes(reg) == {"tables/prices.json": ["R0303"], "tables/huge.json": ["R0304"]}


def test_the_audit_log_is_read_whole_in_chunks(root, monkeypatch):
    import toolkiln.registry.folder as store_module

    monkeypatch.setattr(store_module, "LOG_CHUNK_BYTES", 300)
    with Registry(root, durable=False) as reg:
        assert [e.action for e in reg.audit_log("double")] == ["create", "update"]


def test_without_openat_links_are_refused_too(root, tmp_path, monkeypatch):
    """Where os.open takes no dir_fd (Windows), each folder and the file are looked at first."""
    import toolkiln.registry.folder as store_module

    monkeypatch.setattr(store_module, "_WALK", False)
    os.symlink("/etc/passwd", root / "tools" / "evil.json")
    os.mkfifo(root / "tools" / "x.json")
    outside = tmp_path / "outside"
    outside.mkdir()
    versions = root / "versions" / "double"
    for file in versions.iterdir():
        file.unlink()
    versions.rmdir()
    os.symlink(outside, versions)
    with Registry(root, durable=False) as reg:
        assert problem_codes(reg) == {
            "tools/evil.json": ["R0303"],
            "tools/x.json": ["R0303"],
            "versions/double": ["R0303"],
        }
        with pytest.raises(UnsafeFile):
            reg.update("double", {"logic": {"steps": [{"op": "return", "value": "x * 3"}]}})
        with pytest.raises(UnsafeFile):
            reg._store.folder.read_bytes(root / "tools" / "evil.json")
    assert list(outside.iterdir()) == []


def test_only_its_own_stale_temporaries_are_removed(root):
    old = 1_000_000_000  # 2001: stale by any measure
    own = root / "tools" / ".double.json.123.456.tmp"
    theirs = root / "tools" / ".notes.tmp"
    for path in (own, theirs):
        path.write_text("x")
        os.utime(path, (old, old))
    Registry(root, durable=False).close()
    assert not own.exists()
    assert theirs.read_text() == "x"


def test_store_never_removes_through_a_linked_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text("mine")
    store = Folder(tmp_path / "reg", durable=False)
    os.rmdir(store.tools_dir)
    os.symlink(outside, store.tools_dir)
    with pytest.raises(UnsafeFile):
        store.set_aside("x", "20261123T000000000000Z")
    with pytest.raises(UnsafeFile):
        store.write_text(store.tools_dir / "y.json", "{}")
    assert sorted(p.name for p in outside.iterdir()) == ["x.json"]


def test_a_deleted_tool_is_never_moved_into_a_linked_backup_folder(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / ".deleted")
    with Registry(root, durable=False) as reg:
        with pytest.raises(UnsafeFile):
            reg.delete("double")
        assert reg.get("double").version == 2  # nothing moved, nothing lost
    assert list(outside.iterdir()) == []
