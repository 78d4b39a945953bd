"""What toolkiln writes for imported n8n exports, n8n accepts: each hand-written editor export
(tests/unit/workflow/fixtures, community nodes aside, which this n8n does not have) is
imported, its DSL text compiled back, and the result created through the real n8n's public
API, which stores the nodes and connections as sent; what toolkiln's lint says that n8n release
refuses (a node without a position, for n8n 2.x), it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from n8n_server import N8N_VERSION

import toolkiln
from toolkiln.n8n.errors import N8nBadRequest
from toolkiln.workflow import check_workflow, compile_workflow

FIXTURES = Path(__file__).resolve().parents[1] / "unit" / "workflow" / "fixtures"
COMMUNITY = {"community_legacy.json"}  # n8n-nodes-evolution-api is not installed on this server
EXPORTS = sorted(path.name for path in FIXTURES.glob("*.json") if path.name not in COMMUNITY)


@pytest.mark.parametrize("fixture", EXPORTS)
def test_an_imported_export_compiled_from_its_text_is_accepted_by_n8n(n8n, fixture):
    export = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    imported = toolkiln.import_n8n(export)
    written = compile_workflow(imported.to_text(), max_source_chars=1 << 24).to_n8n()
    assert written == export  # the exact round trip, through the DSL text
    written.setdefault("name", Path(fixture).stem)  # what `toolkiln n8n deploy` names a nameless export
    if any(d.code == "E0728" for d in check_workflow(written, n8n_version=N8N_VERSION)):
        with pytest.raises(N8nBadRequest, match=r"position"):
            n8n.create(written)
        return
    created = n8n.create(written)
    stored = n8n.client.get_workflow(created["id"])

    def essentials(workflow: dict) -> list:
        return [(n["name"], n["type"], n["typeVersion"], n.get("parameters", {})) for n in workflow["nodes"]]

    assert essentials(stored) == essentials(created)
    sent = {n["name"]: n for n in written["nodes"]}
    for node in stored["nodes"]:
        original = sent[node["name"]]
        assert (node["type"], node["typeVersion"]) == (original["type"], original["typeVersion"])
    assert stored["connections"] == written["connections"]
