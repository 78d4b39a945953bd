"""The web page's tool list over a large registry: how long a page of it takes.

    python benchmarks/bench_web_list.py [--tools 10000] [--rounds 20] [--registry DIR]

Fills a registry folder with --tools compute tools (a fifth of them a model's, waiting for
approval; the folder is kept and reused when --registry names one that has them already),
then asks the app (FastAPI's TestClient: no network, the whole request path of the page:
session cookie, registry, filters, template) for the list pages a person uses, --rounds
times each, and prints a markdown table of the median and best time. A script, not a test.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import re
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from toolkiln import Registry
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore
from toolkiln.version import __version__

PAGES = {
    "first page (all tools)": "/ui/tools",
    "pending approval": "/ui/tools?status=pending_approval",
    "search `tool_99`": "/ui/tools?q=tool_99",
    "last page": "/ui/tools?page=200",
    "a tool's page": "/ui/tools/tool_1",
}


def fill(folder: Path, count: int) -> None:
    with Registry(folder) as registry:
        have = len(registry)
        for number in range(have, count):
            source = (
                f'tool tool_{number}(x: number "A number") description "Tool number {number}" '
                f"risk {'high' if number % 5 == 0 else 'low'} {{\n  return x * {number % 97 + 1}\n}}"
            )
            registry.create(source, created_by="llm" if number % 5 == 0 else "user")


def signed_in(app) -> TestClient:
    token, _ = TokenStore(state_folder(Path(app.state.services.registries.default.path))).create(
        f"bench-{time.time_ns()}", "read", "person"
    )
    client = TestClient(app, base_url="http://127.0.0.1")
    form = client.get("/ui/sign-in").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert csrf is not None
    client.post("/ui/sign-in", data={"token": token, "csrf_token": csrf.group(1)})
    return client


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--registry", type=Path, default=None, help="a folder to fill (and reuse)")
    options = parser.parse_args()
    folder = options.registry or Path(tempfile.mkdtemp()) / "registry"
    started = time.perf_counter()
    fill(folder, options.tools)
    print(f"registry of {options.tools:,} tools ready in {time.perf_counter() - started:.1f} s: {folder}\n")
    app = create_app(Settings(registry=folder, rate_limit=""))
    client = signed_in(app)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"toolkiln {__version__} - {now} - Python {platform.python_version()} - {platform.machine()}\n")
    print("| page | median (ms) | best (ms) | bytes |")
    print("|---|---:|---:|---:|")
    for label, path in PAGES.items():
        times = []
        size = 0
        for _ in range(options.rounds):
            begun = time.perf_counter()
            answer = client.get(path)
            times.append(time.perf_counter() - begun)
            assert answer.status_code == 200, (path, answer.status_code)
            size = len(answer.content)
        print(f"| {label} | {statistics.median(times) * 1000:.1f} | {min(times) * 1000:.1f} | {size:,} |")
    registry = app.state.services.registries.default
    times = []
    for _ in range(options.rounds):  # what every list page starts with: the registry's own share
        begun = time.perf_counter()
        registry.list()
        times.append(time.perf_counter() - begun)
    print(f"| (`Registry.list()` alone) | {statistics.median(times) * 1000:.1f} | {min(times) * 1000:.1f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
