-- Schema version 2: the server tokens of a registry in its database (server/db_tokens.py), so
-- that every server on it checks the same tokens and a revocation reaches all of them. As the
-- folder's tokens.json, only each token's SHA-256 is kept, never the token.
CREATE TABLE toolkiln_tokens (
    tenant text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    scope text NOT NULL,
    digest text NOT NULL UNIQUE,
    created_at text NOT NULL,
    PRIMARY KEY (tenant, name)
);
