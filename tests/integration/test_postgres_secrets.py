"""Secrets in a PostgreSQL registry (issue 28 item 2, in a fleet; issue 29): sealed in the
database under the key every machine is given ($TOOLKILN_SECRET_KEY or
$TOOLKILN_SECRET_KEY_FILE), never kept there; per tenant under the tenant's HKDF key. Two real
`toolkiln serve` processes on one database share the key: a secret set through one reaches a
script tool's sandbox run through the other, each tenant its own value for one name. A server
with another key is refused (R0754), one with none too (R0749), and a pg_dump holds no value.
On the main of 2026-11-29 a database registry kept no secrets (the routes answered 503 R0302,
`toolkiln secrets` refused a URL)."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_server_support import ServerProcess

from toolkiln import Registry
from toolkiln.registry.postgres.urls import tenant_url
from toolkiln.registry.secrets import KEY_ENV, KEY_FILE_ENV

pytestmark = pytest.mark.usefixtures("bwrap_installed")
KEY = base64.urlsafe_b64encode(b"k" * 32).decode()
OTHER_KEY = base64.urlsafe_b64encode(b"o" * 32).decode()
VALUES = {"alpha": "alpha-weather-key-7731", "beta": "beta-weather-key-9154"}
ECHO_DIGEST = (  # the value's digest: the value itself would come back redacted
    "import hashlib, os\nprint(hashlib.sha256(os.environ['WEATHER_API_KEY'].encode()).hexdigest())\n"
)


def toolkiln(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in (KEY_ENV, KEY_FILE_ENV)}
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=base | env,
    )


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@pytest.fixture
def fleet(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writable_folder: Path):
    """Tenants alpha and beta, each with the script tool `weather` and an admin token."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    tokens = {}
    for tenant in ("alpha", "beta"):
        assert toolkiln("tenants", "create", tenant, "--registry", postgres_url, env={}).returncode == 0
        with Registry(tenant_url(postgres_url, tenant)) as reg:
            reg.create(
                {
                    "kind": "script",
                    "name": "weather",
                    "description": "Says which key it got.",
                    "runtime": "python",
                    "body": ECHO_DIGEST,
                    "secrets": ["WEATHER_API_KEY"],
                }
            )
        made = toolkiln(
            *("tokens", "create", "admin", "--tenant", tenant, "--kind", "person", "--scope", "admin"),
            *("--registry", postgres_url),
            env={},
        )
        assert made.returncode == 0, made.stderr
        tokens[tenant] = made.stdout.strip()
    return tokens


def server(url: str, tmp_path: Path, env: dict[str, str]) -> ServerProcess:
    return ServerProcess(url, "--rate-limit", "100000/minute", env=env, log_dir=tmp_path)


def test_servers_sharing_the_key_read_each_others_secrets_each_tenant_its_own(fleet, postgres_url, tmp_path):
    key_file = tmp_path / "fleet.key"
    key_file.write_bytes(base64.urlsafe_b64decode(KEY))
    first = server(postgres_url, tmp_path, {KEY_ENV: KEY})
    second = server(postgres_url, tmp_path, {KEY_FILE_ENV: str(key_file)})  # (the same key, as a file)
    try:
        with first.client(fleet["alpha"]) as alpha, second.client(fleet["beta"]) as beta:
            assert alpha.put("/api/v1/secrets/WEATHER_API_KEY", json={"value": VALUES["alpha"]}).status_code == 200
            assert beta.put("/api/v1/secrets/WEATHER_API_KEY", json={"value": VALUES["beta"]}).status_code == 200
        for where, tenant in ((second, "alpha"), (first, "beta")):  # each run on the other server
            with where.client(fleet[tenant]) as http:
                ran = http.post("/api/v1/tools/weather/execute", json={"args": {}})
                assert ran.status_code == 200, ran.text
                assert ran.json()["result"]["output"].strip() == digest(VALUES[tenant])
                assert [s["name"] for s in http.get("/api/v1/secrets").json()] == ["WEATHER_API_KEY"]
    finally:
        first.stop()
        second.stop()
    dump = pg_dump(postgres_url)
    assert "WEATHER_API_KEY" in dump and "toolkiln_secrets" in dump
    assert not [value for value in VALUES.values() if value in dump]  # (ciphertext only)


def test_a_server_with_another_key_or_none_is_refused_with_a_code(fleet, postgres_url, tmp_path):
    made = toolkiln(
        "secrets", "set", "WEATHER_API_KEY", "--registry", tenant_url(postgres_url, "alpha"),
        env={KEY_ENV: KEY}, stdin=VALUES["alpha"],
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    wrong = server(postgres_url, tmp_path, {KEY_ENV: OTHER_KEY})
    none = server(postgres_url, tmp_path, {})
    try:
        for where, code in ((wrong, "R0754"), (none, "R0749")):
            with where.client(fleet["alpha"]) as alpha:
                ran = alpha.post("/api/v1/tools/weather/execute", json={"args": {}})
                assert ran.status_code >= 400 and ran.json()["code"] == code, ran.text
                put = alpha.put("/api/v1/secrets/OTHER", json={"value": "x"})
                assert put.status_code == 503 and put.json()["code"] == code, put.text
                assert [s["name"] for s in alpha.get("/api/v1/secrets").json()] == ["WEATHER_API_KEY"]
                assert VALUES["alpha"] not in ran.text + put.text
        for where in (wrong, none):
            assert "Traceback" not in where.log.read_text()
    finally:
        wrong.stop()
        none.stop()
    for env, code in (({KEY_ENV: OTHER_KEY}, "R0754"), ({}, "R0749")):
        refused = toolkiln(
            "secrets", "set", "OTHER", "--registry", tenant_url(postgres_url, "alpha"), env=env, stdin="x"
        )
        assert refused.returncode == 1 and refused.stderr.startswith(f"error[{code}]"), refused.stderr
        assert "Traceback" not in refused.stderr
    listed = toolkiln("secrets", "list", "--registry", tenant_url(postgres_url, "alpha"), env={})
    assert listed.returncode == 0 and "WEATHER_API_KEY" in listed.stdout  # (names need no key)


def test_a_tenants_value_moved_into_another_tenant_does_not_decrypt(fleet, postgres_url, monkeypatch):
    """The same fleet key, a key per tenant (HKDF with the tenant's name): a row copied across."""
    import psycopg

    from toolkiln.registry.errors import SecretUnreadable

    env = {KEY_ENV: KEY}
    for tenant in ("alpha", "beta"):
        where = tenant_url(postgres_url, tenant)
        done = toolkiln("secrets", "set", "WEATHER_API_KEY", "--registry", where, env=env, stdin=VALUES[tenant])
        assert done.returncode == 0, done.stderr
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE toolkiln_tenant_beta.toolkiln_secrets SET value = "
            "(SELECT value FROM toolkiln_tenant_alpha.toolkiln_secrets WHERE name = 'WEATHER_API_KEY')"
        )
    monkeypatch.setenv(KEY_ENV, KEY)
    with Registry(tenant_url(postgres_url, "beta")) as beta, pytest.raises(SecretUnreadable) as refused:
        beta.secret_store().get("WEATHER_API_KEY")
    assert refused.value.code == "R0741"  # (the key is the fleet's: R0754 would say it is not)
    with Registry(tenant_url(postgres_url, "alpha")) as alpha:
        assert alpha.secret_store().get("WEATHER_API_KEY") == VALUES["alpha"]


def pg_dump(url: str) -> str:
    binary = next(Path("/usr/lib/postgresql").glob("*/bin/pg_dump"), None) or Path("pg_dump")
    done = subprocess.run([str(binary), "--dbname", url], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout
