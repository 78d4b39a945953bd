"""`toolkiln n8n deploy FILE --credentials` against an in-memory n8n: the workflow's credentials
made from the registry's secrets (toolkiln.n8n.credentials.deploy_named and the CLI). Which
credentials are toolkiln's: those the workflow of that name refers to under toolkiln's names;
updated in place (2.x) or replaced (1.x), deleted when no longer wanted, any other left alone.
"""

from __future__ import annotations

import base64
import json
import os

import httpx
import pytest
from unit.n8n.fake_n8n import BASE, KEY, FakeN8n
from unit.n8n.test_credentials_made import Credentials

from toolkiln.cli import main
from toolkiln.cli import n8n as n8n_cli
from toolkiln.n8n import errors
from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.credentials import Wanted, deploy_bound, deploy_named
from toolkiln.registry.secrets import KEY_ENV, SecretStore

PREFIX = "toolkiln workflow notes: "
VALUE = "file-secret-Value-88e1"


class N8n:
    """Workflows from FakeN8n, credentials from Credentials (`patch=False`: n8n 1.x)."""

    def __init__(self, *, patch: bool = True) -> None:
        self.workflows, self.credentials = FakeN8n(), Credentials(patch=patch)
        self.sent: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        if request.url.path.startswith("/api/v1/credentials"):
            return self.credentials(request)
        return self.workflows(request)

    def client(self) -> N8nClient:
        return N8nClient(BASE, KEY, transport=httpx.MockTransport(self), retries=0, sleep=lambda _: None)


def workflow(**refs: dict) -> dict:
    """A workflow `notes` whose http step refers to `refs` (type -> {id, name})."""
    nodes = [
        {"name": "hook", "type": "n8n-nodes-base.webhook", "parameters": {"path": "notes", "httpMethod": "POST"}},
        {"name": "crm", "type": "n8n-nodes-base.httpRequest", "parameters": {}, "credentials": refs},
    ]
    return {"name": "notes", "nodes": nodes, "connections": {}, "settings": {}}


def wanted(value: str = VALUE, type_: str = "httpHeaderAuth") -> Wanted:
    return Wanted("crm", type_, PREFIX + "crm", {"name": "X-Token", "value": value})


def refs_of(n8n: N8n, workflow_id: str) -> dict:
    return next(node for node in n8n.workflows.workflows[workflow_id]["nodes"] if node["name"] == "crm")["credentials"]


@pytest.mark.parametrize("patch", [True, False], ids=["n8n 2.x: in place", "n8n 1.x: replaced"])
def test_a_redeploy_updates_the_credential_and_never_makes_a_second(patch):
    n8n = N8n(patch=patch)
    step = {"httpHeaderAuth": {"id": None, "name": "crm"}}
    with n8n.client() as client:
        first, made = deploy_named(client, workflow(**step), [wanted()], PREFIX, activate=False)
        assert refs_of(n8n, first.id) == {"httpHeaderAuth": {"id": made["crm"], "name": PREFIX + "crm"}}
        again, remade = deploy_named(client, workflow(**step), [wanted("new")], PREFIX, activate=False)
    assert again.id == first.id and (remade == made) is patch
    assert list(n8n.credentials.stored) == [remade["crm"]]
    assert n8n.credentials.stored[remade["crm"]]["data"]["value"] == "new"


def test_what_is_no_longer_wanted_goes_after_the_save_and_nothing_else_is_touched():
    n8n = N8n()
    users = {"name": PREFIX + "crm", "type": "httpHeaderAuth", "data": {}}
    n8n.credentials.stored = {"u1": users, "old": {}, "kept": {}, "typed": {}}
    n8n.workflows.workflows["wf9"] = {
        **workflow(
            httpHeaderAuth={"id": "typed", "name": PREFIX + "crm"},  # ours, but now wanted as another type
            httpBasicAuth={"id": "old", "name": PREFIX + "gone"},  # ours, no longer wanted
            oAuth2Api={"id": "kept", "name": PREFIX + "still"},  # ours, and the new file still refers to it
        ),
        "id": "wf9",
        "active": False,
    }
    new = workflow(
        httpBearerAuth={"id": None, "name": "crm"},
        oAuth2Api={"id": "kept", "name": PREFIX + "still"},
        httpQueryAuth={"id": "u1", "name": "someone's"},  # an id it did not get from toolkiln: left as it is
    )
    with n8n.client() as client:
        deployed, made = deploy_named(client, new, [wanted(type_="httpBearerAuth")], PREFIX, activate=False)
    assert deployed.id == "wf9"
    assert set(n8n.credentials.stored) == {"u1", "kept", made["crm"]}
    assert n8n.credentials.stored["u1"] is users
    assert refs_of(n8n, "wf9")["httpQueryAuth"] == {"id": "u1", "name": "someone's"}
    deletes = [call for call in n8n.sent if call.startswith("DELETE")]
    puts = [index for index, call in enumerate(n8n.sent) if call.startswith("PUT")]
    assert deletes and all(n8n.sent.index(call) > puts[0] for call in deletes)  # after the save


# --- the command --------------------------------------------------------------------------------

WF = """workflow notes
description "Posts a note"
on webhook POST "/notes" respond with node
http crm POST "http://127.0.0.1:9/notes" credentials httpHeaderAuth "crm"
respond reply crm
"""
CREDS = {
    "secrets": ["CRM_API_KEY"],
    "credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "CRM_API_KEY"}}},
}


@pytest.fixture
def n8n(monkeypatch, tmp_path):
    fake = N8n()
    monkeypatch.setattr(n8n_cli, "_client", lambda args: fake.client())
    monkeypatch.setenv(KEY_ENV, base64.urlsafe_b64encode(os.urandom(32)).decode())
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.wf").write_text(WF)
    return fake


def deploy(tmp_path, creds: object, *more: str) -> int:
    (tmp_path / "creds.json").write_text(json.dumps(creds))
    return main(["n8n", "deploy", "notes.wf", "--credentials", "creds.json", "--registry", "reg", *more])


def test_the_command_makes_the_credential_from_the_registrys_secret(n8n, tmp_path, capsys):
    SecretStore(tmp_path / "reg").set("CRM_API_KEY", VALUE)
    assert deploy(tmp_path, CREDS, "--json") == 0
    shown = capsys.readouterr()
    made = json.loads(shown.out)["credentials"]["crm"]
    assert n8n.credentials.stored[made] == {
        "name": PREFIX + "crm",
        "type": "httpHeaderAuth",
        "data": {"name": "X-Token", "value": VALUE},
    }
    assert VALUE not in json.dumps(n8n.workflows.workflows) and VALUE not in shown.out + shown.err


def test_a_secret_not_set_is_r0742_before_anything_is_sent(n8n, tmp_path, capsys):
    assert deploy(tmp_path, CREDS) == 1
    err = capsys.readouterr().err
    assert "error[R0742]" in err and "CRM_API_KEY" in err and "notes" in err
    assert n8n.sent == []


@pytest.mark.parametrize(
    ("creds", "says"),
    [
        ({**CREDS, "values": {"CRM_API_KEY": "x"}}, "unknown field 'values'"),
        ({**CREDS, "secrets": ["crm key"]}, "R0740"),
        ({"secrets": ["CRM_API_KEY"], "credentials": {"crm": {"type": "httpBasicAuth", "user": "me"}}}, "R0745"),
        ({"secrets": [], "credentials": {"crm": {"type": "httpHeaderAuth", "value": {"secret": "K"}}}}, "R0745"),
    ],
    ids=["an unknown field", "a secret's name that is none", "no step names it, no secret", "undeclared"],
)
def test_a_wrong_credentials_file_is_refused_in_that_file_before_anything_is_sent(n8n, tmp_path, capsys, creds, says):
    assert deploy(tmp_path, creds) == 1
    err = capsys.readouterr().err
    assert says in err and "creds.json" in err
    assert n8n.sent == []


# --- hostile n8n and hostile input ----------------------------------------------------------------


def two_wanted() -> list[Wanted]:
    return [wanted(), Wanted("bcc", "httpHeaderAuth", PREFIX + "bcc", {"name": "X-Other", "value": VALUE})]


def test_a_500_halfway_deletes_what_was_made_and_says_the_servers_error():
    n8n = N8n()
    n8n.credentials = Credentials(refuse_create=PREFIX + "bcc", create_status=500)
    with n8n.client() as client, pytest.raises(errors.N8nServerError) as failed:
        deploy_named(client, workflow(httpHeaderAuth={"id": None, "name": "crm"}), two_wanted(), PREFIX, activate=False)
    assert n8n.credentials.stored == {} and n8n.workflows.workflows == {}  # nothing half-made is left
    assert VALUE not in str(failed.value)


def test_what_n8n_will_not_delete_after_a_failure_is_r0746_naming_each_credential_left():
    n8n = N8n()
    n8n.credentials = Credentials(refuse_create=PREFIX + "bcc", create_status=500, delete_status=401)
    with n8n.client() as client, pytest.raises(errors.CredentialsLeft) as failed:
        deploy_named(client, workflow(httpHeaderAuth={"id": None, "name": "crm"}), two_wanted(), PREFIX, activate=False)
    (left,) = n8n.credentials.stored
    assert failed.value.code == "R0746" and failed.value.status == 500
    assert f"id {left} ('{PREFIX}crm')" in failed.value.message and VALUE not in str(failed.value)
    assert n8n.workflows.workflows == {}


def test_a_workflow_n8n_refuses_takes_its_new_credentials_with_it():
    n8n = N8n()
    n8n.credentials.stored = {"old": {}}
    bad = {**workflow(httpHeaderAuth={"id": None, "name": "crm"}), "settings": None}  # n8n answers 400
    n8n.workflows = lambda request: httpx.Response(400, json={"message": "request/body/settings must be object"})
    with n8n.client() as client, pytest.raises(errors.N8nBadRequest):
        deploy_bound(
            client, bad, [wanted(), two_wanted()[1]], {"crm": "old"}, lambda ready: client.create_workflow(ready)
        )
    assert list(n8n.credentials.stored) == ["old"]  # the one made is gone, the one owned before stays


def test_credentials_no_longer_used_that_n8n_will_not_delete_are_r0746_after_the_deploy():
    n8n = N8n()
    n8n.credentials = Credentials(delete_status=500)
    n8n.credentials.stored = {"old": {}}
    earlier = workflow(httpBasicAuth={"id": "old", "name": PREFIX + "gone"})
    n8n.workflows.workflows["wf9"] = {**earlier, "id": "wf9", "active": False}
    with n8n.client() as client, pytest.raises(errors.CredentialsLeft) as failed:
        deploy_named(client, workflow(), [], PREFIX, activate=False)
    assert "deployed 'notes' (id wf9)" in failed.value.message and f"id old ('{PREFIX}gone')" in failed.value.message


def test_an_id_the_file_names_is_w0747_and_deployed_as_it_is(n8n, tmp_path, capsys):
    export = workflow(httpHeaderAuth={"id": "42", "name": "Their CRM"})
    (tmp_path / "notes.json").write_text(json.dumps(export))
    assert main(["n8n", "deploy", "notes.json", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    (warning,) = shown["warnings"]
    assert warning["code"] == "W0747" and "'42'" in warning["message"] and "'crm'" in warning["message"]
    assert refs_of(n8n, shown["id"]) == {"httpHeaderAuth": {"id": "42", "name": "Their CRM"}}
    assert main(["n8n", "deploy", "notes.json"]) == 0
    assert "warning[W0747]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "position"),
    [("line1\nline2", 6), ("key-\u00e9t\u00e9", 5), ("snow\u2603man", 5), ("tab\tok-but-cr\r", 14)],
    ids=["a line break", "Latin-1", "beyond Latin-1", "a carriage return"],
)
def test_a_secret_n8n_would_not_send_as_a_header_as_it_is_is_r0748_before_anything_is_sent(
    n8n, tmp_path, capsys, value, position
):
    SecretStore(tmp_path / "reg").set("CRM_API_KEY", value)
    assert deploy(tmp_path, CREDS) == 1
    err = capsys.readouterr().err
    assert "error[R0748]" in err and "CRM_API_KEY" in err and f"character {position} " in err
    assert value not in err and n8n.sent == []


def test_a_long_and_a_unicode_secret_reach_n8n_as_they_are_where_no_header_carries_them(n8n, tmp_path, capsys):
    long_key, unicode_password = "k" * 65_536, "pässwörd ☃\nline two"
    SecretStore(tmp_path / "reg").set("CRM_API_KEY", long_key)
    SecretStore(tmp_path / "reg").set("CRM_PASSWORD", unicode_password)
    creds = {
        "secrets": ["CRM_API_KEY", "CRM_PASSWORD"],
        "credentials": {
            "crm": {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "CRM_API_KEY"}},
            "basic": {"type": "httpBasicAuth", "user": "me", "password": {"secret": "CRM_PASSWORD"}},
        },
    }
    (tmp_path / "notes.wf").write_text(WF.replace("respond reply crm", BASIC_STEP + "respond reply basic"))
    assert deploy(tmp_path, creds, "--json") == 0
    made = json.loads(capsys.readouterr().out)["credentials"]
    assert n8n.credentials.stored[made["crm"]]["data"]["value"] == long_key
    assert n8n.credentials.stored[made["basic"]]["data"]["password"] == unicode_password


BASIC_STEP = 'http basic GET "http://127.0.0.1:9/me" credentials httpBasicAuth "basic"\n'


class WithSchemas(Credentials):
    """Credentials that also answers GET /credentials/schema/TYPE as n8n does (404: unknown)."""

    SCHEMAS = {"httpHeaderAuth": {"additionalProperties": False, "properties": {"name": {}, "value": {}}}}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and "/schema/" in request.url.path:
            schema = self.SCHEMAS.get(request.url.path.rsplit("/", 1)[1])
            return httpx.Response(200, json=schema) if schema else httpx.Response(404, json={"message": "Not Found"})
        return super().__call__(request)


def test_a_field_the_type_does_not_have_is_r0745_before_anything_is_made():
    n8n = N8n()
    n8n.credentials = WithSchemas()
    extra = Wanted("crm", "httpHeaderAuth", PREFIX + "crm", {"name": "X-Token", "value": VALUE, "realm": "x"})
    with n8n.client() as client, pytest.raises(errors.CredentialFieldUnknown) as refused:
        deploy_named(client, workflow(), [wanted(type_="otherAuth"), extra], PREFIX, activate=False)
    assert refused.value.code == "R0745" and "'realm'" in refused.value.message and "name, value" in str(refused.value)
    assert [call for call in n8n.sent if "credentials" in call and not call.startswith("GET")] == []
    assert VALUE not in str(refused.value)
