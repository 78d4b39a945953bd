"""RustyClaw's tool-creation requests (issue 27, item 2, the validation part): the 12 cases of
its own validation tests (creator.rs test_validate_*, ../shared/corpus/peers/rustyclaw/) get
the same accept/refuse answer from toolkiln's check of a script tool, for the same field,
except where toolkiln is stricter or looser on purpose; each difference is asserted here and
explained in docs/migrating.md#rustyclaw."""

from __future__ import annotations

import pytest
from peers_corpus import peer, read_json

from toolkiln import Registry
from toolkiln.errors import Error, error_details

CASES = {
    case["test"]: case for case in read_json(peer("rustyclaw") / "create-requests" / "creator_rs_validate_cases.json")
}
# The field each refusal of RustyClaw's is about, by its test's name.
REFUSED_FOR = {
    "test_validate_invalid_name_with_special_chars": "name",
    "test_validate_empty_name": "name",
    "test_validate_name_too_long": "name",
    "test_validate_empty_description": "description",
    "test_validate_empty_body": "body",
    "test_validate_invalid_runtime": "runtime",
    "test_validate_parameters_must_have_type": "parameters",
    "test_validate_invalid_policy": "policy",
    "test_validate_timeout_zero": "timeout_secs",
    "test_validate_timeout_too_high": "timeout_secs",
}


def script_definition(request: dict, *, name: str | None = None) -> dict:
    """A RustyClaw CreateToolRequest as a script tool. `sandbox: false` (run without Docker)
    has no counterpart: a toolkiln script always runs in its sandbox."""
    fields = {key: value for key, value in request.items() if key != "sandbox"}
    return {"kind": "script", **fields, **({"name": name} if name is not None else {})}


def refused_fields(registry: Registry, definition: dict) -> set[str]:
    try:
        registry.check_definition(definition)
    except Error as error:
        return {details.path or "" for details in error_details(error)}
    return set()


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> Registry:
    return Registry(tmp_path_factory.mktemp("rustyclaw"), durable=False)


def test_the_corpus_holds_the_12_cases():
    assert len(CASES) == 12 and sum(case["expect_valid"] for case in CASES.values()) == 1


@pytest.mark.parametrize("test", sorted(REFUSED_FOR))
def test_a_request_rustyclaw_refuses_is_refused_for_the_same_field(registry, test):
    request = CASES[test]["request"]
    assert CASES[test]["expect_valid"] is False
    # Named as toolkiln names tools (test-tool -> test_tool), so the name hides no other reason.
    name = request["name"].replace("-", "_") if request["name"] == "test-tool" else None
    assert REFUSED_FOR[test] in refused_fields(registry, script_definition(request, name=name))


def test_the_valid_request_is_valid_once_named_as_toolkiln_names_tools(registry):
    request = CASES["test_validate_valid_tool_request"]["request"]
    assert refused_fields(registry, script_definition(request, name="test_tool")) == set()
    # Stricter on purpose: a tool name is an identifier (a compute tool's `call` step, every
    # export format, the registry's file names), so `test-tool` is refused (E0110).
    assert refused_fields(registry, script_definition(request)) == {"name"}


def test_a_description_longer_than_500_characters_is_accepted(registry):
    # Looser on purpose: RustyClaw caps descriptions at 500 characters; toolkiln does not.
    request = CASES["test_validate_description_too_long"]["request"]
    assert CASES["test_validate_description_too_long"]["expect_valid"] is False
    assert refused_fields(registry, script_definition(request, name="test_tool")) == set()


@pytest.mark.usefixtures("bwrap_installed")
def test_a_rustyclaw_body_reads_its_arguments_from_skill_args(tmp_path):
    # RustyClaw's scripts get their arguments only as the JSON text of SKILL_ARGS.
    body = "city=$(printf '%s' \"$SKILL_ARGS\" | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"city\"])')\n"
    body += 'echo "weather for $city"'
    definition = {
        "kind": "script",
        "name": "get_weather",
        "description": "Weather for a city",
        "runtime": "bash",
        "body": body,
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "policy": "allow",
    }
    with Registry(tmp_path / "registry", durable=False) as registry:
        registry.create(definition)
        result = registry.run("get_weather", {"city": "Lyon; rm -rf /"})
    assert result["output"] == "weather for Lyon; rm -rf /\n"  # data, never program text


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from test_server_support import served_registry

    yield from served_registry(tmp_path_factory.mktemp("rustyclaw-server"))


def test_the_tool_list_filters_by_source_and_runtime_as_rustyclaw(server):
    from test_server_support import compute_tool

    request = {**CASES["test_validate_valid_tool_request"]["request"], "name": "say_hello", "sandbox": None}
    with server.client(server.tokens["admin"]) as http:
        assert http.post("/api/tools", json=script_definition(request)).status_code == 201
        assert http.post("/api/tools", json=compute_tool("doubled")).status_code == 201

        def names(query: str) -> list[tuple[str, str]]:
            tools = http.get(f"/api/tools{query}").json()["data"]["tools"]
            return sorted((tool["name"], tool["runtime"]) for tool in tools)

        assert (
            names("")
            == names("?filter=all")
            == names("?filter=skills")
            == [("doubled", "compute"), ("say_hello", "bash")]
        )
        assert names("?filter=skills&runtime=bash") == [("say_hello", "bash")]
        assert names("?filter=built-in") == names("?filter=plugins") == names("?runtime=wasm") == []
        refused = http.get("/api/tools?filter=everything")
        assert refused.status_code == 422 and refused.headers["content-type"].startswith("application/problem+json")


# A skill file as RustyClaw's creator.rs writes it: "---\n" + serde_yaml of the manifest + "---\n" + body.
RUSTYCLAW_SKILL = """---
name: weather_check
description: Get the weather for a city
parameters:
  type: object
  properties:
    city:
      type: string
  required:
  - city
runtime: bash
sandbox: {sandbox}
network: false
policy: elevated
timeout_secs: 30
---
city=$(printf '%s' "$SKILL_ARGS" | python3 -c 'import json,sys; print(json.load(sys.stdin)["city"])')
echo "Weather in $city: sunny"
"""


@pytest.mark.usefixtures("bwrap_installed")
@pytest.mark.parametrize("sandbox", ["false", "true"])
def test_a_rustyclaw_yaml_skill_file_is_a_script_tool(tmp_path, sandbox):
    path = tmp_path / "weather_check.yaml"
    path.write_text(RUSTYCLAW_SKILL.format(sandbox=sandbox))
    with Registry(tmp_path / "registry", durable=False) as registry:
        record = registry.create(path)
        # `sandbox: false` (no Docker) or `true` (Docker): a script always runs in bubblewrap.
        made = (record.kind, record.definition["policy"], record.definition.get("sandbox"))
        assert made == ("script", "elevated", "bubblewrap")
        result = registry.run("weather_check", {"city": "Lyon"})
    assert (result["output"], result["sandbox"]) == ("Weather in Lyon: sunny\n", "bubblewrap")


def test_a_delete_answers_where_the_tool_was_kept(server):
    from test_server_support import compute_tool

    with server.client(server.tokens["admin"]) as http:
        assert http.post("/api/tools", json=compute_tool("to_delete")).status_code == 201
        answer = http.delete("/api/tools/to_delete?keep_backup=true").json()["data"]
    assert answer["message"] == "Tool 'to_delete' deleted"
    kept = server.registry / answer["backup_path"]
    assert answer["backup_path"].startswith(".deleted/to_delete.") and (kept / "to_delete.json").is_file()
