"""Tenants: teams that share one server, each with a complete registry of its own.

    <registry>/                 the tenant `default`: the registry as it always was
    <registry>/tenants/acme/    the tenant `acme`: its own tools, versions, audit, calls, secrets

In a database (`postgresql://` URL) a tenant is a schema of its own, its registry the URL with
`?tenant=NAME` (registry/postgres/tenants.py); every function here takes either root.

A tenant's registry is an ordinary registry in a subfolder, so nothing is filtered per tenant:
whoever holds a tenant's Registry holds only that tenant's records. The root registry never
reads `tenants/` (its tools are in `tools/`). A name is checked before it becomes a path.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Container
from pathlib import Path

from toolkiln.registry.capabilities import NONE, Capabilities
from toolkiln.registry.errors import DefaultTenantKept, InvalidTenantName, UnknownTenant
from toolkiln.registry.layout import TENANT_NAME, TENANTS, TOOLS
from toolkiln.registry.models import utc_now
from toolkiln.registry.postgres.urls import is_database_url, tenant_url, without_password
from toolkiln.registry.registry import Registry

Root = Path | str  # a registry folder, or a database's URL

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


def in_database(root: Root) -> bool:
    return isinstance(root, str) and is_database_url(root)


def tenant_location(root: Root, name: str) -> Root:
    """Where tenant `name`'s registry is: its folder, or the database's URL naming it."""
    if in_database(root):
        assert isinstance(root, str)
        return tenant_url(root, check_tenant_name(name))
    return tenant_folder(Path(root), name)


def tenant_exists(root: Root, name: str) -> bool:
    if name == DEFAULT_TENANT:
        return True
    if in_database(root):
        return name in tenant_names(root)
    return (tenant_folder(Path(root), name) / TOOLS).is_dir()


def tenant_names(root: Root) -> list[str]:
    """Every tenant of the registry `root`, `default` first."""
    if isinstance(root, str) and is_database_url(root):
        from toolkiln.registry.postgres import tenants as database

        return database.tenant_names(root)
    root = Path(root)
    folder = root / TENANTS
    found = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    named = (name for name in found if _NAME.fullmatch(name) and name != DEFAULT_TENANT)
    return [DEFAULT_TENANT, *(name for name in named if tenant_exists(root, name))]


def create_tenant(root: Root, name: str) -> Root:
    """Make the registry of tenant `name` (an empty registry): its folder, or its schema in the
    database; where it is. Creating one that exists changes nothing."""
    if check_tenant_name(name) == DEFAULT_TENANT:
        return root
    if in_database(root):
        from toolkiln.registry.postgres import tenants as database

        assert isinstance(root, str)
        database.create_tenant(root, name)
    else:
        Registry(tenant_folder(Path(root), name)).close()  # (opening a registry lays out its folder)
    return tenant_location(root, name)


def waiting_calls(root: Root, name: str) -> int:
    """How many calls of tenant `name` wait for a person's decision."""
    with Registry(existing_tenant(root, name)) as registry:
        return len(registry.pending_calls.list("pending", utc_now()))


def existing_tenant(root: Root, name: str) -> Root:
    """Where tenant `name`'s registry is; UnknownTenant (R0751) when it was never created."""
    if not tenant_exists(root, name):
        raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants list")
    return tenant_location(root, name)


def archive_tenant(root: Root, name: str) -> Root:
    """Move tenant `name`'s folder, whole, to `tenants/.deleted/NAME-<UTC time>/` (one rename:
    from then on no server finds the tenant), or rename its schema in a database
    (`toolkiln_deleted_N`); where the archive is. DefaultTenantKept (R0753) for `default`,
    UnknownTenant (R0751) for a tenant that is not there."""
    if check_tenant_name(name) == DEFAULT_TENANT:
        raise DefaultTenantKept(
            "the tenant `default` is the registry folder itself and cannot be deleted",
            hint="delete its tools, or the registry folder",
        )
    if in_database(root):
        from toolkiln.registry.postgres import tenants as database

        assert isinstance(root, str)
        return f"the schema {database.archive_tenant(root, name)} of {without_password(root)}"
    root = Path(root)
    folder = tenant_folder(root, name)
    if not tenant_exists(root, name):
        raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants list")
    archive = root / TENANTS / DELETED / f"{name}-{utc_now().strftime('%Y%m%dT%H%M%S%fZ')}"
    archive.parent.mkdir(mode=0o700, exist_ok=True)
    os.rename(folder, archive)
    return archive


def migrate_tenant_secrets(root: Root) -> list[tuple[str, int, int]]:
    """Seal each tenant's secrets written under the shared key again under the tenant's own
    (`SecretStore.migrate_legacy`): (tenant, values moved, values kept as they were) of each
    tenant that had such a file. A database's tenants had their own keys from the start."""
    from toolkiln.registry.secrets import SecretStore

    if in_database(root):
        return []
    root = Path(root)
    done = []
    for name in tenant_names(root)[1:]:  # (`default` keeps the shared key itself)
        moved, kept = SecretStore(tenant_folder(root, name)).migrate_legacy()
        if moved or kept:
            done.append((name, moved, kept))
    return done


class TenantRegistries:
    """The open registry of each tenant of one root, opened on first use and kept open. For a
    database, `url` is the default registry's URL as given (with its password, which its
    `location` does not show)."""

    def __init__(self, default: Registry, capabilities: Capabilities = NONE, url: str | None = None) -> None:
        self.default = default
        self.root: Root = default.path
        self.in_folders = not is_database_url(default.location)
        self._listed: Container[str] | None = None  # a database's tenants (postgres/tenants.py)
        if not self.in_folders:
            from toolkiln.registry.postgres.tenants import TenantList

            self.root = url if url is not None and is_database_url(url) else default.location
            self._listed = TenantList(default._store)  # type: ignore[arg-type]
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
                    _let_go(gone)
                raise UnknownTenant(f"there is no tenant {name[:60]!r}", hint="toolkiln tenants create NAME")
            found = self._open.get(name)
            if found is None:
                # (the operator's policy and limits, as `toolkiln serve` set them, hold in every tenant)
                where, policy, limits = tenant_location(self.root, name), self.default.policy, self.default.limits
                found = Registry(where, policy=policy, limits=limits, capabilities=self.capabilities)
                self._open[name] = found
            return found

    def exists(self, name: str) -> bool:
        """Whether tenant `name` is there now (one look at its folder, or the database's list
        when its change counter moved: a tenant deleted while its registry is open is gone at
        once)."""
        if self._listed is not None:
            return name == DEFAULT_TENANT or (TENANT_NAME.fullmatch(name) is not None and name in self._listed)
        return tenant_exists(self.root, name)

    def close(self) -> None:
        with self._mutex:
            for name, registry in self._open.items():
                if name == DEFAULT_TENANT:
                    registry.close()  # (the caller's: it closes its store)
                else:
                    _let_go(registry)


def _let_go(registry: Registry) -> None:
    """Close a tenant's registry and the store it opened (a database's pool and listener)."""
    registry.__exit__(None, None, None)
