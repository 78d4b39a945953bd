"""Red team: a registry folder cannot vouch for itself (issue 24, items 8 and 9).

A folder from someone else (a clone, an archive, a shared drive) brought its own `.server/`:
the server believed its tokens.json and wrote its request log through a link the folder held.
Each test is such a folder served by a real `toolkiln serve`; on the main of 2026-11-28 each
attack succeeded."""

from __future__ import annotations

import json
import signal

from test_server_support import ServerProcess, compute_tool, make_tokens

from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore


def test_a_folders_own_token_file_gives_no_token(tmp_path):
    registry = tmp_path / "registry"
    planted, _ = TokenStore(registry / ".server").create("author", "admin", "person")  # the folder's author's
    server = ServerProcess(registry)
    try:
        with server.client(planted) as http:
            answer = http.get("/api/v1/tools")
            assert answer.status_code == 401, answer.text
            assert http.post("/api/v1/tokens", json={"name": "mine", "scope": "admin"}).status_code == 401
    finally:
        assert server.stop() in (0, -signal.SIGTERM)
    said = server.log.read_text()
    assert f"{registry / '.server'} is not read" in said
    assert f"toolkiln tokens import --from {registry / '.server'}" in said


def test_a_request_log_link_in_the_folder_is_neither_followed_nor_created(tmp_path):
    registry = tmp_path / "registry"
    (registry / ".server").mkdir(parents=True)
    target = tmp_path / "outside" / "created-through-the-link"
    target.parent.mkdir()
    (registry / ".server" / "requests.jsonl").symlink_to(target)
    tokens = make_tokens(registry)
    server = ServerProcess(registry)
    try:
        with server.client(tokens["write"]) as http:
            assert http.post("/api/v1/tools", json={"definition": compute_tool("doubled")}).status_code == 201
    finally:
        assert server.stop() in (0, -signal.SIGTERM)
    assert not target.exists()
    logged = (state_folder(registry) / "requests.jsonl").read_text().splitlines()
    assert [(line["token"], line["path"], line["status"]) for line in map(json.loads, logged)] == [
        ("write", "/api/v1/tools", 201)
    ]
