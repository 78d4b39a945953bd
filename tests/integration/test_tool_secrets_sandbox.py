"""A script tool's declared secrets reach its bubblewrap sandbox as environment variables, and a
missing one refuses the tool before it runs (R0742)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkiln.errors import RunError
from toolkiln.registry.registry import Registry
from toolkiln.registry.secrets import KEY_ENV, SecretStore

pytestmark = pytest.mark.usefixtures("bwrap_installed")
VALUE = "wx-0123456789-secret"
ECHO_ENV = (  # the value's digest: the value itself would come back redacted
    "import hashlib, json, os\nkey = os.environ.get('WEATHER_API_KEY', '')\n"
    "print(json.dumps({'key': hashlib.sha256(key.encode()).hexdigest(), 'home': os.environ['HOME']}))\n"
)


@pytest.fixture
def reg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writable_folder: Path) -> Iterator[Registry]:
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(KEY_ENV, raising=False)
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        registry.create(
            {
                "kind": "script",
                "name": "weather",
                "description": "Echoes its key.",
                "runtime": "python",
                "body": ECHO_ENV,
                "secrets": ["WEATHER_API_KEY"],
            }
        )
        yield registry


def test_a_declared_secret_is_an_environment_variable_in_the_sandbox(reg: Registry) -> None:
    SecretStore(reg.path).set("WEATHER_API_KEY", VALUE)
    result = reg.run("weather", {})
    assert result["sandbox"] == "bubblewrap"
    assert result["output"] == {"key": hashlib.sha256(VALUE.encode()).hexdigest(), "home": "/tmp"}
    assert reg.get("weather").definition["secrets"] == ["WEATHER_API_KEY"]


def test_a_missing_secret_refuses_the_tool_before_it_runs(reg: Registry) -> None:
    with pytest.raises(RunError) as refused:
        reg.run("weather", {})
    assert refused.value.code == "R0742" and "WEATHER_API_KEY" in refused.value.message
    outcome = reg.invoke("weather", {}, principal="llm")
    assert not outcome.ok and outcome.errors[0].code == "R0742"


def test_output_and_errors_that_hold_the_value_are_redacted(reg: Registry) -> None:
    SecretStore(reg.path).set("WEATHER_API_KEY", VALUE)
    body = (
        "import os, sys\nkey = os.environ['WEATHER_API_KEY']\n"
        "print('the key is ' + key)\nsys.stderr.write(key)\nsys.exit(int(os.environ.get('TK_ARG_FAIL', '0')))\n"
    )
    reg.update("weather", {"body": body, "parameters": {"type": "object", "properties": {"fail": {"type": "integer"}}}})
    answered = reg.invoke("weather", {}, principal="llm")
    assert answered.ok and answered.result["output"] == "the key is [redacted:WEATHER_API_KEY]\n"
    assert answered.result["stderr"] == "[redacted:WEATHER_API_KEY]"
    failed = reg.invoke("weather", {"fail": 3}, principal="llm")
    assert not failed.ok and VALUE not in repr(failed.errors) and VALUE not in repr(failed.reply())
