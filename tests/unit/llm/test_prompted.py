"""The prompted-tool protocol: signatures and examples generated from JSON Schemas, arguments
bound and checked, and run_prompted_loop through ScriptedClient and the real HTTP fake server:
results fed back under the same system prompt, every problem fed back as a diagnostic, the end
through finalResponse() with a JSON answer, and a limit for a model that never finishes."""

from __future__ import annotations

import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from unit.llm.conftest import Make
from unit.llm.fake_llm_server import FakeLLMServer, Text

from toolkiln import Registry
from toolkiln.errors import RunError
from toolkiln.llm import LLMConfigError, LoopLimitReached, ScriptedClient, System, User
from toolkiln.llm.prompted import (
    PromptedTool,
    parse_tool_calls,
    registry_tools,
    run_prompted_loop,
    signature,
    tool_prompt,
    wget_tool,
)
from toolkiln.llm.prompted.binding import bind
from toolkiln.llm.prompted.signatures import examples

ADD = PromptedTool(
    "add",
    "Add two numbers.",
    {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number", "default": 0}},
        "required": ["a"],
    },
    lambda arguments: arguments["a"] + arguments.get("b", 0),
    returns="number",
)
RICH = PromptedTool(
    "ship",
    "Ship parcels.",
    {
        "type": "object",
        "properties": {
            "weights": {"type": "array", "items": {"type": "number"}, "description": "kilograms"},
            "zone": {"type": "string", "enum": ["eu", "world"]},
            "address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["city"],
            },
            "count": {"type": "integer", "minimum": 1, "maximum": 9},
            "express": {"type": "boolean"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["weights", "zone", "address"],
    },
    lambda arguments: arguments,
)


def fence(*lines: str) -> str:
    return "```tool\n" + "\n".join(lines) + "\n```"


def bound(text: str, *tools: PromptedTool) -> Any:
    (call,) = parse_tool_calls(fence(text)).calls
    return bind(call, {tool.name: tool for tool in tools})


# --- the prompt ------------------------------------------------------------------------------


def test_signatures_are_typescript_like_from_the_schema() -> None:
    assert signature(wget_tool()) == "wget(string uri, number timeoutMs): string"
    assert signature(ADD) == "add(number a, number b = 0): number"
    assert signature(RICH) == (
        'ship(number[] weights, "eu" | "world" zone, { city: string, zip?: string } address, '
        "number count = null, boolean express = null, string | null note = null): any"
    )


def test_the_prompt_has_jsdoc_and_three_examples_that_parse_and_bind() -> None:
    prompt = tool_prompt([ADD, RICH, wget_tool()])
    assert "```tool\nreturn functionName(firstArgument, secondArgument);\n```" in prompt
    assert "/**\n * Add two numbers.\n * @param {number} a\n * @param {number} b? (default 0)" in prompt
    assert " * @param {number} count? (an integer, 1 to 9)" in prompt
    for tool in (ADD, RICH, wget_tool()):
        shown = [line for line in prompt.splitlines() if line.startswith(f" * @example return {tool.name}(")]
        assert len(shown) >= 3
        for line in shown:
            found = bound(line.removeprefix(" * @example "), tool)
            assert isinstance(found, tuple), (line, found)


def test_a_tool_without_parameters_has_its_one_example() -> None:
    tool = PromptedTool("now", "The time.", {"type": "object", "properties": {}}, lambda _: "noon")
    assert examples(tool) == [()]
    assert "@example return now();" in tool_prompt([tool])


def test_a_description_cannot_close_the_comment() -> None:
    tool = PromptedTool("x", "Ends */ here", {"type": "object"}, lambda _: 1)
    assert " * Ends *\\/ here" in tool_prompt([tool])


def test_every_registry_tool_is_a_prompted_tool(tmp_path: Path) -> None:
    with Registry(tmp_path / "r", durable=False) as registry:
        registry.create(
            {
                "name": "shipping_cost",
                "description": "Shipping cost of a parcel.",
                "parameters": {
                    "weight_kg": {"type": "number", "description": "the weight"},
                    "express": {"type": "boolean", "default": False},
                },
                "logic": {"steps": [{"op": "return", "value": "weight_kg * 4 + (5 if express else 0)"}]},
                "examples": [
                    {"args": {"weight_kg": 2}, "expect": 8},
                    {"args": {"weight_kg": 1, "express": True}, "expect": 9},
                ],
            }
        )
        (tool,) = registry_tools(registry)
        prompt = tool_prompt([tool])
        assert "shipping_cost(number weight_kg, boolean | null express = false): any" in prompt
        shown = [line for line in prompt.splitlines() if "@example" in line]
        assert shown[:2] == [" * @example return shipping_cost(2);", " * @example return shipping_cost(1, true);"]
        assert len(shown) == 3
        for line in shown:
            found = bound(line.removeprefix(" * @example "), tool)
            assert isinstance(found, tuple)
            assert tool.run(found[1]).ok  # each example runs
        ran = tool.run({"weight_kg": Decimal("2.5"), "express": True})  # through Registry.invoke: an Outcome
        assert (ran.ok, ran.result, ran.version) == (True, Decimal("15.0"), 1)


def test_a_date_parameters_examples_are_iso_dates_that_run(tmp_path: Path) -> None:
    with Registry(tmp_path / "r", durable=False) as registry:
        registry.create(
            {
                "name": "days_left",
                "description": "Days until a date.",
                "parameters": {"due": {"type": "date"}, "sent": {"type": "datetime"}},
                "logic": {"steps": [{"op": "return", "value": "days_between(to_date(sent), due)"}]},
            }
        )
        (tool,) = registry_tools(registry)
        shown = [line for line in tool_prompt([tool]).splitlines() if "@example" in line]
        assert shown[0] == ' * @example return days_left("2026-01-31", "2026-01-31T09:30:00Z");'
        for line in shown:
            found = bound(line.removeprefix(" * @example "), tool)
            assert isinstance(found, tuple)
            assert tool.run(found[1]).ok  # each example is a valid date and runs


# --- binding ---------------------------------------------------------------------------------


def test_binding_positional_arguments() -> None:
    assert bound("add(2, 3)", ADD) == (ADD, {"a": 2, "b": 3})
    assert bound("add(2)", ADD) == (ADD, {"a": 2})
    assert bound("add(2, null)", ADD) == (ADD, {"a": 2})


@pytest.mark.parametrize(
    ("call", "code", "message"),
    [
        ("ad(1)", "E0903", "there is no tool `ad`"),
        ("add()", "E0904", "`add` needs `a`, its 1st argument"),
        ("add(1, 2, 3)", "E0904", "`add` takes 2 arguments, not 3"),
        ("add('x')", "E0904", "argument `a` (1st): 'x' is not of type 'number'"),
        ("add(1, true)", "E0904", "argument `b` (2nd): True is not of type 'number'"),
    ],
)
def test_binding_problems(call: str, code: str, message: str) -> None:
    found = bound(call, ADD)
    assert (found.code, found.message) == (code, message)
    assert found.hint in ("did you mean `add`?", "the signature is add(number a, number b = 0): number")


# --- the loop, scripted -------------------------------------------------------------------------


def test_a_conversation_to_its_final_answer_under_one_system_prompt() -> None:
    client = ScriptedClient(
        [
            "Adding.\n" + fence("return add(2, 3);", "return add(1.5, 1)"),
            fence("return finalResponse();"),
            'Here it is:\n```json\n{"answer": "5 and 2.5"}\n```',
        ]
    )
    result = run_prompted_loop(client, "You add numbers.", "2+3 and 1.5+1?", [ADD])
    assert result.answer == {"answer": "5 and 2.5"}
    assert result.turns == 3
    systems = {request.messages[0] for request in client.requests}
    assert len(systems) == 1
    (system,) = systems
    assert isinstance(system, System) and system.text.startswith("You add numbers.\n\nYou can call tools.")
    assert "finalResponse(): string" in system.text
    assert client.requests[1].messages[3] == User("return add(2, 3); returned:\n5\n\nreturn add(1.5, 1) returned:\n2.5")
    assert "matches this JSON Schema" in client.requests[2].messages[5].text
    assert all(request.tools == () for request in client.requests)  # no native tool calling


def test_a_malformed_call_goes_back_located_and_nothing_runs() -> None:
    ran: list[dict[str, Any]] = []
    spy = PromptedTool("add", "Add.", ADD.parameters, lambda arguments: ran.append(arguments) or 0)
    client = ScriptedClient(
        [
            fence("add(1)", "add(2,, 3)"),
            fence("finalResponse()"),
            '{"answer": "x"}',
        ]
    )
    run_prompted_loop(client, "", "go", [spy])
    feedback = client.requests[1].messages[-1].text
    assert feedback.startswith("error[E0901]: unexpected `,`\n --> your reply:3:7\n")
    assert "3 | add(2,, 3)\n  |       ^" in feedback
    assert feedback.endswith("Nothing of that reply was run. Fix every problem and send the calls again.")
    assert ran == []


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("The answer is 5.", "E0905"),
        (fence("addd(1)"), "E0903"),
        (fence("add('one')"), "E0904"),
        (fence("f(" + "[" * 10_000 + "]" * 10_000 + ")"), "E0902"),
        ("x" * 10_000_000, "E0902"),
    ],
)
def test_bad_replies_are_diagnostics_fed_back(reply: str, code: str) -> None:
    client = ScriptedClient([reply, fence("finalResponse()"), '{"answer": "ok"}'])
    result = run_prompted_loop(client, "", "go", [ADD])
    assert result.answer == {"answer": "ok"}
    assert client.requests[1].messages[-1].text.startswith(f"error[{code}]")
    assert len(client.requests[1].messages[-2].text) < 2_000_000  # a huge reply is not sent back whole


def test_a_reply_too_large_to_read_is_kept_as_its_start() -> None:
    huge = "x" * 5_000_000
    client = ScriptedClient([huge, fence("finalResponse()"), '{"answer": "ok"}'])
    run_prompted_loop(client, "", "go", [ADD])
    kept = client.requests[1].messages[2].text
    assert kept == "x" * 1_000 + "\n[a reply of 5,000,000 characters, cut here: too large to read]"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("{answer: 'ok'}", "the answer is not JSON: Expecting property name enclosed in double quotes"),
        ('{"answer": 5}', "the answer does not match the response format: at .answer: 5 is not of type 'string'"),
        ('{"reply": "ok"}', "at the top: 'answer' is a required property"),
        ('{"answer": NaN}', "the answer is not JSON: NaN is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "the answer is not JSON: nested too deeply"),
    ],
)
def test_a_final_answer_that_is_not_the_json_asked_for_goes_back(answer: str, message: str) -> None:
    client = ScriptedClient([fence("finalResponse()"), answer, '{"answer": "ok"}'])
    result = run_prompted_loop(client, "", "go", [ADD])
    assert result.answer == {"answer": "ok"}
    feedback = client.requests[2].messages[-1].text
    assert feedback.startswith("error[E0906]") and message in feedback


def test_the_response_format_is_the_callers() -> None:
    response_format = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "items": {"type": "array"}},
        "required": ["total"],
    }
    client = ScriptedClient([fence("finalResponse()"), '```json\n{"total": 12.50, "items": [1]}\n```'])
    result = run_prompted_loop(client, "", "go", [], response_format=response_format)
    assert result.answer == {"total": Decimal("12.50"), "items": [1]}
    assert '"required": [\n    "total"\n  ]' in client.requests[1].messages[-1].text


def test_tools_may_still_be_called_after_final_response() -> None:
    client = ScriptedClient([fence("finalResponse()"), fence("add(1, 1)"), fence("finalResponse()"), '{"answer": "2"}'])
    result = run_prompted_loop(client, "", "go", [ADD])
    assert (result.answer, result.turns) == ({"answer": "2"}, 4)
    assert client.requests[2].messages[-1].text == "add(1, 1) returned:\n2"


def test_a_tool_error_is_text_for_the_model() -> None:
    def fails(_: dict[str, Any]) -> Any:
        raise RunError("E0501", "division by zero", hint="check b first")

    tool = PromptedTool("div", "Divide.", {"type": "object", "properties": {}}, fails)
    client = ScriptedClient([fence("div()"), fence("finalResponse()"), '{"answer": "no"}'])
    run_prompted_loop(client, "", "go", [tool])
    assert client.requests[1].messages[-1].text.startswith("div() returned:\nfailed: ")
    assert "division by zero" in client.requests[1].messages[-1].text


def test_a_model_that_never_finishes_ends_at_the_limit() -> None:
    client = ScriptedClient([fence("add(1, 1)")] * 3 + ["never used"])
    with pytest.raises(LoopLimitReached, match="no final answer after 3 replies") as caught:
        run_prompted_loop(client, "", "go", [ADD], max_iterations=3)
    assert caught.value.turns == 3
    assert len(caught.value.transcript) == 2 + 3 * 2
    assert client.remaining == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_iterations": 0}, "max_iterations must be at least 1"),
        ({"response_format": {"type": "nonsense"}}, "response_format is not a JSON Schema"),
        ({"response_format": "json"}, "response_format must be a JSON Schema (a dict), not str"),
    ],
)
def test_bad_loop_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(LLMConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_prompted_loop(ScriptedClient([]), "", "go", [ADD], **options)


def test_a_tool_named_like_the_built_in_is_refused() -> None:
    clash = PromptedTool("finalResponse", "Mine.", {"type": "object"}, lambda _: 1)
    with pytest.raises(LLMConfigError, match="two prompted tools have the same name"):
        run_prompted_loop(ScriptedClient([]), "", "go", [clash])


# --- the loop over real HTTP ------------------------------------------------------------------


def test_the_loop_through_each_provider_over_http(make: Make, server: FakeLLMServer) -> None:
    server.script(
        Text("Let me add.\n" + fence("return add(40, 2);")),
        Text(fence("return finalResponse();")),
        Text('{"answer": "42"}'),
    )
    with make() as client:
        result = run_prompted_loop(client, "You add.", "40 + 2?", [ADD])
    assert result.answer == {"answer": "42"}
    assert result.usage.requests == 3
    systems = [_system_text(seen.body) for seen in server.seen]
    assert len(set(systems)) == 1 and "add(number a, number b = 0): number" in systems[0]
    last = server.seen[1].body["messages"][-1]["content"]
    assert (last if isinstance(last, str) else last[0]["text"]) == "return add(40, 2); returned:\n42"


def _system_text(body: dict[str, Any]) -> str:
    if "system" in body:  # Anthropic
        system = body["system"]
        return system if isinstance(system, str) else "".join(part["text"] for part in system)
    return str(body["messages"][0]["content"])


def test_wget_as_a_prompted_tool_end_to_end(make: Make, server: FakeLLMServer) -> None:
    """The model (over HTTP) fetches a page from a local server it is allowed to reach, and a
    metadata address it is not; both results come back as text."""

    class Page(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            hops = {"/hop": "http:x", "/to-bad-host": "http://xn--/"}  # each raised out of the loop
            if self.path in hops:
                self.send_response(302)
                self.send_header("Location", hops[self.path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = b"Rates: 4 EUR per kg"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    pages = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=pages.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{pages.server_address[1]}"
        url = f"{base}/rates"
        server.script(
            Text(fence(f'return wget("{url}", 2000);', 'return wget("http://169.254.169.254/latest", 500);')),
            Text(fence(f'return wget("{base}/hop", 2000);', f'return wget("{base}/to-bad-host", 2000);')),
            Text(fence("return finalResponse();")),
            Text('{"answer": "4 EUR per kg"}'),
        )
        with make() as client:
            result = run_prompted_loop(client, "", "Rates?", [wget_tool(allow=["127.0.0.1/32"])])
    finally:
        pages.shutdown()
        pages.server_close()
    assert result.answer == {"answer": "4 EUR per kg"}
    fed_back = result.transcript[3].text
    assert f'return wget("{url}", 2000); returned:\nRates: 4 EUR per kg' in fed_back
    assert 'return wget("http://169.254.169.254/latest", 500); returned:\nwget failed: [E0907] ' in fed_back
    assert "link-local" in fed_back
    redirected = result.transcript[5].text
    assert f'return wget("{base}/hop", 2000); returned:\nRates: 4 EUR per kg' in redirected  # to {base}/x
    assert f'return wget("{base}/to-bad-host", 2000); returned:\nwget failed: [E0908] {base}/to-bad-host redirects' in (
        redirected
    )


def test_pythons_true_false_none_in_a_call_are_read_as_their_one_meaning() -> None:
    # a certain repair (issue 33): no round trip for a model with Python habits
    (call,) = parse_tool_calls(fence('f(True, False, None, [None], {True: "key stays a name"})')).calls
    assert call.arguments == (True, False, None, [None], {"True": "key stays a name"})
