"""Exports: each API's exact shape, valid schemas, and what a format would reject."""

import json

import pytest
from jsonschema import Draft202012Validator

from toolkiln.registry import FORMATS, InvalidRequest
from toolkiln.registry.exports import OPENAI_DESCRIPTION_LIMIT, ToolSpec, export

LATE_FEE = """tool late_fee(
  days: integer "Days overdue",
  amount: number "Invoice amount",
  rate: number = 0.001 "Daily rate",
  tags: array[string] = [] "Labels",
)
description "Late fee"
{
  return round(amount * rate * days, 2)
}
"""

GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}
GEMINI_KEYS = {"type", "format", "description", "nullable", "enum", "properties", "required", "items"}


def schema_of(definition, format):
    return {
        "openai": lambda d: d["function"]["parameters"],
        "anthropic": lambda d: d["input_schema"],
        "mcp": lambda d: d["inputSchema"],
        "gemini": lambda d: d.get("parameters"),
    }[format](definition)


@pytest.fixture
def filled(reg, make_def):
    reg.create(LATE_FEE)
    reg.create(make_def("double"))
    reg.create(make_def("disabled_one"))
    reg.disable("disabled_one")
    reg.create(make_def("pending_one", risk="high"), created_by="llm")
    reg.create('tool constant()\ndescription "Always 42"\n{\n  return 42\n}\n')
    return reg


def test_openai_function_tools(filled):
    tools = filled.definitions("openai")
    assert [t["function"]["name"] for t in tools] == ["constant", "double", "late_fee"]  # active only
    late = tools[2]
    assert set(late) == {"type", "function"} and late["type"] == "function"
    assert set(late["function"]) == {"name", "description", "parameters"}
    assert late["function"]["parameters"]["properties"]["rate"] == {
        "type": ["number", "null"],  # an optional parameter: null (what models send) means its default
        "description": "Daily rate",
        "default": 0.001,
    }


def test_anthropic_tools(filled):
    late = filled.definitions("anthropic")[2]
    assert set(late) == {"name", "description", "input_schema"} and late["input_schema"]["type"] == "object"
    assert late["input_schema"]["required"] == ["days", "amount"]


def test_mcp_tools(filled):
    late = filled.definitions("mcp")[2]
    assert set(late) == {"name", "description", "inputSchema", "annotations"}
    assert late["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_gemini_function_declarations_use_the_openapi_subset(filled):
    declarations = {d["name"]: d for d in filled.definitions("gemini")}
    assert "parameters" not in declarations["constant"]  # no empty OBJECT: Gemini refuses those
    late = declarations["late_fee"]
    assert set(late) == {"name", "description", "parameters"}
    assert late["parameters"] == {
        "type": "OBJECT",
        "properties": {
            "days": {"type": "INTEGER", "description": "Days overdue"},
            "amount": {"type": "NUMBER", "description": "Invoice amount"},
            "rate": {"type": "NUMBER", "nullable": True, "description": "Daily rate (default: 0.001)"},
            "tags": {
                "type": "ARRAY",
                "nullable": True,
                "description": "Labels (default: [])",
                "items": {"type": "STRING"},
            },
        },
        "required": ["days", "amount"],
    }


def test_date_parameters_keep_their_format_and_gemini_says_it_in_words(reg):
    reg.create('tool reminder(due: date "The due date", sent: datetime) description "A reminder" { return due }')
    [openai] = reg.definitions("openai")
    properties = openai["function"]["parameters"]["properties"]
    assert properties == {
        "due": {"type": "string", "format": "date", "description": "The due date"},
        "sent": {"type": "string", "format": "date-time"},
    }
    exported = reg.export("gemini")
    [gemini] = exported.definitions
    assert gemini["parameters"]["properties"] == {
        "due": {"type": "STRING", "description": "The due date (an ISO 8601 date: YYYY-MM-DD)"},
        "sent": {
            "type": "STRING",
            "format": "date-time",
            "description": "An ISO 8601 date and time with its offset: 2026-01-31T09:30:00Z.",
        },
    }
    assert any("format date said in the description" in note.message for note in exported.adapted)


def walk(schema):
    yield schema
    for sub in schema.get("properties", {}).values():
        yield from walk(sub)
    if "items" in schema:
        yield from walk(schema["items"])


@pytest.mark.parametrize("format", FORMATS)
def test_every_export_is_plain_json_with_valid_schemas(filled, format):
    definitions = filled.definitions(format) + filled.meta_definitions(format)
    assert json.loads(json.dumps(definitions)) == definitions
    for definition in definitions:
        schema = schema_of(definition, format)
        if format == "gemini":
            if schema is None:  # a tool without parameters
                continue
            for node in walk(schema):
                assert node["type"] in GEMINI_TYPES and set(node) <= GEMINI_KEYS, node
                assert node["type"] != "OBJECT" or node.get("properties"), node  # Gemini refuses empty OBJECTs
        else:
            Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object"


@pytest.mark.parametrize("format", FORMATS)
def test_exported_schemas_accept_good_arguments_and_refuse_bad_ones(filled, format):
    if format == "gemini":
        return
    late = next(d for d in filled.definitions(format) if "late_fee" in json.dumps(d)[:60])
    validator = Draft202012Validator(schema_of(late, format))
    assert validator.is_valid({"days": 3, "amount": 100})
    assert not validator.is_valid({"days": 3})
    assert not validator.is_valid({"days": 3, "amount": 100, "colour": 1})


def test_gemini_leaves_out_what_it_cannot_express_and_says_why(reg):
    reg.create('tool count_items(items: array "Items")\ndescription "Counts"\n{\n  return len(items)\n}\n')
    reg.create('tool first_key(o: object "A record")\ndescription "A field"\n{\n  return get(o, "k")\n}\n')
    reg.create('tool echo(v: any "Anything")\ndescription "Echo"\n{\n  return v\n}\n')
    reg.create('tool fine(n: number)\ndescription "Fine"\n{\n  return n\n}\n')
    result = reg.export("gemini")
    assert [d["name"] for d in result.definitions] == ["fine"]
    reasons = {issue.tool: issue.message for issue in result.skipped}
    assert set(reasons) == {"count_items", "first_key", "echo"}
    assert "item type" in reasons["count_items"] and "without declared properties" in reasons["first_key"]
    assert "no type" in reasons["echo"]
    assert len(reg.definitions("openai")) == 4  # the other formats take them all


def test_openai_descriptions_are_cut_to_the_limit():
    spec = ToolSpec("long_one", "x" * 3000, {"type": "object", "properties": {}})
    result = export([spec], "openai")
    assert len(result.definitions[0]["function"]["description"]) == OPENAI_DESCRIPTION_LIMIT
    assert result.adapted and not result.skipped
    assert export([spec], "anthropic").definitions[0]["description"] == "x" * 3000


def test_names_a_format_refuses_are_reported_never_sent():
    specs = [
        ToolSpec("has.dot", "d", {"type": "object", "properties": {}}),
        ToolSpec("ok", "d", {"type": "object", "properties": {"p" * 70: {"type": "string"}}}),
    ]
    openai = export(specs, "openai")
    assert [d["function"]["name"] for d in openai.definitions] == ["ok"] and openai.skipped[0].tool == "has.dot"
    anthropic = export(specs, "anthropic")
    assert anthropic.definitions == [] and {i.tool for i in anthropic.skipped} == {"has.dot", "ok"}
    assert [d["name"] for d in export(specs, "mcp").definitions] == ["has.dot", "ok"]


def test_unknown_format(reg):
    with pytest.raises(InvalidRequest) as error:
        reg.definitions("openapi")
    assert "openai" in error.value.hint


@pytest.mark.parametrize("format", FORMATS)
def test_meta_definitions_fit_every_format_as_they_are(reg, format):
    from toolkiln.registry import meta

    result = export(meta._specs(gemini=format == "gemini"), format)
    assert not result.skipped and not result.adapted
    names = [d.get("name") or d["function"]["name"] for d in reg.meta_definitions(format)]
    assert names == [
        "create_compute_tool",
        "create_workflow_tool",
        "create_script_tool",
        "list_custom_tools",
        "test_custom_tool",
        "delete_custom_tool",
        "toggle_custom_tool",
    ]
