"""schemathesis over the server's own OpenAPI document: requests made from the schema (valid
and not) never get a 5xx, and every answer's status, content type and body are the ones the
document declares. A few examples per route keep it to seconds in CI.

Deploying needs n8n: without one its answer is a 503 on purpose (test_server_api checks it),
so that route is left out here."""

from __future__ import annotations

import secrets
import signal

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from test_server_support import ServerProcess, compute_tool

from toolkiln import Registry
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

# Not positive_data_acceptance: a definition the schema allows (any object) may still not
# compile, and a 422 with its diagnostics is then the right answer.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    registry = tmp_path_factory.mktemp("schemathesis") / "registry"
    with Registry(registry) as reg:  # a tool to find, so that not every {name} is a 404
        reg.create(compute_tool("sample"))
    # A name schemathesis will not guess, so that DELETE /tokens/{name} cannot revoke it.
    server_token, _ = TokenStore(state_folder(registry)).create(f"fuzz-{secrets.token_hex(8)}", "admin", "person")
    process = ServerProcess(registry, "--rate-limit", "")
    process.token = server_token
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


@pytest.fixture(scope="module")
def api_schema(server):
    headers = {"Authorization": f"Bearer {server.token}"}
    loaded = schemathesis.openapi.from_url(f"{server.url}/openapi.json", headers=headers)
    return loaded.exclude(path="/api/v1/workflows/deploy")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_server_answers_as_its_schema_says(case, server):
    case.call_and_validate(base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, checks=CHECKS)
