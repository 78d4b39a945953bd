"""Tenants: teams that share one server, each with a complete registry of its own.

    <registry>/                 the tenant `default`: the registry as it always was
    <registry>/tenants/acme/    the tenant `acme`: its own tools, versions, audit, calls, secrets

A tenant's registry is an ordinary registry in a subfolder, so nothing is filtered per tenant:
whoever holds a tenant's Registry holds only that tenant's records. The root registry never
reads `tenants/` (its tools are in `tools/`). A name is checked before it becomes a path.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from toolkiln.registry.capabilities import NONE, Capabilities
from toolkiln.registry.errors import DefaultTenantKept, InvalidTenantName, UnknownTenant
from toolkiln.registry.layout import TENANT_NAME, TENANTS, TOOLS
from toolkiln.registry.models import utc_now
from toolkiln.registry.postgres.urls import is_database_url
from toolkiln.registry.registry import Registry

DEFAULT_TENANT = "default"
DELETED = ".deleted"  # tenants/.deleted/NAME-<when>/: deleted tenants, kept whole (no tenant name starts with a dot)
_NAME = TENANT_NAME


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


def waiting_calls(root: Path, name: str) -> int:
    """How many calls of tenant `name` wait for a person's decision."""
    with Registry(existing_tenant(root, name)) as registry:
        return len(registry.pending_calls.list("pending", utc_now()))


def existing_tenant(root: Path, name: str) -> Path:
    """The folder of tenant `name`; UnknownTenant (R0751) when it was never created."""
    if not tenant_exists(root, name):
        raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants list")
    return tenant_folder(root, name)


def archive_tenant(root: Path, name: str) -> Path:
    """Move tenant `name`'s folder, whole, to `tenants/.deleted/NAME-<UTC time>/` (one rename:
    from then on no server finds the tenant); the archive's path. DefaultTenantKept (R0753) for
    `default`, UnknownTenant (R0751) for a tenant that is not there."""
    if check_tenant_name(name) == DEFAULT_TENANT:
        raise DefaultTenantKept(
            "the tenant `default` is the registry folder itself and cannot be deleted",
            hint="delete its tools, or the registry folder",
        )
    folder = existing_tenant(root, name)
    archive = root / TENANTS / DELETED / f"{name}-{utc_now().strftime('%Y%m%dT%H%M%S%fZ')}"
    archive.parent.mkdir(mode=0o700, exist_ok=True)
    os.rename(folder, archive)
    return archive


def migrate_tenant_secrets(root: Path) -> list[tuple[str, int, int]]:
    """Seal each tenant's secrets written under the shared key again under the tenant's own
    (`SecretStore.migrate_legacy`): (tenant, values moved, values kept as they were) of each
    tenant that had such a file."""
    from toolkiln.registry.secrets import SecretStore

    done = []
    for name in tenant_names(root)[1:]:  # (`default` keeps the shared key itself)
        moved, kept = SecretStore(tenant_folder(root, name)).migrate_legacy()
        if moved or kept:
            done.append((name, moved, kept))
    return done


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
        """The registry of tenant `name`; UnknownTenant (R0751) when it was never created, or
        was deleted since (its open registry is closed then)."""
        with self._mutex:
            if not self.exists(name):
                gone = self._open.pop(name, None)
                if gone is not None:
                    gone.close()
                raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants create NAME")
            found = self._open.get(name)
            if found is None:
                # (the operator's policy and limits, as `toolkiln serve` set them, hold in every tenant)
                folder, policy, limits = tenant_folder(self.root, name), self.default.policy, self.default.limits
                found = Registry(folder, policy=policy, limits=limits, capabilities=self.capabilities)
                self._open[name] = found
            return found

    def exists(self, name: str) -> bool:
        """Whether tenant `name` is there now (one look at its folder: a tenant deleted while
        its registry is open is gone at once)."""
        if not self.in_folders:
            return name in self._open
        return tenant_exists(self.root, name)

    def close(self) -> None:
        with self._mutex:
            for registry in self._open.values():
                registry.close()
