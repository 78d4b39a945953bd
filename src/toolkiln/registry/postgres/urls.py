"""Registry locations that are database URLs, and how to name them without their password.

A tenant's registry in a database is the database's URL with `tenant=NAME` among its query
parameters (`postgresql://host/tools?tenant=acme`), as a folder's tenant is its subfolder: the
tenant's tables are the schema `toolkiln_tenant_NAME` (docs/decisions.md), which each of its
connections puts first on its search path. libpq never sees the `tenant` parameter."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from toolkiln.registry.errors import InvalidTenantName
from toolkiln.registry.layout import TENANT_NAME

SCHEMES = ("postgresql://", "postgres://")
TENANT_PARAM = "tenant"
DEFAULT_TENANT = "default"
TENANT_SCHEMA_PREFIX = "toolkiln_tenant_"
CHANNEL = "toolkiln_changes"  # the default tenant's; a tenant's is CHANNEL_NAME (channel_of)


def is_database_url(location: str) -> bool:
    return location.startswith(SCHEMES)


def split_tenant(url: str) -> tuple[str, str]:
    """`url` without its `tenant` parameter, and the tenant it names (`default` when none). A
    `tenant` that is no tenant's name is left in (libpq refuses the URL, with its reason)."""
    parts = urlsplit(url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    named = [value for key, value in params if key == TENANT_PARAM]
    if len(named) != 1 or not TENANT_NAME.fullmatch(named[0]):
        return url, DEFAULT_TENANT
    rest = [(key, value) for key, value in params if key != TENANT_PARAM]
    return urlunsplit(parts._replace(query=_query(rest))), named[0]


def refuse_bad_tenant(url: str) -> None:
    """InvalidTenantName (R0750) when `url` names a tenant that no tenant's name could be."""
    named = [value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True) if key == TENANT_PARAM]
    if named and (len(named) > 1 or not TENANT_NAME.fullmatch(named[0])):
        raise InvalidTenantName(
            f"the registry URL names the tenant {named[0][:60]!r}, which is no tenant's name",
            hint="one tenant=NAME: a lower-case letter, then up to 39 of a-z, 0-9 and -",
        )


def tenant_url(url: str, tenant: str) -> str:
    """The registry of `tenant` in the database of `url` (the URL itself for `default`)."""
    base, _ = split_tenant(url)
    if tenant == DEFAULT_TENANT:
        return base
    parts = urlsplit(base)
    query = _query([*parse_qsl(parts.query, keep_blank_values=True), (TENANT_PARAM, tenant)])
    return urlunsplit(parts._replace(query=query))


def _query(params: list[tuple[str, str]]) -> str:
    """A URL's query as libpq reads it: a space as %20 (libpq takes a `+` as itself)."""
    return urlencode(params, quote_via=quote)


def schema_of(tenant: str) -> str:
    """The schema of a tenant's tables (`-` becomes `_`, which no tenant's name holds: one
    schema per name, and an identifier that needs no quotes)."""
    return TENANT_SCHEMA_PREFIX + tenant.replace("-", "_")


def channel_of(tenant: str) -> str:
    """The LISTEN/NOTIFY channel of a tenant's changes: a server hears only the tenants it has open."""
    return CHANNEL if tenant == DEFAULT_TENANT else f"{CHANNEL}_{tenant.replace('-', '_')}"


def conninfo(url: str) -> str:
    """What libpq connects with for the registry at `url`: without `tenant`, and for a tenant
    with its schema alone on the search path (the default tenant's connections are as given)."""
    base, tenant = split_tenant(url)
    if tenant == DEFAULT_TENANT:
        return base
    from psycopg.conninfo import conninfo_to_dict, make_conninfo  # (only a process that connects)

    given = conninfo_to_dict(base).get("options")
    options = f"{given or ''} -c search_path={schema_of(tenant)}".strip()
    return make_conninfo(base, options=options)


def without_password(url: str) -> str:
    """`url` as it may be printed: a password in it is `***`, its query left out but for the
    tenant (a libpq key=value string, or anything that does not parse as a URL, is named by its
    host part only)."""
    if not is_database_url(url):
        return "a PostgreSQL database (connection string not shown)"
    base, tenant = split_tenant(url)
    parts = urlsplit(base)
    query = "" if tenant == DEFAULT_TENANT else urlencode([(TENANT_PARAM, tenant)])
    if parts.password is None:
        return urlunsplit(parts._replace(query=query))
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}", query=query))
