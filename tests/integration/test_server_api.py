"""`toolkiln serve` under a real uvicorn process, driven over HTTP: every route, every scope,
and tokens missing, wrong or revoked on every route the OpenAPI document lists."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from test_server_support import answer, compute_tool, served_registry

from toolkiln.server.state import state_folder
from toolkiln.server.tokens import SCOPES, TokenStore

# The scope each route needs. A route added to the app but not here fails
# test_the_scope_table_covers_every_route, so no route goes untested.
SCOPE_OF = {
    ("GET", "/api/v1/tools"): "read",
    ("POST", "/api/v1/tools"): "write",
    ("POST", "/api/v1/custom-tools"): "write",
    ("GET", "/api/v1/tools/pending"): "read",
    ("GET", "/api/v1/tools/stats"): "read",
    ("GET", "/api/v1/tools/definitions"): "read",
    ("POST", "/api/v1/tools/test"): "run",
    ("POST", "/api/v1/tools/validate"): "read",
    ("GET", "/api/v1/tools/{name}"): "read",
    ("PATCH", "/api/v1/tools/{name}"): "write",
    ("DELETE", "/api/v1/tools/{name}"): "write",
    ("POST", "/api/v1/tools/{name}/enable"): "write",
    ("POST", "/api/v1/tools/{name}/disable"): "write",
    ("POST", "/api/v1/tools/{name}/approve"): "admin",
    ("POST", "/api/v1/tools/{name}/reject"): "admin",
    ("POST", "/api/v1/tools/{name}/execute"): "run",
    ("GET", "/api/v1/tools/{name}/validate"): "read",
    ("GET", "/api/v1/tools/{name}/history"): "read",
    ("POST", "/api/v1/tools/{name}/rollback"): "write",
    ("GET", "/api/v1/tools/{name}/definition"): "read",
    ("POST", "/api/v1/check"): "read",
    ("POST", "/api/v1/workflows/compile"): "read",
    ("POST", "/api/v1/workflows/deploy"): "write",
    ("GET", "/api/v1/templates"): "read",
    ("POST", "/api/v1/templates/{slug}/render"): "read",
    ("GET", "/api/v1/calls"): "read",
    ("GET", "/api/v1/calls/{call_id}"): "read",
    ("POST", "/api/v1/calls/{call_id}/approve"): "admin",
    ("POST", "/api/v1/calls/{call_id}/deny"): "admin",
    ("GET", "/api/v1/secrets"): "admin",
    ("GET", "/api/v1/tools/{name}/review"): "read",
    ("POST", "/api/v1/tools/{name}/repin"): "admin",
    ("PUT", "/api/v1/secrets/{name}"): "admin",
    ("DELETE", "/api/v1/secrets/{name}"): "admin",
    ("PUT", "/api/v1/tools/{name}/call-approval"): "admin",
    ("GET", "/api/v1/events"): "read",
    ("GET", "/api/v1/tokens"): "admin",
    ("POST", "/api/v1/tokens"): "admin",
    ("DELETE", "/api/v1/tokens/{name}"): "admin",
    ("GET", "/api/tools"): "read",
    ("POST", "/api/tools"): "write",
    ("GET", "/api/tools/definitions/all"): "read",
    ("GET", "/api/tools/{name}"): "read",
    ("PUT", "/api/tools/{name}"): "write",
    ("DELETE", "/api/tools/{name}"): "write",
    ("POST", "/api/tools/{name}/test"): "run",
    ("POST", "/api/tools/{name}/validate"): "read",
    ("GET", "/api/tools/{name}/definition"): "read",
}
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served_registry(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="module")
def openapi(server):
    with server.client(server.tokens["read"]) as http:
        return http.get("/openapi.json").json()


def as_user(server, scope: str = "admin"):
    return server.client(server.tokens[scope])


def routes(openapi):
    return [(method.upper(), path) for path, item in openapi["paths"].items() for method in item]


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "no_such_thing", path)


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["code"] == code and body["type"] == f"urn:toolkiln:error:{code}"
    assert body["diagnostics"] and body["diagnostics"][0]["code"] == code, body
    assert "Traceback" not in response.text
    return body


# --- auth on every route ----------------------------------------------------------------------


def test_the_scope_table_covers_every_route(openapi):
    listed = set(routes(openapi)) - {("GET", "/health")}
    assert listed == set(SCOPE_OF)


def test_health_needs_no_token(server, openapi):
    assert "security" not in openapi["paths"]["/health"]["get"]
    with server.client() as http:
        body = http.get("/health").json()
    assert body["status"] == "ok"


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def test_every_route_refuses_a_missing_a_wrong_and_a_revoked_token(server, openapi):
    revoked, _ = TokenStore(state_folder(server.registry)).create("soon-revoked", "admin", "person")
    TokenStore(state_folder(server.registry)).revoke("soon-revoked")
    with server.client() as http:
        for method, path in routes(openapi):
            if path == "/health":
                continue
            for token, code in ((None, "R0501"), ("tk_wrong", "R0502"), (revoked, "R0502")):
                response = http.request(method, concrete(path), json={}, headers=bearer(token))
                assert_problem(response, 401, code)
                assert response.headers["www-authenticate"].startswith("Bearer"), (method, path)
        assert_problem(http.get("/openapi.json"), 401, "R0501")


def test_every_scope_reaches_exactly_its_routes(server, openapi):
    with server.client() as http:
        for method, path in routes(openapi):
            if path == "/health":
                continue
            needed = SCOPE_OF[(method, path)]
            for scope in SCOPES:
                response = answer(http, method, concrete(path), json={}, headers=bearer(server.tokens[scope]))
                if SCOPES.index(scope) < SCOPES.index(needed):
                    body = assert_problem(response, 403, "R0503")
                    assert needed in body["detail"]
                else:
                    assert response.status_code not in (401, 403), (method, path, scope, response.text)
                    assert response.status_code < 500, (method, path, scope, response.text)


# --- the tools --------------------------------------------------------------------------------


def test_a_tool_from_create_to_delete(server):
    with as_user(server) as http:
        created = http.post("/api/v1/tools", json={"definition": compute_tool("triple", "x * 3")})
        assert created.status_code == 201 and created.json()["status"] == "active"
        assert_problem(http.post("/api/v1/tools", json={"definition": compute_tool("triple")}), 409, "R0103")

        run = http.post("/api/v1/tools/triple/execute", json={"args": {"x": 0.1}})
        assert json.loads(run.text, parse_float=Decimal)["result"] == Decimal("0.3")  # exact, not 0.30000000000000004
        assert_problem(http.post("/api/v1/tools/triple/execute", json={"args": {"x": "a"}}), 422, "E0508")

        changed = http.patch(
            "/api/v1/tools/triple", json={"changes": {"logic": {"steps": [{"op": "return", "value": "x * 4"}]}}}
        )
        assert changed.json()["version"] == 2
        assert [v["version"] for v in http.get("/api/v1/tools/triple/history").json()] == [1, 2]
        assert http.post("/api/v1/tools/triple/rollback", json={"version": 1}).json()["version"] == 3
        assert http.post("/api/v1/tools/triple/execute", json={"args": {"x": 2}}).json()["result"] == 6

        assert http.post("/api/v1/tools/triple/disable").json()["status"] == "disabled"
        assert_problem(http.post("/api/v1/tools/triple/execute", json={"args": {"x": 1}}), 409, "R0203")
        assert_problem(http.get("/api/v1/tools/triple/definition"), 409, "R0203")
        assert http.post("/api/v1/tools/triple/enable").json()["status"] == "active"
        assert_problem(http.post("/api/v1/tools/triple/reject"), 409, "R0202")  # only from pending_approval

        assert http.delete("/api/v1/tools/triple").json() == {"deleted": "triple"}
        assert_problem(http.get("/api/v1/tools/triple"), 404, "R0102")
        assert_problem(http.get("/api/v1/tools/Not-A-Name"), 422, "R0506")  # the path pattern of a name


def test_a_definition_that_does_not_check_is_a_422_with_every_diagnostic(server):
    broken = compute_tool("broken", "round(y, 2) + z")
    with as_user(server) as http:
        body = assert_problem(http.post("/api/v1/tools", json={"definition": broken}), 422, "E0201")
        assert len(body["diagnostics"]) == 2 and {d["path"] for d in body["diagnostics"]} == {"logic.steps[0].value"}
        assert_problem(http.get("/api/v1/tools/broken"), 404, "R0102")  # nothing written


def test_a_models_tool_waits_for_approval_whatever_the_token(server):
    risky = compute_tool("risky_double", riskLevel="high")
    with as_user(server, "admin") as http:
        created = http.post("/api/v1/tools", json={"definition": risky, "created_by": "llm"}).json()
        assert created["status"] == "pending_approval" and created["created_by"] == "llm"
        assert [t["name"] for t in http.get("/api/v1/tools/pending").json()["tools"]] == ["risky_double"]
        assert_problem(http.post("/api/v1/tools/risky_double/execute", json={"args": {"x": 1}}), 409, "R0203")
        assert "risky_double" not in [d["function"]["name"] for d in http.get("/api/v1/tools/definitions").json()]
        assert_problem(http.post("/api/v1/tools/risky_double/approve?by=llm"), 403, "R0201")  # a model never approves
        assert http.post("/api/v1/tools/risky_double/approve").json()["status"] == "active"
        assert http.post("/api/v1/tools/risky_double/execute", json={"args": {"x": 4}}).json()["result"] == 8
        http.delete("/api/v1/tools/risky_double")
        http.post("/api/v1/tools", json={"definition": risky, "created_by": "llm"})
        assert http.post("/api/v1/tools/risky_double/reject").json()["status"] == "rejected"
        assert_problem(http.post("/api/v1/tools/risky_double/approve"), 409, "R0202")
        http.delete("/api/v1/tools/risky_double")


def test_listing_filters_searches_and_pages(server):
    with as_user(server) as http:
        for name, description in (("alpha_one", "First tool"), ("alpha_two", "Second tool"), ("beta", "Other")):
            http.post("/api/v1/tools", json={"definition": compute_tool(name, description=description)})
        http.post("/api/v1/tools/beta/disable")
        page = http.get("/api/v1/tools", params={"search": "ALPHA", "limit": 1, "offset": 1}).json()
        assert page["total"] == 2 and [t["name"] for t in page["tools"]] == ["alpha_two"]
        assert [t["name"] for t in http.get("/api/v1/tools", params={"status": "disabled"}).json()["tools"]] == ["beta"]
        assert http.get("/api/v1/tools", params={"kind": "workflow"}).json()["total"] == 0
        assert http.get("/api/v1/tools", params={"search": "second"}).json()["total"] == 1
        assert_problem(http.get("/api/v1/tools", params={"limit": 0}), 422, "R0506")
        stats = http.get("/api/v1/tools/stats").json()
        assert stats["by_status"]["disabled"] >= 1 and stats["by_kind"]["compute"] == stats["total"]
        for name in ("alpha_one", "alpha_two", "beta"):
            http.delete(f"/api/v1/tools/{name}")


def test_definitions_in_every_format(server):
    with as_user(server) as http:
        http.post("/api/v1/tools", json={"definition": compute_tool("exported")})
        shapes = {
            "openai": lambda d: d["function"]["name"],
            "anthropic": lambda d: d["name"] if "input_schema" in d else None,
            "mcp": lambda d: d["name"] if "inputSchema" in d else None,
            "gemini": lambda d: d["name"] if d["parameters"]["type"] == "OBJECT" else None,
        }
        for fmt, name_of in shapes.items():
            listed = http.get("/api/v1/tools/definitions", params={"format": fmt}).json()
            assert "exported" in [name_of(d) for d in listed], fmt
            one = http.get("/api/v1/tools/exported/definition", params={"format": fmt}).json()
            assert name_of(one) == "exported"
        assert_problem(http.get("/api/v1/tools/definitions", params={"format": "xml"}), 422, "R0506")
        http.delete("/api/v1/tools/exported")


def test_dry_runs_and_validation_save_nothing(server):
    with as_user(server, "run") as http:
        tested = http.post("/api/v1/tools/test", json={"definition": compute_tool("dry"), "args": {"x": 5}}).json()
        assert tested["ran"] and tested["result"] == 10
        checked = http.post("/api/v1/tools/validate", json={"definition": compute_tool("dry", "y")}).json()
        assert checked["valid"] is False and checked["diagnostics"][0]["code"] == "E0201"
        assert_problem(http.get("/api/v1/tools/dry"), 404, "R0102")
    with as_user(server, "admin") as http:
        http.post("/api/v1/tools", json={"definition": compute_tool("stored")})
        assert http.get("/api/v1/tools/stored/validate").json() == {
            "valid": True,
            "errors": 0,
            "warnings": 0,
            "diagnostics": [],
        }
        http.delete("/api/v1/tools/stored")


def test_a_run_reads_the_clock_the_request_gives(server):
    due = {
        "name": "overdue_days",
        "description": "Days past due",
        "parameters": {"due": {"type": "string", "format": "date"}},
        "logic": {"steps": [{"op": "return", "value": "[days_between(due, today()), now()]"}]},
    }
    with as_user(server, "admin") as http:
        assert http.post("/api/v1/tools", json={"definition": due}).status_code == 201
        properties = http.get("/api/v1/tools/overdue_days").json()["parameters"]["properties"]
        assert properties["due"] == {"type": "string", "format": "date"}
        run = http.post(
            "/api/v1/tools/overdue_days/execute",
            json={"args": {"due": "2026-01-31"}, "now": "2026-02-10T23:30:00-02:00"},
        )
        assert run.json()["result"] == [11, "2026-02-11T01:30:00Z"]  # today() is the date in UTC
        tested = http.post(
            "/api/v1/tools/test", json={"definition": due, "args": {"due": "2026-02-01"}, "now": "2026-02-01T00:00:00Z"}
        )
        assert tested.json()["result"] == [0, "2026-02-01T00:00:00Z"]
        bad = {"args": {"due": "2026-01-31"}, "now": "2026-02-10"}
        assert_problem(http.post("/api/v1/tools/overdue_days/execute", json=bad), 422, "E0508")
        http.delete("/api/v1/tools/overdue_days")


def test_check_compute_sources_and_workflows(server):
    workflow = 'workflow hello\ndescription "Says hello"\non manual\nset greet { text = "hi" }\n'
    with as_user(server, "read") as http:
        compute = http.post("/api/v1/check", json={"source": 'tool f(x: number) description "d" { return x + 1 }'})
        assert compute.json() == {"valid": True, "errors": 0, "warnings": 0, "diagnostics": []}
        assert http.post("/api/v1/check", json={"source": workflow}).json()["valid"] is True
        bad = http.post("/api/v1/check", json={"source": workflow.replace('"hi"', "missing.x")}).json()
        assert bad["valid"] is False and bad["diagnostics"][0]["code"].startswith("E07")
        compiled = http.post("/api/v1/workflows/compile", json={"source": workflow}).json()
        assert compiled["name"] == "hello" and compiled["workflow"]["nodes"]
        assert_problem(http.post("/api/v1/workflows/compile", json={"source": "workflow"}), 422, "E0101")


def test_check_answers_with_the_fix_a_client_can_apply(server):
    source = (
        'tool cost(price: number, qty: number) description "d" {\n  base_cost = price * qty\n  return base_cst * 2\n}\n'
    )
    with as_user(server, "read") as http:
        found = http.post("/api/v1/check", json={"source": source}).json()["diagnostics"]
    [typo] = [d for d in found if d["code"] == "E0201"]
    assert typo["input"] == "base_cst" and typo["expected"] == ["base_cost", "price", "qty"]
    fix = typo["fix"]
    assert (fix["line"], fix["column"], fix["replacement"]) == (3, 10, "base_cost")
    assert source[: fix["start"]] + fix["replacement"] + source[fix["end"] :] == source.replace("base_cst", "base_cost")


def test_deploy_without_n8n_is_a_503(server):
    workflow = 'workflow hello\ndescription "Says hello"\non manual\nset greet { text = "hi" }\n'
    with as_user(server, "write") as http:
        assert_problem(http.post("/api/v1/workflows/deploy", json={"source": workflow}), 503, "R0401")


def test_templates(server):
    with as_user(server, "read") as http:
        listed = http.get("/api/v1/templates").json()
        assert listed and all(t["slug"] and t["parameters"] is not None for t in listed)
        slug = listed[0]["slug"]
        values = {p["name"]: "https://example.com/x" for p in listed[0]["parameters"] if p["required"]}
        rendered = http.post(f"/api/v1/templates/{slug}/render", json={"values": values, "dsl": True})
        assert rendered.status_code == 200, rendered.text
        assert rendered.json()["dsl"].startswith(("workflow", "#"))
        as_n8n = http.post(f"/api/v1/templates/{slug}/render", json={"values": values}).json()
        assert as_n8n["dsl"] is None and as_n8n["workflow"]["nodes"]
        assert_problem(http.post("/api/v1/templates/nope/render", json={}), 404, "E0801")


def test_tokens_over_http(server):
    with as_user(server, "admin") as http:
        made = http.post("/api/v1/tokens", json={"name": "made-over-http", "kind": "model", "scope": "run"})
        assert made.status_code == 201 and made.json()["token"].startswith("tk_")
        assert "made-over-http" in [t["name"] for t in http.get("/api/v1/tokens").json()]
        assert all("token" not in t and "sha256" not in t for t in http.get("/api/v1/tokens").json())
        again = {"name": "made-over-http", "kind": "model", "scope": "run"}
        assert_problem(http.post("/api/v1/tokens", json=again), 409, "R0509")
        with server.client(made.json()["token"]) as new:
            assert new.get("/api/v1/tools").status_code == 200
        assert http.delete("/api/v1/tokens/made-over-http").json()["name"] == "made-over-http"
        with server.client(made.json()["token"]) as new:
            assert_problem(new.get("/api/v1/tools"), 401, "R0502")
        assert_problem(http.delete("/api/v1/tokens/made-over-http"), 404, "R0510")


# --- the seed's routes ------------------------------------------------------------------------


def test_the_seed_routes_keep_their_envelope(server):
    with as_user(server) as http:
        created = http.post("/api/tools", json=compute_tool("seeded"))
        assert created.status_code == 201
        assert created.json()["status"] == "success" and created.json()["data"]["ready"] is True
        listing = http.get("/api/tools").json()["data"]
        assert "seeded" in [t["name"] for t in listing["tools"]] and listing["total"] == len(listing["tools"])
        assert http.get("/api/tools/seeded").json()["data"]["version"] == 1
        assert http.put("/api/tools/seeded", json=compute_tool("seeded", "x * 5")).json()["data"]["version"] == 2
        tested = http.post("/api/tools/seeded/test", json={"parameters": {"x": 2}}).json()["data"]
        assert tested["output"] == 10 and tested["status"] == "success" and tested["execution_time_ms"] >= 0
        # One failure shape: the seed's test route and REST execute answer a failed run alike.
        seed = assert_problem(http.post("/api/tools/seeded/test", json={"parameters": {"y": 2}}), 422, "E0508")
        rest = assert_problem(http.post("/api/v1/tools/seeded/execute", json={"args": {"y": 2}}), 422, "E0508")
        assert seed["diagnostics"] == rest["diagnostics"] and all(d["hint"] for d in rest["diagnostics"])
        assert_problem(http.post("/api/tools/nope/test", json={"parameters": {}}), 404, "R0102")
        validated = {"valid": True, "name": "seeded", "runtime": "compute", "errors": [], "warnings": []}
        assert http.post("/api/tools/seeded/validate").json()["data"] == validated
        one = http.get("/api/tools/seeded/definition").json()["data"]
        assert one["type"] == "function" and one["function"]["name"] == "seeded"
        assert "seeded" in [d["function"]["name"] for d in http.get("/api/tools/definitions/all").json()["data"]]
        assert http.delete("/api/tools/seeded").json()["data"]["message"] == "Tool 'seeded' deleted"
        assert_problem(http.get("/api/tools/seeded"), 404, "R0102")


# --- requests the server refuses ---------------------------------------------------------------


def test_bodies_over_the_limit_are_413_and_bad_bodies_422(server):
    with as_user(server) as http:
        assert_problem(http.post("/api/v1/tools", content=b"{" + b" " * 2_000_000 + b"}"), 413, "R0505")
        body = assert_problem(http.post("/api/v1/tools/x/execute", json={"arguments": {}}), 422, "R0506")
        assert "body.arguments" in {d["path"] for d in body["diagnostics"]}
        assert_problem(
            http.post("/api/v1/tools", content=b"not json", headers={"content-type": "application/json"}), 422, "R0506"
        )
        assert_problem(http.get("/api/v1/nowhere"), 404, "R0507")
        assert_problem(http.put("/api/v1/tools"), 405, "R0507")


def test_every_write_is_audited_with_its_token(server):
    with as_user(server, "write") as http:
        http.post("/api/v1/tools", json={"definition": compute_tool("audited")})
        http.delete("/api/v1/tools/audited")
    with as_user(server, "read") as http:
        http.get("/api/v1/tools")
    lines = [json.loads(line) for line in (state_folder(server.registry) / "requests.jsonl").read_text().splitlines()]
    mine = [(e["token"], e["method"], e["path"], e["status"]) for e in lines if e["path"].endswith("audited")]
    assert mine == [("write", "DELETE", "/api/v1/tools/audited", 200)]
    assert ("write", "POST", "/api/v1/tools", 201) in [(e["token"], e["method"], e["path"], e["status"]) for e in lines]
    assert all(e["token"] != "read" for e in lines)  # reads are not audited
    registry_log = [json.loads(line) for line in (server.registry / "audit.jsonl").read_text().splitlines()]
    changes = [(e["action"], e.get("via")) for e in registry_log if e["tool"] == "audited"]
    assert changes == [("create", "token write"), ("delete", "token write")]
