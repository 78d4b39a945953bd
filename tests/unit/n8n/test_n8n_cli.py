"""`toolkiln n8n deploy|run|list` against an in-memory n8n (httpx.MockTransport)."""

from __future__ import annotations

import json

import httpx
import pytest
from unit.n8n.fake_n8n import BASE, KEY, FakeN8n, failure

from toolkiln.cli import main
from toolkiln.cli import n8n as n8n_cli
from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.deploy import run_workflow

WF = """workflow order_total
description "Prices an order"
on webhook POST "/orders" respond with node
set priced { total = body.qty * body.price }
respond reply priced
"""


@pytest.fixture
def fake(monkeypatch):
    """The CLI's client talks to a FakeN8n; URL and key still come from the options or environment."""
    server = FakeN8n()
    monkeypatch.setattr(
        n8n_cli,
        "_client",
        lambda args: N8nClient.from_env(
            args.url, args.api_key, transport=httpx.MockTransport(server), sleep=lambda _: None
        ),
    )
    monkeypatch.setenv("TOOLKILN_N8N_URL", BASE)
    monkeypatch.setenv("TOOLKILN_N8N_API_KEY", KEY)
    return server


@pytest.fixture
def wf_file(tmp_path):
    path = tmp_path / "order_total.wf"
    path.write_text(WF)
    return path


def test_deploy_creates_then_updates_the_workflow_of_the_same_name(fake, wf_file, capsys):
    assert main(["n8n", "deploy", str(wf_file), "--activate"]) == 0
    out = capsys.readouterr().out
    assert "created 'order_total': id wf1 (active)" in out
    assert f"POST {BASE}/webhook/orders" in out
    assert fake.workflows["wf1"]["active"] is True

    wf_file.write_text(WF.replace("body.price", "body.price + 1"))
    assert main(["n8n", "deploy", str(wf_file), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {
        "id": "wf1",
        "name": "order_total",
        "active": True,
        "created": False,
        "webhooks": [{"method": "POST", "path": "orders", "url": f"{BASE}/webhook/orders"}],
    }
    assert list(fake.workflows) == ["wf1"]  # redeploying did not make a second workflow
    assert "+ 1" in json.dumps(fake.workflows["wf1"]["nodes"])


def test_redeploying_an_active_workflow_says_the_previous_version_can_run_for_a_moment(fake, wf_file, capsys):
    assert main(["n8n", "deploy", str(wf_file), "--activate"]) == 0
    assert "note:" not in capsys.readouterr().err  # created: nothing ran before it
    wf_file.write_text(WF.replace("body.price", "body.price + 1"))
    assert main(["n8n", "deploy", str(wf_file), "--activate"]) == 0
    captured = capsys.readouterr()
    assert "updated 'order_total': id wf1 (active)" in captured.out
    assert "can still run the previous version" in captured.err
    assert not [r for r in fake.requests if r.url.path.startswith("/webhook")]  # a deploy runs nothing


def test_deploy_an_n8n_json_file_without_activating(fake, tmp_path, capsys):
    path = tmp_path / "exported.json"
    workflow = {
        "name": "exported",
        "nodes": [
            {"name": "Webhook", "type": "n8n-nodes-base.webhook", "parameters": {"path": "in", "httpMethod": "PUT"}}
        ],
        "connections": {},
        "active": True,
        "id": "editor-id",
    }
    path.write_text(json.dumps(workflow))
    assert main(["n8n", "deploy", str(path)]) == 0
    assert "created 'exported': id wf1 (inactive)" in capsys.readouterr().out
    assert fake.workflows["wf1"]["active"] is False and "id" not in json.loads(fake.requests[-1].content)


def test_an_export_without_a_name_is_named_after_its_file(fake, tmp_path, capsys):
    path = tmp_path / "copied from editor.json"  # n8n's editor copies nodes and connections, no name
    hook = {"name": "Webhook", "type": "n8n-nodes-base.webhook", "parameters": {"path": "in", "httpMethod": "POST"}}
    path.write_text(json.dumps({"nodes": [hook], "connections": {}, "pinData": {}, "meta": {"instanceId": "x"}}))
    assert main(["n8n", "deploy", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "copied from editor"
    assert fake.workflows["wf1"]["name"] == "copied from editor" and "pinData" not in fake.workflows["wf1"]


def test_run_posts_the_data_to_the_webhook_and_prints_the_answer(fake, wf_file, capsys):
    main(["n8n", "deploy", str(wf_file), "--activate"])
    capsys.readouterr()
    assert main(["n8n", "run", "order_total", "--data", '{"qty": 2, "price": 3}']) == 0
    assert json.loads(capsys.readouterr().out) == {
        "workflow": "order_total",
        "body": {"qty": 2, "price": 3},
        "query": {},
    }
    (webhook,) = [r for r in fake.requests if r.url.path.startswith("/webhook/")]
    assert (webhook.method, webhook.url.path) == ("POST", "/webhook/orders")
    assert "X-N8N-API-KEY" not in webhook.headers


def test_run_of_a_get_webhook_sends_the_data_as_the_query(fake, tmp_path, capsys):
    path = tmp_path / "lookup.wf"
    path.write_text('workflow lookup\ndescription "d"\non webhook GET "/lookup"\nset s { v = 1 }\n')
    main(["n8n", "deploy", str(path), "--activate"])
    capsys.readouterr()
    assert main(["n8n", "run", "lookup", "--data", '{"id": "7"}']) == 0
    assert json.loads(capsys.readouterr().out)["query"] == {"id": "7"}


def test_a_failing_workflow_exits_1_with_the_servers_message(fake, wf_file, capsys):
    fake.respond = lambda workflow, body, query: httpx.Response(500, json={"message": "Workflow could not be started"})
    main(["n8n", "deploy", str(wf_file), "--activate"])
    capsys.readouterr()
    assert main(["n8n", "run", "order_total"]) == 1
    err = capsys.readouterr().err
    assert "Workflow could not be started" in err and "HTTP 500" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        (WF, httpx.Response(200)),  # a respond node that the failure never reached: an empty 200
        (WF.replace(" respond with node", "").replace("respond reply priced\n", ""), None),  # on receipt
        (WF, httpx.Response(500, json={"message": "Error in workflow"})),  # last node: only a 500
    ],
)
def test_a_failed_execution_exits_1_with_n8ns_error_message(fake, tmp_path, capsys, source, answer):
    path = tmp_path / "order_total.wf"
    path.write_text(source)
    main(["n8n", "deploy", str(path), "--activate"])
    capsys.readouterr()
    if answer is not None:
        fake.respond = lambda workflow, body, query: answer
    fake.outcome = failure("Boom", "qty missing [line 1]", "boom")
    assert main(["n8n", "run", "order_total"]) == 1
    captured = capsys.readouterr()
    assert "the workflow 'order_total' failed in node 'Boom': qty missing [line 1] (boom) (execution 1)" in captured.err
    assert captured.out == "" and "Traceback" not in captured.err


def test_an_empty_answer_of_a_successful_run_is_no_error(fake, wf_file, capsys):
    main(["n8n", "deploy", str(wf_file), "--activate"])
    capsys.readouterr()
    fake.respond = lambda workflow, body, query: httpx.Response(200)
    assert main(["n8n", "run", "order_total"]) == 0
    assert capsys.readouterr() == ("", "")


def test_an_older_failed_execution_is_not_taken_for_this_run(fake, wf_file, capsys):
    main(["n8n", "deploy", str(wf_file), "--activate"])
    fake.outcome = failure("Boom", "an earlier failure")
    assert main(["n8n", "run", "order_total"]) == 1
    fake.outcome = lambda workflow, body: None  # this run's execution is not saved
    fake.respond = lambda workflow, body, query: httpx.Response(200)
    with fake.client() as client:
        workflow = client.get_workflow("wf1")
        assert run_workflow(client, workflow, {}, wait=0).text == ""


def test_list_shows_name_state_and_webhooks(fake, wf_file, capsys):
    main(["n8n", "deploy", str(wf_file), "--activate"])
    capsys.readouterr()
    assert main(["n8n", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"id": "wf1", "name": "order_total", "active": True, "webhooks": [f"POST {BASE}/webhook/orders"]}
    ]


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["run", "nothing"], 1, "no workflow named 'nothing'"),
        (["run", "x", "--data", "{oops"], 2, "--data is not valid JSON"),
        (["run", "x", "--api-key", "wrong"], 1, "unauthorized (HTTP 401"),
        (["list", "--url", "ftp://nowhere"], 2, "not an http(s) URL"),
        (["list", "--url", "http://[::1"], 2, "not an http(s) URL"),  # ValueError in urlsplit
        (["list", "--url", "http://127.0.0.1:abc"], 2, "not an http(s) URL"),  # InvalidURL in httpx
        (["list", "--url", "http://:5678"], 2, "not an http(s) URL"),  # no host
        (["deploy", "missing.wf"], 1, "error[E0100]: cannot read: No such file or directory\n --> missing.wf"),
    ],
)
def test_errors_are_messages_with_exit_codes(fake, capsys, argv, code, message):
    assert main(["n8n", *argv]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_no_url_is_a_usage_error(fake, monkeypatch, capsys):
    monkeypatch.delenv("TOOLKILN_N8N_URL")
    assert main(["n8n", "list"]) == 2
    assert "no n8n URL" in capsys.readouterr().err


def test_connection_refused_is_reported(monkeypatch, capsys):
    def refuse(request):
        raise httpx.ConnectError("Connection refused")

    monkeypatch.setattr(
        n8n_cli,
        "_client",
        lambda args: N8nClient(BASE, KEY, transport=httpx.MockTransport(refuse), sleep=lambda _: None),
    )
    assert main(["n8n", "list"]) == 1
    err = capsys.readouterr().err
    assert "cannot connect after 4 attempt(s)" in err and "is n8n running" in err


def test_compile_errors_are_rendered_as_diagnostics(fake, tmp_path, capsys):
    path = tmp_path / "bad.wf"
    path.write_text(WF.replace("body.qty", "bdy.qty"))
    assert main(["n8n", "deploy", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error[E0702]" in err and f"{path}:4:" in err
    assert fake.requests == []  # nothing was sent
    assert main(["n8n", "deploy", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["code"] == "E0702"


def test_a_json_file_that_is_no_workflow_is_refused_before_sending(fake, tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text('{"name": "x"}')
    assert main(["n8n", "deploy", str(path)]) == 2
    assert "the workflow has no nodes, connections" in capsys.readouterr().err
    assert fake.requests == []


def test_two_workflows_of_one_name_are_ambiguous(fake, wf_file, capsys):
    for workflow_id in ("a", "b"):
        fake.workflows[workflow_id] = {"id": workflow_id, "name": "order_total", "active": True, "nodes": []}
    assert main(["n8n", "deploy", str(wf_file)]) == 1
    assert "2 workflows are named 'order_total' (ids a, b)" in capsys.readouterr().err
