"""The cost of hostile sources: how long `toolkiln.check` takes on large or dense sources, and
its peak memory, each case in a fresh interpreter (so one case's heap does not weigh on the
next, and peak memory is the process's own). Sources that exceed a limit should be refused
at once; those within the limits should check in a few seconds at most.

    python benchmarks/bench_compile_bounds.py [--timeout S] [--only KIND]

Columns: the kind of source, its size in characters, the seconds `check` took (import and
source generation not counted), the peak resident memory of the process in MB, and the
first diagnostic codes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

# kind -> sizes (the meaning of a size is per kind: items, steps, ifs, bytes)
CASES: dict[str, tuple[int, ...]] = {
    "text list literal (items)": (1_000, 10_000, 19_000, 350_000),
    "text steps": (1_000, 5_000, 9_000, 60_000),
    "text ifs": (1_000, 3_000, 40_000),
    "json list literal (items)": (1_000, 10_000, 120_000),
    "json steps": (1_000, 10_000, 20_000),
    "10 MB text (bytes)": (10 << 20,),
    "10 MB JSON (bytes)": (10 << 20,),
}

CHILD = r"""
import json, resource, sys, time
kind, size = sys.argv[1], int(sys.argv[2])
import toolkiln
toolkiln.check('tool t()\ndescription "d"\n{\n  return 1\n}\n')  # import the compiler first
head = 'tool t(a: number)\ndescription "d"\n{\n'
def doc(steps):
    return json.dumps({"name": "t", "description": "d", "parameters": {}, "logic": {"steps": steps}})
if kind.startswith("text list"):
    source = head + "  x = [" + ", ".join("1" for _ in range(size)) + "]\n  return x\n}\n"
elif kind == "text steps":
    source = head + "".join(f"  x{i} = a * {i}\n" for i in range(size)) + "  return 1\n}\n"
elif kind == "text ifs":
    source = head + "".join(f"  if a > {i} {{\n    return {i}\n  }}\n" for i in range(size)) + "  return 1\n}\n"
elif kind.startswith("json list"):
    params = {"a": {"type": "array", "default": list(range(size))}}
    steps = [{"op": "return", "value": "a"}]
    source = json.dumps({"name": "t", "description": "d", "parameters": params, "logic": {"steps": steps}})
elif kind == "json steps":
    steps = [{"op": "math", "expression": f"{i} * 2", "output": f"x{i}"} for i in range(size)]
    source = doc(steps + [{"op": "return", "value": "1"}])
elif kind.startswith("10 MB text"):
    source = "# a comment\n" * (size // 12)
else:
    source = "{" + " " * size + "}"
start = time.perf_counter()
codes = [d.code for d in toolkiln.check(source)]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps([len(source), seconds, peak, sorted(set(codes))[:3]]))
"""


def run(kind: str, size: int, timeout: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, kind, str(size)], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"| {kind} | {size:,} | - | > {timeout:.0f} | - | (timed out) |"
    if done.returncode != 0:
        return f"| {kind} | {size:,} | - | failed | - | {done.stderr.strip().splitlines()[-1:]} |"
    chars, seconds, peak, codes = json.loads(done.stdout.strip().splitlines()[-1])
    return f"| {kind} | {size:,} | {chars:,} | {seconds:,.2f} | {peak:,.0f} | {' '.join(codes) or 'clean'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case (default 180)")
    parser.add_argument("--only", help="run only the kinds whose name contains this")
    args = parser.parse_args()
    print("| source | size | characters | check (s) | peak memory (MB) | codes |")
    print("|---|---:|---:|---:|---:|---|")
    for kind, sizes in CASES.items():
        if args.only and args.only not in kind:
            continue
        for size in sizes:
            print(run(kind, size, args.timeout), flush=True)


if __name__ == "__main__":
    main()
