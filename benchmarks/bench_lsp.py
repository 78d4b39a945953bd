"""`toolkiln lsp`: the time from a didChange to its publishDiagnostics, against the same check
in-process (`toolkiln.documents.check_text`, what `toolkiln check` runs per file) and the
`toolkiln check` command as a process (start-up included).

    python benchmarks/bench_lsp.py [--rounds 40] [--lines 50 500]

The server is a real subprocess spoken to over stdio (the tests' client, tests/integration/
lsp_client.py). Each round changes one number in the file (a full-text change), so every round
is a fresh check; p50 and p99 over the rounds, in milliseconds. The issue's target: under 50 ms
from didChange to publishDiagnostics on a 500-line .tk file.

Then the server's CPU per change by phase: `serve()` run in a thread of this process over
pipes, each phase's functions replaced by timed ones (thread CPU time, each phase without the
phases it calls), so the table says where a change's time goes on a machine whatever its load.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))  # the tests' LSP client

from bench_registry import machine  # noqa: E402
from lsp_client import SRC, LspClient  # noqa: E402

from toolkiln.documents import check_text  # noqa: E402
from toolkiln.lsp.server import Settings, serve  # noqa: E402

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


class Phases:
    """CPU time of the server's thread in each phase, each phase without the phases it calls
    (a phase is a function replaced here by a timed one: measured, never changed)."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self.inner: list[float] = []  # the time of the phases called by each running one

    def wrap(self, owner: Any, attribute: str, phase: str) -> None:
        original = getattr(owner, attribute)

        def timed(*args: Any, **kwargs: Any) -> Any:
            self.inner.append(0.0)
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.thread_time() - started
                self.totals[phase] += elapsed - self.inner.pop()
                if self.inner:
                    self.inner[-1] += elapsed

        setattr(owner, attribute, timed)


PHASES = (
    "JSON-RPC read (json.loads into lsprotocol types)",
    "pygls dispatch (and applying the change)",
    "parse",
    "type check",
    "advice",
    "check_text's rest (locate, sort)",
    "diagnostics to LSP form",
    "write (json.dumps, stdout)",
)


def timed_phases() -> Phases:
    """The server's phases, timed wherever the code that runs them finds them."""
    import pygls.io_
    import pygls.protocol.json_rpc

    from toolkiln import api
    from toolkiln.lsp import server

    phases = Phases()
    loads = SimpleNamespace(loads=pygls.io_.json.loads)
    phases.wrap(loads, "loads", PHASES[0])
    pygls.io_.json = loads  # (pygls.io_ reads only json.loads)
    phases.wrap(pygls.protocol.json_rpc.JsonRPCProtocol, "handle_message", PHASES[1])
    phases.wrap(api, "parse_source", PHASES[2])
    phases.wrap(api, "check_program", PHASES[3])
    phases.wrap(importlib.import_module("toolkiln.check.checker"), "advise", PHASES[4])
    phases.wrap(server, "check_text", PHASES[5])
    phases.wrap(server, "published", PHASES[6])
    phases.wrap(pygls.protocol.json_rpc.JsonRPCProtocol, "_send_data", PHASES[7])
    return phases


def thread_cpu_seconds(native_id: int) -> float:
    """The CPU time one thread of this process has used so far (Linux: /proc)."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class InProcessClient(LspClient):
    """The tests' client, speaking to `serve()` running in a thread of this process over pipes."""

    def __init__(self, to_server: Any, from_server: Any) -> None:
        self.process = SimpleNamespace(stdin=to_server, stdout=from_server)
        self._attach()


def by_phase(folder: Path, lines: int, rounds: int) -> tuple[dict[str, float], float]:
    """The server's CPU seconds per change in each phase, and in all (its event loop's thread;
    the phases not listed are the rest), with `serve()` in this process."""
    phases = timed_phases()
    client_in, server_in = os.pipe()
    server_out, client_out = os.pipe()
    started: list[int] = []
    stdout = sys.stdout  # serve() sends print()s to standard error; given back below

    def run() -> None:
        started.append(threading.get_native_id())
        with os.fdopen(client_in, "rb") as stdin, os.fdopen(client_out, "wb") as out:
            serve(Settings(), stdin=stdin, stdout=out)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    client = InProcessClient(os.fdopen(server_in, "wb"), os.fdopen(server_out, "rb"))
    path = folder / f"phases{lines}.tk"
    try:
        client.initialize(folder)
        client.open(path, tool_text(lines, 0))
        for version in range(2, 7):  # warm
            client.change(path, version, [{"text": tool_text(lines, version)}])
        phases.totals.clear()
        cpu_before = thread_cpu_seconds(started[0])
        for version in range(7, rounds + 7):
            assert client.change(path, version, [{"text": tool_text(lines, version)}]) == []
        cpu = (thread_cpu_seconds(started[0]) - cpu_before) / rounds
        client.result("shutdown", None)
        client.notify("exit", None)
    finally:
        client.process.stdin.close()
        thread.join(timeout=30)
        sys.stdout = stdout
    return {phase: phases.totals[phase] / rounds for phase in PHASES}, cpu


def print_phases(lines: int, per_phase: dict[str, float], cpu: float) -> None:
    print(f"\nThe server's CPU per change on {lines} lines, by phase (serve() in this process, its thread):\n")
    print("| phase | ms |")
    print("| --- | ---: |")
    for phase, seconds in per_phase.items():
        print(f"| {phase} | {seconds * 1000:.1f} |")
    rest = cpu - sum(per_phase.values())
    print(f"| the rest (event loop, document lines, scheduling) | {rest * 1000:.1f} |")
    print(f"| **all** | **{cpu * 1000:.1f}** |")


def while_typing(lines: int) -> dict[str, str]:
    """The file as an editor holds it while a line is typed: clean, a call half written (a
    syntax error: the hand-written parser declines and Lark parses and explains), a name
    misspelt (the check runs and the advice looks for the name meant)."""
    text = tool_text(lines, 1)
    middle = text.splitlines(keepends=True)
    half = len(middle) // 2
    call = next(i for i in range(half, len(middle)) if "round(" in middle[i])
    half_written = middle[call].split("(")[0] + "(\n"
    return {
        "clean": text,
        "a call half written (`v = round(`)": "".join([*middle[:call], half_written, *middle[call + 1 :]]),
        "a name misspelt (`len(tt5)`)": text.replace("len(t5)", "len(tt5)", 1),
    }


def print_while_typing(lines: int, rounds: int) -> None:
    print(f"\ncheck_text's CPU on {lines} lines as a line is being typed (in this process, p50 of {rounds}):\n")
    print("| the text | ms | diagnostics |")
    print("| --- | ---: | --- |")
    for label, text in while_typing(lines).items():
        cpu = []
        for _ in range(rounds):
            started = time.process_time()
            found = check_text(text, f"big{lines}.tk")
            cpu.append(time.process_time() - started)
        print(f"| {label} | {statistics.median(cpu) * 1000:.1f} | {', '.join(d.code for d in found) or 'none'} |")


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
        for lines in args.lines:
            print_while_typing(lines, args.rounds)
        for lines in args.lines:  # last: the timed phases stay replaced in this process
            print_phases(lines, *by_phase(Path(folder), lines, args.rounds))


if __name__ == "__main__":
    main()
