"""Deleting a tenant (registry/tenants.py): the folder is archived whole, `default` is kept,
and a server's open registry of a deleted tenant is gone at once (the end-to-end test with a
real server and the command: tests/integration/security/test_tenant_delete.py)."""

from __future__ import annotations

import pytest

from toolkiln import Registry
from toolkiln.registry.errors import DefaultTenantKept, UnknownTenant
from toolkiln.registry.tenants import TenantRegistries, archive_tenant, create_tenant, tenant_names, waiting_calls


def test_an_open_tenant_is_gone_once_its_folder_is_archived(tmp_path):
    root = tmp_path / "registry"
    with Registry(root) as default:
        create_tenant(root, "acme")
        registries = TenantRegistries(default)
        registries.get("acme").create(
            {"name": "t", "description": "d", "parameters": {}, "logic": {"steps": [{"op": "return", "value": "1"}]}}
        )
        assert registries.exists("acme") and waiting_calls(root, "acme") == 0
        archive = archive_tenant(root, "acme")
        assert not registries.exists("acme")
        with pytest.raises(UnknownTenant):
            registries.get("acme")
        assert registries.get("default") is default
    assert (archive / "tools" / "t.json").is_file() and archive.parent.name == ".deleted"
    assert tenant_names(root) == ["default"]


def test_default_is_kept_and_an_unknown_tenant_is_r0751(tmp_path):
    root = tmp_path / "registry"
    Registry(root).close()
    with pytest.raises(DefaultTenantKept) as kept:
        archive_tenant(root, "default")
    assert kept.value.code == "R0753"
    with pytest.raises(UnknownTenant):
        archive_tenant(root, "nobody")
