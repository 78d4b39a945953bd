"""Each shipped template, rendered with its defaults, gives exactly tests/golden/templates/<slug>.json.
Run `pytest --update-golden` to rewrite the expected JSON, then review the diff."""

import json
from pathlib import Path

import pytest

from toolkiln import templates

GOLDEN = Path(__file__).parents[2] / "golden" / "templates"
# Parameters without a default get these values in the golden files (and in the docs).
REQUIRED = {"daily-summary": {"owner_phone": "+34600000000"}}
SLUGS = [t.slug for t in templates.list()]


@pytest.mark.parametrize("slug", SLUGS)
def test_rendered_n8n_json(slug, golden):
    emitted = (
        json.dumps(
            templates.render(slug, **REQUIRED.get(slug, {})).to_n8n(), indent=2, sort_keys=True, ensure_ascii=False
        )
        + "\n"
    )
    expected = GOLDEN / f"{slug}.json"
    golden(expected, emitted)


def test_every_golden_file_is_a_template():
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == SLUGS
