"""Realistic broken model output (tests/corpus/broken_model_output): every program gets a
hint, and those listed as fixed check after the certain fixes alone, applied by the real
benchmark script (benchmarks/bench_diagnostics.py) the way `toolkiln check --fix` applies
them. A change that loses a hint or a fix fails here; one that gains a fix updates
tests/corpus/broken_model_output.expected.json (and the numbers in docs/errors.md)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXPECTED = json.loads((ROOT / "tests" / "corpus" / "broken_model_output.expected.json").read_text())


def test_the_corpus_is_large_enough_to_measure():
    assert len(EXPECTED) >= 40
    assert sorted(EXPECTED) == sorted(p.name for p in (ROOT / "tests" / "corpus" / "broken_model_output").iterdir())


def test_every_program_gets_its_hint_and_its_fix():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_diagnostics.py"), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    measured = json.loads(result.stdout)
    got = {name: {"hint": r["hint"], "fixed": r["fixed"]} for name, r in measured.items()}
    assert got == EXPECTED
    assert all(r["codes"] for r in measured.values())  # every program is reported
