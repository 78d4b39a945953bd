"""Cost of an executable tool call: the sandbox's per-call overhead, and calls per second.

    python benchmarks/bench_executables.py [--calls N]

Measures, for a shell tool (`sh`, which prints a JSON object) and a Python tool (`python3`,
which reads its arguments from stdin and answers in JSON), the wall time of one call:
  * `subprocess.run`: the program started directly, nothing else (what a process costs here);
  * `none`: `run_program(..., sandbox="none")`: a private folder, the environment whitelist,
    rlimits, the streamed capped read, the group kill (and, as root, the switch to nobody);
  * `bubblewrap`: the same inside bubblewrap (new namespaces of every kind, binds, a memfd);
  * `call`: `executables.call` of the described tool under bubblewrap: the arguments checked
    against the input schema and passed on stdin and as TK_ARG_*, then the bubblewrap run;
  * `registry none` / `registry bubblewrap`: `Registry.run` of the tool registered as an
    executable tool (the lifecycle check, the file read and its SHA-256 compared with the pin,
    the schema, the run, the usage count), without namespaces and under bubblewrap.
PATH is set to the system's folders first, so that every way starts the same `python3` (as
root, a sandboxed tool runs as nobody, who cannot use an interpreter under /root such as a
pyenv shim). One call at a time; calls/s is 1 / median. It prints a markdown table, after a line naming
the date, the Python version and the machine. A script, not a test: about 20 s by default.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from toolkiln.executables import (
    ExecutableTool,
    SandboxPolicy,
    ToolFolders,
    TrustStore,
    call,
    discover,
    load_tools,
    run_program,
)
from toolkiln.registry.registry import Registry

SHELL_TOOL = """#!/bin/sh
if [ "$1" = description ]; then
  echo '{"name": "shell_tool", "description": "Answers.", "input_schema": {"type": "object"}}'
else
  echo '{"ok": true}'
fi
"""
PYTHON_TOOL = """#!/usr/bin/env python3
import json, sys
if sys.argv[1] == "description":
    print(json.dumps({"name": "python_tool", "description": "Greets.", "input_schema": {"type": "object",
                      "properties": {"who": {"type": "string"}}, "required": ["who"]}}))
else:
    print(json.dumps({"greeting": "Hello, " + json.load(sys.stdin)["who"]}))
"""
ARGUMENTS = {"shell_tool": {}, "python_tool": {"who": "Ada"}}


def machine() -> str:
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def timings(calls: int, one_call: Callable[[], object]) -> list[float]:
    one_call()  # warm the caches once, untimed
    seconds = []
    for _ in range(calls):
        started = time.perf_counter()
        one_call()
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=50, help="timed calls per row (default 50)")
    options = parser.parse_args()
    os.environ["PATH"] = "/usr/local/bin:/usr/bin:/bin"

    with tempfile.TemporaryDirectory() as home:
        folder = Path(home) / "tools"
        folder.mkdir()
        for name, text in (("shell_tool.sh", SHELL_TOOL), ("python_tool.py", PYTHON_TOOL)):
            (folder / name).write_text(text)
            (folder / name).chmod(0o755)
        tools = load_tools(discover(ToolFolders(folder, None), TrustStore(Path(home)))).tools
        reg = Registry(Path(home) / "registry", durable=False)
        for tool in tools.values():
            for sandbox in ("none", "bubblewrap"):
                definition = {"kind": "executable", "name": f"{tool.name}_{sandbox}", "sandbox": sandbox}
                definition |= {"description": tool.description, "path": str(tool.found.path)}
                reg.create({**definition, "parameters": tool.input_schema})
        rows = []
        for name, tool in sorted(tools.items()):
            direct = None
            for way, one_call in ways(tool, reg).items():
                seconds = timings(options.calls, one_call)
                median = statistics.median(seconds)
                direct = direct or median
                p90 = statistics.quantiles(seconds, n=10)[-1]
                rows.append((name, way, median, p90, median - direct))

    today = datetime.date.today().isoformat()
    print(f"{today}, Python {sys.version.split()[0]}, {machine()}, {options.calls} calls per row")
    print()
    print("| tool | how | median (ms) | p90 (ms) | over subprocess.run (ms) | calls/s |")
    print("|---|---|---:|---:|---:|---:|")
    for name, way, median, p90, overhead in rows:
        print(f"| {name} | {way} | {median * 1e3:.1f} | {p90 * 1e3:.1f} | {overhead * 1e3:+.1f} | {1 / median:,.0f} |")


def ways(tool: ExecutableTool, reg: Registry) -> dict[str, Callable[[], object]]:
    """The six ways of making one call of `tool`, as the table names them."""
    name, content, arguments = tool.name, tool.found.content, ARGUMENTS[tool.name]
    stdin = json.dumps(arguments).encode()
    unsandboxed, sandboxed = SandboxPolicy(sandbox="none"), SandboxPolicy()

    def direct() -> object:
        return subprocess.run([str(tool.found.path), "run"], input=stdin, capture_output=True, check=True)

    def without_namespaces() -> object:
        return run_program(name, content, ["run"], stdin=stdin, policy=unsandboxed)

    def in_bubblewrap() -> object:
        return run_program(name, content, ["run"], stdin=stdin, policy=sandboxed)

    def through_the_protocol() -> object:
        return call(tool, arguments, sandboxed)

    def registered(sandbox: str) -> Callable[[], object]:
        return lambda: reg.run(f"{name}_{sandbox}", arguments)

    return {
        "subprocess.run": direct,
        "none": without_namespaces,
        "bubblewrap": in_bubblewrap,
        "call": through_the_protocol,
        "registry none": registered("none"),
        "registry bubblewrap": registered("bubblewrap"),
    }


if __name__ == "__main__":
    main()
