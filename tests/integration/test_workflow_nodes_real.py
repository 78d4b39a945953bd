"""The workflow DSL's http, switch, merge, wait, generic node and schedule constructs, compiled
and run in a real n8n (the session's n8n server, conftest.py).

The http steps call a small JSON API served by this test on 127.0.0.1, which records what it
received, so both directions are checked: what n8n sent and what it did with the answer.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import FakeApi

from toolkiln.workflow import compile_workflow


@pytest.fixture(scope="module")
def api() -> Iterator[FakeApi]:
    """Answers every request with JSON about the request."""
    fake = FakeApi(lambda request: {"echo": request, "count": 7})
    yield fake
    fake.close()


def test_http_step_sends_query_headers_and_json_body_and_reads_the_answer(n8n, api):
    source = f"""
workflow http_probe
description "Posts to the fake API and answers with what came back"
on webhook POST "/http-probe" respond with node
http crm POST "{api.url}/leads/{{{{body.id}}}}" query {{ since = body.days }} headers {{ "X-Token" = "t-" + body.id }} body {{ n = body.n * 2, name = upper(body.name) }}
set out {{ count = crm.count, path = crm.echo.path }}
respond reply out
"""
    _, path = n8n.deploy_source(source)
    reply = n8n.client.trigger_webhook(path, {"id": "L7", "days": 3, "n": 21, "name": "ada"})
    assert (reply.status, reply.data) == (200, {"count": 7, "path": "/leads/L7"})
    sent = api.received[-1]
    assert sent == {
        "method": "POST",
        "path": "/leads/L7",
        "query": {"since": "3"},
        "token": "t-L7",
        "authorization": None,  # (no credential on this step)
        "body": {"n": 42, "name": "ADA"},
    }


SWITCH = (Path(__file__).parents[1] / "golden" / "workflows" / "switch_merge.wf").read_text()


def test_switch_routes_each_value_and_merge_passes_the_one_branch_on(n8n):
    _, path = n8n.deploy_source(SWITCH)
    answers = {n: n8n.client.trigger_webhook(path, {"n": n}).data for n in (20, 7, 1)}
    assert answers == {20: {"label": "big"}, 7: {"label": "mid"}, 1: {"label": "small"}}


def test_wait_then_generic_node_pass_the_item_through(n8n):
    source = """
workflow wait_probe
description "Waits a second, passes through a No Op node, answers"
on webhook POST "/wait-probe" respond with node
wait pause 1 seconds
node "Pass" type "n8n-nodes-base.noOp" version 1 {} with {"notes": "kept"}
set out { n = body.n + 1 }
respond reply out
"""
    workflow, path = n8n.deploy_source(source)
    assert n8n.client.trigger_webhook(path, {"n": 41}).data == {"n": 42}
    stored = n8n.client.get_workflow(workflow["id"])
    assert next(node for node in stored["nodes"] if node["name"] == "Pass")["notes"] == "kept"


@pytest.mark.parametrize("rule", ['daily at "09:00" timezone "Europe/Berlin"', "every 2 hours", 'cron "30 8 * * 1-5"'])
def test_schedule_workflows_activate(n8n, rule):
    workflow = compile_workflow(f"""
workflow schedule_probe
description "Stamps a field on a schedule"
on schedule {rule}
set stamp {{ ok = true }}
""").to_n8n()
    activated = n8n.create(workflow, activate=True)
    assert activated["active"] is True
    assert n8n.client.get_workflow(activated["id"])["settings"].get("timezone") == (
        "Europe/Berlin" if "Berlin" in rule else None
    )


def test_credentials_are_found_by_name_and_secrets_stay_in_n8n(n8n, api):
    """`credentials httpHeaderAuth "name"` emits the name only; n8n finds the credential by name
    and type when the workflow is created, and sends its header."""
    name = f"Fake API key {uuid.uuid4().hex[:6]}"
    credential_id = n8n.create_credential("httpHeaderAuth", name, {"name": "X-Token", "value": "s3cret"})
    source = f"""
workflow credential_probe
description "Calls the fake API with a header credential"
on webhook POST "/credential-probe" respond with node
http crm GET "{api.url}/secure" credentials httpHeaderAuth "{name}"
respond reply crm
"""
    workflow = compile_workflow(source).to_n8n()
    assert "s3cret" not in json.dumps(workflow)
    stored, path = n8n.deploy_source(source)
    http_node = next(node for node in stored["nodes"] if node["name"] == "crm")
    assert http_node["credentials"]["httpHeaderAuth"] == {"id": credential_id, "name": name}
    assert n8n.client.trigger_webhook(path, {}).status == 200
    assert api.received[-1]["path"] == "/secure" and api.received[-1]["token"] == "s3cret"


GOLDEN = Path(__file__).parents[1] / "golden" / "workflows"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_every_golden_workflow_is_accepted_and_activates(n8n, path):
    """Each golden n8n JSON is created as it is; all but manual ones activate (their
    credentials exist first, as docs/n8n-setup.md says)."""
    workflow = json.loads(path.read_text())
    for node in workflow["nodes"]:
        for type_, credential in node.get("credentials", {}).items():
            ensure_credential(n8n, type_, credential["name"])
    created = n8n.create(workflow)
    assert [node["name"] for node in created["nodes"]] == [node["name"] for node in workflow["nodes"]]
    if not any(node["type"] == "n8n-nodes-base.manualTrigger" for node in workflow["nodes"]):
        assert n8n.client.activate_workflow(created["id"])["active"] is True


_CREDENTIALS: set[tuple[str, str, str]] = set()


def ensure_credential(n8n, type_: str, name: str) -> None:
    """Create the credential once per server (n8n allows two of one name; lookups would be ambiguous)."""
    key = (n8n.server.url, type_, name)
    if key in _CREDENTIALS:
        return
    _CREDENTIALS.add(key)
    n8n.create_credential(type_, name, {"httpHeaderAuth": {"name": "Authorization", "value": "Bearer test"}}[type_])
