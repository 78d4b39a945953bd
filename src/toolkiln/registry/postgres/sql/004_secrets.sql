-- Schema version 4: a registry's secrets in its database (registry/postgres/secrets.py), in each
-- tenant's schema. Each value is sealed (AES-256-GCM, base64) under the key the fleet's
-- machines are given, never kept here: a dump of these tables holds no readable value.
CREATE TABLE toolkiln_secrets (
    name text PRIMARY KEY,
    value text NOT NULL,
    updated_at text NOT NULL
);

-- A check value sealed under the key of the first secret set: a machine given another key is
-- refused (R0747) rather than write values the others cannot read.
CREATE TABLE toolkiln_secrets_key (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    sealed text NOT NULL
);
