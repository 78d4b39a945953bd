"""agent_loop: native tool calling over a registry. The active tools and the meta-tools are
offered afresh each turn (a tool created in turn N is callable in N+1), failures come back to
the model as data, and a model that never stops calling tools ends at max_turns. Through
ScriptedClient and through the real HTTP fake server, in both providers' wire formats."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from unit.llm.conftest import Make
from unit.llm.fake_llm_server import KEY, Calls, Fail, FakeLLMServer, Raw, Text

from toolkiln import Registry
from toolkiln.cli import main
from toolkiln.llm import (
    LLMConfigError,
    LoopLimitReached,
    Reply,
    ScriptedClient,
    ToolCall,
    ToolResult,
    User,
    agent_loop,
)
from toolkiln.registry.names import META_TOOL_NAMES

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}
META = list(META_TOOL_NAMES)


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    with Registry(tmp_path / "r", durable=False) as reg:
        yield reg


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    return Reply(tool_calls=[ToolCall(f"c{index}", name, arguments) for index, (name, arguments) in enumerate(items)])


def offered(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.tools]


def results(transcript: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [json.loads(message.content) for message in transcript if isinstance(message, ToolResult)]


def test_a_tool_created_in_one_turn_is_callable_in_the_next(registry: Registry) -> None:
    client = ScriptedClient(
        [calls(("create_compute_tool", {"definition": DOUBLE})), calls(("double", {"x": 21})), "It is 42."]
    )
    lines: list[str] = []
    result = agent_loop(client, "Double 21, making a tool for it.", registry, progress=lines.append)
    assert (result.answer, result.turns, result.usage.requests) == ("It is 42.", 3, 3)
    assert offered(client.requests[0]) == META
    assert offered(client.requests[1]) == ["double", *META]
    first, second = results(result.transcript)
    assert first["ok"] and first["tool"]["created_by"] == "llm"
    assert second == {"ok": True, "result": 42}
    assert lines == ["turn 1: create_compute_tool -> ok", "turn 2: double -> ok"]
    assert registry.get("double").created_by == "llm"


def test_failures_come_back_to_the_model_as_data(registry: Registry) -> None:
    registry.create(DOUBLE)
    bad_json = ToolCall("c9", "double", {}, raw_arguments="{x: 1", arguments_error="Expecting property name")
    client = ScriptedClient(
        [
            calls(("double", {"x": "a"}), ("dubble", {"x": 1}), ("create_compute_tool", {"definition": {"name": 1}})),
            Reply(tool_calls=[bad_json]),
            "Sorry.",
        ]
    )
    lines: list[str] = []
    result = agent_loop(client, "go", registry, progress=lines.append)
    wrong_type, unknown, bad_definition, not_json = results(result.transcript)
    assert wrong_type["errors"][0]["code"] == "E0508"
    assert (unknown["errors"][0]["code"], unknown["errors"][0]["hint"]) == ("R0102", "did you mean `double`?")
    assert bad_definition["ok"] is False and bad_definition["errors"]
    assert not_json["errors"][0]["message"].startswith("the arguments of `double` are not a JSON object")
    assert all(message.is_error for message in result.transcript if isinstance(message, ToolResult))
    assert lines[0] == "turn 1: double -> failed: E0508 argument `x` must be a number, not 'a'"
    assert result.answer == "Sorry."


def test_without_meta_tools_only_the_registry_is_offered(registry: Registry) -> None:
    registry.create(DOUBLE)
    client = ScriptedClient([calls(("create_compute_tool", {"definition": DOUBLE | {"name": "triple"}})), "no"])
    result = agent_loop(client, "go", registry, include_meta=False)
    assert offered(client.requests[0]) == ["double"]
    (refused,) = results(result.transcript)
    assert refused["ok"] is False
    assert "triple" not in registry


def test_an_empty_registry_without_meta_tools_sends_no_tools(registry: Registry) -> None:
    client = ScriptedClient(["Hello."])
    assert agent_loop(client, [User("hi")], registry, include_meta=False).answer == "Hello."
    assert client.requests[0].tools == ()


def test_a_model_that_loops_forever_ends_at_max_turns(registry: Registry) -> None:
    client = ScriptedClient([calls(("list_custom_tools", {}))] * 50)
    with pytest.raises(LoopLimitReached, match="still calling tools after 4 turns") as caught:
        agent_loop(client, "go", registry, max_turns=4)
    assert caught.value.turns == 4 and len(client.requests) == 4
    assert len(caught.value.transcript) == 1 + 4 * 2


def test_max_turns_must_be_positive(registry: Registry) -> None:
    with pytest.raises(LLMConfigError, match="max_turns must be at least 1"):
        agent_loop(ScriptedClient([]), "go", registry, max_turns=0)


def test_over_http_in_both_wire_formats(make: Make, server: FakeLLMServer, registry: Registry) -> None:
    server.script(
        Calls([("create_compute_tool", {"definition": DOUBLE})]),
        Calls([("double", {"x": 4}), ("double", {"x": "four"})]),
        Text("8"),
    )
    with make() as client:
        result = agent_loop(client, "Double 4.", registry)
    assert result.answer == "8"
    assert [r["ok"] for r in results(result.transcript)] == [True, True, False]
    names = [_tool_names(seen.body) for seen in server.seen]
    assert names[0] == META and names[1] == ["double", *META]


def test_a_provider_that_keeps_calling_tools_over_http(make: Make, server: FakeLLMServer, registry: Registry) -> None:
    server.script(*[Calls([("list_custom_tools", {})]) for _ in range(3)])
    with make() as client, pytest.raises(LoopLimitReached):
        agent_loop(client, "go", registry, max_turns=3)
    assert server.hits == 3


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in body["tools"]]


# --- toolkiln ask -------------------------------------------------------------------------------


@pytest.fixture
def model_env(monkeypatch: pytest.MonkeyPatch, server: FakeLLMServer) -> FakeLLMServer:
    monkeypatch.setenv("TOOLKILN_LLM_PROVIDER", "openai")
    monkeypatch.setenv("TOOLKILN_LLM_BASE_URL", server.openai_url)
    monkeypatch.setenv("TOOLKILN_LLM_API_KEY", KEY)
    monkeypatch.setenv("TOOLKILN_LLM_MODEL", "test-model")
    return server


def test_ask_answers_on_stdout_with_progress_on_stderr(
    model_env: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model_env.script(
        Calls([("create_compute_tool", {"definition": DOUBLE})]), Calls([("double", {"x": 21})]), Text("42")
    )
    assert main(["ask", "Double 21.", "--registry", str(tmp_path / "r")]) == 0
    out, err = capsys.readouterr()
    assert out == "42\n"
    assert err == "turn 1: create_compute_tool -> ok\nturn 2: double -> ok\n"
    with Registry(tmp_path / "r") as registry:
        assert registry.get("double").created_by == "llm"


def test_ask_stops_at_max_turns_with_exit_1(
    model_env: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model_env.script(*[Calls([("list_custom_tools", {})]) for _ in range(2)])
    assert main(["ask", "go", "--registry", str(tmp_path / "r"), "--max-turns", "2"]) == 1
    err = capsys.readouterr().err
    assert "toolkiln: error: the model was still calling tools after 2 turns" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (Fail(400, "model `test-model` does not exist"), "does not exist"),
        (Raw(200, b"<html>gateway</html>", "text/html"), "not JSON"),
    ],
)
def test_ask_reports_a_failing_provider_with_exit_1(
    model_env: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], step: Any, said: str
) -> None:
    model_env.script(step)
    assert main(["ask", "go", "--registry", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert "toolkiln: error:" in err and said in err and "Traceback" not in err


def test_ask_without_a_model_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TOOLKILN_LLM_MODEL", raising=False)
    assert main(["ask", "go", "--registry", str(tmp_path / "r")]) == 2
    assert "the model is not configured" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["ask", "  "], ["ask", "go", "--max-turns", "0"], ["ask", "go", "--max-turns", "x"]])
def test_ask_usage_errors(model_env: FakeLLMServer, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        code = main(argv)
        raise SystemExit(code)
    assert exited.value.code == 2
    assert model_env.hits == 0


def test_openai_style_message_dicts_are_taken_as_a_conversation(registry: Registry) -> None:
    """What the OpenAI SDK's users have in hand (issue 25, item 6): on main "message 0 is a dict"."""
    registry.create(DOUBLE)
    history = [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": [{"type": "text", "text": "Double 2."}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "double", "arguments": '{"x": 2}'}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"ok": true, "result": 4}'},
        {"role": "user", "content": "Now 21."},
    ]
    client = ScriptedClient([calls(("double", {"x": 21})), "It is 42."])
    result = agent_loop(client, history, registry)
    assert result.answer == "It is 42."
    first = client.requests[0].messages
    assert [type(m).__name__ for m in first] == ["System", "User", "Assistant", "ToolResult", "User"]
    assert first[1].text == "Double 2." and first[2].tool_calls == (ToolCall("a", "double", {"x": 2}),)
    assert first[3] == ToolResult("a", '{"ok": true, "result": 4}')


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ({"role": "wizard", "content": "hi"}, "message 0: `role` is 'wizard'"),
        (
            {"role": "user", "content": [{"type": "image_url"}]},
            "message 0: `content` must be a string or a list of text parts",
        ),
        ({"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{"}}]}, "is not JSON"),
        ({"role": "tool", "content": "x"}, "needs `tool_call_id`"),
    ],
)
def test_a_dict_that_is_not_a_message_says_which_field(registry: Registry, message: dict, said: str) -> None:
    with pytest.raises(LLMConfigError, match="message 0") as raised:
        agent_loop(ScriptedClient(["x"]), [message], registry)
    assert said in str(raised.value)


def test_the_prompted_package_is_an_attribute_of_toolkiln_llm() -> None:
    # a new interpreter: in this one another test may have imported the subpackage already
    probe = "import toolkiln.llm; print(toolkiln.llm.prompted.run_prompted_loop.__name__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout == "run_prompted_loop\n", done.stderr
