"""The server's state folder: outside the registry, private, and its files never followed
through a link (issue 24, item 8)."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest

from toolkiln.registry.index import STATE_DIR_ENV
from toolkiln.server.guards import WriteAudit
from toolkiln.server.state import StateFolderError, default_state_folder, legacy_warning, state_folder
from toolkiln.server.tokens import TokenError, TokenStore
from toolkiln.server.web.sessions import load_secret


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    return tmp_path / "state"


def test_the_default_folder_is_per_registry_under_the_state_home_and_private(home, tmp_path):
    registry = tmp_path / "tools"
    folder = state_folder(registry)
    digest = hashlib.sha256(str(registry).encode()).hexdigest()[:32]
    assert folder == home / "servers" / digest == default_state_folder(registry)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert state_folder(tmp_path / "other") != folder
    assert not registry.exists()  # nothing is written into the registry


def test_a_chosen_folder_is_used_as_given(home, tmp_path):
    assert state_folder(tmp_path / "tools", tmp_path / "mine") == tmp_path / "mine"
    assert (tmp_path / "mine").is_dir() and not home.exists()


@pytest.mark.parametrize("why", ["a symbolic link", "writable by others", "not a folder", "another user's"])
def test_a_folder_that_is_not_private_is_refused(why, tmp_path, monkeypatch):
    chosen = tmp_path / "state"
    if why == "a symbolic link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        chosen.symlink_to(tmp_path / "elsewhere")
    elif why == "writable by others":
        chosen.mkdir()
        chosen.chmod(0o777)
    elif why == "not a folder":
        chosen.write_text("")
    else:
        chosen.mkdir(mode=0o700)
        monkeypatch.setattr(os, "getuid", lambda: os.stat(chosen).st_uid + 1)
    with pytest.raises(StateFolderError) as refused:
        state_folder(tmp_path / "tools", chosen)
    assert refused.value.code == "R0530" and str(chosen) in refused.value.message


def test_a_token_file_that_is_a_link_is_not_followed(tmp_path):
    elsewhere = TokenStore(tmp_path / "elsewhere")
    token, _ = elsewhere.create("planted", "admin", "person")
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    (folder / "tokens.json").symlink_to(elsewhere.path)
    with pytest.raises(TokenError) as refused:
        TokenStore(folder).authenticate(token)
    assert refused.value.code == "R0512"


def test_the_request_log_is_never_written_through_a_link(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    target = tmp_path / "outside" / "created-by-the-server"
    target.parent.mkdir()
    (folder / "requests.jsonl").symlink_to(target)
    WriteAudit(None, folder / "requests.jsonl")._append({"path": "/api/v1/tools"})  # type: ignore[arg-type]
    assert not target.exists()
    os.unlink(folder / "requests.jsonl")
    WriteAudit(None, folder / "requests.jsonl")._append({"path": "/api/v1/tools"})  # type: ignore[arg-type]
    assert (folder / "requests.jsonl").read_text() == '{"path": "/api/v1/tools"}\n'
    assert stat.S_IMODE((folder / "requests.jsonl").stat().st_mode) == 0o600


def test_the_web_secret_is_never_read_through_a_link(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    (tmp_path / "known").write_bytes(b"k" * 32)
    (folder / "web-secret").symlink_to(tmp_path / "known")
    with pytest.raises(OSError):
        load_secret(folder)
    os.unlink(folder / "web-secret")
    secret = load_secret(folder)
    assert len(secret) == 32 and load_secret(folder) == secret


def test_a_registry_with_its_own_server_folder_is_named_with_the_import_command(tmp_path):
    assert legacy_warning(tmp_path) is None
    (tmp_path / ".server").mkdir()
    warning = legacy_warning(tmp_path)
    assert warning is not None and f"toolkiln tokens import --from {tmp_path / '.server'}" in warning


def test_tokens_are_imported_on_purpose_by_name(tmp_path):
    old = TokenStore(tmp_path / ".server")
    kept, _ = old.create("ci", "run", "person")
    old.create("both", "read", "person")
    here = TokenStore(tmp_path / "state")
    here.create("both", "admin", "person")
    imported, skipped = here.import_from(tmp_path / ".server")
    assert [t.name for t in imported] == ["ci"] and skipped == ["both"]
    assert here.authenticate(kept).name == "ci"
    assert here.entries()[0].scope == "admin"  # "both" kept its own scope here
    with pytest.raises(TokenError):
        here.import_from(tmp_path / "nowhere")


def test_a_fifo_in_place_of_the_request_log_does_not_hang_the_server(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "requests.jsonl")
    WriteAudit(None, folder / "requests.jsonl")._append({"a": 1})  # type: ignore[arg-type]  (O_NONBLOCK: ENXIO)
    assert stat.S_ISFIFO(os.lstat(folder / "requests.jsonl").st_mode)
