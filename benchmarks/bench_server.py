"""Load on `toolkiln serve`: many concurrent clients executing a compute tool, and fetching
the tool definitions, for a fixed time.

    python benchmarks/bench_server.py [--clients 200] [--seconds 30] [--tools 20]

Starts `toolkiln serve` (one uvicorn process, no rate limit) on a fresh registry folder
holding --tools compute tools, makes a `run` token, then for each workload runs --clients
concurrent HTTP/1.1 clients (asyncio tasks over httpx, one connection each) in this process
for --seconds, and prints a markdown table: requests, requests per second, p50/p99 latency,
errors (any answer but 200, or no answer). The load generator shares the machine with the
server: on a small machine its own cost is part of what is measured. A script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' server process helper

from test_server_support import ServerProcess, compute_tool  # noqa: E402

from toolkiln import Registry  # noqa: E402
from toolkiln.server.services import server_folder  # noqa: E402
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
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60) as http:

        async def client() -> None:
            nonlocal errors
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

        await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, errors


def row(name: str, latencies: list[float], errors: int, seconds: float) -> str:
    total = len(latencies) + errors
    if not latencies:
        return f"| {name} | {total} | 0 | - | - | {errors} |"
    cuts = statistics.quantiles(latencies, n=100)
    p50, p99 = cuts[49] * 1000, cuts[98] * 1000
    return f"| {name} | {total:,} | {len(latencies) / seconds:,.0f} | {p50:.1f} | {p99:.1f} | {errors} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--tools", type=int, default=20, help="tools in the registry (the definitions' size)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        registry = Path(folder) / "registry"
        with Registry(registry, durable=False) as reg:
            for n in range(args.tools):
                reg.create(compute_tool(f"price_{n}", "round(x * 1.2 + 3.5, 2)", "Price with tax and fee"))
        token, _ = TokenStore(server_folder(registry)).create("bench", "run")
        server = ServerProcess(registry, "--rate-limit", "")
        try:
            workloads = {
                "POST /api/v1/tools/price_0/execute": lambda http: http.post(
                    "/api/v1/tools/price_0/execute", json={"args": {"x": 12.5}}
                ),
                f"GET /api/v1/tools/definitions ({args.tools} tools)": lambda http: http.get(
                    "/api/v1/tools/definitions", params={"format": "openai"}
                ),
            }
            print(f"{datetime.date.today()}, Python {platform.python_version()}, {machine()}")
            print(f"{args.clients} concurrent clients, {args.seconds:g} s per workload, one server process\n")
            print("| workload | requests | requests/s | p50 (ms) | p99 (ms) | errors |")
            print("|---|---:|---:|---:|---:|---:|")
            for name, request in workloads.items():
                latencies, errors = asyncio.run(load(server.url, token, args.clients, args.seconds, request))
                print(row(name, latencies, errors, args.seconds), flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
