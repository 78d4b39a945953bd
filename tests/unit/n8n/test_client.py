"""The n8n client against httpx.MockTransport: request shapes, headers, retries, error mapping."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import httpx
import pytest

import toolkiln
from toolkiln.n8n import errors
from toolkiln.n8n.client import N8nClient, WebhookResponse, workflow_body

KEY = "secret-key-123"
BASE = "http://127.0.0.1:5678"

WORKFLOW = {
    "id": "abc",
    "name": "wf",
    "active": True,
    "tags": [],
    "pinData": {},
    "versionId": "v",
    "meta": {},
    "nodes": [
        {
            "name": "Webhook",
            "type": "n8n-nodes-base.webhook",
            "typeVersion": 2,
            "position": [0, 0],
            "parameters": {"path": "p"},
        }
    ],
    "connections": {},
    "settings": {"executionOrder": "v1"},
}


class Recorder:
    """A MockTransport handler that records requests and answers from a queue of responses."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer


def client(handler, **options) -> tuple[N8nClient, list[float]]:
    sleeps: list[float] = []
    options.setdefault("sleep", sleeps.append)
    return N8nClient(BASE, KEY, transport=httpx.MockTransport(handler), **options), sleeps


def ok(body=None, status=200):
    return httpx.Response(status, json={} if body is None else body)


# -- request shapes ----------------------------------------------------------------------------


def test_create_sends_only_accepted_fields_with_the_key():
    rec = Recorder(ok({"id": "42", "name": "wf"}))
    c, _ = client(rec)
    assert c.create_workflow(WORKFLOW) == {"id": "42", "name": "wf"}
    req = rec.requests[0]
    assert (req.method, str(req.url)) == ("POST", f"{BASE}/api/v1/workflows")
    assert req.headers["X-N8N-API-KEY"] == KEY
    assert req.headers["content-type"] == "application/json"
    assert json.loads(req.content) == {
        "name": "wf",
        "nodes": WORKFLOW["nodes"],
        "connections": {},
        "settings": {"executionOrder": "v1"},
    }


def test_missing_settings_get_the_default_and_missing_nodes_are_refused():
    body = workflow_body({"name": "a", "nodes": [], "connections": {}})
    assert body["settings"] == {"executionOrder": "v1"}
    with pytest.raises(errors.N8nConfigError, match="nodes"):
        workflow_body({"name": "a", "connections": {}})
    with pytest.raises(errors.N8nConfigError, match="JSON object"):
        workflow_body([1, 2])


@pytest.mark.parametrize(
    ("call", "method", "path"),
    [
        (lambda c: c.get_workflow("a/b"), "GET", "/api/v1/workflows/a%2Fb"),
        (lambda c: c.update_workflow("7", WORKFLOW), "PUT", "/api/v1/workflows/7"),
        (lambda c: c.activate_workflow("7"), "POST", "/api/v1/workflows/7/activate"),
        (lambda c: c.deactivate_workflow("7"), "POST", "/api/v1/workflows/7/deactivate"),
        (lambda c: c.delete_workflow("7"), "DELETE", "/api/v1/workflows/7"),
        (lambda c: c.get_execution(12, include_data=True), "GET", "/api/v1/executions/12?includeData=true"),
    ],
)
def test_workflow_and_execution_calls(call, method, path):
    rec = Recorder(ok({"id": "7"}))
    c, _ = client(rec)
    call(c)
    req = rec.requests[0]
    assert req.method == method
    assert str(req.url) == BASE + path
    assert req.headers["X-N8N-API-KEY"] == KEY


def test_lists_follow_the_cursor_and_stop_at_the_limit():
    rec = Recorder(
        ok({"data": [{"id": "1"}, {"id": "2"}], "nextCursor": "CUR"}), ok({"data": [{"id": "3"}], "nextCursor": None})
    )
    c, _ = client(rec)
    assert [w["id"] for w in c.list_workflows(active=True)] == ["1", "2", "3"]
    first, second = rec.requests
    assert first.url.params["active"] == "true" and "cursor" not in first.url.params
    assert second.url.params["cursor"] == "CUR"

    rec = Recorder(ok({"data": [{"id": "9"}, {"id": "8"}], "nextCursor": "MORE"}))
    c, _ = client(rec)
    runs = c.list_executions(workflow_id="W", include_data=True, status="success", limit=2)
    assert [r["id"] for r in runs] == ["9", "8"]
    assert len(rec.requests) == 1
    params = rec.requests[0].url.params
    assert (params["workflowId"], params["includeData"], params["status"], params["limit"]) == (
        "W",
        "true",
        "success",
        "2",
    )


def test_a_list_without_data_is_a_response_error():
    c, _ = client(Recorder(ok({"items": []})))
    with pytest.raises(errors.N8nResponseError, match="data"):
        c.list_workflows()


def test_webhook_production_and_test_urls_and_no_api_key():
    rec = Recorder(httpx.Response(202, json={"doubled": 4}, headers={"x-a": "b"}))
    c, _ = client(rec)
    reply = c.trigger_webhook("/orders/new", {"n": 2})
    assert reply == WebhookResponse(status=202, headers=reply.headers, text='{"doubled":4}', data={"doubled": 4})
    assert reply.ok and reply.headers["x-a"] == "b"
    req = rec.requests[0]
    assert (req.method, str(req.url)) == ("POST", f"{BASE}/webhook/orders/new")
    assert json.loads(req.content) == {"n": 2}
    assert "X-N8N-API-KEY" not in req.headers

    c.trigger_webhook("hook", method="get", test=True, query={"q": "1"})
    req = rec.requests[1]
    assert (req.method, str(req.url)) == ("GET", f"{BASE}/webhook-test/hook?q=1")
    with pytest.raises(errors.N8nConfigError, match="query"):
        c.trigger_webhook("hook", {"a": 1}, method="GET")


def test_webhook_text_reply_has_no_data():
    c, _ = client(Recorder(httpx.Response(200, text="plain")))
    reply = c.trigger_webhook("x")
    assert (reply.text, reply.data) == ("plain", None)


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, errors.N8nBadRequest),
        (401, errors.N8nUnauthorized),
        (403, errors.N8nUnauthorized),
        (404, errors.N8nNotFound),
        (409, errors.N8nConflict),
        (422, errors.N8nHTTPError),
        (500, errors.N8nServerError),
        (503, errors.N8nServerError),
    ],
)
def test_error_status_maps_to_a_class_with_the_servers_message(status, cls):
    c, sleeps = client(Recorder(httpx.Response(status, json={"message": "request/body/active is read-only"})))
    with pytest.raises(cls) as info:
        c.create_workflow(WORKFLOW)
    err = info.value
    assert isinstance(err, toolkiln.Error) and isinstance(err, errors.N8nError)
    assert err.status == status and err.message == "request/body/active is read-only"
    assert "request/body/active is read-only" in str(err) and f"HTTP {status}" in str(err)
    assert KEY not in str(err) and KEY not in json.dumps(err.to_dict())
    assert sleeps == []  # an answer, even 5xx, is never retried


def test_non_json_error_body_is_kept_short():
    c, _ = client(Recorder(httpx.Response(502, text="x" * 2000)))
    with pytest.raises(errors.N8nServerError) as info:
        c.get_workflow("1")
    assert len(info.value.message) < 600


def test_webhook_404_is_not_registered_with_the_servers_hint():
    body = {"code": 404, "message": 'The requested webhook "POST nope" is not registered.', "hint": "Activate it"}
    c, _ = client(Recorder(httpx.Response(404, json=body)))
    with pytest.raises(errors.WebhookNotRegistered) as info:
        c.trigger_webhook("nope", {})
    assert info.value.hint == "Activate it" and "is not registered" in str(info.value)
    assert isinstance(info.value, errors.N8nNotFound)


def test_webhook_errors_can_be_returned_instead():
    c, _ = client(Recorder(httpx.Response(500, json={"message": "Error in workflow"})))
    reply = c.trigger_webhook("w", raise_for_status=False)
    assert (reply.status, reply.data, reply.ok) == (500, {"message": "Error in workflow"}, False)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"name": "wf", "active": False}, "no `id`"),  # answered 500 through the server (issue 24)
        ({"id": None}, "the `id` None"),
        ({"id": ""}, "the `id` ''"),
        ({"id": ["1"]}, "the `id` ['1']"),
        ({"id": True}, "the `id` True"),
    ],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.create_workflow(WORKFLOW),
        lambda c: c.update_workflow("7", WORKFLOW),
        lambda c: c.activate_workflow("7"),
        lambda c: c.deactivate_workflow("7"),
        lambda c: c.get_workflow("7"),
        lambda c: c.get_execution("7"),
    ],
)
def test_a_workflow_or_execution_without_an_id_is_a_response_error(call, answer, why):
    c, _ = client(Recorder(ok(answer)))
    with pytest.raises(errors.N8nResponseError, match=f"n8n's answer has {re.escape(why)}"):
        call(c)


def test_a_numeric_id_of_an_old_n8n_is_made_text():
    c, _ = client(Recorder(ok({"id": 7, "name": "wf"})))
    assert c.create_workflow(WORKFLOW) == {"id": "7", "name": "wf"}


@pytest.mark.parametrize(
    ("page", "why"),
    [
        ({"data": [{"name": "wf"}]}, "has no `id`"),
        ({"data": ["wf"]}, "expected a JSON object"),
        ({"data": [None]}, "expected a JSON object"),
        ({"data": [{"id": "1"}], "nextCursor": {"next": 2}}, "`nextCursor` is not text"),
    ],
)
def test_a_list_whose_items_are_not_what_n8n_documents_is_a_response_error(page, why):
    c, _ = client(Recorder(ok(page)))
    with pytest.raises(errors.N8nResponseError, match=re.escape(why)):
        c.list_workflows()


def test_a_2xx_that_is_not_an_object_is_a_response_error():
    c, _ = client(Recorder(httpx.Response(200, text="<html>")))
    with pytest.raises(errors.N8nResponseError, match="JSON object"):
        c.get_workflow("1")


# -- retries -----------------------------------------------------------------------------------


def test_connection_errors_are_retried_with_backoff_then_succeed():
    rec = Recorder(httpx.ConnectError("refused"), httpx.ConnectTimeout("slow"), ok({"id": "1"}))
    c, sleeps = client(rec, retries=3, backoff=0.5)
    assert c.get_workflow("1") == {"id": "1"}
    assert len(rec.requests) == 3 and sleeps == [0.5, 1.0]


def test_connection_errors_give_up_after_the_retries():
    rec = Recorder(httpx.ConnectError("refused"))
    c, sleeps = client(rec, retries=2, backoff=0.1)
    with pytest.raises(errors.N8nConnectionError, match="3 attempt") as info:
        c.trigger_webhook("w", {"a": 1})
    assert len(rec.requests) == 3 and sleeps == [0.1, 0.2]
    assert info.value.status is None and info.value.url == f"{BASE}/webhook/w"


@pytest.mark.parametrize(
    ("exc", "cls"),
    [
        (httpx.ReadTimeout("late"), errors.N8nTimeout),
        (httpx.ReadError("reset"), errors.N8nError),
        (httpx.RemoteProtocolError("bad"), errors.N8nError),
    ],
)
def test_errors_after_sending_are_not_retried(exc, cls):
    rec = Recorder(exc)
    c, sleeps = client(rec)
    with pytest.raises(cls):
        c.trigger_webhook("w", {"a": 1})
    assert len(rec.requests) == 1 and sleeps == []


def test_timeouts_are_passed_to_httpx():
    seen = []

    def handler(request):
        seen.append(request.extensions["timeout"])
        return ok({"id": "1"})

    c, _ = client(handler, timeout=7.0)
    c.get_workflow("1")
    c.trigger_webhook("w", timeout=60)
    assert seen[0]["read"] == 7.0 and seen[1]["read"] == 60


# -- configuration -----------------------------------------------------------------------------


def test_from_env_and_options():
    env = {"TOOLKILN_N8N_URL": "http://127.0.0.1:9/", "TOOLKILN_N8N_API_KEY": "k"}
    with N8nClient.from_env(environ=env) as c:
        assert c.base_url == "http://127.0.0.1:9" and c._api_key == "k"
    with N8nClient.from_env("http://127.0.0.1:1", "opt", environ=env) as c:
        assert (c.base_url, c._api_key) == ("http://127.0.0.1:1", "opt")
    with pytest.raises(errors.N8nConfigError, match="TOOLKILN_N8N_URL"):
        N8nClient.from_env(environ={})


@pytest.mark.parametrize("url", ["", "127.0.0.1:5678", "ftp://x", "http://h/?a=1"])
def test_bad_urls(url):
    with pytest.raises(errors.N8nConfigError):
        N8nClient(url, KEY)


def test_bad_options():
    with pytest.raises(errors.N8nConfigError):
        N8nClient(BASE, KEY, timeout=0)
    with pytest.raises(errors.N8nConfigError):
        N8nClient(BASE, KEY, retries=-1)


def test_api_calls_without_a_key_fail_before_sending_but_webhooks_work():
    rec = Recorder(ok({}))
    c = N8nClient(BASE, None, transport=httpx.MockTransport(rec))
    with pytest.raises(errors.N8nConfigError, match="TOOLKILN_N8N_API_KEY"):
        c.list_workflows()
    assert rec.requests == []
    assert c.trigger_webhook("w").status == 200


def test_import_toolkiln_does_not_import_httpx():
    code = "import sys, toolkiln; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_workflow_body_leaves_out_null_settings():
    """The public API refuses `"saveDataSuccessExecution": null` ("must be string"), which
    exports carry for unset settings; unset is left out instead."""
    export = {"name": "a", "nodes": [], "connections": {}, "settings": {"errorWorkflow": None, "timezone": "UTC"}}
    assert workflow_body(export)["settings"] == {"timezone": "UTC"}
    assert export["settings"] == {"errorWorkflow": None, "timezone": "UTC"}  # the caller's copy is untouched


# -- n8n 2.x registers webhooks after it answers the activation -------------------------------

NOT_REGISTERED = httpx.Response(404, json={"message": 'The requested webhook "POST p" is not registered.'})


def test_a_404_right_after_this_client_activated_is_sent_again_until_registered():
    rec = Recorder(ok({"id": "7", "active": True}), NOT_REGISTERED, NOT_REGISTERED, ok({"done": True}))
    c, sleeps = client(rec)
    c.activate_workflow("7")
    assert c.trigger_webhook("p", {"n": 1}).data == {"done": True}
    assert [r.method for r in rec.requests] == ["POST"] * 4 and sleeps == [0.2, 0.2]


def test_the_retries_are_bounded_and_end_in_the_404():
    rec = Recorder(ok({"id": "7", "active": True}), NOT_REGISTERED)
    c, sleeps = client(rec)
    c.activate_workflow("7")
    with pytest.raises(errors.WebhookNotRegistered):
        c.trigger_webhook("p", {"n": 1})
    assert len(sleeps) == 50 and sum(sleeps) == pytest.approx(10.0)


def test_without_a_recent_activation_a_404_is_the_answer_at_once(monkeypatch):
    rec = Recorder(NOT_REGISTERED, ok({"id": "7", "active": True}), NOT_REGISTERED)
    c, sleeps = client(rec)
    with pytest.raises(errors.WebhookNotRegistered):
        c.trigger_webhook("p", {"n": 1})  # never activated here
    c.activate_workflow("7")
    later = time.monotonic() + 11
    monkeypatch.setattr(time, "monotonic", lambda: later)
    with pytest.raises(errors.WebhookNotRegistered):
        c.trigger_webhook("p", {"n": 1})  # activated more than 10 s ago
    assert sleeps == [] and len(rec.requests) == 3


def test_delete_of_a_published_workflow_deactivates_it_and_waits_for_the_unpublishing():
    """n8n 2.x: 409 "Cannot delete a published workflow. Unpublish it before deleting.", then,
    after the deactivation, 409 "Workflow is still being unpublished" for a moment."""
    published = httpx.Response(
        409, json={"message": "Cannot delete a published workflow. Unpublish it before deleting."}
    )
    unpublishing = httpx.Response(409, json={"message": "Workflow is still being unpublished. Please try again."})
    rec = Recorder(published, ok({"id": "7", "active": False}), unpublishing, ok({"id": "7"}))
    c, sleeps = client(rec)
    c.delete_workflow("7")
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("DELETE", "/api/v1/workflows/7"),
        ("POST", "/api/v1/workflows/7/deactivate"),
        ("DELETE", "/api/v1/workflows/7"),
        ("DELETE", "/api/v1/workflows/7"),
    ]
    assert sleeps == [0.2]


def test_another_conflict_on_delete_is_raised():
    c, _ = client(Recorder(httpx.Response(409, json={"message": "locked by another user"})))
    with pytest.raises(errors.N8nConflict, match="locked"):
        c.delete_workflow("7")


@pytest.mark.parametrize(
    ("answer", "activations"),
    [
        ({"active": True, "versionId": "v2", "activeVersionId": "v1"}, 1),  # 2.x: the update is a draft
        ({"active": True, "versionId": "v2", "activeVersionId": "v2"}, 0),
        ({"active": True}, 0),  # n8n 1.x: the update runs at once
        ({"active": False}, 1),
    ],
)
def test_a_deploy_with_activate_publishes_an_update_that_n8n_2_keeps_as_a_draft(answer, activations):
    from toolkiln.n8n.deploy import deploy

    existing = {"id": "7", "name": "wf"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return ok({"data": [existing], "nextCursor": None})
        return ok({**existing, **answer} if request.method == "PUT" else {**existing, "active": True})

    rec = Recorder(handler)
    c, _ = client(rec)
    deploy(c, {"name": "wf", "nodes": [], "connections": {}}, activate=True)
    assert [r.url.path for r in rec.requests].count("/api/v1/workflows/7/activate") == activations


@pytest.mark.parametrize(("active", "calls"), [(True, 2), (False, 1)])
def test_a_run_retries_a_404_only_while_the_api_calls_the_workflow_active(active, calls):
    """Another client (`toolkiln n8n deploy --activate`, then `run`) activated it: n8n 2.x may
    still be registering the webhook; a workflow the API calls inactive is simply not there."""
    from toolkiln.n8n.deploy import Webhook, run_webhook

    hooks = iter([NOT_REGISTERED, ok({"total": 1})])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/webhook/"):
            return next(hooks)
        if request.url.path == "/api/v1/executions":
            return ok({"data": [], "nextCursor": None})
        return ok({"id": "7", "active": active})

    rec = Recorder(handler)
    c, _ = client(rec)
    hook = Webhook(method="POST", path="p")
    if active:
        assert run_webhook(c, hook, "7", {"n": 1}, wait=0).data == {"total": 1}
    else:
        with pytest.raises(errors.WebhookNotRegistered):
            run_webhook(c, hook, "7", {"n": 1}, wait=0)
    assert sum(1 for r in rec.requests if r.url.path == "/webhook/p") == calls
