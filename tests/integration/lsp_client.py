"""A small Language Server Protocol client for the tests: `toolkiln lsp` as a real subprocess,
JSON-RPC messages framed by Content-Length over its standard input and output, read by a
thread into a queue. Raw bytes can be sent too (the hostile-client tests)."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
WAIT_SECONDS = 60.0  # a bound on every wait, so that a hung server fails the test instead of hanging it


class LspClient:
    def __init__(self, *options: str, cwd: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - read and closed by close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "toolkiln", "lsp", *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=cwd,
            env=env,
        )
        self._attach()

    def _attach(self) -> None:
        """Start reading what the server writes (self.process.stdout)."""
        self.ids = itertools.count(1)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.pending: list[dict[str, Any]] = []  # read while waiting for something else
        threading.Thread(target=self._read, daemon=True).start()

    # --- the wire -------------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            assert length is not None, "a message without Content-Length"
            self.messages.put(json.loads(stream.read(length)))

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> dict[str, Any]:
        """The response (with `result` or `error`) to a request."""
        number = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == number and "method" not in m)

    def result(self, method: str, params: Any) -> Any:
        response = self.request(method, params)
        assert "error" not in response, response
        return response["result"]

    def wait_for(self, wanted: Any) -> dict[str, Any]:
        for index, message in enumerate(self.pending):
            if wanted(message):
                return self.pending.pop(index)
        while True:
            try:
                message = self.messages.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                raise AssertionError(f"no answer within {WAIT_SECONDS} s; stderr: {self.stderr_text()}") from None
            if message is None:
                raise AssertionError(f"the server closed its output; stderr: {self.stderr_text()}")
            if wanted(message):
                return message
            self.pending.append(message)

    def notification(self, method: str, wanted: Any = lambda params: True) -> Any:
        """The params of the next notification `method` that `wanted` accepts."""
        message = self.wait_for(lambda m: m.get("method") == method and "id" not in m and wanted(m.get("params")))
        return message["params"]

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")[-4000:]

    # --- the protocol ---------------------------------------------------------------------

    def initialize(self, root: Path, encodings: tuple[str, ...] = ("utf-16",)) -> dict[str, Any]:
        capabilities = {"general": {"positionEncodings": list(encodings)}, "textDocument": {}}
        result = self.result("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, language: str = "toolkiln") -> list[dict[str, Any]]:
        """Open a document; the diagnostics published for it."""
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}
        )
        return self.diagnostics(uri, 1)

    def change(self, path: Path, version: int, changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        uri = path.as_uri()
        self.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
        )
        return self.diagnostics(uri, version)

    def diagnostics(self, uri: str, version: int) -> list[dict[str, Any]]:
        params = self.notification(
            "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p.get("version") == version
        )
        return params["diagnostics"]

    def diagnostics_cleared(self, uri: str) -> None:
        """Wait for the empty diagnostics a closed document gets."""
        self.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"] == [])

    def at(self, method: str, path: Path, line: int, character: int) -> Any:
        position = {"line": line, "character": character}
        return self.result(method, {"textDocument": {"uri": path.as_uri()}, "position": position})

    def close(self) -> int:
        """shutdown, then exit: the server's exit code."""
        if self.process.poll() is None:
            self.result("shutdown", None)
            self.notify("exit", None)
        try:
            return self.process.wait(timeout=WAIT_SECONDS)
        finally:
            self.stderr.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
