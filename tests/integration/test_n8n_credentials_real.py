"""A workflow tool's secrets become n8n credentials on deploy, against the real n8n (the
session's server, conftest.py: 2.41.1, or 1.123.50 with TOOLKILN_N8N_VERSION=1.123.50): made
from the registry's secret, referred to by id, updated on a new deploy (in place on 2.x; 1.x,
which has no update route, gets a new one and the old one deleted), deleted with the tool; a
user's credential of the same name is never touched; a missing secret refuses the deploy before
anything is sent; the value is nowhere but in n8n's credential (not the workflow JSON, the
registry's files, the answer, an error).
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import FakeApi
from n8n_server import N8N_VERSION

from toolkiln.registry import Registry
from toolkiln.registry.errors import SecretMissing
from toolkiln.registry.secrets import KEY_ENV

FIRST = "first-Value-7f3a9c"
SECOND = "second-Value-0b1d42"


@pytest.fixture
def api() -> Iterator[FakeApi]:
    """Echoes the X-Token header it got: the answer would show the secret, were it not redacted."""
    fake = FakeApi(lambda request: {"token": request["token"], "path": request["path"]})
    yield fake
    fake.close()


@pytest.fixture(autouse=True)
def secret_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, base64.urlsafe_b64encode(os.urandom(32)).decode())


def definition(tag: str, api: FakeApi) -> dict:
    return {
        "kind": "workflow",
        "name": "crm_note",
        "description": "Posts a note to the CRM with its API key",
        "parameters": {"text": {"type": "string"}},
        "secrets": ["CRM_API_KEY"],
        "credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "CRM_API_KEY"}}},
        "workflow": f"""workflow crm_note_{tag}
description "Posts a note to the CRM"
on webhook POST "/crm-note-{tag}" respond with node
http crm POST "{api.url}/notes" body {{ text = body.text }} credentials httpHeaderAuth "crm"
respond reply crm
""",
    }


def toolkiln_credentials(n8n) -> set[str]:
    """The ids of the credentials named as toolkiln names the tool's (n8n 1.x and 2.x)."""
    return n8n.credentials_named("toolkiln crm_note: crm")


def everything_in(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())


def test_a_secret_becomes_an_n8n_credential_that_the_http_step_sends(n8n, api, tmp_path, capsys):
    tag = uuid.uuid4().hex[:8]
    users = n8n.create_credential("httpHeaderAuth", "toolkiln crm_note: crm", {"name": "X-Token", "value": "users"})
    with Registry(tmp_path / "reg", n8n=n8n.client) as reg:
        reg.create(definition(tag, api), created_by="llm")
        with pytest.raises(SecretMissing) as refused:  # nothing is sent: no credential, no workflow
            reg.approve("crm_note")
        assert refused.value.code == "R0742" and "CRM_API_KEY" in refused.value.message
        assert toolkiln_credentials(n8n) == {users}
        assert not [w for w in n8n.client.list_workflows() if w["name"] == f"crm_note_{tag}"]

        reg.secret_store().set("CRM_API_KEY", FIRST)
        record = reg.approve("crm_note")
        n8n.created.append(record.deployment.workflow_id)
        ours = record.deployment.credentials["crm"]
        assert ours != users and toolkiln_credentials(n8n) == {users, ours}
        stored = n8n.client.get_workflow(record.deployment.workflow_id)
        http_node = next(node for node in stored["nodes"] if node["name"] == "crm")
        assert http_node["credentials"] == {"httpHeaderAuth": {"id": ours, "name": "toolkiln crm_note: crm"}}
        assert FIRST not in json.dumps(stored)

        answer = reg.run("crm_note", {"text": "hello"})
        assert api.received[-1]["token"] == FIRST  # the header arrived
        assert answer == {"token": "[redacted:CRM_API_KEY]", "path": "/notes"}  # the echo did not

        reg.secret_store().set("CRM_API_KEY", SECOND)
        again = reg.deploy("crm_note")  # one credential of ours, never a second
        ours_now = again.deployment.credentials["crm"]
        assert (ours_now == ours) is not N8N_VERSION.startswith("1.")  # 1.x cannot update one: replaced
        assert toolkiln_credentials(n8n) == {users, ours_now}
        reg.run("crm_note", {"text": "again"})
        assert api.received[-1]["token"] == SECOND

        folder = everything_in(tmp_path / "reg")
        assert FIRST.encode() not in folder and SECOND.encode() not in folder
        reg.delete("crm_note")
        assert toolkiln_credentials(n8n) == {users}  # the user's is left alone
    n8n.client.delete_credential(users)
    shown = capsys.readouterr()
    assert FIRST not in shown.out + shown.err and SECOND not in shown.out + shown.err
