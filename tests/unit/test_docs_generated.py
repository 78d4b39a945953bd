"""The reference tables in docs/*.md are written from the code (docs/hooks.py), so the pages
read complete on GitHub; these tests fail while one is stale or a page is a bare placeholder."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from toolkiln.semantics.builtins import BUILTINS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()


def test_every_generated_table_matches_the_code():
    stale = [page.name for page in HOOKS.stale_pages()]
    assert stale == [], f"stale generated tables in docs/{stale}: run `PYTHONPATH=src python docs/hooks.py`"


@pytest.mark.parametrize("region", sorted(HOOKS.GENERATORS))
def test_each_region_is_written_into_a_page(region):
    pages = [page for page in DOCS.glob("*.md") if f"<!-- generated: {region} -->" in page.read_text()]
    assert len(pages) == 1, f"region {region} is in {pages}"
    text = pages[0].read_text(encoding="utf-8")
    body = text.split(f"<!-- generated: {region} -->", 1)[1].split("<!-- end generated -->", 1)[0]
    assert body.strip() == HOOKS.GENERATORS[region]().strip() and body.strip()


def test_no_page_is_left_with_a_bare_placeholder():
    bare = re.compile(r"^<!-- (builtins|error-codes|limits|reserved|template-types|templates) -->$", re.M)
    assert [page.name for page in DOCS.glob("*.md") if bare.search(page.read_text())] == []


def test_a_stale_region_is_found_and_rewritten():
    page = (DOCS / "builtins.md").read_text(encoding="utf-8")
    stale = page.replace("| `abs(x)` |", "| `abs(y)` |", 1)
    assert stale != page and HOOKS.render_regions(stale) == page


def test_every_builtin_is_in_the_committed_reference():
    page = (DOCS / "builtins.md").read_text(encoding="utf-8")
    assert all(f"| `{builtin.signature}` |" in page for builtin in BUILTINS.values())


def test_builtins_command_lists_every_builtin_with_its_signature():
    def run(*args):
        result = subprocess.run(
            [sys.executable, "-m", "toolkiln", "builtins", *args], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    listed = json.loads(run("--json"))
    assert [entry["name"] for entry in listed] == sorted(BUILTINS)
    by_name = {entry["name"]: entry for entry in listed}
    assert by_name["round"]["signature"] == "round(x, digits?)"
    assert by_name["round"]["arguments"][1] == {"name": "digits", "types": ["number"], "optional": True}
    assert by_name["min"]["variadic"] is True and by_name["today"]["pure"] is False
    text = run()
    assert all(re.search(rf"^{re.escape(b.signature)} +{re.escape(b.doc)}$", text, re.M) for b in BUILTINS.values())
