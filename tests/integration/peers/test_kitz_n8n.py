"""Kitz's 28 n8n workflows (../shared/corpus/peers/kitz/n8n-workflows/, kitz_os/data/n8n-workflows
at Kitz's HEAD) as they are (issue 27, item 3): each imports into the workflow DSL and writes
back the same JSON (lossless), the same again from the DSL text; the three with the deprecated
Cron node are warned with its replacement; on the real n8n 2.41.1, toolkiln's re-export of each
is created and activated."""

from __future__ import annotations

import json
import uuid

import pytest
from peers_corpus import peer

import toolkiln
from toolkiln.workflow import check_workflow, compile_workflow

WORKFLOWS = peer("kitz") / "n8n-workflows"
FILES = sorted(path.name for path in WORKFLOWS.glob("*.json"))
CRON = ["content-weekly-digest.json", "monthly-invoice-batch.json", "quote-followup.json"]


def document(name: str) -> dict:
    return json.loads((WORKFLOWS / name).read_text(encoding="utf-8"))


def test_the_corpus_holds_kitz_28_workflows_3_on_the_cron_node():
    assert len(FILES) == 28
    assert [f for f in FILES if any(n["type"] == "n8n-nodes-base.cron" for n in document(f)["nodes"])] == CRON


@pytest.mark.parametrize("name", FILES)
def test_a_kitz_workflow_imports_losslessly(name):
    original = document(name)
    imported = toolkiln.import_n8n(original, name)
    assert imported.to_n8n() == original
    assert compile_workflow(imported.to_text()).to_n8n() == original


@pytest.mark.parametrize("name", CRON)
def test_the_cron_node_is_warned_with_its_replacement(name):
    found = [d for d in check_workflow((WORKFLOWS / name).read_text(encoding="utf-8"), name) if d.code == "W0727"]
    (warning,) = found
    assert "n8n-nodes-base.cron" in warning.message
    assert warning.hint is not None and "n8n-nodes-base.scheduleTrigger" in warning.hint


@pytest.mark.parametrize("name", FILES)
def test_a_kitz_workflow_activates_on_the_real_n8n(n8n, name):
    re_export = compile_workflow(toolkiln.import_n8n(document(name), name).to_text()).to_n8n()
    created = n8n.client.create_workflow({**re_export, "name": f"kitz {name} {uuid.uuid4().hex[:8]}"})
    n8n.created.append(created["id"])
    assert n8n.client.activate_workflow(created["id"])["active"] is True
    n8n.client.deactivate_workflow(created["id"])  # its webhook path is free for the next run
