"""The cost of the factory's own work, without a model: extracting a definition from a reply
(the corpus of tests/unit/llm/replies, and hostile replies at the size limit), generating the
prompts, and one attempt end to end (extract, check, run the examples, save) with a scripted
reply. A real model's answer takes seconds; this is what toolkiln adds to each attempt.

    python benchmarks/bench_factory.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from toolkiln import Registry
from toolkiln.llm import ScriptedClient, compute_prompt, extract, workflow_prompt
from toolkiln.llm.extraction import MAX_REPLY_CHARS
from toolkiln.llm.factory import Factory

REPLIES = Path(__file__).resolve().parents[1] / "tests" / "unit" / "llm" / "replies"
HOSTILE = {
    "commas": '{"logic": [' + "," * (MAX_REPLY_CHARS - 20) + "]}",
    "single quotes": "{'" * (MAX_REPLY_CHARS // 2 - 1),
    "comments": '{"logic": 1, ' + "// c\n" * (MAX_REPLY_CHARS // 5 - 5) + "}",
    "open brackets": '{"logic": ' + "[" * (MAX_REPLY_CHARS - 20),
    "prose": "word " * (MAX_REPLY_CHARS // 5),
    "10 MB": "x" * (10 << 20),
}


def timed(run: Callable[[], object], repeat: int) -> float:
    """The median seconds of `repeat` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat

    replies = [path.read_text(encoding="utf-8") for path in sorted(REPLIES.glob("*.txt"))]
    corpus = timed(lambda: [extract(text) for text in replies], repeat)
    print(f"extract, corpus of {len(replies)} replies: {corpus / len(replies) * 1e3:.2f} ms a reply")
    for name, text in HOSTILE.items():
        print(f"extract, hostile {name} ({len(text):,} chars): {timed(lambda t=text: extract(t), 1) * 1e3:.0f} ms")

    print(f"compute_prompt: {timed(compute_prompt, repeat) * 1e3:.1f} ms, {len(compute_prompt()):,} chars")
    description = "When a lead fills our form, post it to Slack and add a row in Google Sheets"
    workflow = timed(lambda: workflow_prompt(description), repeat)
    print(f"workflow_prompt: {workflow * 1e3:.1f} ms, {len(workflow_prompt(description)):,} chars")

    good = (REPLIES / "fenced-json.txt").read_text(encoding="utf-8")

    def one_attempt() -> None:
        with tempfile.TemporaryDirectory() as folder:
            registry = Registry(Path(folder) / "reg", durable=False)
            assert Factory(ScriptedClient([good]), registry).create_compute("shipping").ok

    print(f"one attempt, extract to saved tool (3 examples run): {timed(one_attempt, repeat) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
