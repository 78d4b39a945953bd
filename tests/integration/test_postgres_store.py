"""The store contract (tests/unit/registry/store_contract.py) run against `PostgresStore` on a
real PostgreSQL, a database of its own per test; and what only a database store must do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_server_support import ServerProcess
from unit.registry.pending_calls_contract import PendingCallsContract
from unit.registry.store_contract import StoreContract, definition

from toolkiln import Registry, RunError
from toolkiln.registry import Principal
from toolkiln.registry.errors import (
    DatabaseLoginRefused,
    DatabaseUnreachable,
    NotTrusted,
    SchemaVersionMismatch,
    StoreError,
)
from toolkiln.registry.postgres.calls import PostgresPendingCalls
from toolkiln.registry.postgres.store import PostgresStore
from toolkiln.registry.store import Store

SHIPPING = Path(__file__).resolve().parents[2] / "examples" / "shipping_cost.json"
ADMIN = Principal("person", "root", "admin", via="token root")
NOTIFIED_SECONDS = 5  # (a notification takes about a millisecond here; a loaded machine may take longer)


class PostgresFactory:
    def __init__(self, url: str) -> None:
        self.url = url
        self.opened: list[PostgresStore] = []

    def new(self) -> Store:
        return self._open()

    def again(self, store: Store) -> Store:
        return self._open()

    def _open(self) -> PostgresStore:
        store = PostgresStore(self.url, lock_timeout=5)
        self.opened.append(store)
        return store

    def add_table(self, store: Store, name: str, rows: dict[str, Any]) -> None:
        assert isinstance(store, PostgresStore)
        store.put_table(f"{name}.json", json.dumps({name: rows}).encode())

    def corrupt(self, store: Store, name: str) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("UPDATE toolkiln_tools SET data = '{', revision = revision + 1000 WHERE name = %s", (name,))
            conn.execute("UPDATE toolkiln_changes SET counter = counter + 1")

    def settle(self, store: Store) -> None:
        assert isinstance(store, PostgresStore)
        with psycopg.connect(self.url, autocommit=True) as conn:
            counter = conn.execute("SELECT counter FROM toolkiln_changes").fetchone()[0]
        deadline = time.monotonic() + NOTIFIED_SECONDS
        while store.changes.value() != counter:
            assert time.monotonic() < deadline, f"no notification of change {counter} within {NOTIFIED_SECONDS} s"
            time.sleep(0.001)

    def close(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture
def pg_factory(postgres_url):
    factory = PostgresFactory(postgres_url)
    yield factory
    factory.close()


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def factory(self, pg_factory: PostgresFactory) -> PostgresFactory:
        return pg_factory


def test_a_change_that_fails_midway_leaves_nothing_behind(pg_factory):
    """A registry change is one transaction: a failure inside it writes nothing, and the
    store's own view goes back to what is committed."""
    reg = Registry(pg_factory.new())
    reg.create(definition())
    store = reg._store
    with pytest.raises(RuntimeError), store.writing():
        store.append_audit(reg.audit_log()[0])
        raise RuntimeError("the process failed here")
    assert len(reg.audit_log()) == 1 and reg.run("double", {"x": 2}) == 4


def test_a_database_that_does_not_answer_is_a_store_error_without_the_password():
    with pytest.raises(DatabaseUnreachable) as refused:
        PostgresStore("postgresql://toolkiln:s3cret-pw@127.0.0.1:1/none", lock_timeout=1)
    assert refused.value.code == "R0306" and isinstance(refused.value, StoreError)
    assert "s3cret-pw" not in str(refused.value) and "***" in str(refused.value)


@pytest.mark.parametrize(
    ("user", "database", "said"), [("nobody", "", 'role "nobody"'), ("toolkiln", "_none", "_none")]
)
def test_a_refused_login_says_why_without_the_password(postgres_url, user, database, said):
    url = postgres_url.replace("toolkiln@", f"{user}:s3cret-pw@") + database
    with pytest.raises(DatabaseLoginRefused) as refused:
        PostgresStore(url, lock_timeout=5)
    assert refused.value.code == "R0307" and said in str(refused.value) and "does not exist" in str(refused.value)
    assert "s3cret-pw" not in str(refused.value) + (refused.value.hint or "")


def test_a_schema_of_another_version_is_refused_until_upgraded(pg_factory, postgres_url):
    pg_factory.new()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE toolkiln_schema SET version = 99")
    with pytest.raises(SchemaVersionMismatch) as refused:
        pg_factory.new()
    assert (
        refused.value.code == "R0308"
        and "schema version 99" in str(refused.value)
        and "upgrade toolkiln" in (refused.value.hint or "")
    )


class TestPostgresPendingCalls(PendingCallsContract):
    @pytest.fixture
    def make(self, pg_factory):
        def make(same):
            store = pg_factory.new()
            assert isinstance(store, PostgresStore)
            return PostgresPendingCalls(store)

        return make


def test_a_registry_named_by_a_url_keeps_its_tools_and_held_calls_in_the_database(postgres_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (nothing may be written beside the process either)
    with Registry(postgres_url) as reg:
        reg.create(definition())
        reg.require_call_approval("double", True, by=ADMIN)
        held = reg.invoke("double", {"x": 2}, principal=Principal("model", "agent", "run"))
        assert held.pending
    with Registry(postgres_url) as again:
        (call,) = again.calls()
        assert call.id == held.call and again.decide_call(call.id, approve=True, by=ADMIN).result == 4
    assert list(tmp_path.iterdir()) == []


def test_a_row_written_by_hand_is_not_trusted_until_a_person_trusts_it(pg_factory, postgres_url):
    reg = Registry(pg_factory.new())
    reg.create({"kind": "script", "name": "fetch", "description": "Fetches.", "runtime": "bash", "body": "cat"})
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # what an UPDATE by hand leaves
        conn.execute("UPDATE toolkiln_tools SET signed = NULL, revision = revision + 1000 WHERE name = 'fetch'")
        conn.execute("UPDATE toolkiln_changes SET counter = counter + 1")
    reg.refresh()
    assert reg.untrusted() == {"fetch"}
    with pytest.raises(NotTrusted):
        reg.run("fetch", {})
    assert reg.trust(["fetch"]) == {"fetch": [1]} and reg.untrusted() == set()


def toolkiln(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, timeout=120, env=env, check=False
    )


def test_the_command_line_takes_a_database_url_wherever_it_takes_a_registry(postgres_url):
    created = toolkiln("tools", "create", str(SHIPPING), "--registry", postgres_url)
    assert created.returncode == 0, created.stderr
    ran = toolkiln(
        "tools",
        "run",
        "shipping_cost",
        "--args",
        '{"weight_kg": 12}',
        env={**os.environ, "TOOLKILN_HOME": postgres_url},
    )
    assert (ran.returncode, ran.stdout.strip()) == (0, "31.500"), ran.stderr
    with Registry(postgres_url) as reg:
        assert [record.name for record in reg.list()] == ["shipping_cost"]


def test_the_secrets_commands_take_a_database_and_never_print_its_password(postgres_url):
    """(They refused a URL, exit 2, until secrets were kept in the database: test_postgres_secrets.py.)"""
    with_password = postgres_url.replace("toolkiln@", "toolkiln:s3cret-pw@")
    listed = toolkiln("secrets", "list", "--registry", with_password)
    assert listed.returncode == 0 and "no secrets" in listed.stdout, listed.stderr
    missing = toolkiln("secrets", "delete", "X", "--registry", with_password)
    assert missing.returncode == 1 and missing.stderr.startswith("error[R0743]"), missing.stderr
    for done in (listed, missing):
        assert "s3cret-pw" not in done.stderr + done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize(("host", "code"), [("127.0.0.1:1", "R0306"), ("", "R0307")])
def test_the_command_line_says_why_a_database_cannot_be_used_in_one_coded_line(postgres_url, host, code):
    """Not a pool's retries logged for 30 s and then a generic error: the first failure, coded."""
    url = postgres_url.replace("toolkiln@", "toolkiln:s3cret-pw@") + "_none"
    if host:
        url = url.replace(url.split("@")[1].split("/")[0], host)
    refused = toolkiln("tools", "list", "--registry", url)
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith(f"error[{code}]: ") and "s3cret-pw" not in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr and "error connecting in" not in refused.stderr


def test_a_server_on_a_database_registry_keeps_its_tools_and_tokens_there(postgres_url, tmp_path, monkeypatch):
    """`toolkiln tokens` and `toolkiln serve` take the URL: the token made by the one signs in to
    the other, a tool made over REST is in the database, nothing is written beside the process,
    and neither prints the URL's password."""
    monkeypatch.chdir(tmp_path)
    url = postgres_url.replace("toolkiln@", "toolkiln:s3cret-pw@")
    server = ServerProcess(url, log_dir=tmp_path)  # (no tokens yet: it says how to make one)
    made = toolkiln("tokens", "create", "ops", "--kind", "person", "--scope", "admin", "--registry", url)
    assert made.returncode == 0, made.stderr
    try:
        with server.client(made.stdout.strip()) as http:
            created = http.post("/api/v1/tools", json={"definition": json.loads(SHIPPING.read_text())})
            assert created.status_code == 201, created.text
            ran = http.post("/api/v1/tools/shipping_cost/execute", json={"args": {"weight_kg": 12}})
            assert ran.status_code == 200 and "31.5" in ran.text, ran.text
            assert http.get("/api/v1/secrets").json() == []  # (in the database: test_postgres_secrets.py)
            secret = http.put("/api/v1/secrets/X", json={"value": "v"})  # (this server was given no key)
            assert secret.status_code == 503 and secret.json()["code"] == "R0749", secret.text
    finally:
        server.stop()
    with Registry(postgres_url) as reg:
        assert [record.name for record in reg.list()] == ["shipping_cost"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [server.log.name]
    printed = server.log.read_text() + made.stderr + toolkiln("tokens", "list", "--registry", url).stdout
    assert "s3cret-pw" not in printed and "ops" in printed and "no tokens yet" in printed


def test_connections_the_database_ended_are_replaced_before_the_next_change_uses_them(pg_factory, postgres_url):
    """pg_terminate_backend (as a restart or a network cut does) ends every connection of the
    registry: its next list, change and run work at once, without a failure first."""
    reg = Registry(pg_factory.new())
    reg.create(definition())
    database = postgres_url.rsplit("/", 1)[1]
    with psycopg.connect(postgres_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        ended = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchone()[0]
    assert ended >= 1
    assert [record.name for record in reg.list()] == ["double"]
    reg.update("double", {"description": "Doubles, after the database ended its connections"})
    assert reg.run("double", {"x": 2}) == 4 and reg.get("double").version == 1


def test_a_table_that_does_not_read_is_refused_when_put_and_nothing_is_stored(pg_factory):
    """(A folder reports a bad table file it finds; a database takes none in the first place.)"""
    store = pg_factory.new()
    with pytest.raises(RunError) as refused:
        store.put_table("bad.json", b"{nope")
    assert refused.value.code == "E0513"
    assert pg_factory.again(store).tables == {}


def test_the_hot_run_path_asks_the_database_nothing_while_nothing_changed(pg_factory, monkeypatch):
    """`reg.run` of a tool it ran before makes no round trip while no change was notified (what
    keeps it within 1.3x of the folder's run, benchmarks/bench_registry.py --store both); a
    change notified by another registry makes the next run ask."""
    reg = Registry(pg_factory.new(), usage_flush_seconds=3600)  # (no run-count flush in the window)
    reg.create(definition())
    assert reg.run("double", {"x": 2}) == 4
    statements: list[str] = []
    real, runs_here = psycopg.Connection.execute, threading.current_thread()

    def counted(self, query, *args, **kwargs):
        if threading.current_thread() is runs_here:  # (not the listener's heartbeat)
            statements.append(str(query)[:80])
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", counted)
    for x in range(1000):
        assert reg.run("double", {"x": x}) == 2 * x
    assert statements == []
    other = Registry(pg_factory.new())
    other.update("double", {"logic": definition(expression="x * 3")["logic"]})
    pg_factory.settle(reg._store)
    statements.clear()
    assert reg.run("double", {"x": 2}) == 6 and statements  # (it asked: the counter moved)


def test_a_registry_lets_go_of_its_connections_when_its_with_block_ends(postgres_url):
    """(Before: each `with Registry(url)` kept its pool and listener until the process ended,
    two connections each, and a loop of them ran into PostgreSQL's max_connections.)"""
    for _ in range(5):
        with Registry(postgres_url) as reg:
            reg.create(definition(f"t{len(reg)}"))
    database = postgres_url.rsplit("/", 1)[1]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        deadline = time.monotonic() + NOTIFIED_SECONDS  # (a backend ends a moment after its client leaves)
        while True:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (database,)
            ).fetchone()
            if row[0] == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    assert row[0] == 0
    assert len(reg.list()) == 5  # (used after its block anyway: it connects again, as a folder's works)
