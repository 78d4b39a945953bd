"""Compile cost against program size: time and peak memory of toolkiln.compile for
generated programs of 10 to 10,000 steps, to show that no pass is quadratic.

    python benchmarks/bench_compile.py

Prints a markdown table; per-step figures that stay flat mean linear growth.
"""

from __future__ import annotations

import datetime
import platform
import statistics
import sys
import time
import tracemalloc

import toolkiln

SIZES = (10, 100, 1_000, 10_000)


def program(steps: int) -> str:
    """A realistic shape: arithmetic, branches and a running total over `steps` steps."""
    lines = ["total = 0"]
    for i in range(1, steps - 1):
        if i % 4 == 0:
            lines.append(f"if amount > {i} {{\n  total = total + {i} * rate\n}} else {{\n  total = total - 1\n}}")
        else:
            lines.append(f"v{i} = amount * {i % 7 + 1}.5 + total / {i % 5 + 1}")
            lines.append(f"total = total + v{i} * 0.01")
    lines.append("return round(total, 2)")
    return "\n".join(lines) + "\n"


def measure(source: str, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        toolkiln.compile(source)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    toolkiln.compile(source)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), peak


def main() -> None:
    print(f"toolkiln {toolkiln.__version__} compile scaling - {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
          f" - Python {platform.python_version()} - {platform.system()} {platform.machine()}")
    print()
    print("| steps | source (KB) | compile (ms) | per step (us) | peak memory (MB) | per step (KB) |")
    print("|---:|---:|---:|---:|---:|---:|")
    toolkiln.compile("return 1")                 # build the parser outside the measurement
    for steps in SIZES:
        source = program(steps)
        seconds, peak = measure(source, repeat=5 if steps <= 1_000 else 1)
        print(f"| {steps:,} | {len(source) / 1024:,.0f} | {seconds * 1e3:,.1f} | {seconds / steps * 1e6:,.0f} |"
              f" {peak / 2**20:,.1f} | {peak / steps / 1024:,.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
