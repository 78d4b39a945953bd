"""How long other requests wait while one is held in the slowest path, and what the check's
budget costs a quick check.

    python benchmarks/bench_stalls.py [--examples 20] [--probes 20]

1. Starts `toolkiln serve` on a fresh registry holding one compute tool, sends
   POST /api/v1/tools/validate with a definition whose --examples examples each run for the
   whole max_seconds (1 s), and while it is in flight sends --probes GET /health and --probes
   executes of the tool, one every 0.1 s. Prints the validate's time and answer and the
   probes' p50 and max latency.
2. In this process: `check_definition` of a small compute tool without and with a budget
   (the budget runs the check in a thread of its own), best of 2,000 each.

Run it again with PYTHONPATH at an older checkout to compare (part 2 needs the budget).
A script, not a test.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' server process helper

from test_server_support import ServerProcess, compute_tool, make_tokens  # noqa: E402

from toolkiln import Registry  # noqa: E402

SPIN = "len([v ** 0.12345 + v ** 0.54321 for v in range(n)])"  # n = 60,000: within the operations, past max_seconds


def spinning(examples: int) -> dict:
    return {
        "name": "spin",
        "description": "Spins",
        "parameters": {"n": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": SPIN}]},
        "examples": [{"args": {"n": 60_000}, "expect": 60_000}] * examples,
    }


def probe(server: ServerProcess, tokens: dict[str, str], count: int) -> dict[str, list[float]]:
    """Latencies (s) of /health and of an execute, sent every 0.1 s (a timeout counts as 30 s)."""
    found: dict[str, list[float]] = {"GET /health": [], "POST .../double/execute": []}
    run = {"Authorization": f"Bearer {tokens['run']}"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for _ in range(count):
            for label, send in (
                ("GET /health", lambda: client.get("/health")),
                (
                    "POST .../double/execute",
                    lambda: client.post("/api/v1/tools/double/execute", json={"args": {"x": 1}}, headers=run),
                ),
            ):
                started = time.perf_counter()
                try:
                    send()
                    found[label].append(time.perf_counter() - started)
                except httpx.TimeoutException:
                    found[label].append(30.0)
            time.sleep(0.1)
    return found


def held_validate(examples: int, probes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        registry = Path(folder) / "registry"
        with Registry(registry) as reg:
            reg.create(compute_tool("double"))
        tokens = make_tokens(registry)
        server = ServerProcess(registry)
        try:
            answer: dict[str, object] = {}

            def validate() -> None:
                started = time.perf_counter()
                headers = {"Authorization": f"Bearer {tokens['read']}"}
                reply = httpx.post(
                    f"{server.url}/api/v1/tools/validate",
                    json={"definition": spinning(examples)},
                    headers=headers,
                    timeout=120,
                )
                answer.update(seconds=time.perf_counter() - started, status=reply.status_code)
                answer["code"] = reply.json().get("code") or f"valid={reply.json().get('valid')}"

            held = threading.Thread(target=validate)
            held.start()
            time.sleep(0.3)
            latencies = probe(server, tokens, probes)
            held.join()
        finally:
            server.stop()
    print(f"validate with {examples} examples of 1 s: {answer['seconds']:.2f} s, {answer['status']} {answer['code']}\n")
    print("| probe, while it was in flight | p50 (ms) | max (ms) |")
    print("|---|---:|---:|")
    for label, values in latencies.items():
        print(f"| {label} | {statistics.median(values) * 1000:.1f} | {max(values) * 1000:.1f} |")


def budget_cost(rounds: int = 2000) -> None:
    small = compute_tool("small")
    with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "r") as reg:
        if not hasattr(reg, "check_seconds"):
            print("\n(this checkout has no check budget: part 2 skipped)")
            return
        rows = []
        for label, call in (
            ("check_definition(small)", lambda: reg.check_definition(small)),
            ("check_definition(small, seconds=2)", lambda: reg.check_definition(small, seconds=2.0)),
        ):
            best = min(_timed(call) for _ in range(rounds))
            rows.append((label, best))
    print("\n| in this process | best of 2,000 (us) |")
    print("|---|---:|")
    for label, best in rows:
        print(f"| {label} | {best * 1e6:.0f} |")


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n")
    held_validate(args.examples, args.probes)
    budget_cost()


if __name__ == "__main__":
    main()
