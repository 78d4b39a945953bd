"""A registry in PostgreSQL (issue 29): `store.PostgresStore`, the `Store` a `postgresql://` URL
names, for registries that several machines share. Needs the `postgres` extra (psycopg 3), which
only the modules that talk to the database import: naming a URL (urls.py) needs nothing."""
