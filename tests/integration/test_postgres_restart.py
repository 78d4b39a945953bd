"""PostgreSQL stopped and started again under a running `toolkiln serve` (issue 29), on a
cluster of this test's own: while it is down, requests get a coded 503 that tells a token
without the admin scope nothing of where the database is; once it is back the server
reconnects by itself, sees what another process changed while it was away, and has lost
nothing it acknowledged."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from postgres_support import fresh_database, own_cluster, pg_ctl
from test_server_support import ServerProcess, compute_tool

from toolkiln import Registry
from toolkiln.server.db_tokens import tokens_for

pytestmark = pytest.mark.slow  # (about 75 s: its own cluster, and two requests that wait out the outage)

BACK_SECONDS = 30  # (the listener retries each second; a loaded machine may take longer)
STORE_CODES = ("R0302", "R0306")


def test_a_restart_under_a_running_server_answers_503_then_catches_up(tmp_path):
    with own_cluster() as (cluster_url, data), fresh_database(cluster_url) as url:
        with Registry(url) as reg:
            reg.create(compute_tool("before"))
            tokens = tokens_for(reg._store, reg.location, tmp_path / "state")
            admin = tokens.create("ops", "admin", "person")[0]
            read = tokens.create("viewer", "read", "person")[0]
        server = ServerProcess(url, log_dir=tmp_path)
        parts = urlsplit(url)
        where = [parts.hostname, str(parts.port), parts.path.strip("/"), f"{parts.username}@"]
        try:
            with server.client(admin) as http:
                made = http.post("/api/v1/tools", json={"definition": compute_tool("acknowledged", "x + 1")})
            assert made.status_code == 201, made.text
            options = (data / "postmaster.opts").read_text().split(None, 1)[1]  # (as it was started)
            assert pg_ctl(data, "stop", "-m", "fast", "-w").returncode == 0
            with server.client(read) as http:
                down = http.get("/api/v1/tools")
            assert down.status_code == 503 and down.json()["code"] in STORE_CODES, down.text
            assert not [part for part in where if part in down.text], down.text
            with server.client(admin) as http:
                told = http.get("/api/v1/tools")
            assert told.status_code == 503 and parts.path.strip("/") in told.text, told.text  # (the admin sees where)
            started = pg_ctl(data, "start", "-w", "-l", str(data.parent / "server.log"), "-o", _unquoted(options))
            assert started.returncode == 0, started.stderr
            with Registry(url) as elsewhere:  # changed by another process while the server may still be away
                elsewhere.create(compute_tool("while_away", "x * 3"))
            deadline = time.monotonic() + BACK_SECONDS
            while not _lists(server, read, {"before", "acknowledged", "while_away"}):
                assert time.monotonic() < deadline, f"the server did not catch up:\n{server.log.read_text()[-3000:]}"
                time.sleep(0.2)
            with server.client(admin) as http:
                ran = http.post("/api/v1/tools/while_away/execute", json={"args": {"x": 2}})
                again = http.post("/api/v1/tools", json={"definition": compute_tool("after")})
            assert ran.status_code == 200 and ran.json()["result"] == 6, ran.text
            assert again.status_code == 201, again.text
        finally:
            server.stop()
        with Registry(url) as reg:
            assert sorted(record.name for record in reg.list()) == ["acknowledged", "after", "before", "while_away"]


def _lists(server: ServerProcess, token: str, names: set[str]) -> bool:
    with server.client(token) as http:
        listed = http.get("/api/v1/tools")
    return listed.status_code == 200 and names <= {tool["name"] for tool in listed.json()["tools"]}


def _unquoted(options: str) -> str:
    """postmaster.opts' options ("-c" "listen_addresses=..." ...) as pg_ctl -o takes them."""
    return " ".join(word.strip('"') for word in options.split())
