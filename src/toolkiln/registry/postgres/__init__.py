"""A registry in PostgreSQL (issue 29): `PostgresStore`, the `Store` a `postgresql://` URL
names, for registries that several machines share. Needs the `postgres` extra (psycopg 3)."""

from toolkiln.registry.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
