"""`toolkiln serve` processes forked from one that has imported the server already (this module
holds no tests).

A new `python -m toolkiln serve` spends 1.5 s of CPU (several seconds of wall time on a loaded
machine) importing FastAPI, uvicorn, the routes and the registry before it listens, and the
integration tests start about a hundred of them. Here one helper process per test process
(multiprocessing's fork server) imports those modules once; each server is a fork of it that
runs the CLI's own `main(["serve", ...])` with the test's environment and its output in the
test's log: the same code from the command line on, in a process of its own with its own pid,
signals and exit status. What a fork cannot show, the interpreter's start-up and imports, is
what tests/integration/test_serve_startup.py checks on a fresh `python -m toolkiln serve`.
"""

from __future__ import annotations

import atexit
import io
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import subprocess
import sys
from pathlib import Path

# What a server imports before it listens (found with `python -X importtime`); a module left
# out is imported by each fork, which costs time, never correctness.
SERVER_IMPORTS = [
    "toolkiln.cli",
    "toolkiln.cli.serve",
    "toolkiln.server.app",
    "toolkiln.server.http_protocol",
    "uvicorn",
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.lifespan.on",
    "uvicorn.loops.uvloop",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "limits",
    "httpx",
]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(SERVER_IMPORTS)


class ForkedProcess:
    """The part of subprocess.Popen the tests use, for a process of the fork server's: its exit
    status comes from the fork server, which reaps it."""

    def __init__(self, process: multiprocessing.process.BaseProcess) -> None:
        self._process = process
        self.pid: int = process.pid  # type: ignore[assignment]

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(f"toolkiln (pid {self.pid})", timeout or 0.0)
        return self._process.exitcode

    def send_signal(self, sig: int) -> None:
        if self._process.exitcode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def start(argv: list[str], env: dict[str, str], log: Path) -> ForkedProcess:
    """`toolkiln ARGV` in a fork of the preloaded process, with `env` as its whole environment and
    its standard output and error appended to `log`."""
    process = _context.Process(target=_run_toolkiln, args=(argv, env, str(log)), daemon=True)
    process.start()
    return ForkedProcess(process)


def fork_server_pid() -> int | None:
    """The fork server's pid once it runs (benchmarks/suite_time_plugin.py counts the CPU of the
    servers it reaped)."""
    return multiprocessing.forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]


def _run_toolkiln(argv: list[str], env: dict[str, str], log: str) -> None:
    """In the fork: what `python -m toolkiln ARGV` does after its imports, down to the exit
    status and the exit functions (the registry flushes its usage counts in one)."""
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    for standard in (1, 2):
        os.dup2(descriptor, standard)
    os.close(descriptor)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["toolkiln", *argv]
    from toolkiln.cli import main

    try:
        code = main(argv)
    finally:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code)
