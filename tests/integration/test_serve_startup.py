"""`toolkiln serve` as a new user starts it (issue 25, item 3): a port that does not exist is a
usage error, a port in use one coded line and exit 1, and a server nobody can sign in to says
so and how to change that."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from test_server_support import ServerProcess, make_token


def serve(registry: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolkiln", "serve", "--registry", str(registry), *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_port_above_65535_is_a_usage_error(tmp_path: Path) -> None:
    done = serve(tmp_path / "registry", "--port", "99999")
    assert done.returncode == 2
    assert "argument --port: 99999 is not a port number (1 to 65535)" in done.stderr
    assert not (tmp_path / "registry").exists()  # refused before anything was opened


def test_a_port_in_use_is_one_coded_line_and_exit_1(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = serve(tmp_path / "registry", "--port", str(port))
    assert done.returncode == 1
    assert f"error[R0531]: 127.0.0.1:{port} is in use by another program" in done.stderr
    assert "choose another port with --port" in done.stderr
    assert "Application startup complete" not in done.stderr and "Traceback" not in done.stderr


def test_mcp_over_http_on_a_port_in_use_is_the_same_coded_line(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        command = ["mcp", "--http", "--registry", str(tmp_path / "registry"), "--port", str(port)]
        done = subprocess.run([sys.executable, "-m", "toolkiln", *command], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and f"error[R0531]: 127.0.0.1:{port} is in use" in done.stderr


def test_a_server_without_tokens_says_nobody_can_sign_in(tmp_path: Path) -> None:
    # a new `python -m toolkiln serve`, imports and all, as a new user starts it (the other
    # server tests fork one that has imported the server already: server_forks.py)
    server = ServerProcess(tmp_path / "registry", fresh_interpreter=True)
    server.stop()
    log = server.log.read_text()
    assert "no tokens yet, so nobody can sign in" in log
    assert f"toolkiln tokens create NAME --kind person --scope admin --registry {tmp_path / 'registry'}" in log
    assert f"listening on http://127.0.0.1:{server.port}" in log


def test_a_server_with_a_token_gives_no_such_hint(tmp_path: Path) -> None:
    make_token(tmp_path / "registry", "alice", "admin", "person")
    server = ServerProcess(tmp_path / "registry")
    server.stop()
    assert "nobody can sign in" not in server.log.read_text()


def test_a_body_that_is_not_json_says_where_it_breaks(tmp_path: Path) -> None:
    """Issue 25, item 6: on main the problem's path was `body.24`, a character offset read as a field."""
    token = make_token(tmp_path / "registry", "alice", "run", "person")
    server = ServerProcess(tmp_path / "registry")
    try:
        with server.client(token) as http:
            broken = b'{"args": {"a": 1,\n "b": tru}}'
            answer = http.post("/api/v1/tools/x/execute", content=broken, headers={"Content-Type": "application/json"})
    finally:
        server.stop()
    assert answer.status_code == 422
    [problem] = answer.json()["diagnostics"]
    assert problem["path"] == "body" and (problem["line"], problem["column"]) == (2, 7)
    assert problem["message"] == "the body is not JSON: Expecting value at line 2, column 7"
