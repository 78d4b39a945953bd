"""Load on `toolkiln serve`: many concurrent clients executing a compute tool, and fetching
the tool definitions, for a fixed time.

    python benchmarks/bench_server.py [--clients 200] [--seconds 30] [--tools 20] [--src DIR ...] [--rounds N]
                                      [--rate-limit LIMIT]

Starts `toolkiln serve` (one uvicorn process, no rate limit unless --rate-limit: give one no
load reaches, such as 100000000/minute, to count what the limiter costs) on a fresh registry folder
holding --tools compute tools, makes a `run` token, then for each workload runs --clients
concurrent HTTP/1.1 clients (asyncio tasks over httpx, one connection each) in this process
for --seconds, and prints a markdown table: requests, requests per second, p50/p99 latency,
errors (any answer but 200, or no answer) and the server's CPU time per request (Linux). The
load generator shares the machine with the server: on a small machine its own cost (about as
much CPU a request as the server's) bounds the rate. `--src DIR` (repeatable) runs the server
from that toolkiln src/ tree (first on its PYTHONPATH), so two versions are compared in one run;
`--rounds N` alternates them N times, so that a change of the machine's load hits both alike.
A tree from before the state folder (2026-11-28) reads its tokens from `<registry>/.server/`:
the token file is copied there too. Each round ends with the yardstick: the execute load on a
bare FastAPI endpoint doing the same arithmetic (benchmarks/bare_execute.py, served the same
way), and the ratio of toolkiln's server CPU per execute to the bare one's. A script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' server process helper

from test_server_support import ServerProcess, compute_tool, free_port  # noqa: E402

from toolkiln import Registry  # noqa: E402
from toolkiln.server.state import state_folder  # noqa: E402
from toolkiln.server.tokens import TokenStore  # noqa: E402


def machine() -> str:
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


async def load(
    url: str, token: str, clients: int, seconds: float, request: Callable[[httpx.AsyncClient], object]
) -> tuple[list[float], int]:
    """Latencies (seconds) of the answers that were 200, and the count of the others."""
    latencies: list[float] = []
    errors = 0
    headers = {"Authorization": f"Bearer {token}"}
    # A client (and connection) each, made before the clock starts: one pool of hundreds of
    # connections costs httpx more CPU a request than the server spends on it.
    https = [httpx.AsyncClient(base_url=url, headers=headers, timeout=60, verify=False) for _ in range(clients)]
    deadline = time.perf_counter() + seconds

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal errors
        async with http:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    response = await request(http)  # type: ignore[misc]
                    ok = response.status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    latencies.append(time.perf_counter() - started)
                else:
                    errors += 1

    await asyncio.gather(*(client(http) for http in https))
    return latencies, errors


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of a process (Linux: /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class BareServer:
    """benchmarks/bare_execute.py in a process of its own, until stop()."""

    def __init__(self, token: str) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        script = Path(__file__).with_name("bare_execute.py")
        env = {**os.environ, "BARE_TOKEN": token}
        self.process = subprocess.Popen([sys.executable, str(script), str(port)], env=env, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the bare server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def measured(
    name: str, url: str, pid: int, token: str, args: argparse.Namespace, request: Callable
) -> tuple[str, float | None]:
    """The row of a load, and the server's CPU ms per request (None off Linux)."""
    before = cpu_seconds(pid)
    latencies, errors = asyncio.run(load(url, token, args.clients, args.seconds, request))
    after = cpu_seconds(pid)
    used = None if before is None or after is None else after - before
    total = len(latencies) + errors
    per_request = None if used is None or not total else used / total * 1000
    return row(name, latencies, errors, args.seconds, used), per_request


def row(name: str, latencies: list[float], errors: int, seconds: float, server_cpu: float | None) -> str:
    total = len(latencies) + errors
    cpu = "-" if server_cpu is None or not total else f"{server_cpu / total * 1000:.2f}"
    if not latencies:
        return f"| {name} | {total} | 0 | - | - | {errors} | {cpu} |"
    cuts = statistics.quantiles(latencies, n=100)
    p50, p99 = cuts[49] * 1000, cuts[98] * 1000
    return f"| {name} | {total:,} | {len(latencies) / seconds:,.0f} | {p50:.1f} | {p99:.1f} | {errors} | {cpu} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--tools", type=int, default=20, help="tools in the registry (the definitions' size)")
    parser.add_argument("--src", action="append", help="a toolkiln src/ tree for the server (repeatable)")
    parser.add_argument("--rounds", type=int, default=1, help="times each --src is measured, alternating")
    parser.add_argument("--rate-limit", default="", help="the server's --rate-limit (default: none)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        registry = Path(folder) / "registry"
        with Registry(registry, durable=False) as reg:
            for n in range(args.tools):
                reg.create(compute_tool(f"price_{n}", "round(x * 1.2 + 3.5, 2)", "Price with tax and fee"))
        store = TokenStore(state_folder(registry))
        token, _ = store.create("bench", "run", "person")
        (registry / ".server").mkdir(mode=0o700)  # where a tree from before the state folder looks
        shutil.copy(store.path, registry / ".server" / "tokens.json")
        execute = "POST /api/v1/tools/price_0/execute"

        def run(http: httpx.AsyncClient) -> object:
            return http.post("/api/v1/tools/price_0/execute", json={"args": {"x": 12.5}})

        workloads = {
            execute: run,
            f"GET /api/v1/tools/definitions ({args.tools} tools)": lambda http: http.get(
                "/api/v1/tools/definitions", params={"format": "openai"}
            ),
        }
        print(f"{datetime.date.today()}, Python {platform.python_version()}, {machine()}")
        limit = f"rate limit {args.rate_limit}" if args.rate_limit else "no rate limit"
        print(f"{args.clients} concurrent clients, {args.seconds:g} s per workload, one server process, {limit}\n")
        columns = "requests | requests/s | p50 (ms) | p99 (ms) | errors | server CPU (ms/request)"
        print(f"| server source | workload | {columns} |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        ours: float | None = None
        for _ in range(args.rounds):
            for src in args.src or [None]:
                env = {"PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}
                server = ServerProcess(registry, "--rate-limit", args.rate_limit, env=env if src else None)
                try:
                    for name, request in workloads.items():
                        line, cpu = measured(name, server.url, server.process.pid, token, args, request)
                        print(f"| {src or 'as installed'} {line}", flush=True)
                        ours = cpu if name == execute else ours
                finally:
                    server.stop()
                bare = BareServer(token)
                try:
                    line, cpu = measured(execute, bare.url, bare.process.pid, token, args, run)
                finally:
                    bare.stop()
                ratio = "-" if ours is None or not cpu else f"{ours / cpu:.2f}x"
                print(f"| bare FastAPI (bare_execute.py) {line}", flush=True)
                print(f"| toolkiln execute / bare | | | | | | | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
