"""`toolkiln registry upgrade`: a database's tables brought to this toolkiln's schema version on
purpose, in one transaction, never by a store opening it: from the real version 1 (before the
tokens' table), and to a next version made up for these tests (schema.migrations patched)."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from toolkiln import Registry
from toolkiln.registry.errors import SchemaVersionMismatch
from toolkiln.registry.postgres import schema

SHIPPING = Path(__file__).resolve().parents[2] / "examples" / "shipping_cost.json"
ADD_A_COLUMN = "ALTER TABLE toolkiln_tools ADD COLUMN note text"


SHIPPED = schema.CURRENT
NEXT = SHIPPED + 1


@pytest.fixture
def version_next(monkeypatch):
    """This toolkiln reads schema version NEXT: the shipped ones and one made-up step after them."""
    shipped = schema.migrations()
    monkeypatch.setattr(schema, "migrations", lambda: [*shipped, (NEXT, ADD_A_COLUMN)])
    monkeypatch.setattr(schema, "CURRENT", NEXT)
    return shipped


def columns(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'toolkiln_tools'")
        return sorted(row[0] for row in rows)


def test_an_older_database_is_refused_until_upgraded_and_keeps_its_tools(postgres_url, monkeypatch, version_next):
    with monkeypatch.context() as older:  # (made by the toolkiln shipped now)
        older.setattr(schema, "CURRENT", SHIPPED)
        older.setattr(schema, "migrations", lambda: version_next)
        with Registry(postgres_url) as reg:
            reg.create(SHIPPING.read_text(), created_by="user")
    with pytest.raises(SchemaVersionMismatch) as refused:
        Registry(postgres_url)
    assert "toolkiln registry upgrade" in (refused.value.hint or "") and "note" not in columns(postgres_url)
    assert schema.upgrade(postgres_url) == (SHIPPED, NEXT)
    assert "note" in columns(postgres_url)
    with Registry(postgres_url) as reg:
        assert reg.run("shipping_cost", {"weight_kg": 12}) == Decimal("31.500")
    assert schema.upgrade(postgres_url) == (NEXT, NEXT)  # (again: nothing to do)


def test_a_step_that_fails_applies_nothing(postgres_url, monkeypatch):
    with Registry(postgres_url):
        pass
    shipped = schema.migrations()
    monkeypatch.setattr(
        schema,
        "migrations",
        lambda: [*shipped, (NEXT, ADD_A_COLUMN), (NEXT + 1, "ALTER TABLE nowhere ADD COLUMN x text")],
    )
    monkeypatch.setattr(schema, "CURRENT", NEXT + 1)
    with pytest.raises(psycopg.errors.UndefinedTable):
        schema.upgrade(postgres_url)
    assert "note" not in columns(postgres_url)
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT max(version) FROM toolkiln_schema").fetchone() == (SHIPPED,)


def test_a_newer_database_is_not_downgraded(postgres_url):
    with Registry(postgres_url):
        pass
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO toolkiln_schema (version) VALUES (99)")
    with pytest.raises(SchemaVersionMismatch) as refused:
        schema.upgrade(postgres_url)
    assert refused.value.code == "R0308" and refused.value.hint == "upgrade toolkiln"


def test_the_command_upgrades_a_url_and_refuses_a_folder(postgres_url, tmp_path):
    def toolkiln(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "toolkiln", "registry", "upgrade", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "TOOLKILN_HOME": postgres_url},
        )

    made = toolkiln()  # (an empty database: its tables made, from $TOOLKILN_HOME)
    assert made.returncode == 0 and f"upgraded from schema version 0 to {SHIPPED}" in made.stderr, made.stderr
    again = toolkiln(postgres_url.replace("toolkiln@", "toolkiln:s3cret-pw@"))
    assert again.returncode == 0 and f"at schema version {SHIPPED}" in again.stderr and "s3cret-pw" not in again.stderr
    folder = toolkiln(str(tmp_path))
    assert folder.returncode == 2 and "registry folder" in folder.stderr
