-- Schema version 3: tenants, teams that share a server (docs/tenants.md). The tenant `default`
-- is the tables of this schema; each other tenant's are the same tables in a schema of its own,
-- toolkiln_tenant_NAME (`-` as `_`), made by `toolkiln tenants create` and listed here. In a
-- tenant's schema this table (like toolkiln_tokens) stays empty: tenants and tokens are the
-- default's.
CREATE TABLE toolkiln_tenants (
    name text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A deleted tenant's schema is renamed, whole, to `schema` (toolkiln_deleted_N): restoring it is
-- renaming it back and listing it again, erasing it is DROP SCHEMA ... CASCADE.
CREATE TABLE toolkiln_deleted_tenants (
    schema text PRIMARY KEY,
    name text NOT NULL,
    deleted_at timestamptz NOT NULL DEFAULT now()
);
