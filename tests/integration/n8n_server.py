"""Install, start, set up and stop a real n8n on 127.0.0.1 for tests (and by hand): 2.41.1 by
default, another release with TOOLKILN_N8N_VERSION (1.123.50 is supported too).

    python tests/integration/n8n_server.py      # starts n8n, prints URL and API key, Ctrl-C stops it
    TOOLKILN_N8N_VERSION=1.123.50 python -m pytest -m n8n tests/integration

The install is `scripts/n8n-install.sh` (cached; TOOLKILN_N8N_HOME overrides the folder). n8n 2.x
runs on the Node 24 the script installs beside it (`<home>/bin/node`, first on PATH). The
server gets a throwaway user folder, free loopback ports and the environment that is known to
work (no telemetry, no version checks, SQLite). An API key comes from n8n's REST API: owner
setup (or login), the scopes list, then API key creation. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO / "scripts" / "n8n-install.sh"
DEFAULT_N8N_VERSION = "2.41.1"
# The release the install script installs and the tests run (the script reads the same variable).
N8N_VERSION = os.environ.get("TOOLKILN_N8N_VERSION") or DEFAULT_N8N_VERSION
INSTALL_TIMEOUT = 30 * 60  # a cold install takes ~7-10 minutes
READY_TIMEOUT = 180.0  # 16-23 s is usual on a fresh folder; its migrations took over 60 s at load 16
STOP_TIMEOUT = 15.0

OWNER = {"email": "owner@toolkiln.test", "firstName": "Tool", "lastName": "Kiln", "password": "Toolkiln-test-1"}


class N8nServerError(RuntimeError):
    """The test server could not be installed, started or set up; the message says which step."""


def install(timeout: float = INSTALL_TIMEOUT, progress: Callable[[str], None] | None = None) -> Path:
    """Run the install script (returns at once when cached); the install folder. Each line the
    script prints on stderr (its announcement and progress) goes to `progress` as it comes."""
    proc = subprocess.Popen(
        ["bash", str(INSTALL_SCRIPT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a timeout ends npm and its children too
    )
    stdout: list[str] = []
    reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    watchdog = threading.Timer(timeout, kill)
    watchdog.start()
    stderr: list[str] = []
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            stderr.append(line)
            if progress is not None:
                progress(line.rstrip("\n"))
        proc.wait()
        reader.join()
    except BaseException:  # Ctrl-C included: its own session keeps npm from seeing the SIGINT
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        watchdog.cancel()
    if timed_out.is_set():
        raise N8nServerError(f"{INSTALL_SCRIPT} did not finish in {timeout:.0f} s")
    if proc.returncode != 0:
        raise N8nServerError(f"{INSTALL_SCRIPT} failed (exit {proc.returncode}):\n{''.join(stderr)[-4000:]}")
    lines = "".join(stdout).strip().splitlines()
    if not lines:
        raise N8nServerError(f"{INSTALL_SCRIPT} printed no install folder")
    home = Path(lines[-1])
    if not (home / "node_modules" / ".bin" / "n8n").exists():
        raise N8nServerError(f"the install script reported {home}, which has no node_modules/.bin/n8n")
    return home


def installed_version(home: Path) -> str:
    """The version of the n8n installed in `home` (its package.json)."""
    package = home / "node_modules" / "n8n" / "package.json"
    return str(json.loads(package.read_text(encoding="utf-8"))["version"])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def n8n_environment(port: int, broker_port: int, user_folder: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    node_bin = home / "bin"  # the Node 24 of an n8n 2.x install; n8n's launcher runs `env node`
    if (node_bin / "node").exists():
        env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    if installed_version(home).split(".")[0] != "1":
        # n8n 2.x fetches its MCP server list from api.n8n.io at start (1.x has no such module
        # and refuses the name).
        env["N8N_DISABLED_MODULES"] = "mcp-registry"
    env.update(
        {
            "N8N_PORT": str(port),
            "N8N_USER_FOLDER": str(user_folder),
            "N8N_LISTEN_ADDRESS": "127.0.0.1",
            "N8N_HOST": "127.0.0.1",
            "N8N_PROTOCOL": "http",
            "WEBHOOK_URL": f"http://127.0.0.1:{port}/",
            "N8N_SECURE_COOKIE": "false",
            "N8N_DIAGNOSTICS_ENABLED": "false",
            "N8N_PERSONALIZATION_ENABLED": "false",
            "N8N_VERSION_NOTIFICATIONS_ENABLED": "false",
            "N8N_TEMPLATES_ENABLED": "false",
            "N8N_COMMUNITY_PACKAGES_ENABLED": "false",
            "N8N_RUNNERS_ENABLED": "true",
            "N8N_RUNNERS_BROKER_PORT": str(broker_port),
            "DB_TYPE": "sqlite",
            "GENERIC_TIMEZONE": "UTC",
        }
    )
    return env


@dataclass
class N8nServer:
    """One running n8n. `start()` returns once GET /rest/settings answers 200."""

    home: Path
    port: int = field(default_factory=free_port)
    broker_port: int = field(default_factory=free_port)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="toolkiln-n8n-")))
    process: subprocess.Popen | None = None
    startup_seconds: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "n8n.log"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def start(self, timeout: float = READY_TIMEOUT) -> N8nServer:
        if self.port == self.broker_port:
            self.broker_port = free_port()
        user_folder = self.workdir / "user"
        user_folder.mkdir(parents=True, exist_ok=True)
        began = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [str(self.home / "node_modules" / ".bin" / "n8n"), "start"],
                cwd=self.workdir,
                env=n8n_environment(self.port, self.broker_port, user_folder, self.home),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_ready(began + timeout)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def _wait_ready(self, deadline: float) -> None:
        with httpx.Client(timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise N8nServerError(
                        f"n8n exited with {self.process.returncode} while starting; "
                        f"log {self.log_path}:\n{self.log_tail()}"
                    )
                # While it boots, n8n answers every path with 200 "n8n is starting up" (text/html),
                # then 404 HTML; ready is the real settings JSON.
                try:
                    reply = http.get(f"{self.url}/rest/settings")
                    if (
                        reply.status_code == 200
                        and reply.headers.get("content-type", "").startswith("application/json")
                        and "data" in reply.json()
                    ):
                        return
                except (httpx.HTTPError, ValueError):
                    pass
                time.sleep(0.5)
        raise N8nServerError(
            f"n8n did not answer GET /rest/settings with its JSON within {READY_TIMEOUT:.0f} s; "
            f"log {self.log_path}:\n{self.log_tail()}"
        )

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, then SIGKILL (to n8n's own process group) if it has not exited in `timeout`."""
        proc, self.process = self.process, None
        code = None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                code = proc.wait(5)
        elif proc is not None:
            code = proc.returncode
        return code

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def create_api_key(self, label: str = "toolkiln-tests") -> str:
        """Owner setup (or login), then an API key with every scope; its raw value."""
        with httpx.Client(base_url=self.url, timeout=30.0) as http:
            setup = http.post("/rest/owner/setup", json=OWNER)
            if setup.status_code != 200:
                login = http.post(
                    "/rest/login", json={"emailOrLdapLoginId": OWNER["email"], "password": OWNER["password"]}
                )
                if login.status_code != 200:
                    raise N8nServerError(
                        f"owner setup answered {setup.status_code} {setup.text[:300]!r} "
                        f"and login {login.status_code} {login.text[:300]!r}"
                    )
            scopes = http.get("/rest/api-keys/scopes")
            try:
                scope_list = scopes.json()["data"] if scopes.status_code == 200 else None
            except (ValueError, KeyError, TypeError):
                scope_list = None
            if not isinstance(scope_list, list):
                raise N8nServerError(f"GET /rest/api-keys/scopes: {scopes.status_code} {scopes.text[:300]!r}")
            created = http.post("/rest/api-keys", json={"label": label, "scopes": scope_list, "expiresAt": None})
            if created.status_code != 200:
                raise N8nServerError(f"POST /rest/api-keys: {created.status_code} {created.text[:300]!r}")
            try:
                return created.json()["data"]["rawApiKey"]
            except (ValueError, KeyError, TypeError) as exc:
                raise N8nServerError(
                    f"POST /rest/api-keys answered without data.rawApiKey: {created.text[:300]!r}"
                ) from exc


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    try:
        began = time.monotonic()
        home = install(progress=lambda line: print(line, file=sys.stderr, flush=True))
        print(f"installed: {home} ({time.monotonic() - began:.1f} s)", file=sys.stderr)
        server = N8nServer(home).start()
    except N8nServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        key = server.create_api_key()
        print(f"n8n {N8N_VERSION} ready in {server.startup_seconds:.1f} s (log: {server.log_path})", file=sys.stderr)
        print(f"export TOOLKILN_N8N_URL={server.url}")
        print(f"export TOOLKILN_N8N_API_KEY={key}", flush=True)
        print("Ctrl-C (or SIGTERM) stops it.", file=sys.stderr)
        signal.signal(signal.SIGTERM, _interrupt)
        while server.process is not None and server.process.poll() is None:
            time.sleep(1)
        print("n8n exited", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except N8nServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        server.cleanup()


if __name__ == "__main__":
    sys.exit(main())
