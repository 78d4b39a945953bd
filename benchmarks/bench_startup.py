"""How long a `toolkiln` command takes from start to exit, against an empty Python.

    python benchmarks/bench_startup.py [--rounds 21] [--top 8] [--no-importtime] [--before SRC]
                                       [--instructions]

The commands: run, check and fmt of the shipping example, check of a workflow, check of a tool
file, a workflow and a JSON tool's expression with a syntax error (the warm-up round leaves
Lark's parsers and the error finder's tables in the state home), check of the examples folder
(the issue's own command: its tools and a script's .skill file), and tools run on a registry of
one tool. Each is a fresh process (`python -m toolkiln
...`, the interpreter running this script, bytecode and parsers cached by a warm-up round),
timed from spawn to exit like hyperfine does: rounds alternate the commands, so a busy machine
slows them all alike. The table gives the median wall time, the spread over rounds (fastest and
slowest), the median over `python -c pass`, the median minus that of `python -c pass` (what
toolkiln itself costs), and the median CPU time (user + system) of the process, which a loaded
machine inflates far less than the wall time. Every command's output and exit code are checked
before it is timed. Then, per command, `python -X importtime`'s top entries by their own time (the module, and the
module that imported it): what is left to cut. With `--before SRC` (the `src` folder of another
checkout, e.g. `git worktree add /tmp/old HEAD~3`), every toolkiln command is also timed with
that code in the same alternating rounds, a row "(before)" under each: a before/after table
that a busy machine slows alike. With `--instructions`, each command is also run once under
valgrind's cachegrind and the instructions it executed are a column: a figure no other process
on the machine changes (within about 1%: hash seeds and addresses differ from run to run).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPING = ROOT / "examples" / "shipping_cost.json"
ARGS = '{"weight_kg": 12}'


@dataclass
class Command:
    label: str
    argv: list[str]
    expect: str  # a line its standard output must contain
    code: int = 0  # its exit code
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + system seconds of the process
    env: dict[str, str] | None = None  # the environment, when not ENV (another checkout's code)
    instructions: float | None = None  # millions, under cachegrind (--instructions)


WORKFLOW = ROOT / "tests" / "golden" / "workflows" / "order_total.wf"
BROKEN = 'tool broken(a: number) description "d"\n{\n  return a +\n}\n'  # Lark explains the error
BROKEN_WF = "workflow w\non manual\nset s { total = 1 }}\nrespond r s\n"  # (broken.wf beside it)
BROKEN_JSON = (  # (broken.json beside it)
    '{"name": "t", "description": "d", "parameters": {"a": {"type": "number"}}, '
    '"logic": {"steps": [{"op": "return", "value": "a * 2 +"}]}}\n'
)


def commands(registry: Path, broken: Path) -> list[Command]:
    tk = [sys.executable, "-m", "toolkiln"]
    return [
        Command("python -c pass", [sys.executable, "-c", "pass"], ""),
        Command('python -c "import toolkiln"', [sys.executable, "-c", "import toolkiln"], ""),
        Command("toolkiln run shipping_cost.json", [*tk, "run", str(SHIPPING), "--args", ARGS], "31.500"),
        Command("toolkiln check shipping_cost.json", [*tk, "check", str(SHIPPING)], "0 error(s)"),
        Command("toolkiln fmt --check shipping_cost.json", [*tk, "fmt", "--check", str(SHIPPING)], ""),
        Command("toolkiln check order_total.wf (a workflow)", [*tk, "check", str(WORKFLOW)], "0 error(s)"),
        Command("toolkiln check broken.tk (a syntax error)", [*tk, "check", str(broken)], "1 error(s)", code=1),
        Command(
            "toolkiln check broken.wf (a workflow's syntax error)",
            [*tk, "check", str(broken.with_suffix(".wf"))],
            "1 error(s)",
            code=1,
        ),
        Command(
            "toolkiln check broken.json (an expression's syntax error)",
            [*tk, "check", str(broken.with_suffix(".json"))],
            "1 error(s)",
            code=1,
        ),
        Command(
            "toolkiln check examples (a folder: tools, a skill file)",
            [*tk, "check", str(SHIPPING.parent)],
            "0 error(s)",
        ),
        Command(
            "toolkiln tools run shipping_cost (registry of 1)",
            [*tk, "tools", "run", "shipping_cost", "--registry", str(registry), "--args", ARGS],
            "31.500",
        ),
    ]


def small_registry(folder: Path) -> Path:
    """A registry holding the shipping example, active (created by a user)."""
    registry = folder / "registry"
    create = [sys.executable, "-m", "toolkiln", "tools", "create", str(SHIPPING), "--registry", str(registry)]
    subprocess.run(create, check=True, capture_output=True, env=ENV)
    return registry


# As a user's shell runs it: bytecode written once and read after (PYTHONDONTWRITEBYTECODE would
# make every round compile every module again and time that instead).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def with_before(measured: list[Command], source: Path) -> list[Command]:
    """Each toolkiln command, followed by the same command running the code in `source`."""
    env = {**ENV, "PYTHONPATH": str(source.resolve())}
    out = []
    for command in measured:
        out.append(command)
        if command.argv[1:3] == ["-m", "toolkiln"]:
            out.append(Command(f"{command.label} (before)", command.argv, command.expect, command.code, env=env))
    return out


def run_once(command: Command) -> str:
    done = subprocess.run(command.argv, capture_output=True, text=True, check=False, env=command.env or ENV)
    if done.returncode != command.code or command.expect not in done.stdout:
        raise SystemExit(f"{command.label}: exit {done.returncode}, output {done.stdout!r} {done.stderr[-500:]!r}")
    return done.stdout


def timed(command: Command) -> None:
    """The wall time of one run, and its CPU time (what a busy machine inflates far less)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = command.env or ENV
    subprocess.run(command.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    command.times.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    command.cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


_IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def count_instructions(command: Command) -> None:
    """The instructions the command executes (cachegrind's I refs), in millions."""
    valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    env = command.env or ENV
    done = subprocess.run([*valgrind, *command.argv], capture_output=True, text=True, check=False, env=env)
    found = _IREFS.search(done.stderr)
    if found is None:
        raise SystemExit(f"{command.label}: no instruction count from valgrind: {done.stderr[-500:]!r}")
    command.instructions = int(found[1].replace(",", "")) / 1e6


def table(measured: list[Command]) -> list[str]:
    base = statistics.median(measured[0].times)
    counted = measured[0].instructions is not None
    lines = [
        "| command | median (ms) | fastest - slowest (ms) | x python -c pass | over python -c pass (ms) | CPU (ms) |"
        + (" instructions (M) |" if counted else ""),
        "|---|---:|---:|---:|---:|---:|" + ("---:|" if counted else ""),
    ]
    for command in measured:
        median = statistics.median(command.times)
        spread = f"{min(command.times) * 1e3:.0f} - {max(command.times) * 1e3:.0f}"
        over = (median - base) * 1e3
        cpu = statistics.median(command.cpu) * 1e3
        row = f"| `{command.label}` | {median * 1e3:.0f} | {spread} | {median / base:.2f} | {over:.0f} | {cpu:.0f} |"
        lines.append(row + (f" {command.instructions:.0f} |" if counted else ""))
    return lines


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_times(argv: list[str], env: dict[str, str] | None = None) -> list[tuple[int, int, int, str]]:
    """(own us, cumulative us, depth, module) per line of `python -X importtime`, in its order."""
    command = [argv[0], "-X", "importtime", *argv[1:]]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env or ENV)
    rows = []
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            rows.append((int(match[1]), int(match[2]), len(match[3]) // 2, match[4]))
    return rows


def importer(rows: list[tuple[int, int, int, str]], index: int) -> str:
    """The module whose import loaded rows[index]: the next line less indented."""
    depth = rows[index][2]
    for _own, _cumulative, other_depth, name in rows[index + 1 :]:
        if other_depth < depth:
            return name
    return "(the script)"


def import_report(command: Command, top: int) -> list[str]:
    rows = import_times(command.argv, command.env)
    ours = sum(1 for row in rows if row[3].startswith("toolkiln"))
    total_ms = sum(row[0] for row in rows) / 1e3
    lines = [f"`{command.label}`: {len(rows)} modules ({ours} of toolkiln), {total_ms:.0f} ms of import time", ""]
    lines += ["By package (own time, ms): " + by_package(rows), ""]
    lines += ["| own (ms) | module | imported by |", "|---:|---|---|"]
    ranked = sorted(range(len(rows)), key=lambda i: rows[i][0], reverse=True)[:top]
    lines += [f"| {rows[i][0] / 1e3:.1f} | {rows[i][3]} | {importer(rows, i)} |" for i in ranked]
    return [*lines, ""]


def by_package(rows: list[tuple[int, int, int, str]], top: int = 8) -> str:
    """Own import time summed per top-level package (toolkiln's per subpackage), largest first."""
    totals: dict[str, int] = {}
    for own, _cumulative, _depth, name in rows:
        parts = name.split(".")
        package = ".".join(parts[:2]) if parts[0] == "toolkiln" else parts[0]
        totals[package] = totals.get(package, 0) + own
    ranked = sorted(totals.items(), key=lambda item: item[1], reverse=True)[:top]
    return ", ".join(f"{name} {own / 1e3:.0f}" for name, own in ranked)


def load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--top", type=int, default=8, help="import-time entries per command")
    parser.add_argument("--no-importtime", action="store_true")
    parser.add_argument("--before", type=Path, metavar="SRC", help="also time another checkout's src folder")
    parser.add_argument("--instructions", action="store_true", help="count each command's instructions (valgrind)")
    options = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="bench_startup_"))
    try:
        broken = folder / "broken.tk"
        broken.write_text(BROKEN, encoding="utf-8")
        broken.with_suffix(".wf").write_text(BROKEN_WF, encoding="utf-8")
        broken.with_suffix(".json").write_text(BROKEN_JSON, encoding="utf-8")
        measured = commands(small_registry(folder), broken)
        if options.before is not None:
            measured = with_before(measured, options.before)
        for command in measured:  # checks every output, and warms the bytecode cache
            run_once(command)
        load_before = load()
        for _ in range(options.rounds):
            for command in measured:
                timed(command)
        load_after = load()
        if options.instructions:
            for command in measured:
                count_instructions(command)
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        print(
            f"toolkiln start-up - {now} - Python {platform.python_version()} - "
            f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs - "
            f"load {load_before} before, {load_after} after - {options.rounds} alternating rounds\n"
        )
        print("\n".join(table(measured)))
        if not options.no_importtime:
            print("\nWhere the import time goes (`python -X importtime`, one run each):\n")
            for command in measured[2:]:
                print("\n".join(import_report(command, options.top)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
