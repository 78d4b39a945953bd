"""Server tokens in a registry's database (schema version 2, issue 29): `toolkiln tokens` with
a URL writes them there, only as SHA-256 digests; every `toolkiln serve` on the URL checks the
same ones, and a revocation reaches every server as soon as its notification arrives. A
database made before them (version 1) is refused by a server, with the command that upgrades
it, and `toolkiln registry upgrade` brings it to version 2 with its tools."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import psycopg
from test_server_support import ServerProcess

from toolkiln import Registry
from toolkiln.registry.postgres import schema

SHIPPING = json.loads((Path(__file__).resolve().parents[2] / "examples" / "shipping_cost.json").read_text())
NOTIFIED_SECONDS = 5  # (a notification takes about a millisecond here; a loaded machine may take longer)


def toolkiln(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=os.environ
    )


def status_of(server: ServerProcess, token: str) -> int:
    with server.client(token) as http:
        return http.get("/api/v1/tools").status_code


def test_tokens_are_kept_in_the_database_as_digests_and_a_revocation_reaches_every_server(postgres_url, tmp_path):
    made = toolkiln("tokens", "create", "ops", "--kind", "person", "--scope", "admin", "--registry", postgres_url)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT tenant, name, kind, scope, digest FROM toolkiln_tokens").fetchall()
        dumped = conn.execute("SELECT row_to_json(t)::text FROM toolkiln_tokens t").fetchone()[0]
    assert rows == [("default", "ops", "person", "admin", hashlib.sha256(token.encode()).hexdigest())]
    assert token not in dumped
    # Two machines: each its own state folder, no token file in either.
    servers = [
        ServerProcess(postgres_url, "--state-dir", str(tmp_path / f"state{n}"), log_dir=tmp_path) for n in (1, 2)
    ]
    try:
        assert [status_of(server, token) for server in servers] == [200, 200]
        with servers[0].client(token) as http:  # a token made over REST is seen by the other server
            made_over_rest = http.post("/api/v1/tokens", json={"name": "ci", "kind": "person", "scope": "read"})
        assert made_over_rest.status_code == 201, made_over_rest.text
        second = made_over_rest.json()["token"]
        deadline = time.monotonic() + NOTIFIED_SECONDS
        while status_of(servers[1], second) != 200:
            assert time.monotonic() < deadline, "the other server never accepted the new token"
            time.sleep(0.05)
        revoked = toolkiln("tokens", "revoke", "ops", "--registry", postgres_url)
        assert revoked.returncode == 0, revoked.stderr
        deadline = time.monotonic() + NOTIFIED_SECONDS
        while [status_of(server, token) for server in servers] != [401, 401]:
            assert time.monotonic() < deadline, "a server still takes the revoked token"
            time.sleep(0.05)
        assert [status_of(server, second) for server in servers] == [200, 200]
    finally:
        for server in servers:
            server.stop()
    assert not list(tmp_path.glob("state*/tokens.json"))
    listed = toolkiln("tokens", "list", "--registry", postgres_url)
    assert listed.returncode == 0 and listed.stdout.split()[:3] == ["ci", "person", "read"], listed.stdout


CREATED = re.compile(r"CREATE TABLE (\w+)")


def as_version_one(url: str) -> None:
    """The database as the toolkiln of schema version 1 left it: no tokens' table (nor any later one)."""
    later = [name for version, text in schema.migrations() if version > 1 for name in CREATED.findall(text)]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {', '.join(later)}")
        conn.execute("DELETE FROM toolkiln_schema")
        conn.execute("INSERT INTO toolkiln_schema (version) VALUES (1)")


def test_a_server_refuses_a_version_one_database_until_upgraded_and_its_tools_stay(postgres_url, tmp_path):
    with Registry(postgres_url) as reg:
        reg.create(SHIPPING)
    as_version_one(postgres_url)
    for command in (["serve", "--port", "8765"], ["mcp"], ["tokens", "list"]):
        refused = toolkiln(*command, "--registry", postgres_url)
        assert refused.returncode == 1, (command, refused.stderr)
        assert refused.stderr.startswith("error[R0308]: ") and "toolkiln registry upgrade" in refused.stderr
        assert "Traceback" not in refused.stderr and "internal error" not in refused.stderr
    with psycopg.connect(postgres_url) as conn:  # (never upgraded silently)
        assert conn.execute("SELECT max(version) FROM toolkiln_schema").fetchone() == (1,)
    upgraded = toolkiln("registry", "upgrade", postgres_url)
    assert upgraded.returncode == 0 and f"from schema version 1 to {schema.CURRENT}" in upgraded.stderr, upgraded.stderr
    made = toolkiln("tokens", "create", "ops", "--kind", "person", "--scope", "run", "--registry", postgres_url)
    assert made.returncode == 0, made.stderr
    server = ServerProcess(postgres_url, log_dir=tmp_path)
    try:
        with server.client(made.stdout.strip()) as http:
            ran = http.post("/api/v1/tools/shipping_cost/execute", json={"args": {"weight_kg": 12}})
        assert ran.status_code == 200 and Decimal(str(ran.json()["result"])) == Decimal("31.5"), ran.text
    finally:
        server.stop()
