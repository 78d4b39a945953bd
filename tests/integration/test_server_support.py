"""Real `toolkiln serve` processes for the server tests (this module holds no tests).

A server runs as `python -m toolkiln serve` on 127.0.0.1 and a free port, on a registry folder
of the test's own; tokens are made with the same TokenStore the CLI uses.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import server_forks

from toolkiln.server.state import state_folder
from toolkiln.server.tokens import SCOPES, TokenStore


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def mcp_over_http(args: list[str], port: int) -> Iterator[str]:
    """`toolkiln mcp --http ARGS` on `port`: its URL once it says it listens (its own socket: a
    connect alone could reach another process that took the free port meanwhile); stopped
    (SIGTERM) at the end. Its standard error is read all along, so it never fills the pipe."""
    process = subprocess.Popen([sys.executable, "-m", "toolkiln", "mcp", *args], stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    listening = threading.Event()

    def read_stderr() -> None:
        for line in process.stderr:  # type: ignore[union-attr]
            said.append(line)
            if line.startswith("toolkiln mcp: listening on"):
                listening.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while not listening.wait(0.05):
            if process.poll() is not None:
                reader.join(timeout=10)  # (all it said before it ended)
                raise AssertionError("toolkiln mcp --http ended before it listened:\n" + "".join(said))
            assert time.monotonic() < deadline, "toolkiln mcp --http did not start:\n" + "".join(said)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


class ServerProcess:
    def __init__(
        self,
        registry: Path | str,
        *options: str,
        wait: bool = True,
        env: dict[str, str] | None = None,
        log_dir: Path | None = None,
        fresh_interpreter: bool = False,
    ) -> None:
        """`registry`: a folder, or a database's URL (then `log_dir` says where the log goes).
        The server is a fork of a process that has imported it already (server_forks.py), or
        with `fresh_interpreter` a new `python -m toolkiln serve`, imports and all."""
        self.registry = registry
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # no n8n unless `env` names one: deploy is 503
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKILN_N8N")} | (env or {})
        self.log = (log_dir or Path(registry).parent) / f"server-{self.port}.log"
        argv = ["serve", "--registry", str(registry), "--port", str(self.port), *options]
        self.log.write_bytes(b"")
        if fresh_interpreter:
            with open(self.log, "wb") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "toolkiln", *argv], stdout=log, stderr=subprocess.STDOUT, env=env
                )
        else:
            self.process = server_forks.start(argv, env, self.log)
        if wait:
            self.wait_until_up()

    def wait_until_up(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=30)


def answer(http: httpx.Client, method: str, url: str, **request: object) -> httpx.Response:
    """The server's answer to one request, its body read, except an event stream's (it never
    ends: its status and headers are what a caller sweeping every route can check)."""
    with http.stream(method, url, **request) as response:  # type: ignore[arg-type]
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.read()
    return response


def make_token(registry: Path, name: str, scope: str, kind: str) -> str:
    """A new token of the server on `registry`, for a holder of `kind` (person, model, service)."""
    return TokenStore(state_folder(registry)).create(name, scope, kind)[0]


def make_tokens(registry: Path) -> dict[str, str]:
    """One person's token per scope, named after it."""
    return {scope: make_token(registry, scope, scope, "person") for scope in SCOPES}


def served_registry(folder: Path) -> Iterator[ServerProcess]:
    """A `toolkiln serve` on a new registry in `folder`, with a token per scope (`.tokens`);
    stopped at the end, by the signal uvicorn ends with (a module fixture yields from it)."""
    registry = folder / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry)
    process.tokens = tokens
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


def compute_tool(name: str, expression: str = "x * 2", description: str = "Doubles a number", **extra: object) -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": expression}]},
        **extra,
    }
