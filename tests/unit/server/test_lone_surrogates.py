"""A lone surrogate (`"\\ud800"` in JSON text: half of a UTF-16 pair, which JSON allows and
UTF-8 cannot carry) in any string of any route's body or query is a coded 4xx, never a 500.

The sweep reads the app's own OpenAPI document: every route with a JSON body gets a body built
from its schema, then one request per string and per object key with a lone surrogate put
there (definitions as a tool object and as DSL text). Before the fix, ten routes answered 500
(the answer echoed the surrogate and could not be encoded)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

LONE = "\ud800"
SHIP = {
    "name": "ship",
    "description": "Shipping cost",
    "parameters": {"w": {"type": "number", "description": "weight"}, "label": {"type": "string"}},
    "logic": {"steps": [{"op": "return", "value": "w * 2"}]},
    "examples": [{"args": {"w": 1, "label": "a"}, "expect": 2}],
}
TEXT_TOOL = 'tool doubled(x: number) description "Doubles" {\n  // twice\n  return x * 2\n}'
WORKFLOW = 'workflow hook description "A hook" {\n}'
# What a free-form object or a text field of a route holds, by the field's name.
FREE_FORM = {"definition": SHIP, "source": SHIP, "changes": {"description": "New"}}
TEXT = {"definition": TEXT_TOOL, "source": WORKFLOW, "changes": TEXT_TOOL}
Leaf = tuple[Any, ...]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder: Path = tmp_path_factory.mktemp("surrogates") / "reg"
    app = create_app(Settings(registry=folder, rate_limit=""))
    app.state.services.registries.default.create(SHIP)
    token = TokenStore(state_folder(folder)).create("admin", "admin", "person")[0]
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as found:
        found.headers.update({"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        yield found


def test_every_string_of_every_route_with_a_lone_surrogate_is_a_coded_4xx(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    slug = client.get("/api/v1/templates").json()[0]["slug"]
    answered: dict[str, set[int]] = {}
    sent = 0
    for path, operations in spec["paths"].items():
        url = path.replace("{name}", "ship").replace("{slug}", slug)
        for method, operation in operations.items():
            for body in _bodies(operation, spec):
                for leaf in _leaves(body):
                    status = _checked(client.request(method, url, content=json.dumps(_with_lone(body, leaf))))
                    answered.setdefault(f"{method.upper()} {path}", set()).add(status)
                    sent += 1
                for text_leaf in _text_positions(body):
                    status = _checked(client.request(method, url, content=json.dumps(_with_lone(body, text_leaf))))
                    answered.setdefault(f"{method.upper()} {path}", set()).add(status)
                    sent += 1
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and parameter.get("schema", {}).get("type") != "integer":
                    # a surrogate's UTF-8-like bytes: the only way one can be sent in a query
                    _checked(client.request(method, f"{url}?{parameter['name']}=%ED%A0%80"))
                    sent += 1
    with_body = {f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m, op in ops.items() if "requestBody" in op}
    assert set(answered) == with_body and sent > 200, (sent, with_body - set(answered))
    # the routes that answered 500 before are among those swept
    for route in ("POST /api/v1/tools", "POST /api/v1/tools/test", "PUT /api/tools/{name}", "POST /api/v1/check"):
        assert route in answered and max(answered[route]) < 500, (route, answered.get(route))


def _checked(response: Any) -> int:
    request = response.request
    where = f"{request.method} {request.url} {request.content[:200]!r}"
    assert response.status_code < 500 or response.status_code == 503, where  # 503: no n8n configured
    if response.status_code >= 400:
        problem = response.json()  # the answer is JSON that parses, with its code
        assert problem["code"] and problem["status"] == response.status_code, where
    return int(response.status_code)


def _bodies(operation: dict[str, Any], spec: dict[str, Any]) -> list[Any]:
    """Bodies of the route's schema: free-form fields as a tool object, then as text."""
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return []
    return [_example(schema, spec, None, text) for text in (False, True)]


def _example(schema: dict[str, Any], spec: dict[str, Any], name: str | None, text: bool) -> Any:
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "anyOf" in schema:
        options = [option for option in schema["anyOf"] if option.get("type") != "null"]
        wanted = "string" if text and any(o.get("type") == "string" for o in options) else None
        chosen = next((o for o in options if o.get("type") == wanted), options[0])
        return _example(chosen, spec, name, text)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        return {key: _example(value, spec, key, text) for key, value in schema["properties"].items()}
    if kind == "object":
        return FREE_FORM.get(name or "", {"w": 1, "label": "a"})
    if kind == "string":
        return TEXT.get(name or "", "2026-01-31T09:30:00Z" if name == "now" else "text")
    return {"integer": 1, "number": 1, "boolean": False, "array": []}.get(kind or "")


def _leaves(value: Any, path: Leaf = ()) -> Iterator[Leaf]:
    """Where a string is: each string value, and each object key (as ("key", name))."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, ("key", key))
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    elif isinstance(value, str):
        yield path


def _text_positions(value: Any) -> Iterator[Leaf]:
    """Inside DSL text: in a string literal, a name and a body (as ("at", offset))."""
    for key, item in value.items() if isinstance(value, dict) else ():
        if isinstance(item, str) and "\n" in item:
            for marker in ('"', " ", "{"):
                yield (key, ("at", item.index(marker) + 1))


def _with_lone(value: Any, leaf: Leaf, path: Leaf = ()) -> Any:
    if isinstance(value, dict):
        renamed = {(LONE + key if (*path, ("key", key)) == leaf else key): item for key, item in value.items()}
        return {key: _with_lone(item, leaf, (*path, key.removeprefix(LONE))) for key, item in renamed.items()}
    if isinstance(value, list):
        return [_with_lone(item, leaf, (*path, index)) for index, item in enumerate(value)]
    if isinstance(value, str) and path == leaf:
        return LONE + value
    if isinstance(value, str) and len(leaf) == len(path) + 1 and leaf[:-1] == path and leaf[-1][0] == "at":
        at = leaf[-1][1]
        return value[:at] + LONE + value[at:]
    return value
