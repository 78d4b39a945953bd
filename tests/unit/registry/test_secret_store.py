"""The secret store: values sealed under a key outside the folder, names checked, no value on disk."""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from toolkiln.registry.errors import InvalidSecretName, InvalidSecretValue, PermissionDenied, SecretUnreadable
from toolkiln.registry.principals import LOCAL_USER, PRINCIPAL_KINDS, SCOPES, Principal
from toolkiln.registry.secrets import (
    KEY_ENV,
    SECRETS_FILE,
    SecretStore,
    may_manage_secrets,
    refuse_unless_secret_admin,
)

VALUE = "s3cr3t-weather-key-0123456789"


@pytest.fixture(autouse=True)
def own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(state))
    monkeypatch.delenv(KEY_ENV, raising=False)
    return state


def test_a_value_set_reads_back_and_is_not_on_disk_in_clear(tmp_path: Path, own_state: Path) -> None:
    (tmp_path / "reg").mkdir()
    store = SecretStore(tmp_path / "reg")
    store.set("WEATHER_API_KEY", VALUE)
    assert store.get("WEATHER_API_KEY") == VALUE
    assert [info.name for info in store.names()] == ["WEATHER_API_KEY"]
    on_disk = (tmp_path / "reg" / SECRETS_FILE).read_bytes()
    assert VALUE.encode() not in on_disk and base64.b64encode(VALUE.encode()) not in on_disk
    key = own_state / "secrets.key"
    assert key.stat().st_mode & 0o777 == 0o600 and not key.is_relative_to(tmp_path / "reg")


def test_a_copied_folder_without_the_key_cannot_read_its_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reg").mkdir()
    SecretStore(tmp_path / "reg").set("WEATHER_API_KEY", VALUE)
    shutil.copytree(tmp_path / "reg", tmp_path / "copy")
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "another-users-state"))
    copy = SecretStore(tmp_path / "copy")
    assert [info.name for info in copy.names()] == ["WEATHER_API_KEY"]
    with pytest.raises(SecretUnreadable) as refused:
        copy.get("WEATHER_API_KEY")
    assert refused.value.code == "R0741" and VALUE not in str(refused.value)


def test_the_key_may_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "reg").mkdir()
    monkeypatch.setenv(KEY_ENV, base64.urlsafe_b64encode(os.urandom(32)).decode())
    SecretStore(tmp_path / "reg").set("TOKEN", VALUE)
    assert not (tmp_path / "state" / "secrets.key").exists()
    assert SecretStore(tmp_path / "reg").get("TOKEN") == VALUE
    monkeypatch.setenv(KEY_ENV, "too-short")
    with pytest.raises(SecretUnreadable):
        SecretStore(tmp_path / "reg").get("TOKEN")


def test_a_value_moved_to_another_name_does_not_decrypt(tmp_path: Path) -> None:
    (tmp_path / "reg").mkdir()
    store = SecretStore(tmp_path / "reg")
    store.set("FIRST", VALUE)
    store.set("SECOND", "other")
    path = tmp_path / "reg" / SECRETS_FILE
    data = json.loads(path.read_text())
    data["secrets"]["SECOND"]["value"] = data["secrets"]["FIRST"]["value"]
    path.write_text(json.dumps(data))
    with pytest.raises(SecretUnreadable):
        store.get("SECOND")


@pytest.mark.parametrize("name", ["weather", "1KEY", "A-B", "", "A" * 65, "KEY\n", 7])
def test_a_bad_name_is_r0740(tmp_path: Path, name: object) -> None:
    (tmp_path / "reg").mkdir()
    with pytest.raises(InvalidSecretName) as refused:
        SecretStore(tmp_path / "reg").set(name, VALUE)  # type: ignore[arg-type]
    assert refused.value.code == "R0740"


def test_delete_removes_a_secret(tmp_path: Path) -> None:
    (tmp_path / "reg").mkdir()
    store = SecretStore(tmp_path / "reg")
    store.set("KEY", VALUE)
    assert store.delete("KEY") and not store.delete("KEY")
    assert store.get("KEY") is None and store.names() == []


def _set_many(root: str, prefix: str, count: int) -> None:
    store = SecretStore(root)
    for number in range(count):
        store.set(f"{prefix}_{number}", f"value {number}")


def test_writers_in_several_processes_lose_no_secret(tmp_path: Path, own_state: Path) -> None:
    """Each set reads, changes and writes the whole file: under the registry's lock, so two
    writers at once keep both secrets (before, one of them was lost)."""
    SecretStore(tmp_path).set("FIRST", "made first")  # (the key exists before the writers start)
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_set_many, args=(str(tmp_path), f"W{n}", 15)) for n in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    names = {info.name for info in SecretStore(tmp_path).names()}
    assert names == {"FIRST", *(f"W{n}_{number}" for n in range(4) for number in range(15))}


@pytest.mark.parametrize("value", ["", "a\0b", "\ud800", "x" * (64 * 1024 + 1), 42, None])
def test_a_value_no_environment_variable_can_hold_is_refused_and_not_quoted(tmp_path: Path, value: object) -> None:
    store = SecretStore(tmp_path)
    with pytest.raises(InvalidSecretValue) as refused:
        store.set("SOME_KEY", value)  # type: ignore[arg-type]
    assert refused.value.code == "R0744" and "a\0b" not in refused.value.message
    assert store.names() == []


def test_only_a_person_or_a_service_with_the_admin_scope_may_manage_secrets() -> None:
    allowed = {
        (kind, scope): may_manage_secrets(Principal(kind, "t", scope)) for kind in PRINCIPAL_KINDS for scope in SCOPES
    }
    assert {who for who, may in allowed.items() if may} == {("person", "admin"), ("service", "admin")}
    assert not may_manage_secrets(LOCAL_USER.narrowed_to("llm"))  # a person acting as a model
    with pytest.raises(PermissionDenied) as refused:
        refuse_unless_secret_admin(Principal("model", "agent", "admin"))
    assert refused.value.code == "R0201"
