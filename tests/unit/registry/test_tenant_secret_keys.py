"""One secrets key per tenant (registry/secrets.py): each tenant's values are sealed under a key
derived (HKDF) from the shared one with its name, so another tenant's file, even relabelled,
does not decrypt in a tenant's folder; the default tenant keeps the shared key and its file's
format; older tenant files are read by names only until `toolkiln secrets migrate`."""

from __future__ import annotations

import base64
import json
import os
import shutil

import pytest

from toolkiln.cli import main
from toolkiln.registry.errors import SecretUnreadable, StoreError
from toolkiln.registry.secrets import SecretStore, tenant_key
from toolkiln.registry.tenants import create_tenant, migrate_tenant_secrets

KEY = os.urandom(32)


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "registry"
    for tenant in ("default", "alpha", "beta"):
        create_tenant(root, tenant)
    return root


def store(root, tenant: str) -> SecretStore:
    return SecretStore(root if tenant == "default" else root / "tenants" / tenant, key=KEY)


def test_another_tenants_file_does_not_decrypt_even_relabelled(root):
    store(root, "beta").set("API_KEY", "beta-value")
    store(root, "alpha").set("API_KEY", "alpha-value")
    beta_file = json.loads((root / "tenants" / "beta" / "secrets.json").read_text())
    assert (beta_file["format"], beta_file["tenant"]) == (2, "beta")

    shutil.copy(root / "tenants" / "beta" / "secrets.json", root / "tenants" / "alpha" / "secrets.json")
    with pytest.raises(StoreError):  # a file that names another tenant
        store(root, "alpha").get("API_KEY")
    beta_file["tenant"] = "alpha"  # relabelled: the key still differs
    (root / "tenants" / "alpha" / "secrets.json").write_text(json.dumps(beta_file))
    with pytest.raises(SecretUnreadable) as info:
        store(root, "alpha").get("API_KEY")
    assert info.value.code == "R0741"
    assert store(root, "beta").get("API_KEY") == "beta-value"
    assert len({tenant_key(KEY, "alpha"), tenant_key(KEY, "beta"), KEY}) == 3


def test_the_default_tenant_keeps_the_shared_key_and_its_format(root):
    store(root, "default").set("API_KEY", "v")
    assert json.loads((root / "secrets.json").read_text())["format"] == 1
    shutil.copy(root / "secrets.json", root / "tenants" / "alpha" / "secrets.json")  # a file written before
    with pytest.raises(SecretUnreadable) as info:  # not read with the shared key in a tenant's folder
        store(root, "alpha").get("API_KEY")
    assert "toolkiln secrets migrate" in info.value.hint


def test_an_older_tenant_file_is_migrated_once_by_the_operator(root, monkeypatch, capsys):
    legacy = SecretStore(root.parent / "elsewhere", key=KEY)  # sealed as every tenant's was: the shared key
    legacy.set("API_KEY", "old-value")
    legacy.set("OTHER_KEY", "other")
    shutil.copy(root.parent / "elsewhere" / "secrets.json", root / "tenants" / "alpha" / "secrets.json")
    alpha = store(root, "alpha")
    assert [info.name for info in alpha.names()] == ["API_KEY", "OTHER_KEY"]
    with pytest.raises(SecretUnreadable):
        alpha.set("NEW_KEY", "x")  # nothing is mixed into an older file
    alpha.delete("OTHER_KEY")  # (a delete keeps it an older file: nothing is lost)

    monkeypatch.setenv("TOOLKILN_SECRET_KEY", base64.urlsafe_b64encode(KEY).decode())
    assert main(["secrets", "migrate", "--registry", str(root)]) == 0
    assert "tenant alpha: 1 secret(s) sealed under its own key" in capsys.readouterr().err
    assert store(root, "alpha").get("API_KEY") == "old-value"
    assert migrate_tenant_secrets(root) == []  # once
