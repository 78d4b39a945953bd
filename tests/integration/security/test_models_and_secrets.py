"""Red team: a model never reads a secret (issue 28, item 2). Through the agent loop with a model
on a local fake provider, a tool that prints its secret reaches the model as `[redacted:NAME]`;
through a real `toolkiln serve`, a model's tool that declares a secret runs only once a person
approved it, a model's change of it waits for approval again (a program that would print the
value encoded never runs unapproved), a definition holds names only, and an unsaved definition
tried through /tools/test gets no secret."""

from __future__ import annotations

import base64
import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_server_support import ServerProcess, make_token, make_tokens
from unit.llm.fake_llm_server import KEY, Calls, FakeLLMServer, Text

from toolkiln.llm import OpenAIChat, agent_loop
from toolkiln.registry.registry import Registry
from toolkiln.registry.secrets import SecretStore

pytestmark = pytest.mark.usefixtures("bwrap_installed")
VALUE = "wk-5150-the-weather-key-never-shown"
ENCODED = base64.b64encode(VALUE.encode()).decode()
PRINTS_IT = (
    "import os, sys\nkey = os.environ['WEATHER_API_KEY']\nprint('the key is ' + key)\nprint(key, file=sys.stderr)\n"
)
ENCODES_IT = "import base64, os\nprint(base64.b64encode(os.environ['WEATHER_API_KEY'].encode()).decode())\n"


def script(name: str, body: str, **extra: object) -> dict:
    return {
        "kind": "script",
        "name": name,
        "description": "Reads the weather key",
        "runtime": "python",
        "body": body,
        "secrets": ["WEATHER_API_KEY"],
        **extra,
    }


def test_a_tool_that_prints_its_secret_reaches_the_model_redacted(tmp_path: Path, writable_folder: Path) -> None:
    with Registry(tmp_path / "registry", durable=False) as registry, FakeLLMServer() as model:
        registry.create(script("weather", PRINTS_IT))  # a person's tool: active
        SecretStore(registry.path).set("WEATHER_API_KEY", VALUE)
        model.script(Calls([("weather", {})]), Text("done"))
        result = agent_loop(OpenAIChat(model.openai_url, KEY, "test-model"), "What is the key?", registry)
    told = json.dumps(model.seen[1].body)  # everything the model was sent after the call
    assert result.answer == "done" and "the key is [redacted:WEATHER_API_KEY]" in told
    assert VALUE not in told and VALUE not in json.dumps([str(message) for message in result.transcript])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerProcess]:
    registry = tmp_path / "registry"
    tokens = make_tokens(registry)
    tokens["model"] = make_token(registry, "agent", "write", "model")
    SecretStore(registry).set("WEATHER_API_KEY", VALUE)
    server = ServerProcess(registry)
    server.tokens = tokens  # type: ignore[attr-defined]
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


def test_a_models_tool_that_declares_a_secret_runs_only_as_a_person_approved_it(served: ServerProcess) -> None:
    seen: list[str] = []
    with served.client(served.tokens["model"]) as model, served.client(served.tokens["admin"]) as person:
        made = model.post("/api/v1/tools", json={"definition": script("weather", PRINTS_IT)})
        assert made.status_code == 201 and made.json()["status"] == "pending_approval", made.text
        unapproved = model.post("/api/v1/tools/weather/execute", json={"args": {}})
        assert unapproved.status_code == 409, unapproved.text
        assert person.post("/api/v1/tools/weather/approve", json={}).status_code == 200
        ran = model.post("/api/v1/tools/weather/execute", json={"args": {}})
        assert ran.status_code == 200 and "the key is [redacted:WEATHER_API_KEY]" in ran.text, ran.text
        changed = model.patch("/api/v1/tools/weather", json={"changes": {"body": ENCODES_IT}})
        assert changed.status_code == 200 and changed.json()["status"] == "pending_approval", changed.text
        again = model.post("/api/v1/tools/weather/execute", json={"args": {}})
        assert again.status_code == 409, again.text
        seen += [made.text, unapproved.text, ran.text, changed.text, again.text]
    assert not [text for text in [*seen, served.log.read_text()] if VALUE in text or ENCODED in text]


def test_a_definition_holds_names_only_and_an_unsaved_one_gets_no_secret(served: ServerProcess) -> None:
    with served.client(served.tokens["model"]) as model:
        valued = model.post(
            "/api/v1/tools", json={"definition": script("sly", PRINTS_IT, secrets={"WEATHER_API_KEY": "mine"})}
        )
        assert valued.status_code == 422 and valued.json()["code"] == "R0608", valued.text
        assert model.get("/api/v1/tools/sly").status_code == 404
        tried = model.post("/api/v1/tools/test", json={"definition": script("probe", ENCODES_IT), "args": {}})
    assert tried.status_code == 200 and tried.json()["ran"] is False, tried.text  # (a program never runs unsaved)
    assert VALUE not in tried.text and ENCODED not in tried.text
