"""Cost of a javascript tool's requests to toolkiln through its run's channel.

    python benchmarks/bench_js_calls.py [--runs N]

Measures, by Registry.invoke in bubblewrap (one run at a time, the median of N, interleaved):
  * `none`: a javascript tool that returns at once (`utils.run`: Node, the module, the sandbox);
  * `32 calls`: the same tool calling a compute tool (`x * 2`) 32 times with `utils.callTool`
    (each: a JSON line each way, `Registry.invoke` in the parent);
  * `1000 uuids` and `1000 uuids, seed`: `utils.uuid()` 1,000 times from Node's generator, and
    in a run given a seed, where each is drawn by the parent from the run's seeded source.
The per-request figure is the difference over the count. It prints a markdown table, after a
line naming the date, the Python version and the machine. A script, not a test: about 30 s.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from toolkiln.registry.registry import Registry
from toolkiln.semantics.chance import as_source, drawing_from

CALLS = "let s = 0; for (let i = 0; i < 32; i++) s += await utils.callTool('double', {x: i}); return s;"
UUIDS = "const a = []; for (let i = 0; i < 1000; i++) a.push(utils.uuid()); return a.length;"
CASES = {
    "none": ("return 1;", None),
    "32 calls": (CALLS, None),
    "1000 uuids": (UUIDS, None),
    "1000 uuids, seed": (UUIDS, 7),
}


def javascript(name: str, code: str) -> dict[str, object]:
    body = f'const utils = require("toolkiln/utils");\nutils.run(async (args) => {{\n{code}\n}});\n'
    return {
        "kind": "script",
        "name": name,
        "description": "A benchmark.",
        "runtime": "javascript",
        "body": body,
        "parameters": {"type": "object"},
        "timeout_secs": 120,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder, Registry(Path(folder) / "r", durable=False) as reg:
        reg.create(
            {
                "name": "double",
                "description": "Doubles x",
                "parameters": {"x": {"type": "number"}},
                "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
            }
        )
        names = {case: f"case_{index}" for index, case in enumerate(CASES)}
        for case, (code, _) in CASES.items():
            reg.create(javascript(names[case], code))
        seconds: dict[str, list[float]] = {case: [] for case in CASES}
        for _ in range(runs):
            for case, (_, seed) in CASES.items():
                started = time.perf_counter()
                with drawing_from(as_source(seed)):
                    outcome = reg.invoke(names[case], {}, principal="user")
                seconds[case].append(time.perf_counter() - started)
                assert outcome.ok, outcome.errors
    median = {case: statistics.median(values) * 1000 for case, values in seconds.items()}
    per = {
        "32 calls": (median["32 calls"] - median["none"]) / 32,
        "1000 uuids, seed": (median["1000 uuids, seed"] - median["1000 uuids"]) / 1000,
    }
    print(f"{datetime.date.today()}, Python {sys.version.split()[0]}, {platform.machine()}, median of {runs}")
    print("| run | ms | per request, ms |\n| --- | --- | --- |")
    for case in CASES:
        each = f"{per[case]:.3f}" if case in per else ""
        print(f"| {case} | {median[case]:.0f} | {each} |")


if __name__ == "__main__":
    main()
