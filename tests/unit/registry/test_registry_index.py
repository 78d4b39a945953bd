"""The start-up index (.cache/index.json): a start takes the files it vouches for as decoded
without reading them; an index that is torn, forged, from another folder or another user's is
ignored, and the index never decides what a tool holds."""

import json
import os
import shutil

import pytest

from toolkiln.registry import Registry
from toolkiln.registry import index as index_module
from toolkiln.registry import mirror as mirror_module


@pytest.fixture
def decoded(monkeypatch):
    """The tool files decoded by registries from now on, by name (past versions too)."""
    seen: list[str] = []
    real = mirror_module.decode_record

    def counting(data, file):
        seen.append(os.path.basename(file))
        return real(data, file)

    monkeypatch.setattr(mirror_module, "decode_record", counting)
    return seen


def make(root, make_def, names=("a", "b", "c")):
    with Registry(root, durable=False) as reg:
        for name in names:
            reg.create(make_def(name))
    Registry(root, durable=False)  # reads every file and writes the index
    return root / ".cache" / "index.json"


def test_a_warm_start_reads_no_file_and_each_record_is_read_when_needed(tmp_path, make_def, decoded):
    make(tmp_path / "r", make_def)
    decoded.clear()
    reg = Registry(tmp_path / "r", durable=False)
    assert decoded == [] and len(reg) == 3 and "b" in reg
    assert reg.run("a", {"x": 2}) == 4
    assert decoded == ["a.json"]
    assert [r.name for r in reg.list()] == ["a", "b", "c"]
    assert sorted(decoded) == ["a.json", "b.json", "c.json"]


def test_a_file_changed_since_the_index_is_read_at_start_and_a_broken_one_reported(tmp_path, make_def, decoded):
    make(tmp_path / "r", make_def)
    (tmp_path / "r" / "tools" / "b.json").write_text('{"name": "b", oops')
    decoded.clear()
    reg = Registry(tmp_path / "r", durable=False)
    assert decoded == ["b.json"]  # only the changed file
    assert "b" not in reg
    assert [(p.file, p.diagnostics[0].code) for p in reg.problems] == [(os.path.join("tools", "b.json"), "E0105")]


def test_the_index_never_decides_what_a_tool_holds(tmp_path, make_def):
    """A file edited in place to the same size, its time set back: every signature the index
    knows still matches, yet the tool runs what the file holds now."""
    make(tmp_path / "r", make_def)
    path = tmp_path / "r" / "tools" / "a.json"
    before = os.stat(path)
    text = path.read_text()
    with open(path, "r+") as file:  # the same inode
        file.write(text.replace('"expression": "x * 2"', '"expression": "x * 3"'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    reg = Registry(tmp_path / "r", durable=False)
    assert reg.run("a", {"x": 2}) == 6
    assert reg.get("a").definition["logic"]["steps"][0]["expression"] == "x * 3"


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="torn"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data.replace(b'"a.json"', b'"z.json"', 1), id="body edited"),
        pytest.param(lambda data: b"0" * 64 + data[64:], id="wrong mac"),
        pytest.param(lambda data: b"\xff\xfe" + data, id="garbage"),
    ],
)
def test_a_spoilt_index_is_ignored_and_written_again(tmp_path, make_def, decoded, spoil):
    index = make(tmp_path / "r", make_def)
    index.write_bytes(spoil(index.read_bytes()))
    decoded.clear()
    reg = Registry(tmp_path / "r", durable=False)
    assert sorted(decoded) == ["a.json", "b.json", "c.json"]  # every file read, as with no index
    assert reg.run("c", {"x": 1}) == 2
    decoded.clear()
    Registry(tmp_path / "r", durable=False)
    assert decoded == []  # written again, and good


def test_an_index_forged_to_vouch_for_a_broken_file_is_ignored(tmp_path, make_def):
    """Someone who can write the folder but has not the key cannot make a start skip a file."""
    index = make(tmp_path / "r", make_def)
    mac, body = index.read_bytes().split(b"\n", 1)
    path = tmp_path / "r" / "tools" / "b.json"
    path.write_text('{"name": "b", oops')
    st = os.stat(path)
    raw = json.loads(body)
    raw["tools"]["b.json"][:3] = [st.st_ino, st.st_size, st.st_mtime_ns]
    forged = json.dumps(raw, separators=(",", ":")).encode()
    index.write_bytes(mac + b"\n" + forged)
    reg = Registry(tmp_path / "r", durable=False)
    assert "b" not in reg and [p.file for p in reg.problems] == [os.path.join("tools", "b.json")]
    # The same forgery signed with the key is taken (so the signature is what refused it).
    signed = index_module._mac(index_module.load_key(), reg._store.folder, index_module_tag(reg), forged)
    index.write_bytes(signed.encode() + b"\n" + forged)
    assert "b" in Registry(tmp_path / "r", durable=False)


def index_module_tag(reg):
    return reg._store.mirror.version_tag


def test_an_index_copied_from_another_folder_is_ignored(tmp_path, make_def, decoded):
    """The other folder's files are hard links (same inodes, sizes and times): every entry
    matches, but the index was made for the other folder."""
    index = make(tmp_path / "a", make_def)
    other = tmp_path / "b"
    (other / "tools").mkdir(parents=True)
    for file in (tmp_path / "a" / "tools").iterdir():
        os.link(file, other / "tools" / file.name)
    shutil.copy(tmp_path / "a" / "audit.jsonl", other / "audit.jsonl")
    (other / ".cache").mkdir()
    shutil.copy(index, other / ".cache" / "index.json")
    decoded.clear()
    reg = Registry(other, durable=False)
    assert sorted(decoded) == ["a.json", "b.json", "c.json"]
    assert reg.run("a", {"x": 1}) == 2


def test_another_users_index_is_ignored_and_the_key_is_private(tmp_path, make_def, decoded, monkeypatch):
    make(tmp_path / "r", make_def)
    key = index_module.key_path()
    assert key.is_file() and str(key).startswith(os.environ[index_module.STATE_DIR_ENV])
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
    monkeypatch.setenv(index_module.STATE_DIR_ENV, str(tmp_path / "someone else"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    decoded.clear()
    Registry(tmp_path / "r", durable=False)
    assert sorted(decoded) == ["a.json", "b.json", "c.json"]
    assert (tmp_path / "someone else" / "index.key").is_file()


def test_without_a_key_there_is_no_index(tmp_path, make_def, decoded, monkeypatch):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    monkeypatch.setenv(index_module.STATE_DIR_ENV, str(blocker / "state"))
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    make(tmp_path / "r", make_def)
    assert not (tmp_path / "r" / ".cache" / "index.json").exists()
    decoded.clear()
    assert Registry(tmp_path / "r", durable=False).run("a", {"x": 1}) == 2


def test_compacting_the_check_cache_keeps_what_spares_reading_past_versions(tmp_path, make_def, decoded):
    with Registry(tmp_path / "r", durable=False) as reg:
        reg.create(make_def("a"))
        for factor in (3, 4, 5):
            reg.update("a", {"logic": make_def(expression=f"x * {factor}")["logic"]})
    Registry(tmp_path / "r", durable=False)  # reads the versions once, and remembers them
    cache = tmp_path / "r" / ".cache" / "checked"
    with cache.open("a") as file:  # digests of files long gone: the cache is compacted
        file.writelines(f"{n:064x}\n" for n in range(3000))
    decoded.clear()
    Registry(tmp_path / "r", durable=False)
    assert decoded == [] and len(cache.read_text().splitlines()) < 100
    Registry(tmp_path / "r", durable=False)
    assert decoded == []  # the past versions' keys were kept


def test_the_key_follows_the_xdg_state_home_and_never_lands_in_a_relative_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(index_module.STATE_DIR_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert index_module.key_path() == tmp_path / "state" / "toolkiln" / "index.key"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")  # ignored, as the XDG rules say
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert index_module.key_path() == tmp_path / "home" / ".local" / "state" / "toolkiln" / "index.key"
    monkeypatch.setenv(index_module.STATE_DIR_ENV, "relative")
    monkeypatch.setattr("toolkiln.statehome._keys", {})
    monkeypatch.chdir(tmp_path)
    assert index_module.load_key() is None and not (tmp_path / "relative").exists()
