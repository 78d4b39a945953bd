"""Red team: a registry folder cannot vouch for itself (issue 24, items 8 and 9).

A folder from someone else (a clone, an archive, a shared drive) brought its own `.server/`:
the server believed its tokens.json and wrote its request log through a link the folder held.
Each test is such a folder served by a real `toolkiln serve`; on the main of 2026-11-28 each
attack succeeded."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import pytest
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens

from toolkiln import Registry
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

# A clone's tools: what their files claim is what the review's folder claimed.
ESCAPE = {
    "kind": "script",
    "name": "escape",
    "description": "Runs on the host.",
    "runtime": "bash",
    "body": 'echo \'{"ran": "on the host"}\'',
    "sandbox": "none",
}
BOXED = {**ESCAPE, "name": "boxed", "description": "Runs in bubblewrap.", "sandbox": "bubblewrap"}


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


def problem(answer, status: int, code: str) -> None:
    assert (answer.status_code, answer.json().get("code")) == (status, code), answer.text


@pytest.fixture
def cloned(tmp_path):
    """A registry someone else made (signed in their folder), copied whole into ours, served by a
    server that grants unsandboxed runs: the capability is not what stops the clone's tools."""
    with Registry(tmp_path / "theirs") as theirs:
        theirs.create(ESCAPE)
        theirs.create(BOXED)
        theirs.create(compute_tool("doubled"))
    registry = tmp_path / "registry"
    shutil.copytree(tmp_path / "theirs", registry)
    tokens = make_tokens(registry)
    server = ServerProcess(registry, "--allow=unsandboxed")
    server.tokens = tokens
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def test_a_cloned_folders_program_tools_do_not_run_until_trusted(cloned, bwrap_installed):
    with cloned.client(cloned.tokens["admin"]) as http:
        for name in ("escape", "boxed"):
            problem(http.post(f"/api/v1/tools/{name}/execute", json={"args": {}}), 403, "R0710")
            assert http.get(f"/api/v1/tools/{name}").json()["trusted_here"] is False
            problem(http.post(f"/api/v1/tools/{name}/approve"), 403, "R0710")
        assert http.post("/api/v1/tools/doubled/execute", json={"args": {"x": 2}}).json()["result"] == 4
        listed = {t["name"]: t["trusted_here"] for t in http.get("/api/v1/tools").json()["tools"]}
        assert listed == {"boxed": False, "doubled": False, "escape": False}
        trusted = subprocess.run(
            [sys.executable, "-m", "toolkiln", "trust", str(cloned.registry), "--tool", "escape", "--tool", "boxed"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert trusted.returncode == 0, trusted.stderr
        assert "escape" in trusted.stdout and "sandbox none" in trusted.stdout  # shown before it is trusted
        for name, sandbox in (("escape", "none"), ("boxed", "bubblewrap")):
            ran = http.post(f"/api/v1/tools/{name}/execute", json={"args": {}})
            assert ran.status_code == 200, ran.text
            assert ran.json()["result"]["output"] == {"ran": "on the host"}
            assert ran.json()["result"]["sandbox"] == sandbox
            assert http.get(f"/api/v1/tools/{name}").json()["trusted_here"] is True


def test_a_hand_edited_status_is_not_believed(tmp_path, bwrap_installed):
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    agent = make_token(registry, "agent", "write", "model")
    server = ServerProcess(registry)
    try:
        with server.client(agent) as http:
            made = http.post("/api/v1/tools", json={"definition": BOXED})
            assert made.status_code == 201 and made.json()["status"] == "pending_approval", made.text
        path = registry / "tools" / "boxed.json"
        edited = path.read_text().replace('"pending_approval"', '"active"').replace('"llm"', '"user"')
        (registry / "edited.json").write_text(edited)
        (registry / "edited.json").replace(path)  # saved as an editor saves: the server sees it at once
        with server.client(tokens["admin"]) as http:
            assert http.get("/api/v1/tools/boxed").json()["status"] == "active"  # listed as it says
            problem(http.post("/api/v1/tools/boxed/execute", json={"args": {}}), 403, "R0710")
    finally:
        assert server.stop() in (0, -signal.SIGTERM)
