"""Tenants: teams that share one server, each with its own registry (R075x)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

INVALID_TENANT_NAME = register(
    "R0750",
    "invalid-tenant-name",
    "A tenant's name must be a lower-case letter, then up to 39 of a-z, 0-9 and -",
    """
A tenant is a folder `tenants/<name>/` of the registry, so its name is kept to what is safe in
a path and in a URL: a lower-case letter, then up to 39 lower-case letters, digits or `-`
(`acme`, `team-2`). Names such as `../x`, `A`, `a/b` or `.hidden` are refused.
""",
)

UNKNOWN_TENANT = register(
    "R0751",
    "unknown-tenant",
    "There is no tenant of that name",
    """
A token belongs to a tenant that exists: create it first with `toolkiln tenants create NAME
--registry DIR`, then its first token with `toolkiln tokens create NAME --tenant TENANT ...`.
A token whose tenant's folder is gone is refused like an unknown token.
""",
)

TENANT_IN_USE = register(
    "R0752",
    "tenant-in-use",
    "The tenant still has tokens or calls waiting for approval",
    """
`toolkiln tenants delete NAME` refuses a tenant that someone can still use or is waiting on:
tokens of it on the server, or calls held for a person's decision. Revoke the tokens
(`toolkiln tokens revoke NAME --tenant TENANT`) and decide the calls first, or delete with
`--force`, which revokes its tokens and archives the calls with the tenant's folder (undecided).
""",
)

DEFAULT_TENANT_KEPT = register(
    "R0753",
    "default-tenant-kept",
    "The tenant `default` is the registry folder itself and cannot be deleted",
    """
The tenant `default` is the registry folder (its own `tools/`, tokens made before tenants
existed): deleting it would delete the registry. Delete its tools, or the whole folder, instead.
""",
)
