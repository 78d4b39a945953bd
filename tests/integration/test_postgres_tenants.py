"""Tenants in a PostgreSQL registry (issue 28 item 3, issue 29): each tenant a schema of its own
(`toolkiln_tenant_NAME`), its registry the URL with `?tenant=NAME`, made, listed and deleted by
`toolkiln tenants` on the URL; its changes notified on a channel of its own; upgraded with the
database by `toolkiln registry upgrade`; copied both ways by `toolkiln registry migrate`.
On the main of 2026-11-29 `toolkiln tenants create` refused a URL (exit 2: a registry folder
was needed) and a database registry had the tenant `default` only."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from test_registry_migrate import a_lived_in_registry, same, snapshot
from test_server_support import ServerProcess, compute_tool

from toolkiln import Registry
from toolkiln.registry.errors import SchemaVersionMismatch, UnknownTenant
from toolkiln.registry.postgres import schema
from toolkiln.registry.postgres.urls import tenant_url


def toolkiln(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, timeout=120)
    assert (done.returncode == 0) == ok, done.stderr
    assert "Traceback" not in done.stderr
    return done


def schemas(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'toolkiln%' ORDER BY 1")
        return [name for (name,) in rows]


def test_tenants_of_a_database_keep_tools_of_one_name_apart(postgres_url):
    for name in ("alpha", "team-2"):
        toolkiln("tenants", "create", name, "--registry", postgres_url)
    assert toolkiln("tenants", "list", "--registry", postgres_url).stdout.split() == ["default", "alpha", "team-2"]
    assert schemas(postgres_url) == ["toolkiln_tenant_alpha", "toolkiln_tenant_team_2"]
    for name, expression in (("alpha", "x * 2"), ("team-2", "x * 3")):
        with Registry(tenant_url(postgres_url, name)) as reg:
            reg.create(compute_tool("shared", expression, f"{name}'s"))
    toolkiln(
        "tools", "create", str(Path(__file__).parents[2] / "examples/shipping_cost.json"), "--registry", postgres_url
    )
    with Registry(tenant_url(postgres_url, "alpha")) as alpha, Registry(tenant_url(postgres_url, "team-2")) as team:
        assert (alpha.run("shared", {"x": 5}), team.run("shared", {"x": 5})) == (10, 15)
        assert [r.name for r in alpha.list()] == ["shared"] and [e.tool for e in team.audit_log()] == ["shared"]
    with Registry(postgres_url) as default:
        assert [r.name for r in default.list()] == ["shipping_cost"]
    listed = toolkiln("tools", "list", "--registry", postgres_url + "?tenant=team-2").stdout
    assert "team-2's" in listed and "alpha's" not in listed
    admin = ("tokens", "create", "admin", "--scope", "admin", "--kind", "person", "--registry", postgres_url)
    toolkiln(*admin, "--tenant", "alpha")
    refused = toolkiln(*admin, "--tenant", "nope", ok=False)
    assert "R0751" in refused.stderr
    with pytest.raises(UnknownTenant):  # (opening a tenant never makes it)
        Registry(tenant_url(postgres_url, "nope"))
    assert "toolkiln_tenant_nope" not in schemas(postgres_url)
    bad = toolkiln("tools", "list", "--registry", postgres_url + "?tenant=Bad/..", ok=False)
    assert "R0750" in bad.stderr


def counter(reg: Registry) -> int | None:
    return reg._store.changes.value()


def test_a_change_is_notified_to_its_tenant_only(postgres_url):
    for name in ("alpha", "beta"):
        toolkiln("tenants", "create", name, "--registry", postgres_url)
    with (
        Registry(tenant_url(postgres_url, "alpha")) as writer,
        Registry(tenant_url(postgres_url, "alpha")) as alpha,
        Registry(tenant_url(postgres_url, "beta")) as beta,
        Registry(postgres_url) as default,
    ):
        before = {"alpha": counter(alpha), "beta": counter(beta), "default": counter(default)}
        writer.create(compute_tool("made"))
        deadline = time.monotonic() + 30
        while counter(alpha) == before["alpha"] and time.monotonic() < deadline:
            time.sleep(0.02)  # (waits for the notification; not a bound on its time)
        assert counter(alpha) == before["alpha"] + 1  # (alpha's own counter, from its own channel)
        assert (counter(beta), counter(default)) == (before["beta"], before["default"])  # (heard nothing)
        assert [r.name for r in beta.list()] == [] and [r.name for r in alpha.list()] == ["made"]


def test_a_deleted_tenant_is_archived_whole_and_a_new_one_starts_empty(postgres_url):
    toolkiln("tenants", "create", "alpha", "--registry", postgres_url)
    with Registry(tenant_url(postgres_url, "alpha")) as alpha:
        alpha.create(compute_tool("kept"))
    toolkiln(
        "tokens",
        "create",
        "bot",
        "--tenant",
        "alpha",
        "--scope",
        "run",
        "--kind",
        "service",
        "--registry",
        postgres_url,
    )
    refused = toolkiln("tenants", "delete", "alpha", "--registry", postgres_url, ok=False)
    assert "R0752" in refused.stderr
    assert "R0753" in toolkiln("tenants", "delete", "default", "--registry", postgres_url, ok=False).stderr
    deleted = toolkiln("tenants", "delete", "alpha", "--force", "--registry", postgres_url)
    (archive,) = [name for name in schemas(postgres_url) if name.startswith("toolkiln_deleted_")]
    assert archive in deleted.stderr and "1 token(s) revoked" in deleted.stderr
    assert toolkiln("tenants", "list", "--registry", postgres_url).stdout.split() == ["default"]
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute(f"SELECT name FROM {archive}.toolkiln_tools").fetchall() == [("kept",)]
        assert conn.execute("SELECT count(*) FROM toolkiln_tokens").fetchone() == (0,)
    with pytest.raises(UnknownTenant):
        Registry(tenant_url(postgres_url, "alpha"))
    toolkiln("tenants", "create", "alpha", "--registry", postgres_url)
    with Registry(tenant_url(postgres_url, "alpha")) as alpha:
        assert alpha.list() == [] and alpha.audit_log() == []


def test_an_upgrade_brings_every_tenant_with_the_database(postgres_url, monkeypatch):
    shipped, current = schema.migrations(), schema.CURRENT
    with monkeypatch.context() as older:  # a database of schema version 2, before tenants
        older.setattr(schema, "migrations", lambda: [step for step in shipped if step[0] <= 2])
        older.setattr(schema, "CURRENT", 2)
        with Registry(postgres_url) as reg:
            reg.create(compute_tool("old"))
    refused = toolkiln("tenants", "create", "alpha", "--registry", postgres_url, ok=False)
    assert "R0308" in refused.stderr and "toolkiln registry upgrade" in refused.stderr
    assert f"from schema version 2 to {current}" in toolkiln("registry", "upgrade", postgres_url).stderr
    toolkiln("tenants", "create", "alpha", "--registry", postgres_url)
    # and a next version reaches the tenant's tables too, in the same transaction
    monkeypatch.setattr(
        schema,
        "migrations",
        lambda: [*shipped, (schema.CURRENT + 1, "ALTER TABLE toolkiln_tools ADD COLUMN note text")],
    )
    monkeypatch.setattr(schema, "CURRENT", schema.CURRENT + 1)
    with pytest.raises(SchemaVersionMismatch):
        Registry(tenant_url(postgres_url, "alpha"))
    assert schema.upgrade(postgres_url) == (current, current + 1)
    with psycopg.connect(postgres_url) as conn:
        noted = conn.execute(
            "SELECT table_schema FROM information_schema.columns WHERE table_name = 'toolkiln_tools' "
            "AND column_name = 'note' ORDER BY 1"
        ).fetchall()
    assert noted == [("public",), ("toolkiln_tenant_alpha",)]
    with Registry(tenant_url(postgres_url, "alpha")) as alpha, Registry(postgres_url) as default:
        assert alpha.list() == [] and [r.name for r in default.list()] == ["old"]


def test_migrate_copies_every_tenant_into_a_database_and_back(tmp_path, postgres_url):
    folder = tmp_path / "folder"
    a_lived_in_registry(folder)
    toolkiln("tenants", "create", "alpha", "--registry", str(folder))
    a_lived_in_registry(folder / "tenants" / "alpha")
    with Registry(folder / "tenants" / "alpha") as alpha:
        alpha.create(compute_tool("alpha_only"))
    originals = {}
    for name, where in (("default", folder), ("alpha", folder / "tenants" / "alpha")):
        with Registry(where) as reg:
            originals[name] = snapshot(reg)
    into = toolkiln("registry", "migrate", str(folder), postgres_url)
    assert "(tenant alpha): 5 tools" in into.stderr
    toolkiln("registry", "migrate", postgres_url, str(tmp_path / "back"))
    for name in ("default", "alpha"):
        with Registry(tenant_url(postgres_url, name)) as database:
            same(snapshot(database), originals[name])
        with Registry(tmp_path / "back" / ("tenants/alpha" if name == "alpha" else "")) as back:
            same(snapshot(back), originals[name])
    assert toolkiln("tenants", "list", "--registry", str(tmp_path / "back")).stdout.split() == ["default", "alpha"]


def test_two_servers_on_one_database_serve_each_tenant_and_drop_a_deleted_one(postgres_url, tmp_path):
    """Two `toolkiln serve` on one database: a token of either tenant works on either server, and
    sees its own tenant's `shared`; once the tenant is deleted every server answers its token
    401 R0502 (within the notification), the other tenant untouched."""
    tokens = {}
    for tenant in ("alpha", "beta"):
        toolkiln("tenants", "create", tenant, "--registry", postgres_url)
        made = toolkiln(
            *("tokens", "create", "admin", "--tenant", tenant, "--scope", "admin", "--kind", "person"),
            *("--registry", postgres_url),
        )
        tokens[tenant] = made.stdout.strip()
    servers = [ServerProcess(postgres_url, "--rate-limit", "100000/minute", log_dir=tmp_path) for _ in range(2)]
    try:
        for index, (tenant, expression) in enumerate((("alpha", "x * 2"), ("beta", "x * 3"))):
            with servers[index].client(tokens[tenant]) as admin:  # each made through one server
                assert admin.post("/api/v1/tools", json={"definition": compute_tool("shared", expression)}).is_success
        for server in servers:
            for tenant, result in (("alpha", 10), ("beta", 15)):
                with server.client(tokens[tenant]) as http:
                    assert http.post("/api/v1/tools/shared/execute", json={"args": {"x": 5}}).json()["result"] == result
        toolkiln("tenants", "delete", "alpha", "--force", "--registry", postgres_url)
        for server in servers:
            with server.client(tokens["alpha"]) as gone:
                answer = gone.get("/api/v1/tools")
                deadline = time.monotonic() + 30
                while answer.status_code != 401 and time.monotonic() < deadline:  # (the notification's way)
                    time.sleep(0.05)
                    answer = gone.get("/api/v1/tools")
                assert (answer.status_code, answer.json()["code"]) == (401, "R0502")
            with server.client(tokens["beta"]) as still:
                assert still.post("/api/v1/tools/shared/execute", json={"args": {"x": 1}}).json()["result"] == 3
    finally:
        for server in servers:
            server.stop()
