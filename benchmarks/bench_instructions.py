"""Instructions per operation of two or more toolkiln trees, side by side (cachegrind).

    python benchmarks/bench_instructions.py [--rev REV ...] [--tree NAME=SRC ...] [--only TEXT]

Wall-clock timings on a shared 2-core machine are noise-bound; the number of instructions an
operation executes is not. For each tree (every `--rev` of this repository, unpacked with
`git archive`, every `--tree NAME=PATH` to a src/ folder, and last this one's src/) and each
row, a fresh `python` runs the operation `few` and then `many` times under
`valgrind --tool=cachegrind`; (instructions of many - instructions of few) / (many - few) is
the cost of one operation, start-up and set-up cancelled out. PYTHONHASHSEED=0 in every
process: without it dictionary layouts differ and the same path measured up to 4% apart.

The rows are the run paths of benchmarks/compare.py's three workloads (tool.run with float,
int and Decimal arguments, run_many per row, the runner handle) and of bench_registry.py
(reg.run, the registry's runner, a warm start-up and list() of a registry of 200 tools,
create and update). A tree without an API a row uses prints n/a. Instructions leave out the
time a process waits (an fsync of create and update): those rows count the CPU work only.
Needs valgrind (Debian's `valgrind`); a script, not a test.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import platform
import re
import subprocess
import sys
import tarfile
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REGISTRY_TOOLS = 200  # tools in the registry of the start-up and list() rows
RUN_ROWS = (("tool.run", "float"), ("tool.run", "int"), ("tool.run", "decimal"), ("tool.runner", "float"))
RUNS = (500, 5500)  # the few and the many runs of a run row

# --- the child: one operation, `count` times, in the tree on its PYTHONPATH ------------------


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$decimal"}:
        return Decimal(value["$decimal"])
    return value


def _operation(row: dict[str, Any], folder: Path) -> Any:
    """A no-argument callable doing the row's operation once (set-up done here, not counted)."""
    import toolkiln

    source, args, op = row["source"], row["args"], row["op"]
    if op == "tool.run":
        run = toolkiln.compile(source).run
        return lambda: run(args)
    if op == "tool.runner":
        run = toolkiln.compile(source).runner().run
        return lambda: run(args)
    if op == "run_many":
        many = toolkiln.compile(source).run_many
        return lambda: many([args])
    reg = toolkiln.Registry(folder)
    name = reg.create(source).name
    if op == "reg.run":
        return lambda: reg.run(name, args)
    if op == "reg.runner":
        run = reg.runner(name).run
        return lambda: run(args)
    if op == "create":
        counter = iter(range(10**9))
        return lambda: reg.create(re.sub(r"^tool \w+", f"tool t{next(counter)}", source))
    if op == "update":
        numbers = iter(range(10**9))
        return lambda: reg.update(name, {"description": f"version {next(numbers)}"})
    for i in range(REGISTRY_TOOLS - 1):
        reg.create(re.sub(r"^tool \w+", f"tool t{i}", source))
    if op == "start":
        return lambda: toolkiln.Registry(folder)
    if op == "list":
        return reg.list
    raise SystemExit(f"unknown operation {op}")


def child() -> None:
    row = json.loads(sys.stdin.read(), object_hook=lambda d: _decode(d) if "$decimal" in d else d)
    with tempfile.TemporaryDirectory() as folder:
        try:
            once = _operation(row, Path(folder) / "registry")
        except AttributeError:  # the tree has no such API
            raise SystemExit(3) from None
        once()  # the first call may build caches: not the steady cost
        for _ in range(row["count"]):
            once()


# --- the parent -------------------------------------------------------------------------------


def _encode(value: Any) -> Any:
    if isinstance(value, Decimal):
        return {"$decimal": str(value)}
    raise TypeError(type(value).__name__)


def instructions(src: Path, row: dict[str, Any], count: int) -> int | None:
    """Instructions of a process doing the row's operation `count` times; None when the tree lacks it."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
    ]
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    stdin = json.dumps({**row, "count": count}, default=_encode)
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, check=False)
    if done.returncode == 3:
        return None
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"{row['title']} in {src} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_operation(src: Path, row: dict[str, Any]) -> float | None:
    few, many = row["counts"]
    low, high = instructions(src, row, few), instructions(src, row, many)
    return None if low is None or high is None else (high - low) / (many - few)


def rows() -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from compare import WORKLOADS  # the workloads' text and arguments, not their timing code

    table: list[dict[str, Any]] = []
    for w in WORKLOADS:
        for op, numbers in RUN_ROWS:
            args = {"float": w.float_args, "int": w.int_args, "decimal": w.decimal_args}[numbers]
            title = f"{w.name}, `{op}`, {numbers} args"
            table.append({"title": title, "op": op, "source": w.toolkiln, "args": args, "counts": RUNS})
        for op in ("run_many", "reg.run", "reg.runner"):
            title = f"{w.name}, `{op}`"
            table.append({"title": title, "op": op, "source": w.toolkiln, "args": w.float_args, "counts": RUNS})
    shipping = WORKLOADS[0]
    for op, counts, title in (
        ("start", (2, 6), f"warm start-up of a registry of {REGISTRY_TOOLS} tools"),
        ("list", (10, 1010), f"`list()` of {REGISTRY_TOOLS} tools"),
        ("create", (5, 25), "`create` (CPU only)"),
        ("update", (5, 25), "`update` (CPU only)"),
    ):
        row = {"title": title, "op": op, "source": shipping.toolkiln, "args": shipping.float_args, "counts": counts}
        table.append(row)
    return table


def unpack(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rev", action="append", default=[], help="a revision of this repository to measure too")
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH of another src/ folder")
    parser.add_argument("--only", help="measure only the rows whose title contains this text")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child()
        return
    with tempfile.TemporaryDirectory() as scratch:
        trees = {rev: unpack(rev, Path(scratch) / rev) for rev in options.rev}
        for named in options.tree:
            name, _, path = named.partition("=")
            trees[name] = Path(path)
        trees["this tree"] = ROOT / "src"
        machine = f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        print(f"{datetime.date.today()}, {machine}")
        names = list(trees)
        print("| operation | " + " | ".join(names) + " | " + " | ".join(f"{n} / {names[0]}" for n in names[1:]) + " |")
        print("|---|" + "---:|" * (2 * len(names) - 1))
        for row in rows():
            if options.only and options.only not in row["title"]:
                continue
            found = [per_operation(src, row) for src in trees.values()]
            cells = [f"{n:,.0f}" if n is not None else "n/a" for n in found]
            ratios = [f"{n / found[0]:.3f}" if n and found[0] else "n/a" for n in found[1:]]
            print(f"| {row['title']} | " + " | ".join(cells + ratios) + " |", flush=True)
        print(f"ratios: over {names[0]}; a run row is {RUNS[1]:,} runs minus {RUNS[0]:,}, the others their counts")


if __name__ == "__main__":
    main()
