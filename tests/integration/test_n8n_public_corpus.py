"""The public n8n corpus in CI (issue 26): each of the 300 public workflow exports in
../shared/corpus/n8n/public-300/ (read where it lies, beside the checkout; never copied into the
repo) is imported, written back exactly (the JSON round trip), compiled back from its DSL text
to the same JSON (the text round trip), and linted with every finding located, against the
default node catalog (that of the n8n the integration tests run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkiln
from toolkiln.workflow import check_workflow, compile_workflow

# CI checks the project out beside shared/: the corpus is found from the repo root's parent.
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "n8n" / "public-300"
FILES = sorted(path.name for path in CORPUS.glob("*.json")) if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(
    not FILES, reason=f"the public n8n corpus is not at {CORPUS} (shared/ beside the checkout)"
)


def test_the_corpus_is_the_300_files_its_index_names():
    listed = [line.split("\t", 1)[0] for line in (CORPUS / "INDEX.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(listed) == FILES and len(FILES) == 300


@pytest.mark.parametrize("name", FILES)
def test_a_public_export_imports_round_trips_and_lints(name):
    text = (CORPUS / name).read_text(encoding="utf-8")
    document = json.loads(text)
    imported = toolkiln.import_n8n(document, name)
    written = imported.to_n8n()
    assert written == document  # the exact JSON round trip
    again = compile_workflow(imported.to_text(), max_source_chars=1 << 26).to_n8n()
    assert again == written  # the DSL text round trip
    for diagnostic in check_workflow(text, name):
        assert diagnostic.code and diagnostic.message
        assert diagnostic.span is not None and diagnostic.span.line >= 1, diagnostic  # located in the file
