"""A workflow tool's `secrets` and `credentials` (registry/kinds/workflow_credentials.py): what
is refused (R0745, at its path), and a deploy whose secret is not set (R0742) sending nothing.
The credentials made in a real n8n: tests/integration/test_n8n_credentials_real.py."""

from __future__ import annotations

import base64
import os

import pytest
from unit.n8n.fake_n8n import FakeN8n

from toolkiln import CompileError, Registry
from toolkiln.registry.errors import SecretMissing, SecretNotAHeaderValue
from toolkiln.registry.secrets import KEY_ENV

WF = """workflow crm_note
description "Posts a note"
on webhook POST "/notes" respond with node
http crm POST "http://127.0.0.1:9/notes" body { text = body.text } credentials httpHeaderAuth "crm"
respond reply crm
"""
CRM = {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "CRM_API_KEY"}}


def definition(**changes):
    base = {
        "kind": "workflow",
        "name": "crm_note",
        "description": "Posts a note",
        "parameters": {"text": {"type": "string"}},
        "secrets": ["CRM_API_KEY"],
        "credentials": {"crm": CRM},
        "workflow": WF,
    }
    return {key: value for key, value in {**base, **changes}.items() if value is not None}


@pytest.fixture
def fake():
    return FakeN8n()


@pytest.fixture
def wreg(tmp_path, fake, monkeypatch):
    monkeypatch.setenv(KEY_ENV, base64.urlsafe_b64encode(os.urandom(32)).decode())
    with Registry(tmp_path / "reg", n8n=fake.client()) as registry:
        yield registry


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"credentials": {"crm": {**CRM, "type": "httpBasicAuth"}}}, "credentials.crm"),  # no step names it so
        ({"credentials": {"other": CRM}}, "credentials.other"),
        ({"credentials": {"crm": {**CRM, "value": {"secret": "NOT_DECLARED"}}}}, "credentials.crm.value"),
        ({"credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Token", "value": "plain"}}}, "credentials.crm"),
        ({"credentials": {"crm": {**CRM, "value": 7}}}, "credentials.crm.value"),
        ({"credentials": {"crm": {**CRM, "bad-field": "x"}}}, "credentials.crm.bad-field"),
        ({"credentials": ["crm"]}, "credentials"),
        ({"secrets": ["CRM_API_KEY", "UNUSED_KEY"]}, "secrets[1]"),
        ({"credentials": None}, "secrets[0]"),  # declared, used by nothing
    ],
)
def test_bad_credentials_are_refused_at_their_path(wreg, fake, changes, path):
    with pytest.raises(CompileError) as info:
        wreg.create(definition(**changes))
    assert ("R0745", path) in {(d.code, d.span.path) for d in info.value.diagnostics}
    assert fake.requests == [] and len(wreg) == 0


def test_a_deploy_whose_secret_is_not_set_sends_nothing(wreg, fake):
    record = wreg.create(definition(), created_by="llm")
    assert record.definition["credentials"] == {"crm": CRM} and record.definition["secrets"] == ["CRM_API_KEY"]
    with pytest.raises(SecretMissing) as info:
        wreg.approve("crm_note")
    assert info.value.code == "R0742" and "CRM_API_KEY" in info.value.message and info.value.hint
    assert fake.requests == [] and wreg.get("crm_note").status == "pending_approval"


def test_a_header_secret_with_a_line_break_is_r0748_and_sends_nothing(wreg, fake):
    wreg.create(definition(), created_by="llm")
    wreg.secret_store().set("CRM_API_KEY", "key-read-from-a-file\n")
    with pytest.raises(SecretNotAHeaderValue) as info:
        wreg.approve("crm_note")
    assert info.value.code == "R0748" and "character 21 " in info.value.message
    assert "key-read-from-a-file" not in info.value.message + str(info.value.hint)
    assert fake.requests == [] and wreg.get("crm_note").status == "pending_approval"


def test_a_deployment_without_credentials_is_written_as_before(tmp_path, fake):
    with Registry(tmp_path / "reg", n8n=fake.client()) as reg:
        plain = definition(secrets=None, credentials=None, workflow=WF.replace(' credentials httpHeaderAuth "crm"', ""))
        record = reg.create(plain)
    assert record.deployment is not None and record.deployment.credentials == {}
    assert '"credentials"' not in (tmp_path / "reg" / "tools" / "crm_note.json").read_text()
