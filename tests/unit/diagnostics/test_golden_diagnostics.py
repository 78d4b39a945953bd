"""Rendered diagnostics for the files in tests/golden/diagnostics, compared with `<file>.out`.
Run `pytest --update-golden` to rewrite the expected outputs, then review the diff."""

import os
from pathlib import Path

import pytest

import toolkiln
from toolkiln.diagnostics.render import render_text

GOLDEN = Path(__file__).parents[2] / "golden" / "diagnostics"
INPUTS = sorted(p for p in GOLDEN.iterdir() if p.suffix in (".tk", ".json"))


@pytest.mark.parametrize("path", INPUTS, ids=[p.name for p in INPUTS])
def test_rendered_diagnostics(path, golden, monkeypatch):
    monkeypatch.chdir(GOLDEN)
    rendered = "\n\n".join(render_text(d) for d in toolkiln.check(Path(path.name))) + "\n"
    expected = path.with_name(path.name + ".out")
    golden(expected, rendered)


def test_every_input_has_an_expected_output():
    assert INPUTS and all(p.with_name(p.name + ".out").exists() for p in INPUTS)
    assert os.listdir(GOLDEN)
