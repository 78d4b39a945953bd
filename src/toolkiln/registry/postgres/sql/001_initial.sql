-- toolkiln's registry in PostgreSQL, schema version 1 (registry/postgres/schema.py applies it).
-- Records are kept as the bytes of their encoded JSON, as the directory store keeps its files:
-- what a change compares and what a signature covers.
CREATE TABLE toolkiln_schema (version integer NOT NULL);

-- The change counter: every commit adds one (under the registry's advisory lock), so a process
-- notices another's write by reading one number.
CREATE TABLE toolkiln_changes (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    counter bigint NOT NULL
);
INSERT INTO toolkiln_changes (id, counter) VALUES (true, 0);

-- The current record of each tool; `revision` is the counter of its last write, `signed` the
-- SHA-256 of `data` when toolkiln wrote it vouched (NULL: written by hand, not trusted).
CREATE TABLE toolkiln_tools (
    name text PRIMARY KEY,
    data bytea NOT NULL,
    signed bytea,
    revision bigint NOT NULL
);

CREATE TABLE toolkiln_versions (
    name text NOT NULL,
    version integer NOT NULL,
    data bytea NOT NULL,
    signed bytea,
    PRIMARY KEY (name, version)
);

-- Deleted tools, set aside with every version (`version` NULL: the record current when deleted).
CREATE TABLE toolkiln_deleted (
    place text NOT NULL,
    name text NOT NULL,
    version integer,
    data bytea NOT NULL
);

CREATE TABLE toolkiln_audit (
    position bigserial PRIMARY KEY,
    tool text NOT NULL,
    entry text NOT NULL
);
CREATE INDEX toolkiln_audit_by_tool ON toolkiln_audit (tool, position);

CREATE TABLE toolkiln_usage (
    name text PRIMARY KEY,
    count bigint NOT NULL,
    last_used timestamptz
);

-- Lookup tables: each a table file's name (rates.json, zones.csv) and bytes, as tables/ holds them.
CREATE TABLE toolkiln_tables (
    file text PRIMARY KEY,
    data bytea NOT NULL,
    revision bigint NOT NULL
);

-- Calls held for a person's approval (pending_calls.py), each as the JSON a calls/ file holds.
CREATE TABLE toolkiln_calls (
    id text PRIMARY KEY,
    data bytea NOT NULL,
    created timestamptz NOT NULL
);
