"""Red team: teams on one server (issue 28, item 3), through a real `toolkiln serve`.

Two tenants, `alpha` and `beta`, each with a tool named `shared` (other logic), and beta with a
tool, a secret and a token of its own. Every route of the app (listed from the app itself, so a
new route cannot escape) is called by alpha's admin, and by the default tenant's admin, with
beta's names in its path: the answer is the one a name nobody has gets, carries nothing of
beta's, and beta's folder and tokens are byte for byte what they were. The event stream (SSE and
WebSocket) and the web page are swept too. On the main of 2026-11-28 there were no tenants
(`toolkiln tenants` did not exist, and every token saw the one registry).

Each test runs on both stores: a registry folder (a tenant per subfolder) and a PostgreSQL
registry (a tenant per schema), where beta's tables and tokens are compared row for row. On
the main of 2026-11-29 a database registry had no tenants (`tenants create` refused a URL).
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute
from starlette.routing import BaseRoute
from test_server_support import ServerProcess, compute_tool
from websockets.sync.client import connect

from toolkiln.registry.postgres.store import PostgresStore
from toolkiln.registry.secrets import KEY_ENV
from toolkiln.server.app import create_app
from toolkiln.server.db_tokens import tokens_for
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

FLEET_KEY = base64.urlsafe_b64encode(b"f" * 32).decode()
MARK_B = "beta-private-marker-5521"  # in beta's descriptions: never in an answer to anyone else
BETA_NAMES = {"tool": "beta_only", "secret": "BETA_ONLY_KEY", "token": "beta-only-bot"}
NOBODY_NAMES = {"tool": "zz_nobody", "secret": "ZZ_NOBODY_KEY", "token": "zz-nobody-bot"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
BODY = {
    "args": {"x": 5},
    "definition": compute_tool("alpha_made", "x * 7"),  # (what the sweep makes is the attacker's own)
    "value": "alpha-value",
    "reason": "sweep",
    "name": "alpha-made-bot",
    "scope": "read",
    "kind": "person",
}


def toolkiln(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, check=True)


def admin_of(http: httpx.Client, tenant_tools: list[dict]) -> None:
    for definition in tenant_tools:
        made = http.post("/api/v1/tools", json={"definition": definition})
        assert made.status_code == 201, made.text


@pytest.fixture(params=["folder", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry_and_tokens(request, tmp_path) -> Iterator[tuple[Path | str, TokenStore]]:
    """A registry (a folder, or a database's URL) and the token store its server checks."""
    if request.param == "folder":
        yield tmp_path / "registry", TokenStore(state_folder(tmp_path / "registry"))
        return
    url = request.getfixturevalue("postgres_url")
    store = PostgresStore(url)
    try:
        yield url, tokens_for(store, url, None)
    finally:
        store.close()


@pytest.fixture
def two_tenants(registry_and_tokens, tmp_path):
    registry, store = registry_and_tokens
    tokens = {"default": store.create("admin", "admin", "person")[0]}
    for tenant in ("alpha", "beta"):
        toolkiln("tenants", "create", tenant, "--registry", str(registry))
        tokens[tenant] = store.create("admin", "admin", "person", tenant)[0]  # (the same name in each)
    store.create(BETA_NAMES["token"], "read", "service", "beta")
    agent = store.create("agent", "run", "model", "beta")[0]
    server = ServerProcess(
        registry,
        *("--rate-limit", "100000/minute", "--approve-calls", "principal=model"),
        env={KEY_ENV: FLEET_KEY},  # (a database's secrets need the key a fleet is given)
        log_dir=tmp_path,
    )
    with server.client(tokens["beta"]) as beta:
        admin_of(beta, [compute_tool("shared", "x * 3", MARK_B), compute_tool("beta_only", "x + 1", MARK_B)])
        assert beta.put(f"/api/v1/secrets/{BETA_NAMES['secret']}", json={"value": "beta-value"}).status_code == 200
    with server.client(agent) as model:  # a call of beta's waiting for beta's admin
        held = model.post("/api/v1/tools/beta_only/execute", json={"args": {"x": 1}, "conversation": MARK_B})
        assert held.status_code == 202, held.text
    server.beta_call = held.json()["call"]
    with server.client(tokens["alpha"]) as alpha:
        admin_of(alpha, [compute_tool("shared", "x * 2", "alpha's doubling")])
    server.tokens = tokens
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def beta_state(registry: Path | str) -> dict[str, object]:
    """Everything beta keeps (its registry folder but caches and locks, or every row of its
    schema) and its tokens."""
    if isinstance(registry, str):
        return beta_rows(registry)
    folder = registry / "tenants" / "beta"
    files: dict[str, bytes | list[str]] = {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".cache" not in path.parts and path.name != ".lock"
    }
    files["tokens"] = [t.digest for t in TokenStore(state_folder(registry)).entries("beta")]
    return files


def beta_rows(url: str) -> dict[str, object]:
    """Every row of every table in beta's schema, and beta's token digests."""
    with psycopg.connect(url) as conn:
        tables = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'toolkiln_tenant_beta' ORDER BY 1"
        ).fetchall()
        rows: dict[str, object] = {
            table: sorted(map(repr, conn.execute(f"SELECT * FROM toolkiln_tenant_beta.{table}").fetchall()))
            for (table,) in tables
        }
        rows["tokens"] = conn.execute("SELECT digest FROM toolkiln_tokens WHERE tenant = 'beta' ORDER BY 1").fetchall()
    assert "toolkiln_tools" in rows and rows["toolkiln_secrets"]  # (beta's schema, with its secret)
    return rows


def app_routes(tmp_path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """Every (method, path) of the app, and every WebSocket path: from the app itself."""
    found = list(flat(create_app(Settings(registry=tmp_path / "listing")).routes))
    http = [(method, path) for path, route in found if isinstance(route, APIRoute) for method in route.methods]
    sockets = [path for path, route in found if isinstance(route, APIWebSocketRoute)]
    other = [path for path, route in found if not isinstance(route, APIRoute | APIWebSocketRoute)]
    assert all(path.startswith("/ui/static") for path in other), other  # (no other kind of route)
    return http, sockets


def flat(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, BaseRoute]]:
    """(full path, route) of each route, through the routers included (FastAPI keeps them nested)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from flat(inner.routes, prefix + route.include_context.prefix)  # type: ignore[attr-defined]
        else:
            yield prefix + getattr(route, "path", ""), route


def filled(path: str, names: dict[str, str]) -> str:
    """`path` with each parameter filled with the name of the kind it asks for."""

    def one(match: re.Match[str]) -> str:
        param = match.group(1)
        if "secret" in path and param == "name":
            return names["secret"]
        if "tokens" in path and param == "name":
            return names["token"]
        if param == "call_id":
            return names["call"]
        return names["tool"] if param == "name" else {"action": "delete", "decision": "approve"}.get(param, "1")

    return re.sub(r"\{([^}]+)\}", one, path)


def outcome(response: httpx.Response) -> tuple[int, object]:
    """What the caller learns: the status and the error code, if any."""
    try:
        body = response.json()
    except ValueError:
        return response.status_code, None
    return response.status_code, body.get("code") if isinstance(body, dict) else None


class WebVisitor:
    """A browser signed in to the page with a token (httpx keeps its cookies)."""

    def __init__(self, server: ServerProcess, token: str) -> None:
        self.http = httpx.Client(base_url=server.url, timeout=30)
        form = self.http.get("/ui/sign-in")
        signed = self.http.post("/ui/sign-in", data={"token": token, "csrf_token": csrf_of(form.text)})
        assert signed.status_code == 303, signed.text
        self.csrf = csrf_of(self.http.get("/ui/tools").text)

    def call(self, method: str, path: str) -> httpx.Response:
        data = {"csrf_token": self.csrf, "reason": "sweep", "source": json.dumps(BODY["definition"]), "x": "5"}
        if method == "GET":
            return self.http.get(path)
        return self.http.post(path, data=data, headers={"HX-Request": "true"})


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, html[:500]
    return found.group(1)


def sweep(server: ServerProcess, attacker: str, routes: list[tuple[str, str]]) -> list[str]:
    """Call every route as `attacker`'s admin with beta's names and with names nobody has:
    the differences (which must be none) and the answers' texts."""
    differences, texts = [], []
    call = server.beta_call  # (and an id of its shape that nobody's call has)
    beta_names, nobody_names = {**BETA_NAMES, "call": call}, {**NOBODY_NAMES, "call": call[:-4] + "0000"}
    bearer = server.client(server.tokens[attacker])
    page = WebVisitor(server, server.tokens[attacker])
    for method, path in sorted(routes):
        if path in ("/health", "/ui/sign-in", "/ui/sign-out", "/openapi.json", "/", "/ui"):
            continue  # (no tenant's data: checked below, or they end the session)
        api = path.startswith("/api/")

        def send(names: dict[str, str], method: str = method, path: str = path, api: bool = api) -> httpx.Response:
            url = filled(path, names)
            if api:
                return bearer.request(method, url, json=BODY, headers={"Last-Event-ID": "0"}, timeout=5)
            return page.call(method, url)

        if "{" not in path:
            if path.endswith("/events"):
                continue  # (a stream that never ends: test_events_are_the_tenants_own)
            listing = send(beta_names).text  # (names nothing: so no name of beta's may be in it)
            texts.append(listing)
            differences += [f"{method} {path} names {name}" for name in beta_names.values() if name in listing]
            continue
        seen, control = send(beta_names), send(nobody_names)
        texts += [seen.text, control.text]
        if outcome(seen) != outcome(control):
            differences.append(f"{method} {path}: beta's names {outcome(seen)}, nobody's {outcome(control)}")
        assert seen.status_code < 500 and control.status_code < 500, (method, path, seen.text, control.text)
    bearer.close()
    page.http.close()
    return differences + [text for text in texts if MARK_B in text or "x * 3" in text or "x + 1" in text]


@pytest.mark.parametrize("attacker", ["alpha", "default"])
def test_every_route_tells_another_tenant_nothing_and_changes_nothing_of_it(two_tenants, attacker, tmp_path):
    routes, _ = app_routes(tmp_path)
    before = beta_state(two_tenants.registry)
    leaks = sweep(two_tenants, attacker, routes)
    assert leaks == []
    assert beta_state(two_tenants.registry) == before  # nothing of beta's run, changed or approved
    with two_tenants.client(two_tenants.tokens["beta"]) as beta:  # beta's `shared` is still its own
        assert beta.post("/api/v1/tools/shared/execute", json={"args": {"x": 5}}).json()["result"] == 15


def test_tools_with_one_name_run_each_tenants_own_logic(two_tenants):
    results = {}
    for tenant in ("alpha", "beta"):
        with two_tenants.client(two_tenants.tokens[tenant]) as http:
            results[tenant] = http.post("/api/v1/tools/shared/execute", json={"args": {"x": 5}}).json()["result"]
            listed = http.get("/api/v1/tools/definitions").text
            assert ("beta_only" in listed) == (tenant == "beta")
    assert results == {"alpha": 10, "beta": 15}
    with two_tenants.client(two_tenants.tokens["default"]) as http:
        assert http.get("/api/v1/tools/definitions").json() == []  # the root registry has none of theirs
        assert http.get("/health").json()["tools"] == 0  # (its count: no tenant's)


def test_an_admin_manages_only_its_own_tenants_tokens(two_tenants):
    with two_tenants.client(two_tenants.tokens["alpha"]) as alpha:
        assert [t["name"] for t in alpha.get("/api/v1/tokens").json()] == ["admin"]
        made = alpha.post("/api/v1/tokens", json={"name": BETA_NAMES["token"], "scope": "read", "kind": "person"})
        assert made.status_code == 201  # (a name beta has: not taken here, and nothing said of beta)
        assert alpha.delete("/api/v1/tokens/admin").status_code == 200  # alpha's own admin, not beta's
    with two_tenants.client(two_tenants.tokens["beta"]) as beta:
        assert beta.get("/api/v1/tokens").status_code == 200  # beta's admin still works
        names = sorted(t["name"] for t in beta.get("/api/v1/tokens").json())
    assert names == ["admin", "agent", BETA_NAMES["token"]]
    with two_tenants.client(made.json()["token"]) as new:  # the token alpha made reaches alpha only
        assert [t["name"] for t in new.get("/api/v1/tools").json()["tools"]] == ["shared"]


def test_events_are_the_tenants_own(two_tenants):
    with two_tenants.client(two_tenants.tokens["alpha"]) as alpha:
        admin_of(alpha, [compute_tool("alpha_last", "x", "the last of alpha's")])  # after all of beta's
        seen = []
        with alpha.stream("GET", "/api/v1/events", headers={"Last-Event-ID": "0"}, timeout=20) as stream:
            for line in stream.iter_lines():
                seen.append(line)
                if "alpha_last" in line:
                    break
    assert not [line for line in seen if "beta_only" in line]
    url = two_tenants.url.replace("http", "ws", 1) + "/api/v1/events"
    headers = {"Authorization": f"Bearer {two_tenants.tokens['alpha']}", "Last-Event-ID": "0"}
    tools = []
    with connect(url, additional_headers=headers, open_timeout=10) as socket:
        while "alpha_last" not in tools:
            tools.append(json.loads(socket.recv(timeout=20)).get("tool"))
    assert "beta_only" not in tools and "shared" in tools


def test_the_web_page_shows_only_the_tenants_tools(two_tenants):
    page = WebVisitor(two_tenants, two_tenants.tokens["alpha"])
    listing = page.http.get("/ui/tools").text
    assert "alpha&#39;s doubling" in listing or "alpha's doubling" in listing
    assert MARK_B not in listing and "beta_only" not in listing
    assert MARK_B not in page.http.get("/ui/tools/shared").text
    page.http.close()


def test_tenant_names_cannot_name_a_path(tmp_path):
    for bad in ("../x", "A", "a/b", ".hidden", "x" * 41, "default/../.."):
        done = subprocess.run(
            [sys.executable, "-m", "toolkiln", "tenants", "create", bad, "--registry", str(tmp_path / "r")],
            capture_output=True,
            text=True,
            env=os.environ,
        )
        assert done.returncode != 0 and "R0750" in done.stderr, (bad, done.stderr)
    assert not (tmp_path / "x").exists() and not (tmp_path / "r" / "tenants").exists()
