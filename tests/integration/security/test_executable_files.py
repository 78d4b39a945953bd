"""Red team (issue 24, items 2 and 3): an executable tool's file, as a real `toolkiln serve`
reads it. Even inside a folder the operator allowed (`--allow executables=DIR`), the path must
name a regular file: a FIFO or a device answers at once instead of freezing the server, a
link is refused, and a file that is no program is never handed to /bin/sh, whose errors
quoted each of its lines back (R0611). On the main before this change each attack succeeded.
"""

from __future__ import annotations

import os
import signal

import httpx
import pytest
from test_server_support import ServerProcess, make_tokens

pytestmark = pytest.mark.usefixtures("bwrap_installed")

MARKER = "x9-hidden-hash"
SECRET = f"root:{MARKER}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"


def executable(name: str, path: object) -> dict:
    return {"kind": "executable", "name": name, "description": "Reads a file.", "path": str(path)}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("executable-files")
    tools = folder / "tools"
    tools.mkdir()
    (tools / "secret").write_text(SECRET)  # a text file in the allowed folder: no `#!`
    os.mkfifo(tools / "fifo")
    (tools / "shadow").symlink_to("/etc/shadow")
    (tools / "zero").symlink_to("/dev/zero")
    registry = folder / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry, f"--allow=executables={tools}")
    process.tokens, process.tools = tokens, tools
    yield process
    # a request the old server left blocked in open() is released by a writer
    os.close(os.open(tools / "fifo", os.O_RDWR))
    assert process.stop() in (0, -signal.SIGTERM)


def answer_within(server: ServerProcess, path: str, body: dict, seconds: float = 10.0) -> httpx.Response:
    """The answer to one POST, which must come within `seconds` (the old server never answered)."""
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {server.tokens['admin']}"}) as http:
        try:
            return http.post(path, json=body, timeout=seconds)
        except httpx.TimeoutException:
            pytest.fail(f"POST {path} did not answer within {seconds} s")


@pytest.mark.parametrize("route", ["/api/v1/tools", "/api/v1/tools/validate"])
@pytest.mark.parametrize(
    ("entry", "what"), [("fifo", "a FIFO"), ("zero", "a symbolic link"), ("shadow", "a symbolic link")]
)
def test_a_path_that_is_no_regular_file_answers_at_once_with_r0613(server, route, entry, what):
    answer = answer_within(server, route, {"definition": executable(f"tool_{entry}", server.tools / entry)})
    if route.endswith("validate"):
        diagnostics = answer.json()["diagnostics"]
        assert [(d["code"], what in d["message"]) for d in diagnostics] == [("R0613", True)], answer.text
    else:
        assert (answer.status_code, answer.json()["code"]) == (422, "R0613"), answer.text
    with server.client() as http:
        assert http.get("/health", timeout=5).status_code == 200


def test_a_file_that_is_no_program_is_not_run_and_not_quoted(server):
    made = answer_within(server, "/api/v1/tools", {"definition": executable("leak", server.tools / "secret")})
    assert made.status_code == 201, made.text
    with server.client(server.tokens["run"]) as http:
        ran = http.post("/api/v1/tools/leak/execute", json={"args": {}})
    assert ran.json()["code"] == "R0614", ran.text
    assert MARKER not in ran.text and "daemon" not in ran.text
