"""The compile path, measured three ways:

1. toolkiln.compile of the shipping example (parse, check, optimize, closures) side by side
   with CPython's own compile() of the same function written in Python, in alternating rounds;
2. `import toolkiln` side by side with importing lark and pydantic alone, each in a fresh
   interpreter (bytecode caches warm);
3. compile time and peak memory of generated programs of 10 to 10,000 steps, to show that no
   pass is quadratic (per-step figures that stay flat mean linear growth). The time is also
   given with the garbage collector paused: CPython's collector traverses the whole heap now
   and then, which adds a cost that grows with the heap, not with what the passes do;
4. the text DSL against the JSON DSL: every example, and the generated programs of 10 to
   10,000 steps, compiled from its canonical text and from its canonical JSON in alternating
   rounds (the issue's target: text within 2x of JSON).

    python benchmarks/bench_compile.py [--rounds R] [--imports N] [--skip-sizes] [--only-text-vs-json]

CPython's compile() appears here, and only here besides compare.py, because it is the
baseline being compared against; toolkiln never compiles strings as Python.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from functools import partial
from pathlib import Path

import toolkiln
from toolkiln.syntax.limits import too_many_tokens

SIZES = (10, 100, 1_000, 10_000)
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHIPPING = EXAMPLES / "shipping_cost.json"
# The shipping example as the Python function a person would write.
SHIPPING_PYTHON = """\
def shipping_cost(weight_kg):
    \"\"\"Shipping cost of a parcel: 2.50 per kg plus 5.00, with 10% off above 10 kg.\"\"\"
    base_cost = weight_kg * 2.50 + 5.00
    if weight_kg > 10:
        base_cost = base_cost * 0.9
    return base_cost
"""
IMPORTS = {
    "lark + pydantic": "import lark, pydantic",
    "lark + pydantic.BaseModel": "import lark; from pydantic import BaseModel",
    "toolkiln": "import toolkiln",
    "toolkiln + its compiler": "import toolkiln; toolkiln.compile",
}


def per_call(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def compare_with_cpython(rounds: int) -> None:
    text = SHIPPING.read_text(encoding="utf-8")
    engines = {
        "toolkiln.compile(shipping_cost.json)": lambda: toolkiln.compile(text),
        "CPython compile(), same function": lambda: compile(SHIPPING_PYTHON, "shipping.py", "exec"),
    }
    for fn in engines.values():  # warm up: the Lark parser, pydantic schemas, caches
        per_call(fn, 50)
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(rounds):
        for name, fn in engines.items():
            times[name].append(per_call(fn, 200))
    reference = min(times["CPython compile(), same function"])
    print("| compile | best (us) | median (us) | x CPython |")
    print("|---|---:|---:|---:|")
    for name, samples in times.items():
        print(
            f"| {name} | {min(samples) * 1e6:,.1f} | {statistics.median(samples) * 1e6:,.1f} |"
            f" {min(samples) / reference:,.1f} |"
        )


def import_times(runs: int) -> None:
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package imports from bytecode
    for statement in IMPORTS.values():  # write the bytecode caches first
        subprocess.run([sys.executable, "-c", statement], check=True, env=env)
    samples: dict[str, list[float]] = {name: [] for name in IMPORTS}
    for _ in range(runs):  # alternating, like the compile rounds
        for name, statement in IMPORTS.items():
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", statement], check=True, env=env)
            samples[name].append(time.perf_counter() - start)
    baseline = statistics.median(samples["lark + pydantic"])
    print("| python -c | median (ms) | x lark + pydantic |")
    print("|---|---:|---:|")
    for name, statement in IMPORTS.items():
        median = statistics.median(samples[name])
        print(f"| `{statement}` | {median * 1e3:,.0f} | {median / baseline:.2f} |")


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


def measure(source: str, repeat: int) -> tuple[float, float, float]:
    """Median seconds of a compile, the same with the garbage collector paused, and peak bytes."""
    times, paused = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        toolkiln.compile(source)
        times.append(time.perf_counter() - start)
        gc.disable()
        try:
            start = time.perf_counter()
            toolkiln.compile(source)
            paused.append(time.perf_counter() - start)
        finally:
            gc.enable()
    tracemalloc.start()
    toolkiln.compile(source)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), statistics.median(paused), peak


def program_json(steps: int) -> dict:
    """`program(steps)` as JSON DSL logic, built directly (its text is past the text DSL's
    token limit, so it cannot be converted)."""

    def math(expression: str, output: str) -> dict:
        return {"op": "math", "expression": expression, "output": output}

    body: list[dict] = [math("0", "total")]
    for i in range(1, steps - 1):
        if i % 4 == 0:
            then, otherwise = [math(f"total + {i} * rate", "total")], [math("total - 1", "total")]
            body.append({"op": "condition", "if": f"amount > {i}", "then": then, "else": otherwise})
        else:
            body.append(math(f"amount * {i % 7 + 1}.5 + total / {i % 5 + 1}", f"v{i}"))
            body.append(math(f"total + v{i} * 0.01", "total"))
    body.append({"op": "return", "value": "round(total, 2)"})
    return {"steps": body}


def size_table() -> None:
    print(
        "| steps | source (KB) | compile (ms) | per step (us) | per step, gc paused (us) | peak memory (MB) |"
        " per step (KB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    toolkiln.compile("return 1")  # build the parser outside the measurement
    for steps in SIZES:
        source = program(steps)
        label = f"{steps:,}"
        if too_many_tokens(source):  # past the text DSL's size limit (E0404): the same tool in JSON
            source, label = json.dumps(program_json(steps)), f"{steps:,} (JSON)"
        seconds, paused, peak = measure(source, repeat=5 if steps <= 1_000 else 1)
        print(
            f"| {label} | {len(source) / 1024:,.0f} | {seconds * 1e3:,.1f} | {seconds / steps * 1e6:,.0f} |"
            f" {paused / steps * 1e6:,.0f} | {peak / 2**20:,.1f} | {peak / steps / 1024:,.1f} |"
        )
        sys.stdout.flush()


def text_and_json(source: str) -> tuple[str, str]:
    """The same tool as canonical text DSL and as canonical JSON DSL."""
    return toolkiln.to_text(source), json.dumps(toolkiln.to_json(source))


def text_against_json(text: str, json_text: str, rounds: int, number: int) -> tuple[float, float]:
    """Best seconds per compile from text and from JSON, in alternating rounds."""
    compilers = {"text": lambda: toolkiln.compile(text), "json": lambda: toolkiln.compile(json_text)}
    for fn in compilers.values():  # warm up: the parsers, pydantic schemas, caches
        per_call(fn, max(1, number // 4))
    best = {name: float("inf") for name in compilers}
    for _ in range(rounds):
        for name, fn in compilers.items():
            best[name] = min(best[name], per_call(fn, number))
    return best["text"], best["json"]


def text_vs_json_table(rounds: int, sizes: bool) -> None:
    print("| program | text DSL (us) | JSON DSL (us) | text / JSON |")
    print("|---|---:|---:|---:|")
    rows = [
        (path.name, path.read_text(encoding="utf-8"), 100)
        for path in sorted([*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.tk")])
    ]
    if sizes:  # (10,000 steps is over the text DSL's token limit: see parse_growth_table)
        rows += [(f"{steps:,} steps", program(steps), max(1, 1_000 // steps)) for steps in (10, 100, 1_000, 2_000)]
    for name, source, number in rows:
        text, json_text = text_and_json(source)
        text_seconds, json_seconds = text_against_json(text, json_text, rounds if number > 1 else 3, number)
        print(f"| {name} | {text_seconds * 1e6:,.0f} | {json_seconds * 1e6:,.0f} | {text_seconds / json_seconds:.2f} |")
        sys.stdout.flush()


def parse_growth_table() -> None:
    """The text front end alone (no token limit, no checks) on 10 to 10,000 steps: the
    hand-written statement parser against Lark's parse and tree builder, per step."""
    from toolkiln.ast.spans import LineIndex
    from toolkiln.syntax.builder import AstBuilder, parse_expression_with_lark
    from toolkiln.syntax.expressions import ParseContext
    from toolkiln.syntax.lark_front import parse_tree
    from toolkiln.syntax.text import parse_text

    def with_lark(text: str) -> None:
        index = LineIndex(text)
        AstBuilder(ParseContext(index, fallback=parse_expression_with_lark)).transform(parse_tree(text, "start", index))

    print("| steps | statement parser (ms) | per step (us) | Lark (ms) | per step (us) | Lark / statement parser |")
    print("|---:|---:|---:|---:|---:|---:|")
    for steps in SIZES:
        text = program(steps)
        assert parse_text(text)[0] is not None
        repeat = 5 if steps <= 1_000 else 2
        fast = min(per_call(partial(parse_text, text), 1) for _ in range(repeat))
        slow = min(per_call(partial(with_lark, text), 1) for _ in range(repeat))
        print(
            f"| {steps:,} | {fast * 1e3:,.1f} | {fast / steps * 1e6:,.0f} | {slow * 1e3:,.1f} |"
            f" {slow / steps * 1e6:,.0f} | {slow / fast:.1f} |"
        )
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternating compile rounds (default 15)")
    parser.add_argument("--imports", type=int, default=15, help="fresh interpreters per import (default 15)")
    parser.add_argument("--skip-sizes", action="store_true", help="leave out the program-size tables")
    parser.add_argument("--only-text-vs-json", action="store_true", help="only the text DSL against JSON table")
    options = parser.parse_args()
    print(
        f"toolkiln {toolkiln.__version__} compile path - {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
        f" - Python {platform.python_version()} - {platform.system()} {platform.machine()},"
        f" {os.cpu_count()} CPUs"
    )
    print()
    text_vs_json_table(options.rounds, not options.skip_sizes)
    if not options.skip_sizes:
        print()
        parse_growth_table()
    if options.only_text_vs_json:
        return
    print()
    compare_with_cpython(options.rounds)
    print()
    import_times(options.imports)
    if not options.skip_sizes:
        print()
        size_table()


if __name__ == "__main__":
    main()
