"""A sample of the public corpus against the real n8n (issue 26): for each sampled export,
n8n's public API answers toolkiln's re-export (imported, written as DSL text, compiled back) as
it answers the original: both created, or both refused with the same status. The corpus is
read from ../shared beside the checkout (test_n8n_public_corpus.py says where)."""

from __future__ import annotations

import json
import uuid

import pytest
from test_n8n_public_corpus import CORPUS, FILES

import toolkiln
from toolkiln.n8n.errors import N8nHTTPError
from toolkiln.workflow import compile_workflow

SAMPLE = FILES[::15]  # 20 of the 300, spread over the sources (the names start with the source)

pytestmark = pytest.mark.skipif(not FILES, reason=f"the public n8n corpus is not at {CORPUS}")


def answer(n8n, workflow: dict, name: str) -> int:
    """The status n8n answers a create with (200, or its 4xx); what it created is deleted later."""
    try:
        created = n8n.client.create_workflow({**workflow, "name": name})
    except N8nHTTPError as error:
        return error.status
    n8n.created.append(created["id"])
    return 200


@pytest.mark.parametrize("file", SAMPLE)
def test_n8n_answers_a_re_export_as_it_answers_the_original(n8n, file):
    original = json.loads((CORPUS / file).read_text(encoding="utf-8"))
    imported = toolkiln.import_n8n(original, file)
    re_export = compile_workflow(imported.to_text(), max_source_chars=1 << 26).to_n8n()
    tag = uuid.uuid4().hex[:8]
    assert answer(n8n, re_export, f"corpus re-export {tag}") == answer(n8n, original, f"corpus original {tag}")
