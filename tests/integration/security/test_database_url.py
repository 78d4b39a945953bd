"""The password of a registry's database URL reaches no caller of a server and no log line,
whatever the caller's token: not a REST route, not the web page, not an error that names the
database (the secrets routes' refusal; a database dropped under the server). Before 2026-11-29
a server on a database did not start; the no-tokens hint then printed the URL as given."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import psycopg
from test_server_support import ServerProcess, answer

from toolkiln import Registry
from toolkiln.server.db_tokens import tokens_for
from toolkiln.server.tokens import SCOPES

PASSWORD = "pg-pw-do-not-show-1618"
TOOL = json.loads((Path(__file__).resolve().parents[3] / "examples" / "shipping_cost.json").read_text())


def concrete(path: str) -> str:
    """A route's path with its parameters filled in: the tool that exists, its version 1."""
    path = path.replace("{name}", TOOL["name"]).replace("{version}", "1")
    return re.sub(r"\{[^}]+\}", "no_such_thing", path)


def body_of(response: httpx.Response) -> str:
    """What a caller reads: the body, or an event stream's status and headers (it never ends)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return f"{response.status_code} {dict(response.headers)}"
    return response.text


def signed_in_pages(server: ServerProcess, token: str) -> list[str]:
    """The web page's views of the tool, signed in with `token`."""
    with server.client() as browser:
        page = browser.get("/ui/sign-in")
        csrf = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        signed = browser.post("/ui/sign-in", data={"token": token, "acting_as": "user", "csrf_token": csrf})
        assert signed.status_code == 303, signed.text
        return [browser.get(path).text for path in ("/ui/tools", f"/ui/tools/{TOOL['name']}")]


def test_no_route_page_error_or_log_line_shows_the_database_password(postgres_url, tmp_path):
    url = postgres_url.replace("toolkiln@", f"toolkiln:{PASSWORD}@")
    with Registry(url) as reg:  # (the tokens are in the database, schema version 2)
        tokens = tokens_for(reg._store, reg.location, tmp_path / "state")
        made = {scope: tokens.create(scope, scope, "person")[0] for scope in SCOPES}
    server = ServerProcess(url, log_dir=tmp_path)
    seen: list[str] = []
    try:
        with server.client(made["admin"]) as admin:
            assert admin.post("/api/v1/tools", json={"definition": TOOL}).status_code == 201
            paths = [path for path, item in admin.get("/openapi.json").json()["paths"].items() if "get" in item]
        for scope in ("read", "admin"):
            with server.client(made[scope]) as http:
                seen += [body_of(answer(http, "GET", concrete(path))) for path in paths]
            seen += signed_in_pages(server, made[scope])
        with psycopg.connect(postgres_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{postgres_url.rsplit("/", 1)[1]}" WITH (FORCE)')
        with server.client(made["read"]) as http:
            gone = http.get("/api/v1/tools")
        assert gone.status_code == 503 and gone.json()["code"] == "R0302", gone.text
        with server.client(made["admin"]) as http:
            told = http.get("/api/v1/tools").text
        assert "***@" in told  # an admin is told which database, without its password
        seen += [gone.text, told]
    finally:
        server.stop()
    assert len(seen) > 20 and not [text[:200] for text in seen if PASSWORD in text]
    assert PASSWORD not in server.log.read_text(errors="replace")
