"""`toolkiln lsp`: the time from a didChange to its publishDiagnostics, against the same check
in-process (`toolkiln.documents.check_text`, what `toolkiln check` runs per file) and the
`toolkiln check` command as a process (start-up included).

    python benchmarks/bench_lsp.py [--rounds 40] [--lines 50 500]

The server is a real subprocess spoken to over stdio (the tests' client, tests/integration/
lsp_client.py). Each round changes one number in the file (a full-text change), so every round
is a fresh check; p50 and p99 over the rounds, in milliseconds. The issue's target: under 50 ms
from didChange to publishDiagnostics on a 500-line .tk file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' LSP client

from bench_registry import machine  # noqa: E402
from lsp_client import SRC, LspClient  # noqa: E402

from toolkiln.documents import check_text  # noqa: E402

# A group of lines of a realistic tool body, repeated: arithmetic with builtins, a
# comprehension, text, a conditional expression; each group reads the one before it.
GROUP = (
    "  v{g} = round(v{p} * 1.01 + rate, 2) + len(t{p})",
    "  w{g} = [x * v{g} for x in items if x > 0]",
    "  s{g} = sum(w{g}) + len(label)",
    '  t{g} = upper(label) + "-" + text(s{g})',
    "  v{g} = max(v{g}, s{g}) if s{g} > 10 else v{g}",
)


def tool_text(lines: int, seed: int) -> str:
    """A checking tool of `lines` lines; `seed` changes one number (a fresh text each round)."""
    out = ["tool big(rate: number, items: array[number], label: string)", 'description "Big"', "{"]
    out += [f"  v0 = rate * {seed + 1}", "  t0 = label"]
    groups = (lines - 7) // len(GROUP)
    for group in range(1, groups + 1):
        out += [line.format(g=group, p=group - 1) for line in GROUP]
    out += ["  # a comment line"] * (lines - 7 - groups * len(GROUP))
    out += [f"  return v{groups} + len(t{groups})", "}"]
    return "\n".join(out) + "\n"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a process has used so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def through_the_server(folder: Path, lines: int, rounds: int) -> tuple[list[float], float]:
    """Wall seconds from each didChange to its diagnostics, and the server's CPU seconds per
    change on average (what the round would take on an idle machine)."""
    path = folder / f"big{lines}.tk"
    client = LspClient(cwd=folder)
    try:
        client.initialize(folder)
        published = client.open(path, tool_text(lines, 0))
        assert published == [], published[:3]
        times = []
        cpu_before = cpu_seconds(client.process.pid)
        for version in range(2, rounds + 2):
            text = tool_text(lines, version)
            started = time.perf_counter()
            diagnostics = client.change(path, version, [{"text": text}])
            times.append(time.perf_counter() - started)
            assert diagnostics == [], diagnostics[:3]
        cpu = (cpu_seconds(client.process.pid) - cpu_before) / rounds
        client.close()
        return times, cpu
    finally:
        client.kill()


def in_process(lines: int, rounds: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each check: on a loaded machine the CPU time is what the check
    would take alone."""
    wall, cpu = [], []
    for version in range(2, rounds + 2):
        text = tool_text(lines, version)
        started, started_cpu = time.perf_counter(), time.process_time()
        assert check_text(text, f"big{lines}.tk") == []
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return wall, cpu


def as_a_command(folder: Path, lines: int, rounds: int) -> list[float]:
    path = folder / f"cli{lines}.tk"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    times = []
    for version in range(rounds):
        path.write_text(tool_text(lines, version), encoding="utf-8")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "toolkiln", "check", str(path)], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--lines", type=int, nargs="+", default=[50, 500])
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{time.strftime('%Y-%m-%d')}, Python {sys.version.split()[0]}, {machine()}, load average {load:.1f}\n")
    print(
        "| lines | didChange -> publishDiagnostics p50 / p99 (ms) | the server's CPU per change (ms) "
        "| check_text in-process p50 / p99 (ms) | its CPU time p50 (ms) | `toolkiln check` process p50 (ms) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for lines in args.lines:
            served, server_cpu = through_the_server(Path(folder), lines, args.rounds)
            checked, cpu = in_process(lines, args.rounds)
            command = as_a_command(Path(folder), lines, max(3, args.rounds // 8))
            print(
                f"| {lines} | {percentile(served, 0.5) * 1000:.0f} / {percentile(served, 0.99) * 1000:.0f} "
                f"| {server_cpu * 1000:.0f} "
                f"| {percentile(checked, 0.5) * 1000:.0f} / {percentile(checked, 0.99) * 1000:.0f} "
                f"| {percentile(cpu, 0.5) * 1000:.0f} "
                f"| {statistics.median(command) * 1000:.0f} |"
            )


if __name__ == "__main__":
    main()
