"""memoriae's prompted tools (issue 27, item 4): the 9 parser cases and the 23 model replies of
its own tests (../shared/corpus/peers/inject-memoriae/) give, through toolkiln's parser, the
calls memoriae's tests expect. Where memoriae is wrong toolkiln differs, and each test says so:

- a `)` inside a string argument: memoriae's pattern stops at the first `)` and drops the call
  without a word; toolkiln reads the string to its closing quote;
- `{ result: "done" }` (JavaScript with a bare key, written by memoriae's own integration
  tests): memoriae's JSON.parse fails and it passes the text on as a string; toolkiln reads the
  object;
- a call it cannot read (`return invalid syntax;`): memoriae skips it with a console warning
  the model never sees; toolkiln answers with a located E0901 for the model to repair.
"""

from __future__ import annotations

from typing import Any

from peers_corpus import peer, read_json

from toolkiln.diagnostics.model import Diagnostic
from toolkiln.llm.prompted import PromptedTool, parse_tool_calls
from toolkiln.llm.prompted.binding import bind

MEMORIAE = peer("inject-memoriae")
CASES = read_json(MEMORIAE / "parser_cases.json")["cases"]
REPLIES = read_json(MEMORIAE / "mock_replies_from_tests.json")
DEFINITIONS = read_json(MEMORIAE / "tool_definitions.json")

BARE_KEY_OBJECT = '```tool\nreturn finalResponse({ result: "done" });\n```'
MALFORMED = "```tool\nreturn invalid syntax;\n```"
# injector.test.ts asserts that its prompt contains "```tool": a fragment, never a reply.
FRAGMENT = "```tool"


def calls_of(reply: str) -> list[dict[str, Any]]:
    parsed = parse_tool_calls(reply)
    assert parsed.diagnostics == (), [d.message for d in parsed.diagnostics]
    return [{"tool": call.name, "args": list(call.arguments)} for call in parsed.calls]


# What memoriae's injector tests expect of the three replies its parser cases do not hold.
INJECTOR_EXPECTS = {
    "```tool\nreturn testTool();\n```": [{"tool": "testTool", "args": []}],
    "```tool\nreturn someTool();\n```": [{"tool": "someTool", "args": []}],
    '```tool\nreturn finalResponse("Return JSON");\n```': [{"tool": "finalResponse", "args": ["Return JSON"]}],
}


def memoriae_expects(reply: str) -> list[dict[str, Any]]:
    """The calls memoriae's tests expect of a reply: those its parser cases list for the same
    text, else those its injector tests expect."""
    for case in CASES:
        if case["reply"] == reply:
            return case["expected_calls"]
    return INJECTOR_EXPECTS[reply]


def test_the_corpus_holds_the_9_parser_cases_and_23_replies():
    assert (len(CASES), len(REPLIES)) == (9, 23)


def test_each_parser_case_gives_the_calls_memoriae_expects():
    for case in CASES:
        if case["reply"] == MALFORMED:
            continue  # memoriae skips it silently: test_a_malformed_call_is_a_diagnostic
        assert calls_of(case["reply"]) == case["expected_calls"], case["test"]


def test_each_model_reply_gives_the_calls_memoriae_expects():
    checked = 0
    for reply in (entry["reply"] for entry in REPLIES):
        if reply in (BARE_KEY_OBJECT, MALFORMED, FRAGMENT):
            continue  # the differences, each asserted below
        assert calls_of(reply) == memoriae_expects(reply), reply
        checked += 1
    assert checked == 23 - 4 - 1 - 1  # 4 replies with the bare-key object, 1 malformed, 1 fragment


def test_memoriae_turns_a_bare_key_object_into_text_toolkiln_reads_the_object():
    assert sum(entry["reply"] == BARE_KEY_OBJECT for entry in REPLIES) == 4
    assert calls_of(BARE_KEY_OBJECT) == [{"tool": "finalResponse", "args": [{"result": "done"}]}]


def test_memoriae_drops_a_call_with_a_parenthesis_in_a_string_toolkiln_keeps_it():
    # The address its Wikipedia automation fetches for a title with a parenthesis in it.
    address = "https://en.wikipedia.org/wiki/Python_(programming_language)"
    reply = f'I will read the article.\n\n```tool\nreturn wget("{address}", 30000);\n```'
    assert calls_of(reply) == [{"tool": "wget", "args": [address, 30000]}]


def test_a_malformed_call_is_a_diagnostic_for_the_model_not_a_silent_skip():
    parsed = parse_tool_calls(MALFORMED)
    assert parsed.calls == ()
    (diagnostic,) = parsed.diagnostics
    assert (diagnostic.code, diagnostic.message) == ("E0901", "unexpected `syntax`")
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (2, 16)


def test_the_prompt_fragment_is_an_unclosed_block_not_a_call():
    parsed = parse_tool_calls(FRAGMENT)
    assert parsed.calls == ()
    assert [d.message for d in parsed.diagnostics] == ["the tool block is not closed"]


def memoriae_tool(definition: dict[str, Any]) -> PromptedTool:
    """One of memoriae's tool definitions as a prompted tool with the same signature."""
    types = {"string": "string", "number": "number"}
    properties = {p["name"]: {"type": types[p["type"]]} for p in definition["parameters"]}
    required = [p["name"] for p in definition["parameters"] if p["required"]]
    schema = {"type": "object", "properties": properties, "required": required}
    return PromptedTool(definition["name"], definition["description"], schema, lambda arguments: arguments)


def test_memoriae_calls_bind_to_its_own_signatures_and_the_bare_key_object_does_not():
    tools = {tool.name: tool for tool in map(memoriae_tool, DEFINITIONS)}
    assert sorted(tools) == ["finalResponse", "wget"]
    for case in CASES[:2]:  # the two cases that call wget and finalResponse
        for call in parse_tool_calls(case["reply"]).calls:
            bound = bind(call, tools)
            assert not isinstance(bound, Diagnostic), bound
            assert list(bound[1].values()) == list(call.arguments)
    # finalResponse(string responseFormat) "throws otherwise": memoriae let the object through
    # only because it had turned it into text; toolkiln says which argument is wrong.
    (call,) = parse_tool_calls(BARE_KEY_OBJECT).calls
    refused = bind(call, tools)
    assert isinstance(refused, Diagnostic) and refused.code == "E0904"
    assert "responseFormat" in refused.message
