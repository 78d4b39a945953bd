"""Each tests/golden/workflows/<name>.wf compiles to exactly <name>.json.
Run `pytest --update-golden` to rewrite the expected JSON, then review the diff."""

import json
from pathlib import Path

import pytest

from toolkiln.workflow import compile_workflow

GOLDEN = Path(__file__).parents[2] / "golden" / "workflows"
INPUTS = sorted(GOLDEN.glob("*.wf"))


@pytest.mark.parametrize("path", INPUTS, ids=[p.stem for p in INPUTS])
def test_emitted_n8n_json(path, golden):
    emitted = (
        json.dumps(
            compile_workflow(path.read_text(encoding="utf-8"), str(path)).to_n8n(),
            indent=2,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )
    expected = path.with_suffix(".json")
    golden(expected, emitted)


def test_every_input_has_an_expected_output():
    assert INPUTS and all(p.with_suffix(".json").exists() for p in INPUTS)
