"""Nodes without a typeVersion and two nodes of one name (issue 26, item 3), on the public files
that have them and against the real n8n.

The files are read from the corpus tarball beside the checkout (../shared/corpus/n8n/, never
copied): the 9 of its 4,549 files with two nodes of one name and the 2 with nodes without a
typeVersion import, come back exactly as JSON, and the diagnostics say what each n8n release
does with them. The tests that use the `n8n` fixture check those claims against the n8n the
integration tests run (2.41.1 by default)."""

from __future__ import annotations

import json
import tarfile
import uuid
from pathlib import Path

import pytest
from n8n_server import installed_version

import toolkiln
from toolkiln.errors import CompileError
from toolkiln.n8n.errors import N8nHTTPError
from toolkiln.workflow import check_workflow, compile_workflow

TARBALL = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "n8n" / "public-4549.tar.xz"
SHARED_NAMES = [
    f"{prefix}{name}"
    for prefix, names in {
        "Danitilahun_n8n-workflow-templates__workflows_": [
            "0032_Manual_Filemaker_Automate_Triggered.json",
            "0055_Signl4_Interval_Create_Scheduled.json",
            "0108_Noop_GitHub_Create_Triggered.json",
            "1083_Mautic_GoogleSheets_Automate_Scheduled.json",
        ],
        "oxbshw_ultimate-n8n-ai-workflows__": [
            "New_Workflow_1274-assign-issues-to-interested-contributors_workflow.json",
            "workflows_1083_Mautic_GoogleSheets_Automate_Scheduled.json",
            "workflows_ai-agents_0032_Manual_Filemaker_Automate_Triggered.json",
            "workflows_ai-agents_0055_Signl4_Interval_Create_Scheduled.json",
            "workflows_ai-agents_0108_Noop_GitHub_Create_Triggered.json",
        ],
    }.items()
    for name in names
]
NO_TYPE_VERSION = [
    "oxbshw_ultimate-n8n-ai-workflows__workflows_ai-agents_auto-reply-slack.json",
    "oxbshw_ultimate-n8n-ai-workflows__workflows_ai-agents_summarizer-bot.json",
]

pytestmark = pytest.mark.skipif(not TARBALL.is_file(), reason=f"the public n8n corpus is not at {TARBALL}")


@pytest.fixture(scope="module")
def corpus() -> dict[str, str]:
    """The texts of the files above, read from the tarball."""
    wanted = set(SHARED_NAMES + NO_TYPE_VERSION)
    texts = {}
    with tarfile.open(TARBALL) as archive:
        for member in archive:
            if member.name in wanted:
                handle = archive.extractfile(member)
                assert handle is not None
                texts[member.name] = handle.read().decode("utf-8")
    assert set(texts) == wanted
    return texts


def codes_of(diagnostics) -> set[str]:
    return {d.code for d in diagnostics}


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_a_public_file_with_two_nodes_of_one_name_imports_exactly_and_has_no_text(corpus, name):
    text = corpus[name]
    for n8n_version, said in (("2.41.1", "E0722"), ("1.123.50", "W0731")):
        imported = toolkiln.import_n8n(text, name, n8n_version=n8n_version)
        assert imported.to_n8n() == json.loads(text)
        assert said in codes_of(imported.diagnostics)
        with pytest.raises(CompileError) as refused:
            imported.to_text()
        assert codes_of(refused.value.diagnostics) == {"E0732"}


@pytest.mark.parametrize("name", NO_TYPE_VERSION)
def test_a_public_file_with_nodes_without_a_type_version_round_trips_as_json_and_text(corpus, name):
    text = corpus[name]
    imported = toolkiln.import_n8n(text, name)
    assert imported.to_n8n() == json.loads(text)
    assert compile_workflow(imported.to_text()).to_n8n() == json.loads(text)
    assert {"W0730", "E0728"} <= codes_of(imported.diagnostics)  # no positions either: 2.x refuses


# --- against the real n8n ---------------------------------------------------------------------


def workflow(*nodes: dict) -> dict:
    first, *rest = (node["name"] for node in nodes)
    after = [{"node": name, "type": "main", "index": 0} for name in rest[:1]]
    return {
        "name": f"item 3 {uuid.uuid4().hex[:8]}",
        "nodes": list(nodes),
        "connections": {first: {"main": [after]}} if after else {},
        "settings": {"executionOrder": "v1"},
    }


def webhook(path: str) -> dict:
    """A webhook trigger without a typeVersion: n8n runs its default version (2.1 on 2.41.1)."""
    parameters = {"httpMethod": "POST", "path": path, "responseMode": "onReceived", "options": {}}
    return {"name": "Webhook", "type": "n8n-nodes-base.webhook", "position": [0, 0], "parameters": parameters}


def no_op(name: str = "Pass on") -> dict:
    return {"name": name, "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [200, 0], "parameters": {}}


def answer(n8n, data: dict) -> tuple[int, str]:
    try:
        created = n8n.client.create_workflow(data)
    except N8nHTTPError as error:
        return error.status, str(error)
    n8n.created.append(created["id"])
    return 200, created["id"]


def version_of(n8n) -> str:
    return installed_version(n8n.server.home)


def test_n8n_refuses_two_nodes_of_one_name_as_toolkiln_says(n8n, corpus):
    n8n_version = version_of(n8n)
    for data in (
        workflow(webhook(f"dup-{uuid.uuid4().hex[:8]}"), no_op(), no_op()),
        json.loads(corpus[SHARED_NAMES[0]]),
    ):
        data = {**data, "name": f"shared names {uuid.uuid4().hex[:8]}", "settings": {"executionOrder": "v1"}}
        said = codes_of(check_workflow(data, n8n_version=n8n_version))
        status, message = answer(n8n, data)
        if "E0722" in said:
            assert (status, "duplicate_node_name" in message or "Duplicate node name" in message) == (400, True)
        else:
            assert "W0731" in said and status == 200


def test_n8n_stores_and_runs_a_node_without_a_type_version_as_toolkiln_says(n8n):
    path = f"no-version-{uuid.uuid4().hex[:8]}"
    data = workflow(webhook(path), no_op())
    [finding] = check_workflow(data, n8n_version=version_of(n8n))
    assert finding.code == "W0730" and "stores it as it is" in finding.message, finding.message
    status, workflow_id = answer(n8n, data)
    assert status == 200, workflow_id
    stored = n8n.client.get_workflow(workflow_id)
    assert "typeVersion" not in next(node for node in stored["nodes"] if node["name"] == "Webhook")
    n8n.client.activate_workflow(workflow_id)
    answered = n8n.client.trigger_webhook(path, {"x": 1}, raise_for_status=False).status
    if "does not register a webhook trigger" in finding.message:  # 1.123.50 activates, registers nothing
        assert answered == 404
    else:  # 2.x runs the webhook's default version
        assert "runs version 2.1 of `n8n-nodes-base.webhook`" in finding.message and answered == 200


def test_n8n_refuses_a_node_without_a_type_version_or_position_when_toolkiln_says_it_does(n8n):
    data = workflow({key: value for key, value in webhook("unused").items() if key != "position"}, no_op())
    said = codes_of(check_workflow(data, n8n_version=version_of(n8n)))
    status, _ = answer(n8n, data)
    assert status == (400 if "E0728" in said else 200)
