"""Credentials toolkiln makes in n8n (toolkiln.n8n.credentials), against httpx.MockTransport:
n8n 2.x updates in place, n8n 1.x (no PATCH route) gets a new one and the old one deleted, a
failure deletes what the call made, an error never carries a value."""

from __future__ import annotations

import json

import httpx
import pytest

from toolkiln.n8n import errors
from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.credentials import Wanted, put_credentials

VALUE = "s3cret-never-shown-91"


class Credentials:
    """n8n's credential routes: `patch` False answers PATCH as 1.x does (404, no route); a
    create of the name `refuse_create` is answered `create_status`, every DELETE
    `delete_status` when it is set (an n8n that fails halfway)."""

    def __init__(
        self,
        *,
        patch: bool = True,
        refuse_create: str | None = None,
        create_status: int = 400,
        delete_status: int | None = None,
    ) -> None:
        self.stored: dict[str, dict] = {}
        self.patch = patch
        self.refuse_create = refuse_create
        self.create_status, self.delete_status = create_status, delete_status
        self.calls: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/v1/credentials").strip("/")
        self.calls.append(f"{request.method} {path}")
        body = json.loads(request.content) if request.content else None
        if request.method == "POST":
            if self.refuse_create and body["name"] == self.refuse_create:
                message = f"request/body/data/value {body['data']['value']} bad"
                return httpx.Response(self.create_status, json={"message": message})
            made = f"c{len(self.calls)}"
            self.stored[made] = body
            return httpx.Response(200, json={"id": made, "name": body["name"], "type": body["type"]})
        if path not in self.stored or (request.method == "PATCH" and not self.patch):
            return httpx.Response(404, json={"message": "Not Found"})
        if request.method == "DELETE" and self.delete_status:
            return httpx.Response(self.delete_status, json={"message": "unauthorized"})
        if request.method == "PATCH":
            self.stored[path] = {**self.stored[path], **body}
        else:
            del self.stored[path]
        return httpx.Response(200, json={"id": path})


def client(fake: Credentials) -> N8nClient:
    return N8nClient("http://127.0.0.1:5678", "key", transport=httpx.MockTransport(fake), retries=0)


def wanted(key: str = "crm", value: str = VALUE) -> Wanted:
    return Wanted(key, "httpHeaderAuth", f"toolkiln t: {key}", {"name": "X-Token", "value": value})


def test_made_then_updated_in_place_then_the_unwanted_deleted():
    fake = Credentials()
    with client(fake) as n8n:
        made = put_credentials(n8n, [wanted()], {})
        assert fake.stored[made["crm"]]["data"] == {"name": "X-Token", "value": VALUE}
        again = put_credentials(n8n, [wanted(value="other")], made)
        assert again == made and fake.stored[made["crm"]]["data"]["value"] == "other"
        assert put_credentials(n8n, [], again) == {} and fake.stored == {}


def test_without_an_update_route_a_new_one_replaces_the_old():
    fake = Credentials(patch=False)  # n8n 1.x
    with client(fake) as n8n:
        made = put_credentials(n8n, [wanted()], {})
        again = put_credentials(n8n, [wanted(value="other")], made)
        assert again["crm"] != made["crm"] and list(fake.stored) == [again["crm"]]


def test_a_failure_deletes_what_the_call_made_and_shows_no_value():
    fake = Credentials(refuse_create="toolkiln t: b")
    with client(fake) as n8n, pytest.raises(errors.N8nBadRequest) as info:
        put_credentials(n8n, [wanted("a"), wanted("b")], {})
    assert fake.stored == {}  # `a` was made, then deleted again
    assert VALUE not in str(info.value) and "[redacted]" in info.value.message and info.value.body is None
    assert VALUE not in repr(wanted())
