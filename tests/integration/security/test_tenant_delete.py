"""`toolkiln tenants delete NAME` against a running `toolkiln serve`: a tenant with tokens or a
call waiting for approval is refused (R0752) unless `--force`; `default` never (R0753); once
deleted, the server answers the tenant's tokens with a coded 401 at once (whatever it had open),
the other tenants are untouched, and the folder is archived whole. On the main of 2026-11-29
02:40 UTC there was no `tenants delete`, and removing a tenant's folder by hand left a server
that had opened it serving it."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from test_server_support import ServerProcess, compute_tool

from toolkiln.registry.tenants import create_tenant
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore


def toolkiln(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


@pytest.fixture
def served(tmp_path):
    registry = tmp_path / "registry"
    for tenant in ("default", "acme", "other"):
        create_tenant(registry, tenant)
    store = TokenStore(state_folder(registry))
    tokens = {tenant: store.create("admin", "admin", "person", tenant)[0] for tenant in ("default", "acme", "other")}
    tokens["agent"] = store.create("agent", "run", "model", "acme")[0]
    server = ServerProcess(registry, "--rate-limit", "100000/minute", "--approve-calls", "principal=model")
    for tenant in ("acme", "other", "default"):
        with server.client(tokens[tenant]) as admin:
            made = admin.post("/api/v1/tools", json={"definition": compute_tool("shared", "x * 2")})
            assert made.status_code == 201, made.text
    server.tokens = tokens
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def test_a_tenant_in_use_is_refused_then_forced_and_its_tokens_answer_401(served):
    registry = str(served.registry)
    with served.client(served.tokens["agent"]) as model:  # a call of acme's, waiting for a person
        assert model.post("/api/v1/tools/shared/execute", json={"args": {"x": 1}}).status_code == 202
    with served.client(served.tokens["acme"]) as acme:
        assert acme.get("/api/v1/tools/shared").status_code == 200  # (the server has acme's registry open)

    refused = toolkiln("tenants", "delete", "acme", "--registry", registry)
    assert refused.returncode == 1 and "error[R0752]" in refused.stderr and "2 token(s)" in refused.stderr
    with served.client(served.tokens["acme"]) as acme:
        assert acme.get("/api/v1/tools/shared").status_code == 200  # nothing changed

    kept = toolkiln("tenants", "delete", "default", "--registry", registry)
    assert kept.returncode == 1 and "error[R0753]" in kept.stderr

    forced = toolkiln("tenants", "delete", "acme", "--force", "--registry", registry)
    assert forced.returncode == 0, forced.stderr
    for token in ("acme", "agent"):
        with served.client(served.tokens[token]) as gone:
            answer = gone.get("/api/v1/tools")
            assert (answer.status_code, answer.json()["code"]) == (401, "R0502")
    for tenant in ("other", "default"):
        with served.client(served.tokens[tenant]) as still:
            assert still.post("/api/v1/tools/shared/execute", json={"args": {"x": 4}}).json()["result"] == 8

    listed = toolkiln("tenants", "list", "--registry", registry).stdout.split()
    assert listed == ["default", "other"]
    archived = list((served.registry / "tenants" / ".deleted").iterdir())
    assert [a.name.split("-")[0] for a in archived] == ["acme"]
    assert (archived[0] / "tools" / "shared.json").is_file() and list((archived[0] / "calls").glob("*.json"))
    again = toolkiln("tenants", "delete", "acme", "--registry", registry)
    assert again.returncode == 1 and "error[R0751]" in again.stderr


def test_a_tenant_with_no_tokens_and_no_waiting_calls_is_deleted_without_force(served):
    registry = str(served.registry)
    assert toolkiln("tokens", "revoke", "admin", "--tenant", "other", "--registry", registry).returncode == 0
    done = toolkiln("tenants", "delete", "other", "--registry", registry)
    assert done.returncode == 0, done.stderr
    assert "other" not in toolkiln("tenants", "list", "--registry", registry).stdout.split()
