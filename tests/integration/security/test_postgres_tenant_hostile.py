"""Red team (session 7): tenants in a PostgreSQL registry against hostile names and against a
running `toolkiln serve` whose tenant is deleted, or whose token is revoked, by another process.

A tenant's name becomes a schema's and a channel's: a name that tries SQL or schema injection
(quotes, a dot, a semicolon), one over PostgreSQL's 63-byte identifiers, a look-alike letter or
an upper-case one is refused (R0750) before anything is made; `public` and `pg_catalog` are
names like any other and reach only a schema of toolkiln's prefix."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psycopg
import pytest
from test_server_support import ServerProcess, compute_tool

from toolkiln import Registry
from toolkiln.registry.postgres.urls import tenant_url

NOTIFIED_SECONDS = 5  # a revocation reaches a server by notification (test_postgres_tokens.py)

HOSTILE_NAMES = [
    'a"; DROP SCHEMA public CASCADE; --',
    "a'b",
    "pg_temp.x",
    "public.toolkiln_tools",
    "a;b",
    "a" * 41,
    "a" * 64,
    "\u0430cme",  # a Cyrillic а
    "Acme",
    "acme\n",
    "",
]


def toolkiln(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


def schemas(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [name for (name,) in conn.execute("SELECT nspname FROM pg_namespace ORDER BY 1")]


def test_hostile_tenant_names_are_refused_before_anything_is_made(postgres_url):
    assert toolkiln("tenants", "list", "--registry", postgres_url).returncode == 0  # (the tables made)
    before = schemas(postgres_url)
    for name in HOSTILE_NAMES:
        made = toolkiln("tenants", "create", name, "--registry", postgres_url)
        assert made.returncode != 0 and "R0750" in made.stderr, (name, made.stderr)
        assert "Traceback" not in made.stderr
        token = toolkiln(
            "tokens",
            "create",
            "t",
            "--kind",
            "person",
            "--scope",
            "admin",
            "--tenant",
            name,
            "--registry",
            postgres_url,
        )
        assert token.returncode != 0 and "R0750" in token.stderr, (name, token.stderr)
        listed = toolkiln("tools", "list", "--registry", f"{postgres_url}?tenant={name}")
        assert listed.returncode != 0 and "Traceback" not in listed.stderr, (name, listed.stderr)
    assert schemas(postgres_url) == before
    assert toolkiln("tenants", "list", "--registry", postgres_url).stdout.split() == ["default"]


@pytest.mark.parametrize("name", ["public", "pg-catalog", "information-schema", "default-x"])
def test_names_of_postgresqls_own_schemas_reach_only_a_schema_of_toolkilns(postgres_url, name):
    with psycopg.connect(postgres_url) as conn:
        conn.execute("CREATE TABLE public.sentinel (v int)")
        conn.execute("INSERT INTO public.sentinel VALUES (1)")
    made = toolkiln("tenants", "create", name, "--registry", postgres_url)
    assert made.returncode == 0, made.stderr
    with Registry(tenant_url(postgres_url, name)) as tenant:
        tenant.create(compute_tool("shared", "x * 3"))
        assert tenant.run("shared", {"x": 2}) == 6
    with Registry(postgres_url) as default:  # (the default tenant's tables are the URL's schema, public)
        assert default.list() == []
    deleted = toolkiln("tenants", "delete", name, "--registry", postgres_url)
    assert deleted.returncode == 0, deleted.stderr
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT v FROM public.sentinel").fetchall() == [(1,)]
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'pg_catalog'").fetchone() == (1,)
    assert toolkiln("tenants", "list", "--registry", postgres_url).stdout.split() == ["default"]


@pytest.fixture
def served(postgres_url, tmp_path):
    """A `toolkiln serve` on the database, tenants acme and other each with an admin token and a
    tool `shared`, the default tenant with one too."""
    tokens = {}
    for tenant in ("acme", "other"):
        assert toolkiln("tenants", "create", tenant, "--registry", postgres_url).returncode == 0
    for tenant in ("acme", "other", "default"):
        made = toolkiln(
            "tokens", "create", f"admin-{tenant}", "--kind", "person", "--scope", "admin",
            "--tenant", tenant, "--registry", postgres_url,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        tokens[tenant] = made.stdout.strip()
    server = ServerProcess(postgres_url, "--state-dir", str(tmp_path / "state"), log_dir=tmp_path)
    for tenant in ("acme", "other", "default"):
        with server.client(tokens[tenant]) as admin:
            made = admin.post("/api/v1/tools", json={"definition": compute_tool("shared", "x * 2")})
            assert made.status_code == 201, made.text
    server.tokens = tokens
    server.database = postgres_url
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def status_of(server: ServerProcess, token: str) -> tuple[int, str | None]:
    with server.client(token) as http:
        answer = http.post("/api/v1/tools/shared/execute", json={"args": {"x": 2}})
        return answer.status_code, answer.json().get("code")


def eventually(server: ServerProcess, token: str, wanted: tuple[int, str | None]) -> None:
    deadline = time.monotonic() + NOTIFIED_SECONDS
    while (found := status_of(server, token)) != wanted:
        assert time.monotonic() < deadline, f"the server still answers {found} to the token"
        time.sleep(0.05)


def test_a_tenant_deleted_by_another_process_is_nobody_on_a_running_server(served):
    assert status_of(served, served.tokens["acme"]) == (200, None)  # (the server has acme open)
    forced = toolkiln("tenants", "delete", "acme", "--force", "--registry", served.database)
    assert forced.returncode == 0, forced.stderr
    eventually(served, served.tokens["acme"], (401, "R0502"))
    assert status_of(served, served.tokens["other"]) == (200, None)
    assert status_of(served, served.tokens["default"]) == (200, None)
    # a tenant made again under the name is a new one: the old token stays out
    assert toolkiln("tenants", "create", "acme", "--registry", served.database).returncode == 0
    time.sleep(0.5)
    assert status_of(served, served.tokens["acme"]) == (401, "R0502")


def test_a_tenants_token_revoked_by_another_process_is_refused_and_no_other_tenants_is(served):
    revoked = toolkiln("tokens", "revoke", "admin-acme", "--tenant", "acme", "--registry", served.database)
    assert revoked.returncode == 0, revoked.stderr
    eventually(served, served.tokens["acme"], (401, "R0502"))
    assert status_of(served, served.tokens["other"]) == (200, None)
    # a token of the same name in another tenant is not the revoked one
    again = toolkiln("tokens", "revoke", "admin-acme", "--tenant", "other", "--registry", served.database)
    assert again.returncode != 0 and "Traceback" not in again.stderr
    assert status_of(served, served.tokens["other"]) == (200, None)
