"""Tenants: teams that share one server, each with a complete registry of its own.

    <registry>/                 the tenant `default`: the registry as it always was
    <registry>/tenants/acme/    the tenant `acme`: its own tools, versions, audit, calls, secrets

A tenant's registry is an ordinary registry in a subfolder, so nothing is filtered per tenant:
whoever holds a tenant's Registry holds only that tenant's records. The root registry never
reads `tenants/` (its tools are in `tools/`). A name is checked before it becomes a path.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from toolkiln.registry.capabilities import NONE, Capabilities
from toolkiln.registry.errors import InvalidTenantName, UnknownTenant
from toolkiln.registry.layout import TOOLS
from toolkiln.registry.postgres.urls import is_database_url
from toolkiln.registry.registry import Registry

DEFAULT_TENANT = "default"
TENANTS = "tenants"
_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")


def check_tenant_name(name: object) -> str:
    """`name` when it names a tenant; InvalidTenantName (R0750) otherwise."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        shown = name[:60] if isinstance(name, str) else type(name).__name__
        raise InvalidTenantName(
            f"{shown!r} is not a tenant name: a lower-case letter, then up to 39 of a-z, 0-9 and -",
            hint="name it like `acme` or `team-2`",
        )
    return name


def tenant_folder(root: Path, name: str) -> Path:
    """The registry folder of tenant `name` under the registry `root` (the root for `default`)."""
    name = check_tenant_name(name)
    return root if name == DEFAULT_TENANT else root / TENANTS / name


def tenant_exists(root: Path, name: str) -> bool:
    return name == DEFAULT_TENANT or (tenant_folder(root, name) / TOOLS).is_dir()


def tenant_names(root: Path) -> list[str]:
    """Every tenant of the registry `root`, `default` first."""
    folder = root / TENANTS
    found = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    named = (name for name in found if _NAME.fullmatch(name) and name != DEFAULT_TENANT)
    return [DEFAULT_TENANT, *(name for name in named if tenant_exists(root, name))]


def create_tenant(root: Path, name: str) -> Path:
    """Make the registry folder of tenant `name` (an empty registry); its path. Creating one
    that exists changes nothing."""
    if check_tenant_name(name) == DEFAULT_TENANT:
        return root
    Registry(tenant_folder(root, name)).close()  # (opening a registry lays out its folder)
    return tenant_folder(root, name)


class TenantRegistries:
    """The open registry of each tenant of one root, opened on first use and kept open."""

    def __init__(self, default: Registry, capabilities: Capabilities = NONE) -> None:
        self.default = default
        self.root = default.path
        self.in_folders = not is_database_url(default.location)  # (a database registry: `default` only, for now)
        self.capabilities = capabilities
        self._open: dict[str, Registry] = {DEFAULT_TENANT: default}
        self._mutex = threading.Lock()

    def get(self, name: str) -> Registry:
        """The registry of tenant `name`; UnknownTenant (R0751) when it was never created."""
        with self._mutex:
            found = self._open.get(name)
            if found is None:
                if not self.exists(name):
                    raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants create NAME")
                # (the operator's policy and limits, as `toolkiln serve` set them, hold in every tenant)
                folder, policy, limits = tenant_folder(self.root, name), self.default.policy, self.default.limits
                found = Registry(folder, policy=policy, limits=limits, capabilities=self.capabilities)
                self._open[name] = found
            return found

    def exists(self, name: str) -> bool:
        return name in self._open or (self.in_folders and tenant_exists(self.root, name))

    def close(self) -> None:
        with self._mutex:
            for registry in self._open.values():
                registry.close()
