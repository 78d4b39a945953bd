"""Memory of a real `toolkiln serve` under heavy compute runs (issue 24, item 4).

    python benchmarks/bench_memory.py [--executes 100] [--concurrency 4] [--src DIR ...]

For each case (a compute tool that builds as much text or list as it can), starts a fresh
`toolkiln serve` on a new registry, saves the tool, then sends --executes executes of it from
--concurrency threads, and reads the server's /proc/PID/status: VmRSS before the first
execute, VmHWM (the peak) and VmRSS after the last, and after 2 s idle. Prints a markdown table
per toolkiln source tree: `--src` (repeatable) is put first on the server's PYTHONPATH, so that
two trees (say main before a change and the change) are measured side by side. A script, not
a test: tests/integration/security/test_memory.py asserts the bound.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' server process helper
sys.path.insert(0, str(ROOT / "tests" / "integration" / "security"))  # and the red-team test's tools

from test_memory import HEAVY, definition, memory  # noqa: E402
from test_server_support import ServerProcess, make_tokens  # noqa: E402

MiB = 2**20

CASES = HEAVY  # name -> (what it builds, item by item, the text it is given): the red-team test's


def measure(src: str | None, expression: str, text: str, executes: int, concurrency: int) -> dict[str, object]:
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))} if src else None
    with tempfile.TemporaryDirectory() as folder:
        registry = Path(folder) / "registry"
        tokens = make_tokens(registry)
        server = ServerProcess(registry, env=env)
        try:
            with server.client(tokens["admin"]) as http:
                saved = http.post("/api/v1/tools", json={"definition": definition("heavy", expression)})
                assert saved.status_code == 201, saved.text
                before = memory(server.process.pid)["VmRSS"] // MiB
                args = {"s": text, "xs": [0] * 100_000}
                started = time.monotonic()
                with ThreadPoolExecutor(concurrency) as pool:
                    answers = list(pool.map(lambda _: execute(server, tokens["admin"], args), range(executes)))
                seconds = time.monotonic() - started
                after = {key: value // MiB for key, value in memory(server.process.pid).items()}
                time.sleep(2)
                idle = memory(server.process.pid)["VmRSS"] // MiB
        finally:
            server.stop()
    codes = sorted(set(answers))
    return {
        "before": before,
        "peak": after["VmHWM"],
        "after": after["VmRSS"],
        "idle": idle,
        "seconds": seconds,
        "answers": ", ".join(codes),
    }


def execute(server: ServerProcess, token: str, args: dict[str, object]) -> str:
    with server.client(token) as http:
        answer = http.post("/api/v1/tools/heavy/execute", json={"args": args}, timeout=120)
    if answer.status_code == 200:
        return "200"
    return f"{answer.status_code} {answer.json().get('code', '?')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executes", type=int, default=100, help="heavy executes per case")
    parser.add_argument("--concurrency", type=int, default=4, help="executes at a time")
    parser.add_argument("--src", action="append", help="a toolkiln src/ tree for the server (repeatable)")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case (repeatable)")
    options = parser.parse_args()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"toolkiln serve under heavy executes - {now} - {options.executes} executes, {options.concurrency} at a time")
    for src in options.src or [None]:
        print(f"\nserver source: {src or 'as installed'}\n")
        print("| case | RSS before (MiB) | peak (MiB) | RSS after (MiB) | after 2 s idle (MiB) | seconds | answers |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for name in options.case or CASES:
            expression, text = CASES[name]
            row = measure(src, expression, text, options.executes, options.concurrency)
            print(
                f"| {name} | {row['before']} | {row['peak']} | {row['after']} | {row['idle']} "
                f"| {row['seconds']:.1f} | {row['answers']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
